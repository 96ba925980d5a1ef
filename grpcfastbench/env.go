package grpcfastbench

import (
	"context"
	"fmt"
	"net"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/test/bufconn"
	"google.golang.org/protobuf/proto"

	vtgrpc "github.com/planetscale/vtprotobuf/codec/grpc"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/grpcfastimpl"
	"github.com/grpcfast/grpcfast/grpcfastrecord"
	"github.com/grpcfast/grpcfast/internal/codec"
	"github.com/grpcfast/grpcfast/internal/stdcodec"
)

// Names of the paths, as in the sub-benchmark names: codec=proto,
// codec=vtproto, codec=grpcfast, codec=grpcfast-pooled,
// codec=grpcfast-pooled-copy and codec=floor.
const (
	PathProto    = "proto"
	PathVtproto  = "vtproto"
	PathGrpcfast = "grpcfast"
	// The grpcfast path with the unary methods' requests pooled on the
	// server (Register<Service>ServerPooled) and their responses reused on
	// the client (New<Service>ReusingClient), and the same with the owned
	// copy on both sides (grpcfast.WithStringsInOneCopy): unary methods
	// only.
	PathPooled     = "grpcfast-pooled"
	PathPooledCopy = "grpcfast-pooled-copy"
	// The floor under every path (-grpcfast.floor): grpcfast's encoding, and
	// no decoding at all on the receiving side of either end, which gets
	// empty messages.
	PathFloor = "floor"
)

// path is one side of the comparison. Every path forces its codec on the
// server and on every call, so that all pay the same fixed costs (a forced
// codec makes gRPC-Go build the content-type string per call).
type path struct {
	name      string
	codec     encoding.CodecV2 // nil on a path with a V1 codec
	codecV1   encoding.Codec
	receivers bool // receive with the generated receivers, else with the stream's Recv
	vtproto   bool // needs the vtprotobuf methods on every message
	pooled    bool // unary requests pooled, as Register<Service>ServerPooled serves them, responses reused
	copy      bool // both decoded into one owned copy (WithStringsInOneCopy)
	floor     bool // decodes nothing: its calls are not checked
	// work is what the server of the floor spends on the CPU for each
	// message it receives (-floorwork), and floorCopy whether it makes the
	// owned copy of each first (-floorcopy): its codec is then workingCodec.
	work      time.Duration
	floorCopy bool
	callOpts  []grpc.CallOption
	serverOpt grpc.ServerOption
}

// wrapCodec, when set (by tests), wraps the codec of each path that has a
// CodecV2; wrapCodecV1 that of the path with a V1 codec.
var (
	wrapCodec   func(path string, c encoding.CodecV2) encoding.CodecV2
	wrapCodecV1 func(path string, c encoding.Codec) encoding.Codec
)

// newPaths returns the paths, five, and a sixth with -grpcfast.floor:
//
//   - codec=proto: gRPC's standard codec, and the stream's Recv;
//   - codec=vtproto: vtprotobuf's own gRPC codec (codec/grpc, a V1 codec
//     that gRPC wraps in its adapter), and the stream's Recv, as vtprotobuf's
//     users run it. Its UnmarshalVT merges, so it must decode into a new
//     message each time: Recv and the generated unary code make one per
//     message, and so does this path;
//   - codec=grpcfast: grpcfast's codec, and the generated receivers;
//   - codec=grpcfast-pooled and codec=grpcfast-pooled-copy: the same, with
//     the unary methods' requests pooled as Register<Service>ServerPooled
//     does and their responses reused as New<Service>ReusingClient does,
//     without and with grpcfast.WithStringsInOneCopy on both sides. Only
//     unary methods run on them;
//   - codec=floor, with -grpcfast.floor: floorCodec, and the stream's Recv.
func newPaths(cfg *config) []*path {
	ps := []*path{
		{name: PathProto, codec: stdcodec.Codec()},
		{name: PathVtproto, codecV1: vtgrpc.Codec{}, vtproto: true},
		{name: PathGrpcfast, codec: grpcfast.NewCodec(), receivers: true},
		{name: PathPooled, codec: grpcfast.NewCodec(), receivers: true, pooled: true},
		{name: PathPooledCopy, codec: grpcfast.NewCodec(), receivers: true, pooled: true, copy: true},
	}
	if cfg.floor {
		ps = append(ps, &path{name: PathFloor, codec: floorCodec{grpcfast.NewCodec()}, floor: true, work: cfg.floorWork, floorCopy: cfg.floorCopy})
	}
	for _, p := range ps {
		if p.codec != nil {
			if wrapCodec != nil {
				p.codec = wrapCodec(p.name, p.codec)
			}
			p.callOpts = []grpc.CallOption{grpc.ForceCodecV2(p.codec)}
			p.serverOpt = grpc.ForceServerCodecV2(p.serverCodec())
			continue
		}
		if wrapCodecV1 != nil {
			p.codecV1 = wrapCodecV1(p.name, p.codecV1)
		}
		p.callOpts = []grpc.CallOption{grpc.ForceCodec(p.codecV1)}
		p.serverOpt = grpc.ForceServerCodec(p.codecV1)
	}
	return ps
}

