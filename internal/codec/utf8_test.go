package codec

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/grpcfast/grpcfast/internal/own"
	"github.com/grpcfast/grpcfast/internal/prototest"
)

var utf8Protos = map[string]string{
	"e.proto": `
edition = "2023";
package utf8test;
import "p2.proto";
import "p3.proto";
message E {
  string verify = 1;
  string none = 2 [features.utf8_validation = NONE];
  repeated string many = 3;
  map<string, string> kv = 4;
  map<string, E> tree = 5;
  E child = 6;
  E group = 7 [features.message_encoding = DELIMITED];
  P2 p2 = 8;
  P3 p3 = 9;
  oneof o {
    string one = 10;
    E onemsg = 11;
  }
  string far = 100000;
  bytes raw = 12;
  string mid = 20;
  E deep = 21;
  repeated P3 p3s = 300;
}
`,
	"n.proto": `
edition = "2023";
package utf8test;
import "p3.proto";
option features.utf8_validation = NONE;
message N {
  string s = 1;
  P3 p3 = 2;
  map<string, string> kv = 3;
}
message NoneOnly {
  string s = 1;
  repeated NoneOnly kids = 2;
}
`,
	"p2.proto": `
syntax = "proto2";
package utf8test;
import "p3.proto";
message P2 {
  optional string s = 1;
  optional group G = 2 {
    optional string gs = 3;
    optional P3 gp3 = 4;
  }
  optional P3 p3 = 5;
  repeated string many = 6;
}
message P2Only {
  optional string s = 1;
  optional P2Only next = 2;
}
`,
	"p3.proto": `
syntax = "proto3";
package utf8test;
message P3 {
  string s = 1;
  map<int32, string> m = 2;
  repeated P3 kids = 3;
}
`,
}

// fillStrings sets every field of m that can hold a string, down to depth
// levels of nested messages, two elements to every list and map. Each
// string is ok, except the one with index target in the order they are
// set, which is "bad@@"; every third has 150 more bytes. It counts the
// strings it sets in counter. Where ok is not 7-bit, it also sets every
// singular bytes field to bytes that are not UTF-8 (as a bytes field may
// hold): bytes above 0x7f before and after the bad string, in strings that
// are valid and in fields that are not checked.
func fillStrings(m protoreflect.Message, depth, target int, counter *int, ok string) {
	str := func() protoreflect.Value {
		*counter++
		s := ok
		if *counter-1 == target {
			s = "bad@@"
		}
		if *counter%3 == 0 {
			s += strings.Repeat("y", 150) // a length of two bytes
		}
		return protoreflect.ValueOfString(s)
	}
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() && (depth+i)%2 == 0 {
			continue // one member of each oneof, alternating by depth
		}
		switch {
		case fd.IsMap():
			mp := m.Mutable(fd).Map()
			for k := range 2 {
				var key protoreflect.MapKey
				if fd.MapKey().Kind() == protoreflect.StringKind {
					key = protoreflect.MapKey(protoreflect.ValueOfString(str().String() + string(rune('a'+k))))
				} else {
					key = protoreflect.ValueOfInt32(int32(k)).MapKey()
				}
				switch fd.MapValue().Kind() {
				case protoreflect.StringKind:
					mp.Set(key, str())
				case protoreflect.MessageKind:
					v := mp.NewValue()
					if depth > 0 {
						fillStrings(v.Message(), depth-1, target, counter, ok)
					}
					mp.Set(key, v)
				default:
					mp.Set(key, mp.NewValue())
				}
			}
		case fd.IsList():
			l := m.Mutable(fd).List()
			for range 2 {
				switch fd.Kind() {
				case protoreflect.StringKind:
					l.Append(str())
				case protoreflect.MessageKind, protoreflect.GroupKind:
					if depth > 0 {
						v := l.NewElement()
						fillStrings(v.Message(), depth-1, target, counter, ok)
						l.Append(v)
					}
				}
			}
		case fd.Kind() == protoreflect.StringKind:
			m.Set(fd, str())
		case fd.Kind() == protoreflect.BytesKind:
			if ok != "ok" {
				m.Set(fd, protoreflect.ValueOfBytes([]byte{0xc0, 0x80, 0xff}))
			}
		case fd.Message() != nil:
			if depth > 0 {
				fillStrings(m.Mutable(fd).Message(), depth-1, target, counter, ok)
			}
		}
	}
}

// TestUTF8CheckMatchesProtobufGo puts one invalid string in every place a
// string can be in messages of proto3, proto2 and editions types (maps,
// lists, oneofs, groups, delimited messages, large field numbers, nested
// messages of another syntax, utf8_validation NONE) and checks that the
// codec's check of the encoding fails exactly when protobuf-go refuses to
// decode it.
func TestUTF8CheckMatchesProtobufGo(t *testing.T) {
	files := prototest.Compile(t, utf8Protos)
	// The valid strings are 7-bit, or not: the check sweeps the input for
	// its first byte above 0x7f, and looks only at what holds it or follows.
	for _, ok := range []string{"ok", "ok \u00e9"} {
		t.Run(fmt.Sprintf("valid=%q", ok), func(t *testing.T) { testUTF8CheckMatches(t, files, ok) })
	}
}

