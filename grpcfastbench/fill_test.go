package grpcfastbench_test

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/linker"
	"github.com/grpcfast/grpcfast/grpcfastbench"
	"github.com/grpcfast/grpcfast/internal/testprotos/editions"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
	"github.com/grpcfast/grpcfast/internal/testprotos/otlp"
	"github.com/grpcfast/grpcfast/internal/testprotos/proto2"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

// fillDepth mirrors the depth Fill documents: message fields more than 3
// levels below the filled message are left unset.
const fillDepth = 3

var fillProtos = map[string]string{
	"fill/p3.proto": `
syntax = "proto3";
package filltest;
import "google/protobuf/any.proto";
import "google/protobuf/struct.proto";
import "google/protobuf/timestamp.proto";
import "google/protobuf/duration.proto";
import "google/protobuf/empty.proto";
import "google/protobuf/field_mask.proto";
import "google/protobuf/wrappers.proto";

enum E { E_ZERO = 0; E_ONE = 1; E_TWO = 2; }
enum OnlyZero { ONLY_ZERO = 0; }

message Self {
  Self next = 1;
  repeated Self kids = 2;
  int32 n = 3;
  map<string, Self> byname = 4;
  oneof o { Self one = 5; int32 alt = 6; }
}
message A { B b = 1; string s = 2; repeated B bs = 3; }
message B { A a = 1; bytes d = 2; }
message Val { string v = 1; int32 n = 2; }
message Maps {
  map<int32, Val> i32 = 1;
  map<int64, Val> i64 = 2;
  map<uint32, Val> u32 = 3;
  map<uint64, Val> u64 = 4;
  map<sint32, Val> s32 = 5;
  map<sint64, Val> s64 = 6;
  map<fixed32, Val> f32 = 7;
  map<fixed64, Val> f64 = 8;
  map<sfixed32, Val> sf32 = 9;
  map<sfixed64, Val> sf64 = 10;
  map<bool, Val> b = 11;
  map<string, Val> s = 12;
  map<int32, bytes> ib = 13;
  map<bool, string> bs = 14;
  map<string, E> se = 15;
  map<uint64, double> ud = 16;
}
message OnlyInts { repeated int32 xs = 1; }
message NestedInts { OnlyInts o = 1; bool flag = 2; }
message NoFields {}
message Shaped { string resource_name = 1; int64 offset = 2; bytes data = 3; }
message Tree { string schema_url = 1; repeated Branch branches = 2; }
message Branch { string name = 1; repeated Twig twigs = 2; }
message Twig { string key = 1; int64 value = 2; }
message Outer { Mid mid = 1; int32 n = 2; }
message Mid { Leaf leaf = 1; }
message Leaf { bytes b = 1; }
message Outer2 { Mid mid = 1; }
message Deep { D1 d = 1; }
message D1 { D2 d = 1; }
message D2 { D3 d = 1; }
message D3 { D4 d = 1; int32 x = 2; }
message D4 { int32 y = 1; }
message Wkt {
  google.protobuf.Any any = 1;
  google.protobuf.Struct st = 2;
  google.protobuf.Value v = 3;
  google.protobuf.ListValue lv = 4;
  google.protobuf.Timestamp ts = 5;
  google.protobuf.Duration du = 6;
  google.protobuf.Empty em = 7;
  google.protobuf.FieldMask fm = 8;
  google.protobuf.Int64Value i64 = 9;
  google.protobuf.BytesValue bv = 10;
  google.protobuf.StringValue sv = 11;
  google.protobuf.BoolValue bo = 12;
}
message AllScalars {
  int32 i32 = 1; int64 i64 = 2; uint32 u32 = 3; uint64 u64 = 4;
  sint32 s32 = 5; sint64 s64 = 6; fixed32 f32 = 7; fixed64 f64 = 8;
  sfixed32 sf32 = 9; sfixed64 sf64 = 10; float fl = 11; double db = 12;
  bool bo = 13; string st = 14; bytes by = 15; E e = 16; OnlyZero oz = 17;
  repeated int32 ri32 = 21; repeated int64 ri64 = 22; repeated uint32 ru32 = 23; repeated uint64 ru64 = 24;
  repeated sint32 rs32 = 25; repeated sint64 rs64 = 26; repeated fixed32 rf32 = 27; repeated fixed64 rf64 = 28;
  repeated sfixed32 rsf32 = 29; repeated sfixed64 rsf64 = 30; repeated float rfl = 31; repeated double rdb = 32;
  repeated bool rbo = 33; repeated string rst = 34; repeated bytes rby = 35; repeated E re = 36;
  optional int32 oi = 40; optional string os = 41; optional Val ov = 42; optional E oe = 43;
}
`,
	"fill/p2.proto": `
syntax = "proto2";
package filltest2;
enum Closed { FIVE = 5; SIX = 6; }
message Req {
  required Sub sub = 1;
  optional bytes data = 2;
  optional Req self = 3;
  required int32 id = 4;
  optional Closed c = 5;
  repeated Closed cs = 6;
  map<string, Closed> cm = 7;
  optional group G = 8 { required int32 gid = 9; optional Req back = 10; }
}
message Sub { required int32 x = 1; optional Req back = 2; required string name = 3; }
message Loop { required Loop next = 1; }
message LoopA { required LoopB b = 1; }
message LoopB { required LoopA a = 1; optional int32 x = 2; }
message HasUnsat {
  optional Loop l = 1;
  optional int32 x = 2;
  repeated Loop ls = 3;
  map<string, LoopA> m = 4;
  oneof o { Loop ol = 5; string os = 6; }
}
message D0 { optional D1 d = 1; optional int32 x = 2; }
message D1 { optional D2 d = 1; }
message D2 { optional D3 d = 1; }
message D3 { required D4 d = 1; optional D4 opt = 2; }
message D4 { required int32 x = 1; optional string s = 2; required D5 d5 = 3; }
message D5 { required bool ok = 1; optional int32 y = 2; }
message OneofRec { oneof o { OneofRec r = 1; int32 i = 2; } required int32 id = 3; }
`,
	"fill/ed.proto": `
edition = "2023";
package filltested;
enum OpenE { OPEN_ZERO = 0; OPEN_ONE = 1; }
enum ClosedE { option features.enum_type = CLOSED; CLOSED_SEVEN = 7; CLOSED_EIGHT = 8; }
message Req {
  int32 id = 1 [features.field_presence = LEGACY_REQUIRED];
  Sub sub = 2 [features.field_presence = LEGACY_REQUIRED];
  Req self = 3;
  bytes data = 4;
  Sub delim = 5 [features.message_encoding = DELIMITED];
  int32 imp = 6 [features.field_presence = IMPLICIT];
  repeated int32 unpacked = 7 [features.repeated_field_encoding = EXPANDED];
  OpenE e = 8;
  ClosedE ce = 9;
}
message Sub { string s = 1 [features.field_presence = LEGACY_REQUIRED]; Req back = 2; }
`,
}

