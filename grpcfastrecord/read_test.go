package grpcfastrecord_test

import (
	"bytes"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast/grpcfastrecord"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

// writeRequests writes data as the requests file of method Unary in a new
// corpus and returns the corpus and the file's path.
func writeRequests(t *testing.T, data []byte) (dir, path string) {
	t.Helper()
	dir = t.TempDir()
	m := filepath.Join(dir, service, "Unary")
	if err := os.MkdirAll(m, 0o700); err != nil {
		t.Fatal(err)
	}
	path = filepath.Join(m, grpcfastrecord.RequestsFile)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return dir, path
}

// delimit frames each message body with its length, as the recorder does.
func delimit(bodies ...[]byte) []byte {
	var b []byte
	for _, body := range bodies {
		b = protowire.AppendBytes(b, body)
	}
	return b
}

// marshal encodes m deterministically (maps in key order).
func marshal(t *testing.T, m proto.Message) []byte {
	t.Helper()
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestReadHostileFraming checks that a corpus whose framing is broken, as
// another user or a damaged copy could leave it, gives an error naming the
// file, the message and where it starts, and never allocates what a length
// prefix claims before the bytes are there.
func TestReadHostileFraming(t *testing.T) {
	good := delimit(marshal(t, &kinds.Rich{Name: "ok"}))
	for _, tc := range []struct {
		name string
		data []byte
		want string // in the error, after the file's name
		more string // later in the error (protobuf-go's errors vary the space after "proto:")
	}{
		{"truncated varint", []byte{0x80}, ": message 0: its length prefix at byte 0: unexpected EOF", ""},
		{"truncated varint after a message", append(good[:len(good):len(good)], 0xff, 0xff), ": message 1: its length prefix at byte 5: unexpected EOF", ""},
		{"varint overflow", bytes.Repeat([]byte{0xff}, 11), ": message 0: its length prefix at byte 0: proto:", "variable length integer overflow"},
		{"varint overflow in its 10th byte", append(bytes.Repeat([]byte{0xff}, 9), 0x02), ": message 0: its length prefix at byte 0: proto:", "variable length integer overflow"},
		{"length past the end", append(protowire.AppendVarint(nil, 7), 1, 2, 3), ": message 0: length 7 at byte 0, but the file ends 3 bytes into the message", ""},
		{"1 GiB claimed, 3 bytes there", append(protowire.AppendVarint(nil, 1<<30), 1, 2, 3), ": message 0: length 1073741824 at byte 0, but the file ends 3 bytes into the message", ""},
		{"more than 1 GiB", append(good[:len(good):len(good)], protowire.AppendVarint(nil, 1<<30+1)...), ": message 1: length 1073741825 at byte 5 is more than the 1073741824 bytes a message may have", ""},
		{"2^64-1", append(protowire.AppendVarint(nil, 1<<64-1), 1), ": message 0: length 18446744073709551615 at byte 0 is more than the 1073741824 bytes a message may have", ""},
		{"garbage body", delimit([]byte{0xff, 0xff}), ": message 0: its 2 bytes at byte 1: proto:", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, path := writeRequests(t, tc.data)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			got, err := grpcfastrecord.Read(dir, service, "Unary", true, newRich)
			runtime.ReadMemStats(&after)
			if err == nil || !strings.HasPrefix(err.Error(), "grpcfastrecord: "+path+tc.want) || !strings.Contains(err.Error(), tc.more) {
				t.Errorf("Read: %v, %v; want an error starting %q, with %q", got, err, "grpcfastrecord: "+path+tc.want, tc.more)
			}
			if got != nil {
				t.Errorf("Read returned %d messages with its error, want none", len(got))
			}
			// A length prefix of 1 GiB over 3 bytes must not cost 1 GiB. The
			// bound leaves room for what the runtime and the test allocate.
			if n := after.TotalAlloc - before.TotalAlloc; n > 8<<20 {
				t.Errorf("Read allocated %d bytes for a file of %d", n, len(tc.data))
			}
		})
	}
}

// splitAndDecode is the reference for TestReadRejectsWhatProtobufRejects:
// it frames data with protowire and decodes each message with proto.Unmarshal
// into a new message of newMsg's type. ok is false if either rejects data.
func splitAndDecode(data []byte, newMsg func() proto.Message) (msgs []proto.Message, ok bool) {
	for len(data) > 0 {
		body, n := protowire.ConsumeBytes(data)
		if n < 0 {
			return nil, false
		}
		m := newMsg()
		if proto.Unmarshal(body, m) != nil {
			return nil, false
		}
		msgs = append(msgs, m)
		data = data[n:]
	}
	return msgs, true
}

// TestReadRejectsWhatProtobufRejects replays hostile message bodies and
// random garbage: Read accepts a file exactly when framing it with
// protowire and decoding each message with proto.Unmarshal does, with the
// same messages, and its errors name the file.
func TestReadRejectsWhatProtobufRejects(t *testing.T) {
	// 10001 nested Decodable.child, one more than protobuf-go's recursion
	// limit allows, and 9999.
	nest := func(depth int) []byte {
		var b []byte
		for range depth {
			b = protowire.AppendBytes(protowire.AppendTag(nil, 29, protowire.BytesType), b)
		}
		return b
	}
	newDecodable := func() proto.Message { return new(kinds.Decodable) }
	type input struct {
		name   string
		data   []byte
		newMsg func() proto.Message
	}
	inputs := []input{
		{"valid", delimit(marshal(t, &kinds.Rich{Name: "a", Inners: []*kinds.Inner{{Label: "x"}}}), nil, marshal(t, &kinds.Rich{Id: 7})), newRich},
		{"unknown field", delimit([]byte{0xf8, 0x07, 0x01}), newRich},
		{"truncated tag", delimit([]byte{0xff, 0xff}), newRich},
		{"field 0", delimit([]byte{0x00, 0x01}), newRich},
		{"truncated string", delimit([]byte{0x12, 0x05, 'a'}), newRich},
		{"invalid UTF-8 in a proto3 string", delimit([]byte{0x12, 0x02, 0xff, 0xfe}), newRich},
		{"truncated nested message", delimit([]byte{0x42, 0x02, 0x0a, 0x05}), newRich},
		{"group start without end", delimit([]byte{0x0b}), newRich},
		{"group end without start", delimit([]byte{0x0c}), newRich},
		{"wrong wire type", delimit([]byte{0x15, 0, 0, 0, 0}), newRich},
		{"depth 9999", delimit(nest(9999)), newDecodable},
		{"depth 10001", delimit(nest(10001)), newDecodable},
	}
	rng := rand.New(rand.NewPCG(39, 39))
	for i := range 300 {
		// Random framing over random bytes, and valid framing over random
		// bodies, which mostly reach the decoder.
		var data []byte
		if i%2 == 0 {
			data = make([]byte, rng.IntN(40))
			for j := range data {
				data[j] = byte(rng.UintN(256))
			}
		} else {
			var bodies [][]byte
			for range rng.IntN(4) {
				b := make([]byte, rng.IntN(12))
				for j := range b {
					b[j] = byte(rng.UintN(256))
				}
				bodies = append(bodies, b)
			}
			data = delimit(bodies...)
		}
		inputs = append(inputs, input{"random", data, newRich})
	}
	accepted, rejected := 0, 0
	for i, in := range inputs {
		dir, path := writeRequests(t, in.data)
		got, err := grpcfastrecord.Read(dir, service, "Unary", true, in.newMsg)
		want, ok := splitAndDecode(in.data, in.newMsg)
		if !ok {
			rejected++
			if err == nil || !strings.HasPrefix(err.Error(), "grpcfastrecord: "+path+": message ") {
				t.Errorf("input %d (%s) %x: Read: %d messages, %v; want an error naming the file, as protobuf-go rejects it", i, in.name, in.data, len(got), err)
			}
			continue
		}
		accepted++
		if err != nil {
			t.Errorf("input %d (%s) %x: Read: %v; protobuf-go accepts it", i, in.name, in.data, err)
			continue
		}
		if len(got) != len(want) {
			t.Errorf("input %d (%s) %x: %d messages, want %d", i, in.name, in.data, len(got), len(want))
			continue
		}
		for j := range got {
			if !proto.Equal(got[j], want[j]) {
				t.Errorf("input %d (%s) %x: message %d is %v, want %v", i, in.name, in.data, j, got[j], want[j])
			}
		}
	}
	// The inputs must exercise both outcomes, or the comparison proves little.
	if accepted < 20 || rejected < 20 {
		t.Errorf("%d inputs accepted and %d rejected; want at least 20 of each", accepted, rejected)
	}
}
