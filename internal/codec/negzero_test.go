package codec_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/dynamicpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/grpcfast/grpcfast/internal/codec"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

var negZero = math.Copysign(0, -1)

// randomDecodable builds a Decodable tree of the given depth whose float and
// double fields, in every place a Decodable holds them, are -0.0 with
// probability p, +0.0 or a number otherwise.
func randomDecodable(r *rand.Rand, depth int, p float64) *kinds.Decodable {
	f64 := func() float64 {
		switch {
		case r.Float64() < p:
			return negZero
		case r.IntN(2) == 0:
			return 0
		}
		return r.Float64() - 0.5
	}
	rich := func() *kinds.Rich { return &kinds.Rich{Ratio: f64(), Id: r.Int64N(9)} }
	m := &kinds.Decodable{Fl: float32(f64()), Db: f64(), Rdb: []float64{f64()}, Rfl: []float32{float32(f64())}}
	if r.IntN(2) == 0 {
		m.Rich = rich()
	}
	for range r.IntN(3) {
		m.Riches = append(m.Riches, rich())
	}
	switch r.IntN(4) {
	case 0:
		m.Choice = &kinds.Decodable_Real{Real: f64()}
	case 1:
		m.Choice = &kinds.Decodable_Other{Other: rich()}
	case 2:
		if depth > 0 {
			m.Choice = &kinds.Decodable_Node{Node: randomDecodable(r, depth-1, p)}
		}
	}
	if depth > 0 {
		if r.IntN(2) == 0 {
			m.Child = randomDecodable(r, depth-1, p)
		}
		for range r.IntN(3) {
			m.Children = append(m.Children, randomDecodable(r, depth-1, p))
		}
	}
	return m
}

// dynamicCopy returns m as a dynamic message of its descriptor, which has no
// GrpcfastNegZero: NegZeroOf walks it through protobuf-go's reflection.
func dynamicCopy(t *testing.T, m proto.Message) proto.Message {
	t.Helper()
	b, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	d := dynamicpb.NewMessage(m.ProtoReflect().Descriptor())
	if err := proto.Unmarshal(b, d); err != nil {
		t.Fatal(err)
	}
	return d
}

// TestNegZeroGeneratedAgreesWithReflection checks each generated
// GrpcfastNegZero against the walk of the same message through reflection,
// and both against what vtprotobuf's encoding does: a message holds a -0.0
// that they report exactly where vtprotobuf's encoding differs from
// protobuf-go's.
func TestNegZeroGeneratedAgreesWithReflection(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	found := 0
	for i := range 2000 {
		p := []float64{0, 0.02, 0.2}[i%3]
		m := randomDecodable(r, 3, p)
		gen := m.GrpcfastNegZero()
		if refl := codec.NegZeroOf(dynamicCopy(t, m)); gen != refl {
			t.Fatalf("message %d: generated %v, reflection %v: %v", i, gen, refl, m)
		}
		vt, err := m.MarshalVT()
		if err != nil {
			t.Fatal(err)
		}
		std, err := proto.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		if differs := string(vt) != string(std); differs != gen {
			t.Fatalf("message %d: GrpcfastNegZero %v, vtprotobuf's encoding differs from protobuf-go's: %v: %v", i, gen, differs, m)
		}
		if gen {
			found++
		}
	}
	if found < 100 || found > 1900 {
		t.Fatalf("%d of 2000 messages held a -0.0: the test covers too little", found)
	}
}

// TestNegZeroOf checks the reflective walk where the generated code does
// not reach: a map's message values, wrappers, nil and typed nil messages.
func TestNegZeroOf(t *testing.T) {
	nz32 := float32(negZero)
	for _, tc := range []struct {
		name string
		m    proto.Message
		want bool
	}{
		{"nil", nil, false},
		{"typed nil", (*kinds.Signed)(nil), false},
		{"empty", &kinds.Signed{}, false},
		{"float", &kinds.Signed{Fl: nz32}, true},
		{"map value", &kinds.Signed{ByKey: map[string]*kinds.Signed{"a": {}, "b": {Db: negZero}}}, true},
		{"nil map value", &kinds.Signed{ByKey: map[string]*kinds.Signed{"a": nil}}, false},
		{"map of doubles", &kinds.Signed{Values: map[string]float64{"a": negZero}}, false},
		{"FloatValue", &kinds.Signed{Wf: wrapperspb.Float(nz32)}, true},
		{"FloatValue +0", &kinds.Signed{Wf: wrapperspb.Float(0)}, false},
		{"DoubleValue alone", wrapperspb.Double(negZero), true},
		{"list", &kinds.Signed{List: []*kinds.Signed{{}, {List: []*kinds.Signed{{Fl: nz32}}}}}, true},
	} {
		if got := codec.NegZeroOf(tc.m); got != tc.want {
			t.Errorf("%s: NegZeroOf %v, want %v", tc.name, got, tc.want)
		}
		if tc.m == nil || !tc.m.ProtoReflect().IsValid() {
			continue
		}
		if got := codec.NegZeroOf(dynamicCopy(t, tc.m)); got != tc.want {
			t.Errorf("%s: NegZeroOf of a dynamic copy %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestNegZeroOfAmongMapValues: a -0.0 in one message value of a map of a
// message type without GrpcfastNegZero (a dynamic message, walked through
// reflection) is found whatever the order the map's entries are visited
// in, however many values after it hold none.
func TestNegZeroOfAmongMapValues(t *testing.T) {
	m := &kinds.Signed{ByKey: map[string]*kinds.Signed{}}
	for i := range 40 {
		m.ByKey[string(rune('a'+i))] = &kinds.Signed{Db: 1}
	}
	m.ByKey["z"] = &kinds.Signed{Db: negZero}
	d := dynamicCopy(t, m)
	for i := range 20 { // map iteration order differs from call to call
		if !codec.NegZeroOf(d) {
			t.Fatalf("call %d: NegZeroOf of a dynamic message with a -0.0 in one of %d map values: false", i, len(m.ByKey))
		}
	}
}