// unsatisfiable are the dynamic types with a cycle of required fields.
var unsatisfiable = map[protoreflect.FullName]bool{
	"filltest2.Loop":  true,
	"filltest2.LoopA": true,
	"filltest2.LoopB": true,
}

var compiled linker.Files

func dynDesc(t testing.TB, name protoreflect.FullName) protoreflect.MessageDescriptor {
	t.Helper()
	if compiled == nil {
		c := protocompile.Compiler{
			Resolver: protocompile.WithStandardImports(&protocompile.SourceResolver{
				Accessor: protocompile.SourceAccessorFromMap(fillProtos),
			}),
		}
		files, err := c.Compile(context.Background(), "fill/p3.proto", "fill/p2.proto", "fill/ed.proto")
		if err != nil {
			t.Fatalf("compile: %v", err)
		}
		compiled = files
	}
	d, err := compiled.AsResolver().FindDescriptorByName(name)
	if err != nil {
		t.Fatalf("find %s: %v", name, err)
	}
	return d.(protoreflect.MessageDescriptor)
}

// growth is how a case grows past its base size.
type growth int

const (
	growNone  growth = iota // no growable field: stays at the base size
	growExact               // a string/bytes field and another field to make up gaps: exact
	growGap1                // one top-level string/bytes field only: exact or 1 over
	growGap3                // one string/bytes field nested 2 deep only: exact or up to 3 over
	growList                // appends to the top-level list field listField
)

type fillCase struct {
	name      string
	new       func(t testing.TB) proto.Message
	grow      growth
	listField string // growList: the grown list, a path of singular message fields and the list
	exactList bool   // growList: integer elements, so exact away from prefix boundaries
}

func gen[M proto.Message](newM func() M) func(testing.TB) proto.Message {
	return func(testing.TB) proto.Message { return newM() }
}

func dyn(name protoreflect.FullName) func(testing.TB) proto.Message {
	return func(t testing.TB) proto.Message { return dynamicpb.NewMessage(dynDesc(t, name)) }
}

