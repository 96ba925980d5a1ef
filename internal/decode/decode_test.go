package decode

import (
	"bytes"
	"math"
	"testing"
)

// Sint32 keeps only the low 32 bits of the varint before it undoes the
// zigzag, as protobuf-go's consumeSint32 does
// (int32(DecodeZigZag(v & math.MaxUint32))): a sint32 sent as a varint with
// any of bits 32 to 63 set (an encoder that sign-extends, or hostile input)
// decodes to what protobuf-go decodes, not to the zigzag of all 64 bits.
func TestSint32(t *testing.T) {
	for _, c := range []struct {
		v    uint64
		want int32
	}{
		{0, 0}, {1, -1}, {2, 1}, {3, -2},
		{math.MaxUint32 - 1, math.MaxInt32}, {math.MaxUint32, math.MinInt32},
		{1<<32 | 2, 1}, // 64-bit zigzag: -2147483647
		{1<<32 | 3, -2},
		{0xffffffff00000004, 2},
		{math.MaxUint64, math.MinInt32},
	} {
		if got := Sint32(c.v); got != c.want {
			t.Errorf("Sint32(%#x) = %d, want %d", c.v, got, c.want)
		}
	}
}

// A value whose first and last 8 bytes, and entry, are those of a longer
// value copied before (it is that value's prefix) is decoded as it is, not
// as the longer one: copied compares the lengths before the words.
func TestFreshStringsPrefixOfSeen(t *testing.T) {
	f, st := GetFresh(1<<22, false)
	defer PutFresh(f)
	entry := func(b []byte) uint { return seenAt(b) & (seenSize - 1) }
	for m := 8; m <= 40; m++ {
		long := make([]byte, m+9)
		for i := range long {
			long[i] = 'a' + byte(i%26)
		}
		// Vary the long value's tail, past the prefix, until the two have one
		// entry: the prefix's bytes, and so its entry, stay as they are.
		for v := 0; entry(long) != entry(long[:m]); v++ {
			if v == 1<<16 {
				t.Fatalf("%d bytes: no longer value of the same entry found", m)
			}
			long[m+4], long[m+5] = byte(v), byte(v>>8)
		}
		st.String(bytes.Clone(long))
		if got := st.String(bytes.Clone(long[:m])); got != string(long[:m]) {
			t.Fatalf("prefix of %d bytes of a value seen before: decoded %q, want %q", m, got, long[:m])
		}
	}
}