// serverCodec returns the codec of p's server: p's own, or, with work to
// do, workingCodec around it.
func (p *path) serverCodec() encoding.CodecV2 {
	if p.work > 0 || p.floorCopy {
		return workingCodec{p.codec, p.work, p.floorCopy}
	}
	return p.codec
}

// floorCodec encodes as grpcfast's codec does and decodes nothing: the
// message received stays as it was (empty), and gRPC frees the bytes.
type floorCodec struct{ *grpcfast.Codec }

func (floorCodec) Unmarshal(mem.BufferSlice, any) error { return nil }

// workingCodec is the codec of the floor's server with -floorwork or
// -floorcopy: before each message it receives, it makes the owned copy of
// its bytes that pooled with one copy decodes from (codec.OwnedCopy, its
// array reused once the collector finds it unreferenced, as that path's
// is), then spends work on the CPU.
type workingCodec struct {
	encoding.CodecV2
	work time.Duration
	copy bool
}

func (c workingCodec) Unmarshal(data mem.BufferSlice, v any) error {
	if c.copy {
		codec.OwnedCopy(data)
	}
	spin(c.work)
	return c.CodecV2.Unmarshal(data, v)
}

// spin keeps its goroutine on the CPU for d of its thread's CPU time,
// touching no memory: the cost of a handler's or a codec's work of d, and
// nothing else. It spins on the wall clock, which is cheap to read, and
// then for as much again as the thread was off the CPU meanwhile. Where a
// read of the thread's CPU time is a system call, its reads count toward d
// (readCost): two of them made a work of 5 µs cost 8 µs. A work too short
// for them, or where the thread's CPU time cannot be read, spins on the
// wall clock alone.
func spin(d time.Duration) {
	if d <= 0 {
		return
	}
	read := readCost()
	if read == 0 || d < 4*read {
		spinWall(d)
		return
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	// The CPU between two reads holds about one read's cost (the end of
	// the first, the start of the last); the call costs that and one more.
	start, _ := threadCPU()
	for left := d - 2*read; left > 0; {
		spinWall(left)
		now, _ := threadCPU()
		left = d - (now - start) - 2*read
	}
}

// spinWall spins for d of wall time.
func spinWall(d time.Duration) {
	for t := time.Now(); time.Since(t) < d; {
	}
}

// readCost is what a read of the thread's CPU time (threadCPU) costs that
// thread, the median of consecutive reads' differences; 0 where it cannot
// be read.
var readCost = sync.OnceValue(func() time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	prev, ok := threadCPU()
	if !ok {
		return 0
	}
	ds := make([]time.Duration, 101)
	for i := range ds {
		now, _ := threadCPU()
		ds[i], prev = now-prev, now
	}
	slices.Sort(ds)
	return max(ds[len(ds)/2], 1)
})

