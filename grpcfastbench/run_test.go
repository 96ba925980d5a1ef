package grpcfastbench

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	vtgrpc "github.com/planetscale/vtprotobuf/codec/grpc"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/stdcodec"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

// countingCodec records the calls of one path's codec, and keeps every
// message it decoded into, so that no two of them can share an address.
type countingCodec struct {
	encoding.CodecV2
	mu        sync.Mutex
	marshals  int
	decodedTo []any
}

func (c *countingCodec) Marshal(v any) (mem.BufferSlice, error) {
	c.mu.Lock()
	c.marshals++
	c.mu.Unlock()
	return c.CodecV2.Marshal(v)
}

func (c *countingCodec) Unmarshal(data mem.BufferSlice, v any) error {
	c.mu.Lock()
	c.decodedTo = append(c.decodedTo, v)
	c.mu.Unlock()
	return c.CodecV2.Unmarshal(data, v)
}

// countingCodecV1 records the decodes of the path with a V1 codec.
type countingCodecV1 struct {
	encoding.Codec
	mu        sync.Mutex
	decodedTo []any
}

func (c *countingCodecV1) Unmarshal(data []byte, v any) error {
	c.mu.Lock()
	c.decodedTo = append(c.decodedTo, v)
	c.mu.Unlock()
	return c.Codec.Unmarshal(data, v)
}

// reuse returns how many decodes went into *kinds.Rich messages, and into
// how many distinct ones.
func (c *countingCodec) reuse() (decodes, distinct int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	seen := map[any]bool{}
	for _, v := range c.decodedTo {
		if r, ok := v.(*kinds.Rich); ok {
			decodes++
			seen[r] = true
		}
	}
	return decodes, len(seen)
}

func kindsMethods() []Method {
	return []Method{
		Unary[kinds.Rich, kinds.Rich]("Unary"),
		ClientStream[kinds.Rich, kinds.Summary]("ClientStream", kinds.NewKinds_ClientStreamRequestReceiver),
		ServerStream[kinds.Rich, kinds.Rich]("ServerStream", kinds.NewKinds_ServerStreamResponseReceiver),
		Bidi[kinds.Rich, kinds.Rich]("Bidi", kinds.NewKinds_BidiRequestReceiver, kinds.NewKinds_BidiResponseReceiver),
	}
}

// withFlags runs fn with the harness's flags changed by set, and go test's
// -test.benchtime at 1x, so that testing.Benchmark makes one call.
func withFlags(t *testing.T, set func(*config), fn func()) {
	t.Helper()
	saved := flags
	t.Cleanup(func() { flags = saved })
	set(&flags)
	bt := flag.Lookup("test.benchtime")
	old := bt.Value.String()
	if err := bt.Value.Set("1x"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { bt.Value.Set(old) })
	fn()
}