func fillCases() []fillCase {
	return []fillCase{
		{name: "kinds.Rich", new: gen(func() *kinds.Rich { return new(kinds.Rich) }), grow: growExact},
		{name: "kinds.Inner", new: gen(func() *kinds.Inner { return new(kinds.Inner) }), grow: growExact},
		{name: "kinds.Summary", new: gen(func() *kinds.Summary { return new(kinds.Summary) }), grow: growNone},
		{name: "kinds.Pooled", new: gen(func() *kinds.Pooled { return new(kinds.Pooled) }), grow: growExact},
		{name: "kinds.PooledInner", new: gen(func() *kinds.PooledInner { return new(kinds.PooledInner) }), grow: growExact},
		{name: "proto2.Item", new: gen(func() *proto2.Item { return new(proto2.Item) }), grow: growExact},
		{name: "editions.Note", new: gen(func() *editions.Note { return new(editions.Note) }), grow: growExact},
		{name: "anypb.Any", new: gen(func() *anypb.Any { return new(anypb.Any) }), grow: growExact},
		{name: "structpb.Struct", new: gen(func() *structpb.Struct { return new(structpb.Struct) }), grow: growNone},
		{name: "structpb.Value", new: gen(func() *structpb.Value { return new(structpb.Value) }), grow: growNone},
		{name: "structpb.ListValue", new: gen(func() *structpb.ListValue { return new(structpb.ListValue) }), grow: growList, listField: "values"},
		{name: "timestamppb.Timestamp", new: gen(func() *timestamppb.Timestamp { return new(timestamppb.Timestamp) }), grow: growNone},
		{name: "durationpb.Duration", new: gen(func() *durationpb.Duration { return new(durationpb.Duration) }), grow: growNone},
		{name: "emptypb.Empty", new: gen(func() *emptypb.Empty { return new(emptypb.Empty) }), grow: growNone},
		{name: "fieldmaskpb.FieldMask", new: gen(func() *fieldmaskpb.FieldMask { return new(fieldmaskpb.FieldMask) }), grow: growList, listField: "paths"},
		{name: "wrapperspb.BytesValue", new: gen(func() *wrapperspb.BytesValue { return new(wrapperspb.BytesValue) }), grow: growGap1},
		{name: "wrapperspb.StringValue", new: gen(func() *wrapperspb.StringValue { return new(wrapperspb.StringValue) }), grow: growGap1},
		{name: "wrapperspb.Int64Value", new: gen(func() *wrapperspb.Int64Value { return new(wrapperspb.Int64Value) }), grow: growNone},
		{name: "wrapperspb.BoolValue", new: gen(func() *wrapperspb.BoolValue { return new(wrapperspb.BoolValue) }), grow: growNone},
		{name: "filltest.Self", new: dyn("filltest.Self"), grow: growNone},
		{name: "filltest.A", new: dyn("filltest.A"), grow: growExact},
		{name: "filltest.B", new: dyn("filltest.B"), grow: growExact},
		{name: "filltest.Maps", new: dyn("filltest.Maps"), grow: growNone},
		{name: "filltest.OnlyInts", new: dyn("filltest.OnlyInts"), grow: growList, listField: "xs", exactList: true},
		{name: "filltest.NestedInts", new: dyn("filltest.NestedInts"), grow: growList, listField: "o.xs", exactList: true},
		{name: "filltest.NoFields", new: dyn("filltest.NoFields"), grow: growNone},
		{name: "filltest.Shaped", new: dyn("filltest.Shaped"), grow: growExact},
		{name: "filltest.Outer", new: dyn("filltest.Outer"), grow: growExact},
		{name: "filltest.Outer2", new: dyn("filltest.Outer2"), grow: growGap3},
		{name: "filltest.Deep", new: dyn("filltest.Deep"), grow: growNone},
		{name: "filltest.Wkt", new: dyn("filltest.Wkt"), grow: growExact},
		{name: "filltest.AllScalars", new: dyn("filltest.AllScalars"), grow: growExact},
		{name: "filltest2.Req", new: dyn("filltest2.Req"), grow: growExact},
		{name: "filltest2.HasUnsat", new: dyn("filltest2.HasUnsat"), grow: growExact},
		{name: "filltest2.D0", new: dyn("filltest2.D0"), grow: growNone},
		{name: "filltest2.OneofRec", new: dyn("filltest2.OneofRec"), grow: growNone},
		{name: "filltested.Req", new: dyn("filltested.Req"), grow: growExact},
	}
}

func isMsg(fd protoreflect.FieldDescriptor) bool {
	return fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind
}

func onPath(path []protoreflect.FullName, md protoreflect.MessageDescriptor) bool {
	for _, n := range path {
		if n == md.FullName() {
			return true
		}
	}
	return false
}

// wantEnum is the enum value Fill documents.
func wantEnum(ed protoreflect.EnumDescriptor) protoreflect.EnumNumber {
	for i := range ed.Values().Len() {
		if n := ed.Values().Get(i).Number(); n != 0 {
			return n
		}
	}
	return ed.Values().Get(0).Number()
}

// checkScalar checks a non-message value against Fill's value rules.
func checkScalar(t *testing.T, where string, fd protoreflect.FieldDescriptor, v protoreflect.Value) {
	t.Helper()
	switch fd.Kind() {
	case protoreflect.BoolKind:
		if !v.Bool() {
			t.Errorf("%s: bool is false", where)
		}
	case protoreflect.EnumKind:
		if got, want := v.Enum(), wantEnum(fd.Enum()); got != want {
			t.Errorf("%s: enum %d, want %d", where, got, want)
		}
		if fd.Enum().Values().ByNumber(v.Enum()) == nil {
			t.Errorf("%s: enum %d is not declared", where, v.Enum())
		}
	case protoreflect.StringKind:
		s := v.String()
		if s == "" || !utf8.ValidString(s) {
			t.Errorf("%s: string %q empty or not UTF-8", where, s)
		}
		for i := range len(s) {
			if s[i] >= 0x80 {
				t.Errorf("%s: string %q not ASCII", where, s)
				break
			}
		}
	case protoreflect.BytesKind:
		if len(v.Bytes()) == 0 || bytes.Count(v.Bytes(), []byte{0}) == len(v.Bytes()) {
			t.Errorf("%s: bytes %x empty or all zero", where, v.Bytes())
		}
	default:
		zero := false
		switch x := v.Interface().(type) {
		case int32:
			zero = x == 0
		case int64:
			zero = x == 0
		case uint32:
			zero = x == 0
		case uint64:
			zero = x == 0
		case float32:
			zero = x == 0
		case float64:
			zero = x == 0
		default:
			t.Errorf("%s: unexpected value %T", where, x)
		}
		if zero {
			t.Errorf("%s: %v is zero", where, v)
		}
	}
}