func testUTF8CheckMatches(t *testing.T, files *protoregistry.Files, ok string) {
	for _, name := range []protoreflect.FullName{"utf8test.E", "utf8test.N", "utf8test.P2", "utf8test.P3", "utf8test.NoneOnly", "utf8test.P2Only"} {
		md := prototest.FindMessage(t, files, name)
		counter := 0
		fillStrings(dynamicpb.NewMessage(md), 2, -1, &counter, ok)
		rejected := 0
		step := 1
		if own.Checked && counter > 100 {
			step = 7 // the race detector makes this slow; the plain run covers all
		}
		for target := 0; target < counter; target += step {
			m := dynamicpb.NewMessage(md)
			n := 0
			fillStrings(m, 2, target, &n, ok)
			b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
			if err != nil {
				t.Fatal(err)
			}
			if bytes.Count(b, []byte("@@")) != 1 {
				t.Fatalf("%s, string %d: marker found %d times", name, target, bytes.Count(b, []byte("@@")))
			}
			// Invalid bytes in the middle of the string, as its last byte
			// (the first byte above 0x7f that a sweep finds, last of the
			// value that holds it), and a lead byte before a 7-bit one.
			for _, bad := range [][]byte{{0xff, 0xfe}, {'a', 0xff}, {0xc3, '('}} {
				b := bytes.Replace(b, []byte("@@"), bad, 1)
				stdErr := proto.Unmarshal(b, dynamicpb.NewMessage(md))
				err = checkUTF8(md, b)
				if (err == nil) != (stdErr == nil) {
					t.Errorf("%s, string %d of %d, % x: codec check: %v; protobuf-go: %v", name, target, counter, bad, err, stdErr)
				}
				if stdErr != nil && bad[0] == 0xff {
					rejected++
				}
			}
		}
		t.Logf("%s: %d strings, %d must be valid UTF-8", name, counter, rejected)
		if got, want := newUTF8Plan(md) != nil, rejected > 0; got != want {
			t.Errorf("%s: ChecksUTF8 = %v, want %v", name, got, want)
		}
	}
}

// checkUTF8 checks b, the encoding of a message of type md, as the codec
// does after encoding it.
func checkUTF8(md protoreflect.MessageDescriptor, b []byte) error {
	if p := newUTF8Plan(md); p != nil {
		return p.check(b)
	}
	return nil
}

// TestUTF8CheckLastFieldFarNumber: a string field whose number takes a tag
// of more than one byte, and that ends the encoding (of the message, or of
// a nested one), is checked as any other: invalid UTF-8 in it is refused,
// as protobuf-go refuses to decode it.
func TestUTF8CheckLastFieldFarNumber(t *testing.T) {
	files := prototest.Compile(t, utf8Protos)
	md := prototest.FindMessage(t, files, "utf8test.E")
	str := func(num protowire.Number, s string) []byte {
		return protowire.AppendString(protowire.AppendTag(nil, num, protowire.BytesType), s)
	}
	for _, num := range []protowire.Number{20, 100000} { // E.mid, E.far
		for _, b := range [][]byte{
			str(num, "a\xff"),
			append(str(1, "ok"), str(num, "a\xff")...),
			protowire.AppendBytes(protowire.AppendTag(nil, 6, protowire.BytesType), str(num, "a\xff")), // in E.child
		} {
			if proto.Unmarshal(b, dynamicpb.NewMessage(md)) == nil {
				t.Fatalf("field %d, % x: protobuf-go accepts it", num, b)
			}
			if err := checkUTF8(md, b); err == nil {
				t.Errorf("field %d, % x: the codec's check accepts invalid UTF-8", num, b)
			}
		}
	}
}

// TestUTF8CheckGroupAtNonGroupField: a group whose number is that of a
// string field or of a message field that is not a group (which
// protobuf-go keeps as an unknown field, and so may come back to be
// encoded) is skipped by the check, as protobuf-go does not check it:
// neither a panic nor an error for what is in it.
func TestUTF8CheckGroupAtNonGroupField(t *testing.T) {
	files := prototest.Compile(t, utf8Protos)
	md := prototest.FindMessage(t, files, "utf8test.E")
	group := func(num protowire.Number, body []byte) []byte {
		b := protowire.AppendTag(nil, num, protowire.StartGroupType)
		return protowire.AppendTag(append(b, body...), num, protowire.EndGroupType)
	}
	bad := protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), "a\xff") // E.verify
	for _, b := range [][]byte{
		group(1, nil),  // at E.verify, a string
		group(20, nil), // at E.mid, a string with a tag of two bytes
		group(6, bad),  // at E.child, a message
		group(21, bad), // at E.deep, a message with a tag of two bytes
	} {
		if err := proto.Unmarshal(b, dynamicpb.NewMessage(md)); err != nil {
			t.Fatalf("% x: protobuf-go: %v", b, err)
		}
		if err := checkUTF8(md, b); err != nil {
			t.Errorf("% x: the codec's check: %v; protobuf-go accepts it", b, err)
		}
	}
}
