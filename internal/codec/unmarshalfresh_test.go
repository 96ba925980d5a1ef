package codec_test

import (
	"encoding/hex"
	"testing"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/testprotos/proto2"
	"google.golang.org/protobuf/proto"
)

// TestRequiredChecked: a generated decoder leaves required fields to the
// end of the decode, as protobuf-go does: missing in one occurrence of a
// nested message and present in another that merges into it is accepted;
// missing from the whole tree is rejected; and what the linked protobuf-go
// decides for a message that lacks a required field only in a oneof's
// message, is decided the same, fresh and into slots, whole and split.
func TestRequiredChecked(t *testing.T) {
	c := grpcfast.NewCodec()
	const oracle = -1 // accepted as the linked protobuf-go decides
	for _, tc := range []struct {
		name string
		hex  string
		ok   int
	}{
		{"top-level id missing", "1a020801", 0},
		{"next without id, then with it", "3001" + "3a020801" + "3a023005", 1},
		{"next without id", "3001" + "3a020801", 0},
		{"map value without id", "3001" + "22050a01611200", 0},
		{"map value missing: an empty message without id", "3001" + "22030a0161", 0},
		// protobuf-go (v1.36) checks the required fields of a message in a
		// oneof only when it is the oneof's first field, or when another
		// part of the decode lacked one: sub is choice's second field.
		{"oneof sub without id", "3001" + "6200", oracle},
		{"oneof sub without id, unknown and packed fields in it", "3001" + "62070a016112023001", oracle},
		{"oneof sub without id, next without id then with it", "3001" + "3a020801" + "3a023005" + "6200", oracle},
		{"oneof sub with id", "3001" + "62023005", 1},
		{"oneof sub without id, in a next without id", "3001" + "3a04" + "6202" + "3a00", 0},
	} {
		b, _ := hex.DecodeString(tc.hex)
		want := tc.ok == 1
		if tc.ok == oracle {
			want = proto.Unmarshal(b, &proto2.Entries{}) == nil
		}
		copied, plain := grpcfasttest.NewCopySlot[proto2.Entries](), grpcfasttest.NewPlainSlot[proto2.Entries]()
		for cut := 0; cut <= len(b); cut++ {
			m := &proto2.Entries{}
			err := c.Unmarshal(grpcfasttest.SliceAt(b, cut), m)
			grpcfasttest.CheckOracle(t, b, m, err)
			if (err == nil) != want {
				t.Fatalf("%s, split at %d: %v, want accepted: %v", tc.name, cut, err, want)
			}
			for _, s := range []*grpcfasttest.CopySlot[proto2.Entries]{copied, plain} {
				s.Reset()
				_, err := s.Decode(c, grpcfasttest.SliceAt(b, cut))
				grpcfasttest.CheckOracle(t, b, s.Msg(), err)
			}
		}
	}
}