// TestPathsUseTheirCodecs proves that codec=proto runs on gRPC's standard
// codec and the streams' own Recv, codec=grpcfast on grpcfast's codec and
// the generated receivers, and neither on the codec registered for the
// process.
func TestPathsUseTheirCodecs(t *testing.T) {
	for _, transport := range []string{TransportTCP, TransportBufconn} {
		t.Run(transport, func(t *testing.T) {
			codecs := map[string]*countingCodec{}
			wrapCodec = func(name string, c encoding.CodecV2) encoding.CodecV2 {
				cc := &countingCodec{CodecV2: c}
				codecs[name] = cc
				return cc
			}
			var v1 *countingCodecV1
			wrapCodecV1 = func(name string, c encoding.Codec) encoding.Codec {
				v1 = &countingCodecV1{Codec: c}
				return v1
			}
			t.Cleanup(func() { wrapCodec, wrapCodecV1 = nil, nil })
			registered := encoding.GetCodecV2("proto")
			global := &countingCodec{CodecV2: registered}
			encoding.RegisterCodecV2(global)
			t.Cleanup(func() { encoding.RegisterCodecV2(registered) })

			// Enough messages per stream that reuse shows even where no
			// receiver finds a released one to reuse: with the race detector
			// sync.Pool drops some of what it is given, and a stream then
			// decodes its msgs messages into two new ones.
			const msgs = 16
			var failed bool
			withFlags(t, func(c *config) { c.msgs, c.transport, c.size = msgs, transport, 256 }, func() {
				res := testing.Benchmark(func(b *testing.B) {
					Run(b, "grpcfast.testdata.kinds.Kinds", kindsMethods()...)
					failed = b.Failed()
				})
				if failed || res.N == 0 {
					t.Fatalf("the benchmark failed (N=%d)", res.N)
				}
			})

			if _, ok := codecs[PathProto].CodecV2.(*grpcfast.Codec); ok || codecs[PathProto].CodecV2 != stdcodec.Codec() {
				t.Errorf("codec=proto runs on %T, want gRPC's standard codec", codecs[PathProto].CodecV2)
			}
			if _, ok := codecs[PathGrpcfast].CodecV2.(*grpcfast.Codec); !ok {
				t.Errorf("codec=grpcfast runs on %T, want *grpcfast.Codec", codecs[PathGrpcfast].CodecV2)
			}
			if _, ok := v1.Codec.(vtgrpc.Codec); !ok {
				t.Errorf("codec=vtproto runs on %T, want vtprotobuf's codec/grpc", v1.Codec)
			}
			seen := map[any]bool{}
			for _, v := range v1.decodedTo {
				if seen[v] {
					t.Errorf("codec=vtproto decoded twice into %p; its codec merges, so every message must be new", v)
				}
				seen[v] = true
			}
			if len(v1.decodedTo) == 0 {
				t.Errorf("codec=vtproto decoded nothing")
			}
			if global.marshals != 0 || len(global.decodedTo) != 0 {
				t.Errorf("the registered codec was used %d+%d times; both paths must force their own", global.marshals, len(global.decodedTo))
			}
			for name, c := range codecs {
				decodes, distinct := c.reuse()
				if c.marshals == 0 || decodes == 0 {
					t.Fatalf("codec=%s: %d marshals, %d decodes", name, c.marshals, decodes)
				}
				// Every stream call receives msgs messages into two reused
				// messages with the receivers, which the next stream reuses
				// once released; into a new one each with Recv. Unary calls
				// decode into a new message on both sides.
				switch name {
				case PathProto:
					if distinct != decodes {
						t.Errorf("codec=proto decoded %d messages into %d distinct ones; the stream's Recv allocates each", decodes, distinct)
					}
				case PathGrpcfast:
					if distinct*2 > decodes {
						t.Errorf("codec=grpcfast decoded %d messages into %d distinct ones; the receivers reuse two per stream", decodes, distinct)
					}
				}
			}
		})
	}
}

// TestFloorPath: -grpcfast.floor adds codec=floor, whose codec encodes
// what it is given and decodes nothing; without the flag there is no such
// path.
func TestFloorPath(t *testing.T) {
	for _, floor := range []bool{false, true} {
		codecs := map[string]*countingCodec{}
		wrapCodec = func(name string, c encoding.CodecV2) encoding.CodecV2 {
			cc := &countingCodec{CodecV2: c}
			codecs[name] = cc
			return cc
		}
		t.Cleanup(func() { wrapCodec = nil })
		withFlags(t, func(c *config) { c.msgs, c.size, c.floor = 3, 256, floor }, func() {
			var failed bool
			res := testing.Benchmark(func(b *testing.B) {
				Run(b, "grpcfast.testdata.kinds.Kinds", kindsMethods()...)
				failed = b.Failed()
			})
			if failed || res.N == 0 {
				t.Fatalf("floor=%v: the benchmark failed (N=%d)", floor, res.N)
			}
		})
		c, ok := codecs[PathFloor]
		if ok != floor {
			t.Fatalf("floor=%v: codec=floor present: %v", floor, ok)
		}
		if !floor {
			continue
		}
		if c.marshals == 0 || len(c.decodedTo) == 0 {
			t.Fatalf("codec=floor: %d marshals, %d decodes", c.marshals, len(c.decodedTo))
		}
		for _, v := range c.decodedTo {
			if n := proto.Size(v.(proto.Message)); n != 0 {
				t.Fatalf("codec=floor decoded a %T of %d bytes; it must decode nothing", v, n)
			}
		}
	}
}

