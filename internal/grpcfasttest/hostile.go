package grpcfasttest

import (
	"math/big"

	"google.golang.org/protobuf/encoding/protowire"
)

// Builders of hostile input: tags, nesting, field numbers past the limits.

// Nested returns leaf wrapped in len(tags) length-delimited fields, the
// Tag of the outermost first, in one pass (no quadratic copying).
func Nested(tags [][]byte, leaf []byte) []byte {
	n := len(tags)
	payload := make([]int, n) // payload[i]: bytes inside the field of tags[i]
	l := len(leaf)
	size := l
	for i := n - 1; i >= 0; i-- {
		payload[i] = l
		l = len(tags[i]) + protowire.SizeVarint(uint64(l)) + l
		size = l
	}
	b := make([]byte, 0, size)
	for i := range n {
		b = append(b, tags[i]...)
		b = protowire.AppendVarint(b, uint64(payload[i]))
	}
	return append(b, leaf...)
}

// RepeatTags returns depth tags cycling through pattern.
func RepeatTags(depth int, Pattern ...[]byte) [][]byte {
	tags := make([][]byte, depth)
	for i := range tags {
		tags[i] = Pattern[i%len(Pattern)]
	}
	return tags
}

func Tag(num protowire.Number, typ protowire.Type) []byte {
	return protowire.AppendTag(nil, num, typ)
}

// BigTag encodes num<<3|typ as a varint of as many bytes as it needs, up to
// the 70 bits of a 10-byte varint: field numbers of 2^61 and more set bits
// beyond the 64th, which vtprotobuf drops.
func BigTag(num *big.Int, typ protowire.Type) []byte {
	v := new(big.Int).Lsh(num, 3)
	v.Or(v, big.NewInt(int64(typ)))
	var b []byte
	for {
		low := byte(new(big.Int).And(v, big.NewInt(0x7f)).Int64())
		v.Rsh(v, 7)
		if v.Sign() == 0 {
			return append(b, low)
		}
		b = append(b, low|0x80)
	}
}

func Pow2(n uint, plus int64) *big.Int {
	x := new(big.Int).Lsh(big.NewInt(1), n)
	return x.Add(x, big.NewInt(plus))
}