// checkMinimal checks a message set only because it is required or a oneof
// member at the depth limit or on the path: exactly its required fields set.
func checkMinimal(t *testing.T, where string, m protoreflect.Message) {
	t.Helper()
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		name := where + "." + string(fd.Name())
		required := fd.Cardinality() == protoreflect.Required
		if m.Has(fd) != required {
			t.Errorf("%s: set %v, want %v (only required fields)", name, m.Has(fd), required)
		}
		if required && isMsg(fd) {
			checkMinimal(t, name, m.Get(fd).Message())
		}
	}
}

// checkFilled checks the base fill of m (at depth below the root, whose
// ancestors' types are path) against Fill's rules.
func checkFilled(t *testing.T, where string, m protoreflect.Message, depth int, path []protoreflect.FullName) {
	t.Helper()
	md := m.Descriptor()
	path = append(path[:len(path):len(path)], md.FullName())
	limited := func(sub protoreflect.MessageDescriptor) bool {
		return depth+1 > fillDepth || onPath(path, sub)
	}
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		name := where + "." + string(fd.Name())
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			continue
		}
		if fd.IsExtension() {
			continue
		}
		switch {
		case fd.IsMap():
			want := 2
			if isMsg(fd.MapValue()) && (limited(fd.MapValue().Message()) || unsatisfiable[fd.MapValue().Message().FullName()]) {
				want = 0
			}
			mp := m.Get(fd).Map()
			if mp.Len() != want {
				t.Errorf("%s: %d map entries, want %d", name, mp.Len(), want)
			}
			mp.Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
				kname := fmt.Sprintf("%s[%v]", name, k)
				if fd.MapKey().Kind() == protoreflect.StringKind {
					checkScalar(t, kname, fd.MapKey(), k.Value())
				}
				if isMsg(fd.MapValue()) {
					checkFilled(t, kname, v.Message(), depth+1, path)
				} else {
					checkScalar(t, kname, fd.MapValue(), v)
				}
				return true
			})
		case fd.IsList():
			want := 2
			if isMsg(fd) && (limited(fd.Message()) || unsatisfiable[fd.Message().FullName()]) {
				want = 0
			}
			list := m.Get(fd).List()
			if list.Len() != want {
				t.Errorf("%s: %d elements, want %d", name, list.Len(), want)
			}
			for j := range list.Len() {
				ename := fmt.Sprintf("%s[%d]", name, j)
				if isMsg(fd) {
					checkFilled(t, ename, list.Get(j).Message(), depth+1, path)
				} else {
					checkScalar(t, ename, fd, list.Get(j))
				}
			}
		case isMsg(fd):
			sub := fd.Message()
			switch {
			case limited(sub) && fd.Cardinality() == protoreflect.Required:
				if !m.Has(fd) {
					t.Errorf("%s: required field at the limit unset", name)
				} else {
					checkMinimal(t, name, m.Get(fd).Message())
				}
			case limited(sub) || unsatisfiable[sub.FullName()]:
				if m.Has(fd) {
					t.Errorf("%s: set, want unset (depth limit, recursion or unsatisfiable)", name)
				}
			case !m.Has(fd):
				t.Errorf("%s: unset", name)
			default:
				checkFilled(t, name, m.Get(fd).Message(), depth+1, path)
			}
		case fd.Kind() == protoreflect.EnumKind && !fd.HasPresence() && wantEnum(fd.Enum()) == 0:
			// An implicit-presence enum whose only value is 0 cannot be set.
			if m.Has(fd) {
				t.Errorf("%s: set", name)
			}
		default:
			if !m.Has(fd) {
				t.Errorf("%s: unset", name)
				continue
			}
			checkScalar(t, name, fd, m.Get(fd))
		}
	}
	oneofs := md.Oneofs()
	for i := range oneofs.Len() {
		od := oneofs.Get(i)
		if od.IsSynthetic() {
			continue
		}
		set := 0
		for j := range od.Fields().Len() {
			if m.Has(od.Fields().Get(j)) {
				set++
			}
		}
		if set != 1 {
			t.Errorf("%s.%s: %d members set, want 1", where, od.Name(), set)
			continue
		}
		// The first member whose type is satisfiable.
		var want protoreflect.FieldDescriptor
		for j := range od.Fields().Len() {
			fd := od.Fields().Get(j)
			if !isMsg(fd) || !unsatisfiable[fd.Message().FullName()] {
				want = fd
				break
			}
		}
		got := m.WhichOneof(od)
		name := where + "." + string(got.Name())
		if got != want {
			t.Errorf("%s.%s: member %s set, want %s", where, od.Name(), got.Name(), want.Name())
		}
		switch {
		case !isMsg(got):
			checkScalar(t, name, got, m.Get(got))
		case limited(got.Message()):
			checkMinimal(t, name, m.Get(got).Message())
		default:
			checkFilled(t, name, m.Get(got).Message(), depth+1, path)
		}
	}
}

func marshal(t testing.TB, m proto.Message) []byte {
	t.Helper()
	b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return b
}

// checkValid checks that m is initialized and round-trips.
func checkValid(t *testing.T, m proto.Message) {
	t.Helper()
	if err := proto.CheckInitialized(m); err != nil {
		t.Errorf("CheckInitialized: %v", err)
	}
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatalf("Marshal: %v", err)
	}
	back := m.ProtoReflect().New().Interface()
	if err := proto.Unmarshal(b, back); err != nil {
		t.Fatalf("Unmarshal: %v", err)
	}
	if !proto.Equal(m, back) {
		t.Errorf("round trip differs:\n got %v\nwant %v", back, m)
	}
}

