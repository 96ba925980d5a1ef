package grpcfasttest

// The tests' message builders: deterministic messages of every shape the
// codec decodes (sizes, strings, every field kind, nesting). Builders made
// for one test's purpose stay beside it: GenRich and GenPooled (e2e.go,
// rebuilt from their id by the receiving side); in the root package,
// richWith and pooledWith (receiver_ownership_test.go), copyRich
// (pooled_test.go), nestedRich (checked_nested_test.go), pooledMsg
// (receiver_reset_test.go).

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

// RichOfSize returns a Rich whose encoding is exactly size bytes: a Data field
// of deterministic pseudo-random bytes, padded with an Id field.
func RichOfSize(t testing.TB, size int) *kinds.Rich {
	t.Helper()
	if size == 0 {
		return &kinds.Rich{}
	}
	for l := max(0, size-24); l <= size; l++ {
		base := 0
		if l > 0 {
			base = 1 + protowire.SizeBytes(l)
		}
		rem := size - base
		var id int64
		switch {
		case rem == 0:
		case rem >= 2 && rem <= 10:
			id = 1 << (7 * (rem - 2)) // a varint of rem-1 bytes
		case rem == 11:
			id = -1 // ten bytes
		default:
			continue
		}
		m := &kinds.Rich{Id: id, Data: Pattern(l)}
		if got := m.SizeVT(); got != size {
			t.Fatalf("richOfSize(%d): built a message of %d bytes", size, got)
		}
		return m
	}
	t.Fatalf("richOfSize(%d): no layout", size)
	return nil
}

// Pattern returns n bytes that differ from one position to the next, so that
// a shifted or stale copy is noticed.
func Pattern(n int) []byte {
	if n == 0 {
		return nil
	}
	b := make([]byte, n)
	x := uint32(n)*2654435761 + 1
	for i := range b {
		x ^= x << 13
		x ^= x >> 17
		x ^= x << 5
		b[i] = byte(x)
	}
	return b
}

// RandomRich returns a message with a random subset of Rich's fields set.
func RandomRich(r *rand.Rand) *kinds.Rich {
	m := &kinds.Rich{}
	bytesOf := func(max int) []byte {
		b := make([]byte, r.IntN(max+1))
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	}
	inner := func() *kinds.Inner {
		in := &kinds.Inner{Label: fmt.Sprint("label", r.IntN(100)), Payload: bytesOf(40)}
		for range r.IntN(4) {
			in.Values = append(in.Values, r.Uint32())
		}
		return in
	}
	if r.IntN(2) == 0 {
		m.Id = r.Int64() - r.Int64()
	}
	if r.IntN(2) == 0 {
		m.Name = fmt.Sprint("name-", r.IntN(1000))
	}
	if r.IntN(2) == 0 {
		m.Data = bytesOf(3000)
	}
	if r.IntN(2) == 0 {
		m.Color = kinds.Color(r.IntN(3))
	}
	for range r.IntN(5) {
		m.Numbers = append(m.Numbers, r.Int64()-r.Int64())
	}
	for range r.IntN(5) {
		m.Words = append(m.Words, fmt.Sprint("w", r.IntN(1e6)))
	}
	for range r.IntN(4) {
		m.Blobs = append(m.Blobs, bytesOf(50))
	}
	if r.IntN(2) == 0 {
		m.Inner = inner()
	}
	for range r.IntN(4) {
		m.Inners = append(m.Inners, inner())
	}
	if n := r.IntN(4); n > 0 {
		m.Counts = map[string]int64{}
		for range n {
			m.Counts[fmt.Sprint("k", r.IntN(100))] = r.Int64N(1000)
		}
	}
	switch r.IntN(4) {
	case 1:
		m.Choice = &kinds.Rich_Text{Text: fmt.Sprint("text", r.IntN(100))}
	case 2:
		m.Choice = &kinds.Rich_Raw{Raw: bytesOf(30)}
	case 3:
		m.Choice = &kinds.Rich_Nested{Nested: inner()}
	}
	if r.IntN(2) == 0 {
		m.Maybe = bytesOf(20) // may be empty but present
	}
	if r.IntN(2) == 0 {
		l := r.Int32N(10) - 5
		m.Level = &l
	}
	if r.IntN(2) == 0 {
		m.Ratio = r.Float64()
	}
	if r.IntN(2) == 0 {
		m.F32 = r.Uint32()
	}
	if r.IntN(2) == 0 {
		m.Sf64 = r.Int64() - r.Int64()
	}
	m.Flag = r.IntN(2) == 0
	for range r.IntN(4) {
		m.Colors = append(m.Colors, kinds.Color(r.IntN(3)))
	}
	return m
}