// TestServerProcess runs a generated benchmark with the server in its own
// process, with -test.cpu=1,2, and checks that the server's figures are
// reported for every path at both. The parent fails the benchmark unless
// the child announces the parent's GOMAXPROCS, so a pass also proves that
// the child follows -test.cpu. With -grpcfast.profile, both processes
// write their profiles of every sub-benchmark.
func TestServerProcess(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs a test binary")
	}
	dir, err := filepath.Abs("../internal/testprotos/kinds")
	if err != nil {
		t.Fatal(err)
	}
	profDir := t.TempDir()
	cmd := exec.Command("go", "test", "-run", "^$", "-bench", "BenchmarkGrpcfast_Kinds/^(Unary|Bidi)$", "-benchtime", "3x", "-cpu", "1,2", ".",
		"-args", "-grpcfast.server=process", "-grpcfast.msgs=5", "-grpcfast.size=300", "-grpcfast.floor",
		// A warm-up before each timed run: the child answers settle.
		"-grpcfast.warmup=10ms",
		"-grpcfast.profile="+profDir,
		// The child must run with the same transport flags, or the
		// benchmark fails (startChild).
		"-grpcfast.writebuf=0", "-grpcfast.window=1048576", "-grpcfast.sharedwrite=false")
	if runtime.GOOS == "linux" {
		// Each process on a CPU of its own where there are two: the child
		// must announce the CPUs it runs on (startChild).
		cmd.Args = append(cmd.Args, "-grpcfast.clientcpus="+strconv.Itoa(startCPUs[0]),
			"-grpcfast.servercpus="+strconv.Itoa(startCPUs[len(startCPUs)-1]))
	}
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	checkTables(t, string(out))
	// What grew, once per message type and flag, though the benchmark runs
	// once per -cpu value.
	for _, note := range []string{
		"-grpcfast.size=300 grows grpcfast.testdata.kinds.Rich from ",
		"-grpcfast.batch=16384 (shape=batch) grows grpcfast.testdata.kinds.Rich from ",
	} {
		n := 0
		for _, line := range strings.Split(string(out), "\n") {
			if strings.HasPrefix(line, note) {
				n++
			}
		}
		if n != 1 {
			t.Errorf("%d lines start with %q, want 1:\n%s", n, note, out)
		}
	}
	for _, name := range []string{"Unary/codec=proto", "Unary/codec=vtproto", "Unary/codec=grpcfast",
		"Bidi/codec=proto", "Bidi/codec=vtproto", "Bidi/codec=grpcfast", "Unary/codec=floor", "Bidi/codec=floor",
		// Rich holds a repeated message field: the server process serves
		// the batch case too.
		"Unary/shape=batch/codec=proto", "Unary/shape=batch/codec=grpcfast-pooled-copy", "Bidi/shape=batch/codec=grpcfast"} {
		for _, cpu := range []string{"", "-2"} {
			line := regexp.MustCompile(`(?m)^BenchmarkGrpcfast_Kinds/` + regexp.QuoteMeta(name+cpu) + `\s.*$`).Find(out)
			if line == nil {
				t.Errorf("no line for %s%s in\n%s", name, cpu, out)
				continue
			}
			for _, metric := range []string{" srv-cpu-ns/op", " srv-B/op", " srv-allocs/op", " cpu-ns/op", " allocs/msg"} {
				if !strings.Contains(string(line), metric) {
					t.Errorf("%s%s: no%s in %q", name, cpu, metric, line)
				}
			}
		}
		for _, side := range []string{"", ".server"} {
			for _, kind := range []string{"cpu", "allocs-before", "allocs"} {
				file := filepath.Join(profDir, "Kinds_"+strings.ReplaceAll(name, "/", "_")+side+"."+kind+".pprof")
				if fi, err := os.Stat(file); err != nil || fi.Size() == 0 {
					t.Errorf("%s: missing or empty (%v)", file, err)
				}
			}
		}
	}
	if strings.Contains(string(out), "listening") {
		t.Errorf("the server process's protocol lines leaked into the output:\n%s", out)
	}
}

