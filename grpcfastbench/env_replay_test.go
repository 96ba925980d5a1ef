package grpcfastbench

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protodelim"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast/grpcfastrecord"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

// writeCorpus writes msgs into file of method's directory in dir.
func writeCorpus(t *testing.T, dir, method, file string, msgs ...proto.Message) {
	t.Helper()
	d := filepath.Join(dir, "grpcfast.testdata.kinds.Kinds", method)
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(d, file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, m := range msgs {
		if _, err := protodelim.MarshalTo(f, m); err != nil {
			t.Fatal(err)
		}
	}
}

// sentNames records the names of the Rich messages a codec marshals.
type sentNames struct {
	encoding.CodecV2
	mu    *sync.Mutex
	names map[string]int
}

func (c sentNames) Marshal(v any) (mem.BufferSlice, error) {
	if r, ok := v.(*kinds.Rich); ok {
		c.mu.Lock()
		c.names[r.Name]++
		c.mu.Unlock()
	}
	return c.CodecV2.Marshal(v)
}

// TestReplay checks that -grpcfast.replay sends the recorded messages, all
// of them in turn, on both sides, and fills what has no recording.
func TestReplay(t *testing.T) {
	dir := t.TempDir()
	var unaryReqs, unaryRess, streamReqs []proto.Message
	for i := range 3 {
		unaryReqs = append(unaryReqs, &kinds.Rich{Name: fmt.Sprint("unary req ", i), Data: make([]byte, 100*i)})
		unaryRess = append(unaryRess, &kinds.Rich{Name: fmt.Sprint("unary res ", i)})
		streamReqs = append(streamReqs, &kinds.Rich{Name: fmt.Sprint("stream req ", i)})
	}
	writeCorpus(t, dir, "Unary", grpcfastrecord.RequestsFile, unaryReqs...)
	writeCorpus(t, dir, "Unary", grpcfastrecord.ResponsesFile, unaryRess...)
	writeCorpus(t, dir, "Bidi", grpcfastrecord.RequestsFile, streamReqs...)

	var mu sync.Mutex
	sent := map[string]map[string]int{}
	wrapCodec = func(name string, c encoding.CodecV2) encoding.CodecV2 {
		sent[name] = map[string]int{}
		return sentNames{c, &mu, sent[name]}
	}
	t.Cleanup(func() { wrapCodec = nil })
	methods := []Method{kindsMethods()[0], kindsMethods()[3]} // Unary, Bidi
	withFlags(t, func(c *config) { c.replay, c.msgs = dir, 5 }, func() {
		// Four unary calls: every recorded message, in turn.
		if err := flag.Lookup("test.benchtime").Value.Set("4x"); err != nil {
			t.Fatal(err)
		}
		var failed bool
		testing.Benchmark(func(b *testing.B) {
			Run(b, "grpcfast.testdata.kinds.Kinds", methods...)
			failed = b.Failed()
		})
		if failed {
			t.Fatal("the benchmark failed")
		}
	})
	filled := new(kinds.Rich)
	if err := Fill(filled, 0); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{PathProto, PathGrpcfast} {
		for _, m := range append(append(unaryReqs, unaryRess...), streamReqs...) {
			if name := m.(*kinds.Rich).Name; sent[path][name] == 0 {
				t.Errorf("codec=%s never sent the recorded %q; sent %v", path, name, sent[path])
			}
		}
		// Bidi's responses have no recording: the filled one.
		if sent[path][filled.Name] == 0 {
			t.Errorf("codec=%s never sent the filled response; sent %v", path, sent[path])
		}
	}

	ms, replayed, err := fillMessages("grpcfast.testdata.kinds.Kinds", methods, &config{replay: dir, reqSize: -1, respSize: -1})
	if err != nil {
		t.Fatal(err)
	}
	if replayed[0] != [2]int{3, 3} || replayed[1] != [2]int{3, 0} {
		t.Errorf("replayed %v, want [[3 3] [3 0]]", replayed)
	}
	if got, want := replayNote(replayed[1], dir), "3 recorded requests and filled responses from "+dir; got != want {
		t.Errorf("note %q, want %q", got, want)
	}
	// Unary sends the mean recorded request: (14+114+216)/3 bytes and so on.
	op := perOpOf(methods[0], ms[0], &flags)
	if want := meanSize(unaryReqs) + meanSize(unaryRess); op.payload != want {
		t.Errorf("payload %d, want %d", op.payload, want)
	}
}

func TestReplayFlagError(t *testing.T) {
	c := flags
	c.replay = filepath.Join(t.TempDir(), "none")
	want := "-grpcfast.replay=" + c.replay + ": not a directory"
	if err := c.check(); err == nil || err.Error() != want {
		t.Errorf("check: %v, want %q", err, want)
	}
}