// FullRich returns a message with every field of Rich set, with data bytes
// of payload.
func FullRich(data int) *kinds.Rich {
	level := int32(-3)
	return &kinds.Rich{
		Id:      -42,
		Name:    "full",
		Data:    Pattern(data),
		Color:   kinds.Color_COLOR_GREEN,
		Numbers: []int64{1, -1, 1 << 40},
		Words:   []string{"alpha", "beta", ""},
		Blobs:   [][]byte{{1, 2, 3}, {}, Pattern(100)},
		Inner:   &kinds.Inner{Label: "in", Payload: Pattern(33), Values: []uint32{7, 8}},
		Inners:  []*kinds.Inner{{Label: "a"}, {Payload: []byte{9}}, {}},
		Counts:  map[string]int64{"x": 1},
		Choice:  &kinds.Rich_Nested{Nested: &kinds.Inner{Label: "nested", Payload: Pattern(70)}},
		Maybe:   []byte{},
		Level:   &level,
		Ratio:   3.5,
		F32:     0xdeadbeef,
		Sf64:    -7,
		Flag:    true,
		Colors:  []kinds.Color{kinds.Color_COLOR_RED, kinds.Color_COLOR_GREEN},
	}
}

// SmallMessage is a typical unary request, like a CreateUserRequest.
func SmallMessage() *kinds.Rich {
	return &kinds.Rich{
		Id:     1234567,
		Name:   "Ada Lovelace",
		Words:  []string{"admin", "ops", "on-call"},
		Choice: &kinds.Rich_Text{Text: "ada@example.com"},
	}
}

// StringsMessage returns a message of about n bytes of short strings.
func StringsMessage(n int) *kinds.Rich {
	m := &kinds.Rich{Name: "Ada Lovelace"}
	for i := 0; i < n/10; i++ {
		m.Words = append(m.Words, fmt.Sprintf("tag-%04d", i))
	}
	return m
}

// MessagesMessage returns a message with n small nested messages in one
// repeated field.
func MessagesMessage(n int) *kinds.Rich {
	m := &kinds.Rich{Name: "Ada Lovelace"}
	for i := range n {
		m.Inners = append(m.Inners, &kinds.Inner{Label: fmt.Sprintf("inner-%06d", i), Values: []uint32{uint32(i)}})
	}
	return m
}

// WordyMessage is a string-heavy message: a name, 64 words, 16 map keys
// and 8 nested messages with labels.
func WordyMessage() *kinds.Rich {
	m := SmallMessage()
	for i := range 64 {
		m.Words = append(m.Words, fmt.Sprintf("word-%d-lorem-ipsum", i))
	}
	m.Counts = map[string]int64{}
	for i := range 16 {
		m.Counts[fmt.Sprintf("key-%d", i)] = int64(i)
	}
	for i := range 8 {
		m.Inners = append(m.Inners, &kinds.Inner{Label: fmt.Sprintf("inner label %d ✓", i), Values: []uint32{1, 2}})
	}
	return m
}