func TestFlagErrors(t *testing.T) {
	for _, tc := range []struct{ arg, want string }{
		{"-grpcfast.transport=udp", `invalid value "udp" for flag -grpcfast.transport: want tcp or bufconn`},
		{"-grpcfast.server=remote", `invalid value "remote" for flag -grpcfast.server: want inprocess or process`},
		{"-grpcfast.bidi=async", `invalid value "async" for flag -grpcfast.bidi: want pipelined or pingpong`},
		{"-grpcfast.msgs=0", `invalid value "0" for flag -grpcfast.msgs: want a whole number >= 1`},
		{"-grpcfast.size=-1", `invalid value "-1" for flag -grpcfast.size: want a whole number >= 0`},
		{"-grpcfast.streams=x", `invalid value "x" for flag -grpcfast.streams: want a whole number >= 1, or a list of them separated by commas`},
		{"-grpcfast.conns=1,0", `invalid value "1,0" for flag -grpcfast.conns: want a whole number >= 1, or a list of them separated by commas`},
		{"-grpcfast.rounds=0", `invalid value "0" for flag -grpcfast.rounds: want a whole number >= 1`},
		{"-grpcfast.warmup=-1s", `invalid value "-1s" for flag -grpcfast.warmup: want a duration >= 0, such as 500ms or 2s`},
		{"-grpcfast.warmup=500", `invalid value "500" for flag -grpcfast.warmup: want a duration >= 0, such as 500ms or 2s`},
		{"-grpcfast.floorwork=-1us", `invalid value "-1us" for flag -grpcfast.floorwork: want a duration >= 0, such as 5us or 20us`},
		{"-grpcfast.floorwork=5", `invalid value "5" for flag -grpcfast.floorwork: want a duration >= 0, such as 5us or 20us`},
		{"-grpcfast.streams=8,1,8", `invalid value "8,1,8" for flag -grpcfast.streams: 8 is in the list twice`},
		{"-grpcfast.reqsize=x", `invalid value "x" for flag -grpcfast.reqsize: want a whole number >= 0`},
		{"-grpcfast.respsize=-2", `invalid value "-2" for flag -grpcfast.respsize: want a whole number >= 0`},
		{"-grpcfast.grow=data", `invalid value "data" for flag -grpcfast.grow: want full field names such as google.bytestream.WriteRequest.data, separated by commas`},
		{"-grpcfast.grow=a.B.c,", `invalid value "a.B.c," for flag -grpcfast.grow: want full field names such as google.bytestream.WriteRequest.data, separated by commas`},
		{"-grpcfast.writebuf=-1", `invalid value "-1" for flag -grpcfast.writebuf: want a whole number >= 0`},
		{"-grpcfast.readbuf=32k", `invalid value "32k" for flag -grpcfast.readbuf: want a whole number >= 0`},
		{"-grpcfast.window=65535", `invalid value "65535" for flag -grpcfast.window: want a whole number from 65536 (gRPC-Go ignores smaller windows) to 2147483647`},
		{"-grpcfast.connwindow=2147483648", `invalid value "2147483648" for flag -grpcfast.connwindow: want a whole number from 65536 (gRPC-Go ignores smaller windows) to 2147483647`},
		{"-grpcfast.sharedwrite=yes", `invalid boolean value "yes" for -grpcfast.sharedwrite: want true or false`},
		{"-grpcfast.streamworkers=-1", `invalid value "-1" for flag -grpcfast.streamworkers: want a whole number from 0 (a new goroutine per stream, gRPC-Go's default) to 65536`},
		{"-grpcfast.streamworkers=65537", `invalid value "65537" for flag -grpcfast.streamworkers: want a whole number from 0 (a new goroutine per stream, gRPC-Go's default) to 65536`},
	} {
		if err := parseFlag(tc.arg); err == nil || err.Error() != tc.want {
			t.Errorf("%s: error %v, want %q", tc.arg, err, tc.want)
		}
	}
	c := flags
	c.server, c.transport = ServerProcess, TransportBufconn
	want := "-grpcfast.server=process needs -grpcfast.transport=tcp: an in-memory connection cannot reach another process"
	if err := c.check(); err == nil || err.Error() != want {
		t.Errorf("check: %v, want %q", err, want)
	}
}

// parseFlag parses arg alone with the harness's flags, into a config of
// its own, and returns the flag package's error.
func parseFlag(arg string) error {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	fs.SetOutput(new(strings.Builder))
	var c config
	registerFlags(fs, &c)
	return fs.Parse([]string{arg})
}

