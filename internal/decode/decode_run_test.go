package decode

import (
	"bytes"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
)

// RunUpTo's path for a tag of one byte and the bytes wire type counts what
// its general path counts.
func TestRunBytes(t *testing.T) {
	const tag = 6<<3 | 2
	general := func(b []byte, limit int) int {
		n := 0
		for len(b) > 0 && n < limit {
			num, typ, i := protowire.ConsumeTag(b)
			if i < 0 || protowire.EncodeTag(num, typ) != tag || b[0] != tag {
				return n
			}
			_, j := protowire.ConsumeBytes(b[i:])
			if j < 0 {
				return n
			}
			b = b[i+j:]
			n++
		}
		return n
	}
	for name, b := range runInputs() {
		in := append([]byte{tag}, b...)
		for _, limit := range []int{0, 1, 2, MaxRun} {
			if got, want := RunUpTo(tag, in, limit), general(in, limit); got != want {
				t.Errorf("%s, limit %d: RunUpTo = %d, want %d", name, limit, got, want)
			}
		}
	}
}

// RunUpTo counts, for a tag of any wire type and of one byte or more, the
// fields of exactly that tag that follow one another, up to limit and no
// further: what a field-by-field walk with protowire counts. A field of
// another tag, or of the same field with another wire type, ends the run,
// as does a value that does not end within the input (a length that
// reaches exactly the input's end is within it). Varints counts the bytes
// that end a varint.
func TestRunUpTo(t *testing.T) {
	ref := func(tag uint64, b []byte, limit int) int {
		n := 0
		for len(b) > 0 && n < limit {
			num, typ, i := protowire.ConsumeTag(b)
			if i < 0 || protowire.EncodeTag(num, typ) != tag || typ == protowire.StartGroupType {
				return n
			}
			j := protowire.ConsumeFieldValue(num, typ, b[i:])
			if j < 0 {
				return n
			}
			b = b[i+j:]
			n++
		}
		return n
	}
	long := bytes.Repeat([]byte{'y'}, 200) // a length of two bytes
	var inputs [][]byte
	for _, num := range []protowire.Number{1, 15, 16, 2047, 1 << 20} { // tags of 1, 1, 2, 2 and 4 bytes
		for _, typ := range []protowire.Type{protowire.VarintType, protowire.Fixed32Type, protowire.Fixed64Type, protowire.BytesType} {
			field := func(b []byte, num protowire.Number, typ protowire.Type, v int) []byte {
				b = protowire.AppendTag(b, num, typ)
				switch typ {
				case protowire.VarintType:
					return protowire.AppendVarint(b, uint64(v)<<40)
				case protowire.Fixed32Type:
					return protowire.AppendFixed32(b, uint32(v))
				case protowire.Fixed64Type:
					return protowire.AppendFixed64(b, uint64(v))
				}
				return protowire.AppendBytes(b, long[:v%len(long)])
			}
			var run []byte
			for v := range 4 {
				run = field(run, num, typ, 150+v)
			}
			other := protowire.Type(protowire.VarintType)
			if typ == protowire.VarintType {
				other = protowire.BytesType
			}
			inputs = append(inputs,
				run,
				run[:len(run)-1], // the last value cut short
				field(bytes.Clone(run), num+1, typ, 1),
				field(bytes.Clone(run), num, other, 1),
				append(bytes.Clone(run), run...),
			)
		}
	}
	for _, b := range inputs {
		tag, _ := protowire.ConsumeVarint(b) // the run's own tag
		for _, limit := range []int{0, 1, 3, 4, 5, MaxRun} {
			if got, want := RunUpTo(tag, b, limit), ref(tag, b, limit); got != want {
				t.Errorf("tag %#x, %x, limit %d: RunUpTo = %d, want %d", tag, b, limit, got, want)
			}
		}
	}
	for _, c := range []struct {
		b    []byte
		want int
	}{{nil, 0}, {[]byte{1, 0x80, 1, 0x7f}, 3}, {[]byte{0x80, 0x80}, 0}, {[]byte{0x81, 0xff, 0x80}, 0}} {
		if got := Varints(c.b); got != c.want {
			t.Errorf("Varints(%x) = %d, want %d", c.b, got, c.want)
		}
	}
}
