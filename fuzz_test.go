package grpcfast_test

import (
	"testing"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

// FuzzUnmarshal decodes arbitrary input into a Rich whole and split into
// pieces at fuzzer-chosen points. Both must fail or succeed together, with
// the same error, and succeed with the same message, also when decoded into
// a reused message that held other contents; every scratch buffer must go
// back to the pool.
//
//	go test -run='^$' -fuzz=FuzzUnmarshal -fuzztime=10s .
func FuzzUnmarshal(f *testing.F) {
	for _, m := range []*kinds.Rich{
		{},
		fullRich(0),
		fullRich(40),
		fullRich(300),
		{Data: pattern(200), Words: []string{"a", "b"}},
		{Choice: &kinds.Rich_Raw{Raw: pattern(20)}, Maybe: []byte{}},
	} {
		b, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint16(len(b)/2), uint16(0), uint8(0))
		f.Add(b, uint16(3), uint16(len(b)-2), uint8(5))
		f.Add(b[:len(b)*2/3], uint16(len(b)/3), uint16(0), uint8(0)) // truncated
		garbled := append([]byte{}, b...)
		if len(garbled) > 10 {
			garbled[len(garbled)/2] ^= 0xff
			garbled[len(garbled)/3] = 0x80
		}
		f.Add(garbled, uint16(len(b)/2), uint16(len(b)/3), uint8(1))
	}
	for _, b := range malformed() {
		f.Add(b, uint16(len(b)/2), uint16(1), uint8(0))
	}
	// An unknown group, valid and nested, which UnmarshalVT skips.
	f.Add([]byte{0xa3, 0x06, 0x08, 0x01, 0xab, 0x06, 0xac, 0x06, 0xa4, 0x06, 0x08, 0x05}, uint16(3), uint16(7), uint8(0))

	// Found by fuzzing: a packed varint that runs past the end of its field,
	// which a single UnmarshalVT accepts by reading into the next field.
	f.Add([]byte("*\x01\xff0"), uint16(204), uint16(38), uint8(0))

	pool := newCountingPool(grpcfast.NewBufferPool())
	c := grpcfast.NewCodec(grpcfast.WithBufferPool(pool))
	f.Fuzz(func(t *testing.T, b []byte, cut1, cut2 uint16, every uint8) {
		whole := &kinds.Rich{}
		errWhole := c.Unmarshal(mem.BufferSlice{mem.SliceBuffer(b)}, whole)

		var cuts []int
		if every > 0 {
			// Many small pieces, as a worst case.
			for i := int(every); i < len(b); i += int(every) {
				cuts = append(cuts, i)
			}
		} else if len(b) > 0 {
			c1, c2 := int(cut1)%(len(b)+1), int(cut2)%(len(b)+1)
			cuts = []int{min(c1, c2), max(c1, c2)}
		}
		for _, into := range []*kinds.Rich{{}, fullRich(500)} {
			errPieces := c.Unmarshal(sliceAt(b, cuts...), into)
			if (errWhole == nil) != (errPieces == nil) {
				t.Fatalf("whole: %v; in pieces at %v: %v", errWhole, cuts, errPieces)
			}
			if errWhole != nil {
				if errWhole.Error() != errPieces.Error() {
					t.Fatalf("whole: %v; in pieces at %v: %v", errWhole, cuts, errPieces)
				}
				continue
			}
			if !proto.Equal(whole, into) {
				t.Fatalf("in pieces at %v: decoded\n%v\nwhole:\n%v", cuts, into, whole)
			}
		}
		pool.check(t, "scratch buffers")
	})
}