// pathNames returns the names of paths.
func pathNames(paths []*path) []string {
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = p.name
	}
	return names
}

// hasVT reports whether m has the vtprotobuf methods that vtprotobuf's
// codec needs (files vtprotobuf did not run on, such as editions files, have
// none).
func hasVT(m proto.Message) bool {
	_, ok := m.(vtMessage)
	return ok
}

// msgs holds the messages of one method: the requests the client sends and
// the responses the stub server sends, in turn (see Unary). Each list has at
// least one message.
type msgs struct {
	reqs, ress []proto.Message
	// notes say what a size flag grew in the filled request and response,
	// nil for a side the flags left at its base size or that was replayed.
	notes [2]*growNote
	// batch holds the messages of the method's shape=batch case, nil when
	// it has none (see batchMessages).
	batch *msgs
}

// ShapeBatch is the sub-benchmark level of the batch case of a method
// whose request or response holds a batch: a repeated message field at the
// top level. In that case each such message holds about -grpcfast.batch
// bytes (16 KiB by default), grown by adding elements to those fields only;
// a message without one is the method's default-case message.
const ShapeBatch = "shape=batch"

// fillMessages returns the messages of every method of service: those
// recorded in the -grpcfast.replay corpus, else filled ones (Fill), for
// each of requests and responses on its own. replayed says, per method,
// how many requests and responses came from the corpus. A method with any
// recorded message has no batch case: the recording is the shape to measure.
func fillMessages(service string, methods []Method, cfg *config) (ms []msgs, replayed [][2]int, err error) {
	ms, err = fillMethods(methods, cfg)
	if err != nil || cfg.replay == "" {
		return ms, nil, err
	}
	replayed = make([][2]int, len(methods))
	for i, m := range methods {
		reqs, err := grpcfastrecord.Read(cfg.replay, service, m.name, true, m.newReq)
		if err != nil {
			return nil, nil, err
		}
		ress, err := grpcfastrecord.Read(cfg.replay, service, m.name, false, m.newRes)
		if err != nil {
			return nil, nil, err
		}
		if len(reqs) > 0 {
			ms[i].reqs = reqs
			ms[i].notes[0] = nil
		}
		if len(ress) > 0 {
			ms[i].ress = ress
			ms[i].notes[1] = nil
		}
		if len(reqs) > 0 || len(ress) > 0 {
			ms[i].batch = nil
		}
		replayed[i] = [2]int{len(reqs), len(ress)}
	}
	return ms, replayed, nil
}