func mustFill(t testing.TB, m proto.Message, size int) {
	t.Helper()
	if err := grpcfastbench.Fill(m, size); err != nil {
		t.Fatalf("Fill(%d): %v", size, err)
	}
}

func TestFillPopulates(t *testing.T) {
	for _, c := range fillCases() {
		t.Run(c.name, func(t *testing.T) {
			m := c.new(t)
			mustFill(t, m, 0)
			checkFilled(t, c.name, m.ProtoReflect(), 0, nil)
			checkValid(t, m)
			if len(m.ProtoReflect().GetUnknown()) != 0 {
				t.Errorf("unknown fields set")
			}
		})
	}
}

func TestFillDeterministic(t *testing.T) {
	for _, c := range fillCases() {
		t.Run(c.name, func(t *testing.T) {
			for _, size := range []int{0, 1000} {
				a, b := c.new(t), c.new(t)
				mustFill(t, a, size)
				mustFill(t, b, size)
				if !bytes.Equal(marshal(t, a), marshal(t, b)) {
					t.Errorf("size %d: two fills differ", size)
				}
				// A message that held something else fills the same.
				mustFill(t, b, 3*size+7)
				b.ProtoReflect().SetUnknown(protowire.AppendVarint(protowire.AppendTag(nil, 1999, protowire.VarintType), 5))
				mustFill(t, b, size)
				if !bytes.Equal(marshal(t, a), marshal(t, b)) {
					t.Errorf("size %d: refill of a used message differs from a fresh fill", size)
				}
			}
		})
	}
}

// checkGrown checks proto.Size(m) after Fill(m, size) against the rule of
// c, base being the size of the base fill bb.
func checkGrown(t *testing.T, c fillCase, m proto.Message, bb []byte, size int) {
	t.Helper()
	base := len(bb)
	got := proto.Size(m)
	if size <= base || c.grow == growNone {
		if !bytes.Equal(marshal(t, m), bb) {
			t.Errorf("size %d: got %d bytes, want the base fill of %d bytes", size, got, base)
		}
		return
	}
	switch c.grow {
	case growExact:
		if got != size {
			t.Errorf("size %d: got %d, want exact", size, got)
		}
	case growGap1, growGap3:
		over := 1
		if c.grow == growGap3 {
			over = 3
		}
		if got < size || got > size+over {
			t.Errorf("size %d: got %d, want exact or at most %d over", size, got, over)
		}
	case growList:
		if got < size {
			t.Errorf("size %d: got %d, want at least size", size, got)
		}
		if c.exactList && got != size {
			t.Errorf("size %d: got %d, want exact (integer elements)", size, got)
		}
		parent := m.ProtoReflect()
		names := strings.Split(c.listField, ".")
		for _, n := range names[:len(names)-1] {
			parent = parent.Mutable(parent.Descriptor().Fields().ByName(protoreflect.Name(n))).Message()
		}
		fd := parent.Descriptor().Fields().ByName(protoreflect.Name(names[len(names)-1]))
		list := parent.Mutable(fd).List()
		if list.Len() <= 2 {
			t.Fatalf("size %d: %s has %d elements, did not grow", size, c.listField, list.Len())
		}
		list.Truncate(list.Len() - 1)
		if less := proto.Size(m); less >= size {
			t.Errorf("size %d: got %d, and still %d without the last element of %s: grew past size", size, got, less, c.listField)
		}
	}
}

func TestFillSizes(t *testing.T) {
	for _, c := range fillCases() {
		t.Run(c.name, func(t *testing.T) {
			b := c.new(t)
			mustFill(t, b, 0)
			bb := marshal(t, b)
			base := len(bb)
			for _, size := range []int{-1, 0, 1, base, base + 1, base + 2, base + 5, 100, 1000, 16384, 1 << 20} {
				m := c.new(t)
				mustFill(t, m, size)
				if size > 0 && size <= 1000 {
					checkValid(t, m)
				}
				checkGrown(t, c, m, bb, size)
			}
		})
	}
}

// TestFillBoundaries sweeps sizes where length prefixes change width.
func TestFillBoundaries(t *testing.T) {
	cases := map[string]fillCase{}
	for _, c := range fillCases() {
		cases[c.name] = c
	}
	for _, name := range []string{"kinds.Rich", "kinds.Inner", "proto2.Item", "editions.Note", "filltest.A", "filltest.Outer", "filltested.Req", "wrapperspb.BytesValue", "filltest.Outer2"} {
		c := cases[name]
		t.Run(name, func(t *testing.T) {
			b := c.new(t)
			mustFill(t, b, 0)
			bb := marshal(t, b)
			inexact := 0
			var sizes []int
			for s := len(bb) + 1; s < 400; s++ {
				sizes = append(sizes, s)
			}
			for s := 16384 - 24; s < 16384+24; s++ {
				sizes = append(sizes, s)
			}
			for s := 1<<21 - 6; s < 1<<21+6; s++ {
				sizes = append(sizes, s)
			}
			for _, size := range sizes {
				m := c.new(t)
				mustFill(t, m, size)
				checkGrown(t, c, m, bb, size)
				if proto.Size(m) != size {
					inexact++
				}
				if name == "wrapperspb.BytesValue" && proto.Size(m) != size {
					// Only when no length gives size: tag + length prefix + length.
					for n := size - 12; n <= size; n++ {
						if 1+protowire.SizeBytes(n) == size {
							t.Errorf("size %d: got %d, but a value of %d bytes gives size", size, proto.Size(m), n)
						}
					}
				}
			}
			if (c.grow == growGap1 || c.grow == growGap3) && inexact == 0 {
				t.Errorf("no size of the sweep was unreachable: the sweep misses the prefix boundaries")
			}
		})
	}
}

