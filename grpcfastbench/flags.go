package grpcfastbench

import (
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// FlagPrefix starts the name of every flag of the harness. The flags are
// registered once per test binary, by this package, however many generated
// packages a test binary links.
const FlagPrefix = "grpcfast."

// Values of the -grpcfast.transport, -grpcfast.server and -grpcfast.bidi
// flags.
const (
	TransportTCP     = "tcp"
	TransportBufconn = "bufconn"

	ServerInProcess = "inprocess"
	ServerProcess   = "process"

	BidiPipelined = "pipelined"
	BidiPingPong  = "pingpong"
)

// defaultBatch is -grpcfast.batch's default: a batch of about 16 KiB, the
// size of the chunks the project measures streams with, where the codec's
// work, not gRPC-Go's fixed cost per call, is most of a unary call.
const defaultBatch = 16 << 10

// config is what the flags set. Run reads it once per benchmark.
type config struct {
	size       int           // target encoded size of requests and streamed responses; 0: one value per field
	reqSize    int           // of requests, if >= 0 (unset: -1)
	respSize   int           // of every response, if >= 0 (unset: -1)
	batch      int           // bytes of a batch in the batch case (ShapeBatch); 0: no batch case
	grow       []string      // full names of fields to grow first
	replay     string        // corpus directory of recorded messages (grpcfastrecord); "" for none
	msgs       int           // messages per stream, in each streaming direction
	streams    []int         // concurrent calls; one set of sub-benchmarks per value
	conns      []int         // client connections the calls are spread over; likewise
	rounds     int           // rounds of every path in this run; > 1: sub-benchmarks round=N
	warmup     time.Duration // untimed calls before each timed run of a path (not the one of one call)
	transport  string        // TransportTCP or TransportBufconn
	server     string        // ServerInProcess or ServerProcess
	bidi       string        // BidiPipelined or BidiPingPong
	profileDir string        // where to write CPU and allocation profiles; "" for none
	floor      bool          // add the codec=floor path
	floorWork  time.Duration // CPU the floor's server spends on each message it receives (-floorwork)
	floorCopy  bool          // the floor's server makes the owned copy of each message it receives (-floorcopy)
	serverCPUs []int         // the CPUs the server process runs on (-servercpus); nil: any
	clientCPUs []int         // the CPUs this process runs on (-clientcpus); nil: any

	// gRPC-Go's transport settings, on both ends (transportOptions): -1 or
	// "" leaves gRPC-Go's default.
	writeBuf, readBuf  int    // bytes; 0 disables the buffer, as in gRPC-Go
	window, connWindow int    // initial stream and connection windows, bytes
	sharedWrite        string // "true", "false"
	streamWorkers      int    // the server's (grpc.NumStreamWorkers)
}

var flags = config{
	reqSize: -1, respSize: -1,
	writeBuf: -1, readBuf: -1, window: -1, connWindow: -1, streamWorkers: -1,
	msgs: 100, streams: []int{1}, conns: []int{1}, rounds: 1, batch: defaultBatch,
	transport: TransportTCP, server: ServerInProcess, bidi: BidiPipelined,
}

func init() { registerFlags(flag.CommandLine, &flags) }

// registerFlags registers the harness's flags on fs, filling c.
func registerFlags(fs *flag.FlagSet, c *config) {
	fs.Var(intFlag{&c.size, 0}, FlagPrefix+"size",
		"grow requests, and the responses of server-streaming and bidi methods, until they encode to about `bytes` "+
			"(0: one value per field); a payload bytes field grows first (not one inside the elements of a repeated message field: an id), then repeated fields, then one string")
	fs.Var(intFlag{&c.reqSize, 0}, FlagPrefix+"reqsize",
		"grow requests to about `bytes`, instead of -"+FlagPrefix+"size")
	fs.Var(intFlag{&c.respSize, 0}, FlagPrefix+"respsize",
		"grow every response, unary and client-stream ones too, to about `bytes`, instead of -"+FlagPrefix+"size")
	fs.Var(intFlag{&c.batch, 0}, FlagPrefix+"batch",
		"in the "+ShapeBatch+" case of a method whose request or response holds a repeated message field at the top level, grow each such message to about `bytes` by added elements of those fields (0: no "+ShapeBatch+" case)")
	fs.Var(namesFlag{&c.grow}, FlagPrefix+"grow",
		"grow these `fields` first (full names such as google.bytestream.WriteRequest.data, separated by commas), where a message holds them")
	fs.Var(intFlag{&c.msgs, 1}, FlagPrefix+"msgs",
		"`n` messages per stream in each streaming direction")
	fs.Var(intsFlag{&c.streams, 1}, FlagPrefix+"streams",
		"`n` calls in flight at once; a list such as 1,8,64 runs each (sub-benchmarks streams=N)")
	fs.Var(intsFlag{&c.conns, 1}, FlagPrefix+"conns",
		"spread the calls over `n` client connections; a list such as 1,4 runs each (sub-benchmarks conns=N)")
	fs.Var(intFlag{&c.rounds, 1}, FlagPrefix+"rounds",
		"run every path `n` times, a round of all of them after the other, as sub-benchmarks round=1 to round=N just above codec=, each path on its own server and connections throughout: the paths interleave within this run, where rounds of -count 1 interleave them across runs")
	fs.Var(durationFlag{&c.warmup, "500ms or 2s"}, FlagPrefix+"warmup",
		"before each timed run of a path (but the first, of one call), make untimed calls for `duration` (such as 1s), after the server's collection: each path is then timed from its steady state, as in a server that has served for a while, where a pooled path with one copy otherwise starts with the free list of its copies full or empty")
	fs.Var(choiceFlag{&c.transport, []string{TransportTCP, TransportBufconn}}, FlagPrefix+"transport",
		"`transport`: tcp (loopback) or bufconn (in memory, in-process server only)")
	fs.Var(choiceFlag{&c.server, []string{ServerInProcess, ServerProcess}}, FlagPrefix+"server",
		"`place` where the stub server runs: inprocess, or process (a child process per path; adds the server's CPU, bytes and allocations per op)")
	fs.Var(choiceFlag{&c.bidi, []string{BidiPipelined, BidiPingPong}}, FlagPrefix+"bidi",
		"`mode` of bidirectional streams: pipelined (the client sends while it receives) or pingpong (one response before the next request)")
	fs.StringVar(&c.replay, FlagPrefix+"replay", "",
		"send the messages recorded in corpus `dir` (grpcfastrecord's format: DIR/SERVICE/METHOD/requests.binpb, responses.binpb) instead of filled ones")
	fs.BoolVar(&c.floor, FlagPrefix+"floor", false,
		"add the path codec=floor: grpcfast's encoding, and a codec that decodes nothing on the receiving side of both ends, so that its figures are what gRPC-Go's transport and the stub cost without any decoding (its calls are not checked)")
	fs.Var(durationFlag{&c.floorWork, "5us or 20us"}, FlagPrefix+"floorwork",
		"with -"+FlagPrefix+"floor, the floor's server also spins on the CPU for `duration` (such as 5us) per request it receives, as a decode or a handler of that cost would, and decodes nothing still: its srv-cpu-ns/op is then the least that a codec whose decode takes that long can cost the server, gRPC-Go's costs that grow with it included")
	fs.BoolVar(&c.floorCopy, FlagPrefix+"floorcopy", false,
		"with -"+FlagPrefix+"floor, the floor's server also makes the owned copy of each request it receives, as codec=grpcfast-pooled-copy does (grpcfast.WithStringsInOneCopy), before any -"+FlagPrefix+"floorwork, and decodes nothing still: its srv-cpu-ns/op is then the least that a path with one copy can cost the server")
	fs.StringVar(&c.profileDir, FlagPrefix+"profile", "",
		"write a CPU and an allocation profile per sub-benchmark into `dir` (and the server's, with -"+FlagPrefix+"server=process)")
	fs.Var(intFlag{&c.writeBuf, 0}, FlagPrefix+"writebuf",
		"transport write buffer of `bytes` on both ends (grpc.WriteBufferSize, grpc.WithWriteBufferSize); 0 disables it, as in gRPC-Go (default: gRPC-Go's, 32 KiB)")
	fs.Var(intFlag{&c.readBuf, 0}, FlagPrefix+"readbuf",
		"transport read buffer of `bytes` on both ends (grpc.ReadBufferSize, grpc.WithReadBufferSize); 0 disables it, as in gRPC-Go (default: gRPC-Go's, 32 KiB)")
	fs.Var(windowFlag(&c.window), FlagPrefix+"window",
		"initial flow-control window of every stream, `bytes`, on both ends (grpc.InitialWindowSize, grpc.WithInitialWindowSize); turns off gRPC-Go's dynamic windows (default: 64 KiB, grown by gRPC-Go's BDP estimate)")
	fs.Var(windowFlag(&c.connWindow), FlagPrefix+"connwindow",
		"initial flow-control window of every connection, `bytes`, on both ends (grpc.InitialConnWindowSize, grpc.WithInitialConnWindowSize); turns off gRPC-Go's dynamic windows")
	fs.Var(workersFlag(&c.streamWorkers), FlagPrefix+"streamworkers",
		"`n` goroutines of the server that run the handlers of its streams, reused from one stream to the next (grpc.NumStreamWorkers); 0: a new goroutine per stream, gRPC-Go's default")
	fs.Var(cpusFlag{&c.serverCPUs}, FlagPrefix+"servercpus",
		"with -"+FlagPrefix+"server=process, run the server process on these `cpus` only (numbers and ranges such as 1 or 2-3,6; Linux), so that the client's work does not run on its cores; with -"+FlagPrefix+"clientcpus, server CPU figures are then its work alone")
	fs.Var(cpusFlag{&c.clientCPUs}, FlagPrefix+"clientcpus",
		"run the benchmark itself, the client, on these `cpus` only (as -"+FlagPrefix+"servercpus; Linux)")
	fs.Var(setBoolFlag{&c.sharedWrite}, FlagPrefix+"sharedwrite",
		"connections give their write buffer back to a shared pool after every flush, on both ends (grpc.SharedWriteBuffer, grpc.WithSharedWriteBuffer); =false: they keep it (default: gRPC-Go's: false in v1.68, true in v1.85)")
}

// transportOptions returns the server and dial options of the transport
// flags that were given, for both ends of every path, with no limit on the
// size of a received message.
func (c *config) transportOptions() ([]grpc.ServerOption, []grpc.DialOption) {
	// Messages of any size: -grpcfast.size, -batch and replayed traffic may
	// make them larger than gRPC's default limit of 4 MiB on receive.
	sopts := []grpc.ServerOption{grpc.MaxRecvMsgSize(math.MaxInt32)}
	dopts := []grpc.DialOption{grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(math.MaxInt32))}
	if c.writeBuf >= 0 {
		sopts = append(sopts, grpc.WriteBufferSize(c.writeBuf))
		dopts = append(dopts, grpc.WithWriteBufferSize(c.writeBuf))
	}
	if c.readBuf >= 0 {
		sopts = append(sopts, grpc.ReadBufferSize(c.readBuf))
		dopts = append(dopts, grpc.WithReadBufferSize(c.readBuf))
	}
	if c.window >= 0 {
		sopts = append(sopts, grpc.InitialWindowSize(int32(c.window)))
		dopts = append(dopts, grpc.WithInitialWindowSize(int32(c.window)))
	}
	if c.connWindow >= 0 {
		sopts = append(sopts, grpc.InitialConnWindowSize(int32(c.connWindow)))
		dopts = append(dopts, grpc.WithInitialConnWindowSize(int32(c.connWindow)))
	}
	if c.streamWorkers >= 0 {
		sopts = append(sopts, grpc.NumStreamWorkers(uint32(c.streamWorkers)))
	}
	if c.sharedWrite != "" {
		on := c.sharedWrite == "true"
		sopts = append(sopts, grpc.SharedWriteBuffer(on))
		dopts = append(dopts, grpc.WithSharedWriteBuffer(on))
	}
	return sopts, dopts
}