// TestProfileDir checks that -grpcfast.profile writes a CPU profile and the
// two allocation profiles of every sub-benchmark, named after it, with lists
// of -grpcfast.conns and -grpcfast.streams making a sub-benchmark level per
// combination.
func TestProfileDir(t *testing.T) {
	dir := t.TempDir()
	withFlags(t, func(c *config) {
		c.msgs, c.profileDir, c.conns, c.streams = 2, dir, []int{1, 2}, []int{1, 3}
	}, func() {
		var failed bool
		testing.Benchmark(func(b *testing.B) {
			Run(b, "grpcfast.testdata.kinds.Kinds", kindsMethods()[:2]...)
			failed = b.Failed()
		})
		if failed {
			t.Fatal("the benchmark failed")
		}
	})
	var combos []string
	for _, nc := range []string{"1", "2"} {
		for _, ns := range []string{"1", "3"} {
			combos = append(combos, "conns="+nc+"_streams="+ns)
		}
	}
	for _, m := range []string{"Unary", "ClientStream"} {
		for _, p := range []string{PathProto, PathGrpcfast} {
			for _, kind := range []string{"cpu", "allocs-before", "allocs"} {
				// Rich holds a repeated message field: a batch case too.
				for _, shape := range []string{"", ShapeBatch + "_"} {
					for _, load := range combos {
						name := "Kinds_" + m + "_" + shape + load + "_codec=" + p + "." + kind + ".pprof"
						if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
							t.Errorf("no profile %s", name)
						}
					}
				}
				matches, _ := filepath.Glob(filepath.Join(dir, "*"+m+"_*codec="+p+"."+kind+".pprof"))
				if len(matches) != 2*len(combos) {
					t.Errorf("%s codec=%s: %d %s profiles, want %d", m, p, len(matches), kind, 2*len(combos))
					continue
				}
				if fi, err := os.Stat(matches[0]); err != nil || fi.Size() == 0 {
					t.Errorf("%s: empty or unreadable (%v)", matches[0], err)
				}
			}
		}
	}
}

// TestSizes checks which messages -grpcfast.size, -grpcfast.reqsize and
// -grpcfast.respsize grow: a single response stays at its base size unless
// -grpcfast.respsize asks.
func TestSizes(t *testing.T) {
	methods := kindsMethods() // Unary, ClientStream, ServerStream, Bidi
	base := func(m proto.Message) int {
		c := proto.Clone(m)
		if err := Fill(c, 0); err != nil {
			t.Fatal(err)
		}
		return proto.Size(c)
	}
	for _, tc := range []struct {
		name string
		set  func(*config)
		want [4][2]int // per method: request and response size; -1: base
	}{
		{"size", func(c *config) { c.size = 3000 }, [4][2]int{{3000, -1}, {3000, -1}, {3000, 3000}, {3000, 3000}}},
		{"reqsize", func(c *config) { c.size, c.reqSize = 3000, 2000 }, [4][2]int{{2000, -1}, {2000, -1}, {2000, 3000}, {2000, 3000}}},
		// ClientStream's response (Summary) has only integers: it cannot grow.
		{"respsize", func(c *config) { c.respSize = 5000 }, [4][2]int{{-1, 5000}, {-1, -1}, {-1, 5000}, {-1, 5000}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := flags
			tc.set(&cfg)
			ms, _, err := fillMessages("grpcfast.testdata.kinds.Kinds", methods, &cfg)
			if err != nil {
				t.Fatal(err)
			}
			for i, m := range methods {
				for j, got := range []proto.Message{ms[i].reqs[0], ms[i].ress[0]} {
					want := tc.want[i][j]
					if want < 0 {
						want = base(got)
					}
					if proto.Size(got) != want {
						t.Errorf("%s %s: %d bytes, want %d", m.Name(), []string{"request", "response"}[j], proto.Size(got), want)
					}
				}
			}
		})
	}
}