func TestFillLarge(t *testing.T) {
	const size = 64 << 20
	m := new(kinds.Rich)
	mustFill(t, m, size)
	if got := proto.Size(m); got != size {
		t.Fatalf("size %d: got %d", size, got)
	}
	base := new(kinds.Rich)
	mustFill(t, base, 0)
	if len(m.Data) < size-1000 || !bytes.Equal(m.Data[:len(base.Data)], base.Data) || !bytes.Equal(m.Data[len(base.Data):2*len(base.Data)], base.Data) {
		t.Errorf("Data (%d bytes) is not the base pattern repeated", len(m.Data))
	}
	if m.Name != base.Name || len(m.Inners) != 2 {
		t.Errorf("other fields changed: name %q, %d inners", m.Name, len(m.Inners))
	}
}

func TestFillRich(t *testing.T) {
	m := new(kinds.Rich)
	mustFill(t, m, 0)
	if _, ok := m.Choice.(*kinds.Rich_Text); !ok {
		t.Errorf("choice %T, want the first member text", m.Choice)
	}
	if m.Maybe == nil || m.Level == nil {
		t.Errorf("proto3 optional fields unset: maybe %v level %v", m.Maybe, m.Level)
	}
	if m.Color != kinds.Color_COLOR_RED || len(m.Colors) != 2 || m.Colors[0] != kinds.Color_COLOR_RED {
		t.Errorf("color %v colors %v, want COLOR_RED", m.Color, m.Colors)
	}
	if len(m.Counts) != 2 || len(m.Numbers) != 2 || len(m.Inners) != 2 || m.Inner == nil || len(m.Inner.Values) != 2 {
		t.Errorf("counts %v numbers %v inners %d inner %v", m.Counts, m.Numbers, len(m.Inners), m.Inner)
	}
	// Growth lengthens data, the longest top-level bytes/string field.
	g := new(kinds.Rich)
	mustFill(t, g, 5000)
	if len(g.Data) < 4000 || len(g.Maybe) != len(m.Maybe) {
		t.Errorf("grew data to %d bytes and maybe to %d, want data", len(g.Data), len(g.Maybe))
	}
	s := new(kinds.Summary)
	mustFill(t, s, 0)
	if s.Count == 0 || s.Bytes == 0 || s.Crc32C == 0 {
		t.Errorf("summary %v has a zero field", s)
	}
}

func TestFillRecursive(t *testing.T) {
	self := dynamicpb.NewMessage(dynDesc(t, "filltest.Self"))
	mustFill(t, self, 1000)
	fields := self.Descriptor().Fields()
	if self.Has(fields.ByName("next")) || self.Get(fields.ByName("kids")).List().Len() != 0 || self.Get(fields.ByName("byname")).Map().Len() != 0 {
		t.Errorf("Self: recursive fields set: %v", self)
	}
	if !self.Has(fields.ByName("one")) || self.Get(fields.ByName("n")).Int() == 0 {
		t.Errorf("Self: oneof member one or n unset: %v", self)
	}

	a := dynamicpb.NewMessage(dynDesc(t, "filltest.A"))
	mustFill(t, a, 0)
	b := a.Get(a.Descriptor().Fields().ByName("b")).Message()
	if b.Has(b.Descriptor().Fields().ByName("a")) {
		t.Errorf("A.b.a set: A is on the path")
	}
	if len(b.Get(b.Descriptor().Fields().ByName("d")).Bytes()) == 0 {
		t.Errorf("A.b.d unset")
	}

	deep := dynamicpb.NewMessage(dynDesc(t, "filltest.Deep"))
	mustFill(t, deep, 0)
	var d3 protoreflect.Message = deep
	for range fillDepth {
		fd := d3.Descriptor().Fields().ByName("d")
		if !d3.Has(fd) {
			t.Fatalf("%s.d unset above the depth limit", d3.Descriptor().Name())
		}
		d3 = d3.Get(fd).Message()
	}
	if d3.Has(d3.Descriptor().Fields().ByName("d")) {
		t.Errorf("D3.d set, 4 levels below Deep")
	}
}

