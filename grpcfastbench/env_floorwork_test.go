package grpcfastbench

import (
	"testing"
	"time"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

// TestFloorWork: with -grpcfast.floorwork=D, the server of codec=floor
// spends at least D on each message it receives, and decodes nothing still;
// its client, and every other path's server, spend nothing more. Without
// the flag the floor's server runs the floor's codec itself.
func TestFloorWork(t *testing.T) {
	const work = 20 * time.Millisecond
	for _, d := range []time.Duration{0, work} {
		var floor *path
		for _, p := range newPaths(&config{floor: true, floorWork: d}) {
			if p.name == PathFloor {
				floor = p
			} else if p.codec != nil && p.serverCodec() != p.codec {
				t.Errorf("floorwork %v: codec=%s's server runs %T, want its own codec", d, p.name, p.serverCodec())
			}
		}
		if floor == nil {
			t.Fatalf("floorwork %v: no codec=floor", d)
		}
		if _, ok := floor.codec.(floorCodec); !ok {
			t.Fatalf("floorwork %v: the floor's client runs %T, want floorCodec", d, floor.codec)
		}
		server := floor.serverCodec()
		if d == 0 {
			if server != floor.codec {
				t.Errorf("no floorwork: the floor's server runs %T, want the floor's codec", server)
			}
			continue
		}
		if server.Name() != floor.codec.Name() {
			t.Errorf("floorwork %v: the server's codec is named %q, want %q", d, server.Name(), floor.codec.Name())
		}
		msg := new(kinds.Rich)
		start := time.Now()
		if err := server.Unmarshal(mem.BufferSlice{mem.SliceBuffer([]byte{8, 1})}, msg); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(start); took < d {
			t.Errorf("floorwork %v: the server's Unmarshal took %v", d, took)
		}
		if proto.Size(msg) != 0 {
			t.Errorf("floorwork %v: the server decoded %d bytes; the floor decodes nothing", d, proto.Size(msg))
		}
	}
}

// TestFloorWorkNeedsFloor: -grpcfast.floorwork without -grpcfast.floor is
// an error that names both.
func TestFloorWorkNeedsFloor(t *testing.T) {
	c := flags
	c.floorWork = time.Microsecond
	want := "-grpcfast.floorwork needs -grpcfast.floor: it is the work of the floor's server"
	if err := c.check(); err == nil || err.Error() != want {
		t.Errorf("check: %v, want %q", err, want)
	}
	c.floor = true
	if err := c.check(); err != nil {
		t.Errorf("with -grpcfast.floor: %v", err)
	}
}