// FullDecodable returns a Decodable with every field set, n elements in
// its repeated fields and nested Decodables depth levels deep, its oneofs
// set to case choice (of 10) and second (of 2).
func FullDecodable(n, depth, choice int) *kinds.Decodable {
	m := &kinds.Decodable{
		I32: -7, I64: math.MinInt64, U32: math.MaxUint32, U64: math.MaxUint64,
		S32: math.MinInt32, S64: -3, Flag: true, Color: kinds.Color(77),
		F32: 9, Sf32: -9, Fl: float32(math.Inf(-1)), F64: 1 << 60, Sf64: -1 << 60, Db: math.Pi,
		Name: "dé" + strings.Repeat("n", n), Data: Pattern(n + 1),
		Rich: &kinds.Rich{Id: 5, Counts: map[string]int64{"a": 1}, Maybe: []byte{}},
	}
	for i := range n {
		m.Ri32 = append(m.Ri32, int32(-i))
		m.Rs64 = append(m.Rs64, int64(i)-5)
		m.Rf32 = append(m.Rf32, uint32(i))
		m.Rdb = append(m.Rdb, float64(i)/3)
		m.Rflag = append(m.Rflag, i%2 == 0)
		m.Rcolor = append(m.Rcolor, kinds.Color(i%4))
		m.Rs32 = append(m.Rs32, -int32(i))
		m.Ru64 = append(m.Ru64, uint64(i)<<40)
		m.Rfl = append(m.Rfl, float32(i))
		m.Rsf64 = append(m.Rsf64, -int64(i))
		m.Words = append(m.Words, strings.Repeat("w", i))
		m.Blobs = append(m.Blobs, Pattern(i))
		m.Riches = append(m.Riches, &kinds.Rich{Name: "r", Inners: []*kinds.Inner{{Label: "x"}}})
	}
	if depth > 0 {
		m.Child = FullDecodable(n/2, depth-1, choice+1)
		for i := range min(n, 3) {
			m.Children = append(m.Children, FullDecodable(i, depth-1, choice+i))
		}
	}
	switch choice % 10 {
	case 0:
		m.Choice = &kinds.Decodable_Text{Text: "texté"}
	case 1:
		m.Choice = &kinds.Decodable_Raw{Raw: Pattern(5)}
	case 2:
		if depth > 0 {
			m.Choice = &kinds.Decodable_Node{Node: FullDecodable(1, depth-1, 0)}
		}
	case 3:
		m.Choice = &kinds.Decodable_Num{Num: -1}
	case 4:
		m.Choice = &kinds.Decodable_Hue{Hue: kinds.Color_COLOR_GREEN}
	case 5:
		m.Choice = &kinds.Decodable_Real{Real: -0.5}
	case 6:
		m.Choice = &kinds.Decodable_Yes{Yes: true}
	case 7:
		m.Choice = &kinds.Decodable_Other{Other: &kinds.Rich{Words: []string{"o"}}}
	case 8:
		m.Choice = &kinds.Decodable_Small{Small: -2}
	case 9:
		m.Choice = &kinds.Decodable_Big{Big: math.MaxUint64}
	}
	if choice%2 == 0 {
		m.Second = &kinds.Decodable_Inner{Inner: &kinds.Inner{Label: "in", Values: []uint32{1, 2}}}
	} else {
		m.Second = &kinds.Decodable_Label{Label: "label"}
	}
	return m
}

// FullPooled returns a Pooled with every field set, to decode into again.
func FullPooled() *kinds.Pooled {
	return &kinds.Pooled{
		Data: Pattern(30), Numbers: []int64{1, 2, 3}, Name: "old",
		Inners: []*kinds.Inner{{Label: "x", Payload: Pattern(5)}},
		One:    &kinds.PooledInner{Payload: Pattern(7), Values: []int64{9}},
		Items:  []*kinds.PooledInner{{Payload: Pattern(3)}, {Values: []int64{4, 5}}},
	}
}

// KnownStruct returns a google.protobuf.Struct of 16 entries of every kind
// of Value, as a request's context or attributes: strings (ids, an
// address, a region), numbers, bools, a null, a list of strings and a
// nested Struct of three entries.
func KnownStruct() *structpb.Struct {
	f := map[string]*structpb.Value{
		"user_id":     structpb.NewStringValue("user-0b2c3d4e5f60"),
		"tenant":      structpb.NewStringValue("acme-corp"),
		"ip_address":  structpb.NewStringValue("203.0.113.42"),
		"region":      structpb.NewStringValue("eu-west-1"),
		"user_agent":  structpb.NewStringValue("grpc-go/1.68.0"),
		"request_id":  structpb.NewStringValue("3f1c9a7e-5b2d-4c8e-9f01-a2b3c4d5e6f7"),
		"attempt":     structpb.NewNumberValue(1),
		"score":       structpb.NewNumberValue(0.875),
		"quota_left":  structpb.NewNumberValue(12_480),
		"mfa":         structpb.NewBoolValue(true),
		"is_internal": structpb.NewBoolValue(false),
		"expires":     structpb.NewNullValue(),
		"now":         structpb.NewStringValue("2026-12-01T10:48:36Z"),
		"groups": structpb.NewListValue(&structpb.ListValue{Values: []*structpb.Value{
			structpb.NewStringValue("admins"), structpb.NewStringValue("billing"),
			structpb.NewStringValue("eng"), structpb.NewStringValue("on-call"),
		}}),
		"device": structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{
			"os":      structpb.NewStringValue("linux"),
			"managed": structpb.NewBoolValue(true),
			"version": structpb.NewNumberValue(6.1),
		}}),
		"plan": structpb.NewStringValue("enterprise"),
	}
	return &structpb.Struct{Fields: f}
}