func TestFillRequired(t *testing.T) {
	for _, name := range []protoreflect.FullName{"filltest2.Req", "filltest2.D0", "filltest2.HasUnsat", "filltest2.OneofRec", "filltested.Req", "proto2.Item"} {
		var m proto.Message
		if name == "proto2.Item" {
			m = new(proto2.Item)
		} else {
			m = dynamicpb.NewMessage(dynDesc(t, name))
		}
		for _, size := range []int{0, 300} {
			mustFill(t, m, size)
			if err := proto.CheckInitialized(m); err != nil {
				t.Errorf("%s size %d: %v", name, size, err)
			}
		}
	}
	// D3's required d, 4 levels deep, has only its required fields.
	d0 := dynamicpb.NewMessage(dynDesc(t, "filltest2.D0"))
	mustFill(t, d0, 0)
	var m protoreflect.Message = d0
	for range fillDepth {
		m = m.Get(m.Descriptor().Fields().ByName("d")).Message()
	}
	d4 := m.Get(m.Descriptor().Fields().ByName("d")).Message()
	if !d4.Has(d4.Descriptor().Fields().ByName("x")) || d4.Has(d4.Descriptor().Fields().ByName("s")) || !d4.Has(d4.Descriptor().Fields().ByName("d5")) {
		t.Errorf("D4 at the limit: %v, want only required x and d5", d4)
	}
	// The oneof member on the path holds a message with its required id.
	rec := dynamicpb.NewMessage(dynDesc(t, "filltest2.OneofRec"))
	mustFill(t, rec, 0)
	r := rec.Get(rec.Descriptor().Fields().ByName("r")).Message()
	if !rec.Has(rec.Descriptor().Fields().ByName("r")) || !r.Has(r.Descriptor().Fields().ByName("id")) {
		t.Errorf("OneofRec: %v, want r with id", rec)
	}
	// Closed enums use declared values.
	req := dynamicpb.NewMessage(dynDesc(t, "filltest2.Req"))
	mustFill(t, req, 0)
	if c := req.Get(req.Descriptor().Fields().ByName("c")).Enum(); c != 5 {
		t.Errorf("Req.c = %d, want 5 (FIVE)", c)
	}
}

func TestFillMapKeys(t *testing.T) {
	m := dynamicpb.NewMessage(dynDesc(t, "filltest.Maps"))
	mustFill(t, m, 0)
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		mp := m.Get(fd).Map()
		keys := map[any]bool{}
		mp.Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
			keys[k.Interface()] = true
			if isMsg(fd.MapValue()) && v.Message().Get(v.Message().Descriptor().Fields().ByName("v")).String() == "" {
				t.Errorf("%s[%v]: value not filled", fd.Name(), k)
			}
			return true
		})
		if len(keys) != 2 {
			t.Errorf("%s (%v keys): %d distinct keys, want 2", fd.Name(), fd.MapKey().Kind(), len(keys))
		}
	}
	checkValid(t, m)
}

func TestFillErrors(t *testing.T) {
	if err := grpcfastbench.Fill(nil, 0); err == nil {
		t.Errorf("Fill(nil): no error")
	}
	if err := grpcfastbench.Fill((*kinds.Rich)(nil), 100); err == nil {
		t.Errorf("Fill((*Rich)(nil)): no error")
	}
	inner := (&kinds.Rich{}).ProtoReflect()
	ro := inner.Get(inner.Descriptor().Fields().ByName("inner")).Message().Interface()
	if err := grpcfastbench.Fill(ro, 0); err == nil {
		t.Errorf("Fill(read-only Inner): no error")
	}
	dm := dynamicpb.NewMessage(dynDesc(t, "filltest.A"))
	dro := dm.Get(dm.Descriptor().Fields().ByName("b")).Message().Interface()
	if err := grpcfastbench.Fill(dro, 0); err == nil {
		t.Errorf("Fill(read-only dynamic B): no error")
	}
	if err := grpcfastbench.Fill(new(kinds.Rich), 1<<31); err == nil {
		t.Errorf("Fill(size 2 GiB): no error")
	}
	for _, name := range []protoreflect.FullName{"filltest2.Loop", "filltest2.LoopA", "filltest2.LoopB"} {
		m := dynamicpb.NewMessage(dynDesc(t, name))
		first := m.Descriptor().Fields().Get(0)
		m.Set(first, m.NewField(first))
		if err := grpcfastbench.Fill(m, 100); err == nil {
			t.Errorf("Fill(%s): no error for a cycle of required fields", name)
		}
		if !m.Has(first) {
			t.Errorf("Fill(%s) changed the message it refused", name)
		}
	}
}

// field returns the value of m's field named name.
func field(m protoreflect.Message, name string) protoreflect.Value {
	return m.Get(m.Descriptor().Fields().ByName(protoreflect.Name(name)))
}

// TestFillGrowsBytesFirst checks that a bytes field grows, not the string
// beside it (as a ByteStream WriteRequest's data, not its resource_name).
func TestFillGrowsBytesFirst(t *testing.T) {
	base := dynamicpb.NewMessage(dynDesc(t, "filltest.Shaped"))
	mustFill(t, base, 0)
	m := dynamicpb.NewMessage(dynDesc(t, "filltest.Shaped"))
	mustFill(t, m, 16384)
	if got := proto.Size(m); got != 16384 {
		t.Errorf("size %d, want 16384", got)
	}
	if got, want := field(m, "resource_name").String(), field(base, "resource_name").String(); got != want {
		t.Errorf("resource_name %q, want the base %q", got, want)
	}
	if n := len(field(m, "data").Bytes()); n < 16300 {
		t.Errorf("data is %d bytes, want the growth", n)
	}
}

