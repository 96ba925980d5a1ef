package reuse_test

import (
	"testing"

	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/own"
	"github.com/grpcfast/grpcfast/internal/reuse"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

// putCounter is a transport's buffer pool that counts the buffers given
// back to it, and never hands them out again.
type putCounter struct{ puts int }

func (p *putCounter) Get(n int) *[]byte { b := make([]byte, n); return &b }
func (p *putCounter) Put(*[]byte)       { p.puts++ }

// TestReleaseOfViews: a slot holds the transport buffer that a large bytes
// field is a view of until its next reset, which gives it back to its pool
// (poisoned in checked builds); quarantine builds never give it back, so
// that the poison stays where a view kept too long still points, and no
// later message is received into it.
func TestReleaseOfViews(t *testing.T) {
	wire, err := proto.Marshal(&kinds.Rich{Data: grpcfasttest.Pattern(4096)})
	if err != nil {
		t.Fatal(err)
	}
	pool := &putCounter{}
	data := grpcfasttest.PooledAt(pool, wire)
	s := reuse.New[kinds.Rich]()
	s.Prepare()
	err = grpcfast.NewCodec().Unmarshal(data, s.Msg)
	data.Free() // as gRPC does when Unmarshal returns
	if !s.Settle(err) {
		t.Fatal(err)
	}
	view := s.Msg.Data
	if len(view) != 4096 || pool.puts != 0 {
		t.Fatalf("Data (%d bytes) is not a view held by the slot: %d buffers back in the pool", len(view), pool.puts)
	}
	s.Prepare()
	switch {
	case own.Quarantine && pool.puts != 0:
		t.Errorf("a quarantine build gave the buffer a view kept too long points into back to its pool, to be reused")
	case !own.Quarantine && pool.puts != 1:
		t.Errorf("%d buffers back in the pool after the reset, want 1", pool.puts)
	}
	if own.Checked && !grpcfasttest.Poisoned(view) {
		t.Errorf("the view reads %x... after the reset, want the poison pattern", view[:8])
	}
}