// transportKey describes the transport flags that were given, "default" for
// none:
// the server process announces its own, and the parent checks that both
// ends run with the same.
func (c *config) transportKey() string {
	var parts []string
	for _, f := range []struct {
		name string
		v    int
	}{{"writebuf", c.writeBuf}, {"readbuf", c.readBuf}, {"window", c.window}, {"connwindow", c.connWindow}} {
		if f.v >= 0 {
			parts = append(parts, f.name+":"+strconv.Itoa(f.v))
		}
	}
	if c.sharedWrite != "" {
		parts = append(parts, "sharedwrite:"+c.sharedWrite)
	}
	if c.streamWorkers >= 0 {
		parts = append(parts, "streamworkers:"+strconv.Itoa(c.streamWorkers))
	}
	if len(parts) == 0 {
		return "default"
	}
	return strings.Join(parts, ",")
}

// check reports a combination of flags that cannot run.
func (c *config) check() error {
	if c.replay != "" {
		if fi, err := os.Stat(c.replay); err != nil || !fi.IsDir() {
			return fmt.Errorf("-%sreplay=%s: not a directory", FlagPrefix, c.replay)
		}
	}
	if len(c.serverCPUs) > 0 && c.server != ServerProcess {
		return fmt.Errorf("-%sservercpus needs -%sserver=%s: the server runs on the client's CPUs otherwise",
			FlagPrefix, FlagPrefix, ServerProcess)
	}
	// The server process starts on the client's CPUs, and pins itself to
	// its own: the parent has checked both lists.
	if os.Getenv(childEnv) == "" {
		if err := checkCPUs("servercpus", c.serverCPUs); err != nil {
			return err
		}
		if err := checkCPUs("clientcpus", c.clientCPUs); err != nil {
			return err
		}
	}
	if c.floorWork > 0 && !c.floor {
		return fmt.Errorf("-%sfloorwork needs -%sfloor: it is the work of the floor's server", FlagPrefix, FlagPrefix)
	}
	if c.floorCopy && !c.floor {
		return fmt.Errorf("-%sfloorcopy needs -%sfloor: it is the work of the floor's server", FlagPrefix, FlagPrefix)
	}
	if c.server == ServerProcess && c.transport == TransportBufconn {
		return fmt.Errorf("-%sserver=%s needs -%stransport=%s: an in-memory connection cannot reach another process",
			FlagPrefix, ServerProcess, FlagPrefix, TransportTCP)
	}
	return nil
}