// TestFillSpreadsLists checks that without a bytes field the repeated
// fields grow, every list of the tree, and the string stays short.
func TestFillSpreadsLists(t *testing.T) {
	const size = 8192
	base := dynamicpb.NewMessage(dynDesc(t, "filltest.Tree"))
	mustFill(t, base, 0)
	m := dynamicpb.NewMessage(dynDesc(t, "filltest.Tree"))
	mustFill(t, m, size)
	got := proto.Size(m)
	if got < size || got > size+64 {
		t.Errorf("size %d, want %d to %d", got, size, size+64)
	}
	if got, want := field(m, "schema_url").String(), field(base, "schema_url").String(); got != want {
		t.Errorf("schema_url %q, want the base %q", got, want)
	}
	branches := field(m, "branches").List()
	if branches.Len() <= 2 {
		t.Fatalf("%d branches, want more than the base 2", branches.Len())
	}
	// The two filled branches got twigs in turn with the branches.
	for i := range 2 {
		twigs := field(branches.Get(i).Message(), "twigs").List().Len()
		if twigs < branches.Len()-2 || twigs > branches.Len() {
			t.Errorf("branch %d has %d twigs, with %d branches: the lists did not grow in turn", i, twigs, branches.Len())
		}
	}
	// The copies' strings differ, each of the base's length: a decoder
	// that finds values it saw before is measured on what messages hold.
	names := map[string]bool{}
	for i := range branches.Len() {
		name := field(branches.Get(i).Message(), "name").String()
		if base := i < 2; base != (name == "name") || len(name) != len("name") || !base && names[name] {
			t.Errorf("branch %d name %q, want the base value in the two filled branches, and a new one of its length in each copy", i, name)
		}
		names[name] = true
		twigs := field(branches.Get(i).Message(), "twigs").List()
		if i > 1 && twigs.Len() > 0 && twigs.Get(0).Message().Get(twigs.Get(0).Message().Descriptor().Fields().ByName("key")).String() == "key" {
			t.Errorf("branch %d: the copy's nested strings are the base's", i)
		}
	}
}

// TestFillGrowing checks that named fields grow instead: a string, or only
// the lists named.
func TestFillGrowing(t *testing.T) {
	m := dynamicpb.NewMessage(dynDesc(t, "filltest.Tree"))
	if err := grpcfastbench.FillGrowing(m, 4096, "filltest.Tree.schema_url"); err != nil {
		t.Fatal(err)
	}
	if got := proto.Size(m); got != 4096 {
		t.Errorf("size %d, want 4096", got)
	}
	if n := field(m, "branches").List().Len(); n != 2 {
		t.Errorf("%d branches, want the base 2", n)
	}
	if n := len(field(m, "schema_url").String()); n < 3000 {
		t.Errorf("schema_url is %d bytes, want the growth", n)
	}

	m = dynamicpb.NewMessage(dynDesc(t, "filltest.Tree"))
	if err := grpcfastbench.FillGrowing(m, 4096, "filltest.Branch.twigs"); err != nil {
		t.Fatal(err)
	}
	branches := field(m, "branches").List()
	if branches.Len() != 2 {
		t.Errorf("%d branches, want the base 2", branches.Len())
	}
	a, b := field(branches.Get(0).Message(), "twigs").List().Len(), field(branches.Get(1).Message(), "twigs").List().Len()
	if a < 20 || a-b < 0 || a-b > 1 {
		t.Errorf("twigs %d and %d, want both grown in turn", a, b)
	}

	// A name the message does not hold: Fill's rules.
	m = dynamicpb.NewMessage(dynDesc(t, "filltest.Shaped"))
	if err := grpcfastbench.FillGrowing(m, 1000, "filltest.Tree.schema_url"); err != nil {
		t.Fatal(err)
	}
	if n := len(field(m, "data").Bytes()); n < 900 {
		t.Errorf("data is %d bytes, want Fill's growth", n)
	}
}

// TestFillGrowsBatches checks that a bytes field inside the elements of a
// repeated message field (an id: a span's 16-byte trace_id) does not take
// the growth: an OTLP export filled to 64 KiB grows by spans, and its
// longest bytes value stays at its base length. It put 65,318 of 65,536
// bytes into one trace_id.
func TestFillGrowsBatches(t *testing.T) {
	const size = 64 << 10
	base := new(otlp.ExportTraceServiceRequest)
	mustFill(t, base, 0)
	m := new(otlp.ExportTraceServiceRequest)
	mustFill(t, m, size)
	if got := proto.Size(m); got < size || got > size+4096 {
		t.Errorf("size %d, want %d to %d", got, size, size+4096)
	}
	longestBytes := func(m proto.Message) int {
		n := 0
		var visit func(protoreflect.Message)
		visit = func(m protoreflect.Message) {
			m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
				switch {
				case fd.IsMap():
				case fd.IsList():
					for i := range v.List().Len() {
						if isMsg(fd) {
							visit(v.List().Get(i).Message())
						} else if fd.Kind() == protoreflect.BytesKind {
							n = max(n, len(v.List().Get(i).Bytes()))
						}
					}
				case isMsg(fd):
					visit(v.Message())
				case fd.Kind() == protoreflect.BytesKind:
					n = max(n, len(v.Bytes()))
				}
				return true
			})
		}
		visit(m.ProtoReflect())
		return n
	}
	if got, want := longestBytes(m), longestBytes(base); got != want {
		t.Errorf("longest bytes value %d bytes, want the base %d", got, want)
	}
	spans := 0
	for _, rs := range m.GetResourceSpans() {
		for _, ss := range rs.GetScopeSpans() {
			spans += len(ss.GetSpans())
		}
	}
	if spans <= 8 {
		t.Errorf("%d spans, want the batch grown", spans)
	}
}