func TestGrowFlag(t *testing.T) {
	cfg := flags
	cfg.size = 2000
	cfg.grow = []string{"grpcfast.testdata.kinds.Rich.name"}
	ms, _, err := fillMessages("grpcfast.testdata.kinds.Kinds", kindsMethods()[:1], &cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r := ms[0].reqs[0].(*kinds.Rich); len(r.Name) < 1500 || len(r.Data) > 100 {
		t.Errorf("name %d bytes, data %d: want name grown", len(r.Name), len(r.Data))
	}
	for _, tc := range []struct{ name, want string }{
		{"grpcfast.testdata.kinds.Rich.nope", "-grpcfast.grow: grpcfast.testdata.kinds.Rich.nope is not a field of a message type linked into this test binary"},
		{"grpcfast.testdata.kinds.Rich", "-grpcfast.grow: grpcfast.testdata.kinds.Rich is not a field of a message type linked into this test binary"},
		{"grpcfast.testdata.kinds.Summary.count", "-grpcfast.grow: grpcfast.testdata.kinds.Summary.count is a int64 field; want a bytes, string or repeated field"},
	} {
		cfg.grow = []string{tc.name}
		if _, _, err := fillMessages("grpcfast.testdata.kinds.Kinds", kindsMethods(), &cfg); err == nil || err.Error() != tc.want {
			t.Errorf("%s: %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestTransportFlags checks what the transport flags turn into: no option
// for a flag not given (gRPC-Go's defaults stay), one per flag on each end,
// 0 passed through (gRPC-Go then disables the buffer) and the description
// the server process announces; then runs every kind of method with every
// flag at its edge (buffers off, the smallest windows), which must still
// move every message intact.
func TestTransportFlags(t *testing.T) {
	parse := func(args ...string) config {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		c := flags
		registerFlags(fs, &c)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return c
	}
	c := parse()
	// One option on each end, always: no limit on the size of a received
	// message.
	if s, d := c.transportOptions(); len(s) != 1 || len(d) != 1 || c.transportKey() != "default" {
		t.Errorf("no transport flags: %d server and %d dial options, key %q; want 1, 1 and \"default\"", len(s), len(d), c.transportKey())
	}
	// One stream worker: concurrent streams find it busy, and gRPC-Go
	// starts a goroutine for them.
	edge := []string{"-grpcfast.writebuf=0", "-grpcfast.readbuf=0", "-grpcfast.window=65536",
		"-grpcfast.connwindow=65536", "-grpcfast.sharedwrite=false", "-grpcfast.streamworkers=1"}
	c = parse(edge...)
	if s, d := c.transportOptions(); len(s) != 7 || len(d) != 6 {
		t.Errorf("every transport flag: %d server and %d dial options, want 7 and 6 (stream workers are the server's)", len(s), len(d))
	}
	if c.writeBuf != 0 || c.readBuf != 0 {
		t.Errorf("-grpcfast.writebuf=0 -grpcfast.readbuf=0: %d and %d, want 0 (gRPC-Go: no buffer)", c.writeBuf, c.readBuf)
	}
	want := "writebuf:0,readbuf:0,window:65536,connwindow:65536,sharedwrite:false,streamworkers:1"
	if got := c.transportKey(); got != want {
		t.Errorf("transportKey %q, want %q", got, want)
	}
	withFlags(t, func(f *config) {
		f.msgs, f.size = 3, 100<<10 // messages larger than the windows and the buffers
		f.writeBuf, f.readBuf, f.window, f.connWindow, f.sharedWrite = c.writeBuf, c.readBuf, c.window, c.connWindow, c.sharedWrite
		f.streamWorkers, f.streams = c.streamWorkers, []int{1, 3}
	}, func() {
		var failed bool
		testing.Benchmark(func(b *testing.B) {
			Run(b, "grpcfast.testdata.kinds.Kinds", kindsMethods()...)
			failed = b.Failed()
		})
		if failed {
			t.Fatal("the benchmark failed with every transport flag at its edge")
		}
	})
}

// resultLine is a result line of a generated benchmark: its name up to the
// codec level, the path and go test's -cpu suffix.
var resultLine = regexp.MustCompile(`^Benchmark(\S+)/codec=([a-z-]+?)(-\d+)?\s`)

// checkTables checks, on the output of generated benchmarks, what makes
// benchstat -col /codec compare like with like: a "codecs: ..." line comes
// before any result, and every benchmark row (a name without its codec
// level) has, under the codecs line in force, a result for each path that
// line names and for no other.
func checkTables(t *testing.T, out string) {
	t.Helper()
	type rowKey struct{ codecs, row string }
	rows := map[rowKey]map[string]bool{}
	var order []rowKey
	codecs := ""
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, CodecsKey+": "); ok {
			codecs = v
			continue
		}
		m := resultLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if codecs == "" {
			t.Errorf("a result before any %s line: %s", CodecsKey, line)
			continue
		}
		k := rowKey{codecs, m[1] + m[3]}
		if rows[k] == nil {
			rows[k] = map[string]bool{}
			order = append(order, k)
		}
		rows[k][m[2]] = true
	}
	if len(order) == 0 {
		t.Fatalf("no results in\n%s", out)
	}
	for _, k := range order {
		var got []string
		for _, p := range strings.Fields(k.codecs) {
			if rows[k][p] {
				got = append(got, p)
			}
		}
		if len(got) != len(rows[k]) || len(got) != len(strings.Fields(k.codecs)) {
			t.Errorf("%s under %q has the paths %v", k.row, k.codecs, rows[k])
		}
	}
}