// sizes returns the target sizes of m's request and response.
func (c *config) sizes(k kind) (req, res int) {
	req, res = c.size, c.size
	if k == unary || k == clientStreaming {
		res = 0 // a single response stays small unless asked
	}
	if c.reqSize >= 0 {
		req = c.reqSize
	}
	if c.respSize >= 0 {
		res = c.respSize
	}
	return req, res
}

// sizeFlags names the flags that set the sizes sizes returns, with their
// values: "-grpcfast.size=16384", "-grpcfast.reqsize=2048".
func (c *config) sizeFlags() (req, res string) {
	name := func(flag string, v int) string { return fmt.Sprintf("-%s%s=%d", FlagPrefix, flag, v) }
	req, res = name("size", c.size), name("size", c.size)
	if c.reqSize >= 0 {
		req = name("reqsize", c.reqSize)
	}
	if c.respSize >= 0 {
		res = name("respsize", c.respSize)
	}
	return req, res
}

// growFields resolves -grpcfast.grow's names against the registered types.
func (c *config) growFields() ([]protoreflect.FullName, error) {
	var out []protoreflect.FullName
	for _, name := range c.grow {
		d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(name))
		fd, ok := d.(protoreflect.FieldDescriptor)
		if err != nil || !ok {
			return nil, fmt.Errorf("-%sgrow: %s is not a field of a message type linked into this test binary", FlagPrefix, name)
		}
		if !fd.IsList() && fd.Kind() != protoreflect.StringKind && fd.Kind() != protoreflect.BytesKind {
			return nil, fmt.Errorf("-%sgrow: %s is a %s field; want a bytes, string or repeated field", FlagPrefix, name, fd.Kind())
		}
		out = append(out, fd.FullName())
	}
	return out, nil
}

