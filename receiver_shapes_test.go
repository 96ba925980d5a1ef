package grpcfast_test

import (
	"math/rand/v2"
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/testprotos/shapes"
)

// randomTree returns a tree of the given depth with a random subset of
// Tree's fields set, every shape the generated record and reuse handle:
// recursion through repeated, optional, map and oneof message fields,
// repeated bools, doubles, fixed32s, bytes and messages.
func randomTree(r *rand.Rand, depth int) *shapes.Tree {
	t := &shapes.Tree{}
	if r.IntN(2) == 0 {
		t.Name = "t"
	}
	for range r.IntN(4) {
		t.Flags = append(t.Flags, r.IntN(2) == 0)
		t.Weights = append(t.Weights, r.Float64())
		t.Codes = append(t.Codes, r.Uint32())
		t.Blobs = append(t.Blobs, grpcfasttest.Pattern(r.IntN(40)))
		t.Leaves = append(t.Leaves, &shapes.Leaf{Data: grpcfasttest.Pattern(r.IntN(100))})
	}
	if r.IntN(2) == 0 {
		t.Leaf = &shapes.Leaf{Data: grpcfasttest.Pattern(r.IntN(300))}
	}
	if r.IntN(3) == 0 {
		t.Maybe = grpcfasttest.Pattern(r.IntN(5))
	}
	if depth > 0 {
		for range r.IntN(3) {
			t.Children = append(t.Children, randomTree(r, depth-1))
		}
		if r.IntN(3) == 0 {
			t.Parent = randomTree(r, depth-1)
		}
		if r.IntN(3) == 0 {
			t.Named = map[string]*shapes.Tree{"a": randomTree(r, depth-1), "b": {}}
		}
		switch r.IntN(4) {
		case 1:
			t.Pick = &shapes.Tree_One{One: &shapes.Leaf{Data: grpcfasttest.Pattern(r.IntN(50))}}
		case 2:
			t.Pick = &shapes.Tree_Label{Label: "label"}
		case 3:
			t.Pick = &shapes.Tree_Subtree{Subtree: randomTree(r, depth-1)}
		}
	}
	return t
}

// TestReceiverTreeShapes receives random trees through a Receiver, in one
// buffer and in two: every message equals the one sent, and memory the
// caller puts into a received tree (its own leaves and slices) is never
// written by a later Recv.
func TestReceiverTreeShapes(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	var trees []proto.Message
	for range 300 {
		trees = append(trees, randomTree(r, 3))
	}
	for _, split := range []bool{false, true} {
		s := grpcfasttest.ListStream[shapes.Tree](t, trees...)
		s.Split = split
		rcv := grpcfast.NewReceiver[shapes.Tree](s)
		type owned struct {
			leaf   *shapes.Leaf
			leafIs []byte
			codes  []uint32
		}
		var mine []owned
		for i := range trees {
			got, err := rcv.Recv()
			if err != nil {
				t.Fatal(err)
			}
			if !proto.Equal(got, trees[i]) {
				t.Fatalf("split %v: tree %d differs:\n got %v\nwant %v", split, i, got, trees[i])
			}
			for _, o := range mine {
				if string(o.leaf.Data) != string(o.leafIs) || len(o.codes) != 2 || o.codes[0] != 7 || o.codes[1] != 8 {
					t.Fatalf("split %v: a later Recv wrote into memory the caller put into tree", split)
				}
			}
			if i%7 == 0 {
				o := owned{leaf: &shapes.Leaf{Data: []byte("mine")}, leafIs: []byte("mine"), codes: make([]uint32, 2, 64)}
				o.codes[0], o.codes[1] = 7, 8
				got.Leaves = append(got.Leaves[:0:0], o.leaf)
				got.Codes = o.codes[:0]
				got.Leaf = o.leaf
				mine = append(mine, o)
			}
		}
		rcv.Release()
	}
}
