package reuse_test

import (
	"testing"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/own"
	"github.com/grpcfast/grpcfast/internal/reuse"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

// decodeInto decodes m's encoding into the prepared slot s with grpcfast's
// codec, as a receiver or pooled handler does, and settles it.
func decodeInto(t *testing.T, s *reuse.Slot[kinds.Rich], m *kinds.Rich) {
	t.Helper()
	wire, err := proto.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	err = grpcfast.NewCodec().Unmarshal(mem.BufferSlice{mem.SliceBuffer(wire)}, s.Msg)
	if !s.Settle(err) {
		t.Fatalf("decode into the slot: %v", err)
	}
}

// TestSlotPoisonUntilUnpoison: in checked builds but quarantine ones, a
// prepared slot's Poison writes the pattern over what its message and the
// spares its record keeps hold of their own (a string of the pattern is
// not valid UTF-8), so that whatever still holds them reads it; Unpoison
// clears all of it, and the next decode into the slot gives exactly the
// message sent, with nothing of the pattern nor of the last decode.
func TestSlotPoisonUntilUnpoison(t *testing.T) {
	if !own.Checked || own.Quarantine {
		t.Skip("Poison writes over memory only in checked builds that reuse it (not quarantine ones)")
	}
	s := reuse.New[kinds.Rich]()
	s.Prepare()
	decodeInto(t, s, &kinds.Rich{
		Id: 7, Name: "first", Flag: true,
		Inner:  &kinds.Inner{Label: "inner"},
		Inners: []*kinds.Inner{{Label: "a"}, {Label: "b"}},
		Choice: &kinds.Rich_Text{Text: "text"},
	})
	msg, inner, inners := s.Msg, s.Msg.Inner, s.Msg.Inners
	a, b := inners[0], inners[1] // spares after the reset; inners's array is kept
	text := s.Msg.Choice.(*kinds.Rich_Text)
	s.Prepare()
	s.Poison()
	for name, got := range map[string]string{
		"Name":                       msg.Name,
		"Inner's Label":              inner.Label,
		"Inners[0]'s Label":          a.Label,
		"Inners[1]'s Label":          b.Label,
		"the kept array's Inners[0]": inners[0].Label,
		"the oneof wrapper's Text":   text.Text,
	} {
		if got != own.PoisonString {
			t.Errorf("%s reads %q after Poison, want the pattern %q", name, got, own.PoisonString)
		}
	}
	if msg.Id == 0 || !msg.Flag {
		t.Errorf("Id %d and Flag %v after Poison, want the pattern (non-zero, true)", msg.Id, msg.Flag)
	}

	s.Unpoison()
	if !proto.Equal(msg, &kinds.Rich{}) {
		t.Errorf("the message after Unpoison is %v, want it reset", msg)
	}
	for name, got := range map[string]*kinds.Inner{"Inner": inner, "Inners[0]": a, "Inners[1]": b} {
		if !proto.Equal(got, &kinds.Inner{}) {
			t.Errorf("the spare that was %s is %v after Unpoison, want it reset", name, got)
		}
	}
	if inners[0] != nil || inners[1] != nil {
		t.Errorf("the kept array of Inners holds %p and %p after Unpoison, want nil", inners[0], inners[1])
	}
	if text.Text != "" {
		t.Errorf("the spare oneof wrapper reads %q after Unpoison, want it reset", text.Text)
	}

	// Fewer fields than the first decode: none of the pattern may show
	// through in those left unset, nor in the spares taken again.
	want := &kinds.Rich{Inners: []*kinds.Inner{{}, {Values: []uint32{1}}}, Choice: &kinds.Rich_Text{}}
	decodeInto(t, s, want)
	if !proto.Equal(s.Msg, want) {
		t.Errorf("the decode after Unpoison gave %v, want %v", s.Msg, want)
	}
}

// TestSlotsGetUnpoisons: a slot given back (Slots.Put, which poisons it in
// checked builds) and taken again (Slots.Get) decodes exactly what is sent,
// in every build: Get clears the pattern, and builds without it poison
// nothing that a decode would then find.
func TestSlotsGetUnpoisons(t *testing.T) {
	if own.Quarantine {
		t.Skip("quarantine builds drop every slot given back")
	}
	p := reuse.SlotsOf[kinds.Rich]()
	s := p.Get()
	decodeInto(t, s, &kinds.Rich{Id: 1, Name: "first", Inner: &kinds.Inner{Label: "inner"}})
	p.Put(s)
	g := p.Get()
	if g != s {
		t.Fatal("Get after Put returned a new slot, not the one given back")
	}
	if !proto.Equal(g.Msg, &kinds.Rich{}) {
		t.Errorf("the slot that Get took again holds %v, want it reset", g.Msg)
	}
	want := &kinds.Rich{Inner: &kinds.Inner{}, Words: []string{"w"}}
	decodeInto(t, g, want)
	if !proto.Equal(g.Msg, want) {
		t.Errorf("the decode into the slot taken again gave %v, want %v", g.Msg, want)
	}
	p.Put(g)
}