// fillMethods fills a request and a response for every method, of the
// sizes the flags ask for, and the messages of its batch case. A message
// with no bytes field and no repeated field to grow keeps the length of its
// strings when the method's other message has one (a chunk protocol's
// request by digest, its acknowledgement): its strings are ids, and the
// other message is the payload. Only where neither has one does a string
// grow (Fill's rule 3).
func fillMethods(methods []Method, cfg *config) ([]msgs, error) {
	grow, err := cfg.growFields()
	if err != nil {
		return nil, err
	}
	out := make([]msgs, len(methods))
	for i, m := range methods {
		req, res := m.newReq(), m.newRes()
		reqSize, resSize := cfg.sizes(m.kind)
		reqFlag, resFlag := cfg.sizeFlags()
		reqPayload, resPayload := payload(req), payload(res)
		gq, err := fillGrowth(req, reqSize, !resPayload, grow...)
		if err != nil {
			return nil, fmt.Errorf("grpcfastbench: %s request: %w", m.name, err)
		}
		gs, err := fillGrowth(res, resSize, !reqPayload, grow...)
		if err != nil {
			return nil, fmt.Errorf("grpcfastbench: %s response: %w", m.name, err)
		}
		out[i] = msgs{reqs: []proto.Message{req}, ress: []proto.Message{res}}
		if reqSize > 0 {
			out[i].notes[0] = &growNote{reqFlag, req.ProtoReflect().Descriptor().FullName(), gq}
		}
		if resSize > 0 {
			out[i].notes[1] = &growNote{resFlag, res.ProtoReflect().Descriptor().FullName(), gs}
		}
		if out[i].batch, err = batchMessages(m, out[i], cfg); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// batchMessages returns the messages of m's batch case (ShapeBatch), or
// nil if m has none: -grpcfast.batch is 0, or neither its request nor its
// response holds a repeated message field at the top level that the base
// fill sets. Each message that holds one grows to about -grpcfast.batch
// bytes by added elements of those fields only (the elements stay as filled,
// ids and all); the other is def's.
func batchMessages(m Method, def msgs, cfg *config) (*msgs, error) {
	if cfg.batch <= 0 {
		return nil, nil
	}
	flag := fmt.Sprintf("-%sbatch=%d (%s)", FlagPrefix, cfg.batch, ShapeBatch)
	b := &msgs{reqs: def.reqs, ress: def.ress}
	found := false
	for side, newMsg := range []func() proto.Message{m.newReq, m.newRes} {
		msg := newMsg()
		fields := batchFields(msg)
		if len(fields) == 0 {
			continue
		}
		found = true
		g, err := fillGrowth(msg, cfg.batch, false, fields...)
		if err != nil {
			return nil, fmt.Errorf("grpcfastbench: %s %s: %w", m.name, []string{"request", "response"}[side], err)
		}
		if side == 0 {
			b.reqs = []proto.Message{msg}
		} else {
			b.ress = []proto.Message{msg}
		}
		b.notes[side] = &growNote{flag, msg.ProtoReflect().Descriptor().FullName(), g}
	}
	if !found {
		return nil, nil
	}
	return b, nil
}

// stub is the server side of one method: it answers with ress, in turn.
type stub struct {
	cfg  *config
	reqs sentMsgs // what the client sends, to check a checked call
	ress []proto.Message
	next atomic.Uint64
}

// sentReqs returns the requests that the client of the checked call k
// sends, decoded anew (sentMsgs); none for an unchecked call.
func (s *stub) sentReqs(k check) ([]proto.Message, error) {
	if !k.on {
		return nil, nil
	}
	return s.reqs.decode()
}

// res returns the single response of an unchecked call: the next in turn.
func (s *stub) res() proto.Message {
	if len(s.ress) == 1 {
		return s.ress[0]
	}
	return s.ress[(s.next.Add(1)-1)%uint64(len(s.ress))]
}

// stubs is the implementation that the stub server registers for a
// service: the stub of each method, by name.
type stubs map[string]*stub

// newServer returns a gRPC server that serves the stub service on path p:
// the methods' default case under service, and their batch cases under
// serviceOf(service, ShapeBatch). On the pooled paths it registers each
// through grpcfastimpl.PooledRegistrar, with the unary methods as a
// generated Register<Service>ServerPooled function passes them, so that
// codec=grpcfast-pooled and codec=grpcfast-pooled-copy serve what users
// register.
func newServer(service string, methods []Method, ms []msgs, p *path, cfg *config) *grpc.Server {
	def := &grpc.ServiceDesc{ServiceName: service, HandlerType: (*any)(nil)}
	batch := &grpc.ServiceDesc{ServiceName: serviceOf(service, ShapeBatch), HandlerType: (*any)(nil)}
	defStubs, batchStubs := stubs{}, stubs{}
	var defPooled, batchPooled []grpcfastimpl.PooledMethod
	for i, m := range methods {
		defStubs[m.name] = addMethod(def, m, ms[i], p, cfg)
		if m.kind == unary {
			defPooled = append(defPooled, m.pooled)
		}
		if ms[i].batch != nil {
			batchStubs[m.name] = addMethod(batch, m, *ms[i].batch, p, cfg)
			if m.kind == unary {
				batchPooled = append(batchPooled, m.pooled)
			}
		}
	}
	sopts, _ := cfg.transportOptions()
	srv := grpc.NewServer(append([]grpc.ServerOption{p.serverOpt}, sopts...)...)
	register := func(desc *grpc.ServiceDesc, impl stubs, pooled []grpcfastimpl.PooledMethod) {
		var r grpc.ServiceRegistrar = srv
		if p.pooled {
			r = grpcfastimpl.PooledRegistrar(srv, copyOption(p.copy), pooled...)
		}
		r.RegisterService(desc, impl)
	}
	register(def, defStubs, defPooled)
	if len(batch.Methods)+len(batch.Streams) > 0 {
		register(batch, batchStubs, batchPooled)
	}
	return srv
}

// serviceOf is the name under which the stub server serves the case shape
// of service's methods: service itself for the default case, a name of its
// own for each other shape, so that a call says its case at no cost.
func serviceOf(service, shape string) string {
	if shape == "" {
		return service
	}
	return service + "." + strings.ReplaceAll(shape, "=", "_")
}

// addMethod adds m, answering with ms, to desc, and returns its stub. A
// unary method gets the handler that protoc-gen-go-grpc generates (a new
// request per call), which grpcfastimpl.PooledRegistrar replaces on the
// pooled paths.
func addMethod(desc *grpc.ServiceDesc, m Method, ms msgs, p *path, cfg *config) *stub {
	st := &stub{cfg: cfg, reqs: encodeSent(ms.reqs), ress: ms.ress}
	if m.kind == unary {
		desc.Methods = append(desc.Methods, grpc.MethodDesc{
			MethodName: m.name,
			Handler: func(_ any, ctx context.Context, dec func(any) error, _ grpc.UnaryServerInterceptor) (any, error) {
				return m.unary(ctx, st, dec)
			},
		})
		return st
	}
	desc.Streams = append(desc.Streams, grpc.StreamDesc{
		StreamName:    m.name,
		Handler:       func(_ any, ss grpc.ServerStream) error { return m.serve(st, p, ss) },
		ClientStreams: m.kind == clientStreaming || m.kind == bidiStreaming,
		ServerStreams: m.kind == serverStreaming || m.kind == bidiStreaming,
	})
	return st
}

// listen returns a listener for cfg's transport, and the dial options that
// reach it.
func listen(cfg *config) (net.Listener, string, []grpc.DialOption, error) {
	if cfg.transport == TransportBufconn {
		lis := bufconn.Listen(1 << 20)
		dial := grpc.WithContextDialer(func(ctx context.Context, _ string) (net.Conn, error) {
			return lis.DialContext(ctx)
		})
		return lis, "passthrough:///bufconn", []grpc.DialOption{dial}, nil
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, "", nil, err
	}
	return lis, lis.Addr().String(), nil, nil
}

// conns is the client side of one path: the connections calls are spread
// over.
type conns struct {
	cc   []*grpc.ClientConn
	next atomic.Uint32
}

func dial(target string, n int, opts []grpc.DialOption) (*conns, error) {
	c := &conns{}
	opts = append([]grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}, opts...)
	for range n {
		cc, err := grpc.NewClient(target, opts...)
		if err != nil {
			c.close()
			return nil, err
		}
		c.cc = append(c.cc, cc)
	}
	return c, nil
}

func (c *conns) close() {
	for _, cc := range c.cc {
		cc.Close()
	}
}

// client is what a Method's call needs: the connections, the messages the
// client sends and those it expects, and the flags.
type client struct {
	cfg   *config
	reqs  []proto.Message
	ress  []proto.Message // what the server sends, to check a checked call
	conns *conns
	n     int // calls use the first n connections
	next  atomic.Uint64
}

// req returns the single request of a call: on a checked one (k), the
// first, marked; else the next in turn.
func (c *client) req(k check) proto.Message {
	if k.on {
		return k.at(c.reqs, 0)
	}
	if len(c.reqs) == 1 {
		return c.reqs[0]
	}
	return c.reqs[(c.next.Add(1)-1)%uint64(len(c.reqs))]
}

// conn returns the next connection, round robin.
func (c *client) conn() *grpc.ClientConn {
	if c.n == 1 {
		return c.conns.cc[0]
	}
	return c.conns.cc[int(c.conns.next.Add(1))%c.n]
}