// namesFlag is a comma-separated list of full proto names.
type namesFlag struct{ p *[]string }

func (f namesFlag) String() string {
	if f.p == nil {
		return ""
	}
	return strings.Join(*f.p, ",")
}

func (f namesFlag) Set(s string) error {
	var list []string
	for _, v := range strings.Split(s, ",") {
		v = strings.TrimSpace(v)
		if !protoreflect.FullName(v).IsValid() || !strings.Contains(v, ".") {
			return fmt.Errorf("want full field names such as google.bytestream.WriteRequest.data, separated by commas")
		}
		list = append(list, v)
	}
	*f.p = list
	return nil
}

// intFlag is an integer flag with a lower bound; its error names the flag's
// accepted range.
type intFlag struct {
	p   *int
	min int
}

func (f intFlag) String() string {
	if f.p == nil || *f.p < 0 {
		return ""
	}
	return strconv.Itoa(*f.p)
}

func (f intFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < f.min {
		return fmt.Errorf("want a whole number >= %d", f.min)
	}
	*f.p = n
	return nil
}

// durationFlag is a time.Duration flag of at least 0.
type durationFlag struct {
	p       *time.Duration
	example string // "500ms or 2s": what its error suggests
}

func (f durationFlag) String() string {
	if f.p == nil {
		return ""
	}
	return f.p.String()
}

func (f durationFlag) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return errors.New("want a duration >= 0, such as " + f.example)
	}
	*f.p = d
	return nil
}

// rangeFlag is an integer flag with bounds; its error names them, the lower
// one with why (below).
type rangeFlag struct {
	p        *int
	min, max int
	why      string // why nothing below min: " (...)"
}

func (f rangeFlag) String() string { return intFlag{f.p, 0}.String() }

func (f rangeFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < f.min || n > f.max {
		return fmt.Errorf("want a whole number from %d%s to %d", f.min, f.why, f.max)
	}
	*f.p = n
	return nil
}

// windowFlag is a flow-control window size: gRPC-Go ignores a window below
// 64 KiB (minWindow, HTTP/2's default) without a word, and takes an int32.
func windowFlag(p *int) rangeFlag {
	return rangeFlag{p, minWindow, math.MaxInt32, " (gRPC-Go ignores smaller windows)"}
}

const minWindow = 64 << 10

// workersFlag is the number of the server's stream workers: gRPC-Go starts
// that many goroutines per server; maxWorkers is far more than a benchmark
// has streams in flight.
func workersFlag(p *int) rangeFlag {
	return rangeFlag{p, 0, maxWorkers, " (a new goroutine per stream, gRPC-Go's default)"}
}

const maxWorkers = 1 << 16

// intsFlag is a comma-separated list of distinct integers with a lower
// bound.
type intsFlag struct {
	p   *[]int
	min int
}

func (f intsFlag) String() string {
	if f.p == nil {
		return ""
	}
	s := make([]string, len(*f.p))
	for i, n := range *f.p {
		s[i] = strconv.Itoa(n)
	}
	return strings.Join(s, ",")
}

func (f intsFlag) Set(s string) error {
	var list []int
	for _, v := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < f.min {
			return fmt.Errorf("want a whole number >= %d, or a list of them separated by commas", f.min)
		}
		if slices.Contains(list, n) {
			return fmt.Errorf("%d is in the list twice", n)
		}
		list = append(list, n)
	}
	*f.p = list
	return nil
}

// choiceFlag is a string flag that takes one of a few values.
// setBoolFlag is a bool flag that remembers whether it was given: "" if
// not (gRPC-Go's default then holds), "true" or "false". Given alone, it is
// true.
type setBoolFlag struct{ p *string }

func (f setBoolFlag) IsBoolFlag() bool { return true }

func (f setBoolFlag) String() string {
	if f.p == nil {
		return ""
	}
	return *f.p
}

func (f setBoolFlag) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("want true or false")
	}
	*f.p = strconv.FormatBool(v)
	return nil
}

type choiceFlag struct {
	p       *string
	choices []string
}

func (f choiceFlag) String() string {
	if f.p == nil {
		return ""
	}
	return *f.p
}

func (f choiceFlag) Set(s string) error {
	for _, c := range f.choices {
		if s == c {
			*f.p = s
			return nil
		}
	}
	return fmt.Errorf("want %s", strings.Join(f.choices, " or "))
}
