package grpcfastbench

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast/internal/childproc"
)

// Run benchmarks every method of the service named service (its full proto
// name, such as "grpcfast.example.v1.ChunkService") against a stub server
// that needs no implementation. Each method gets a sub-benchmark per path,
// run one after the other in the same run: codec=proto (gRPC's standard
// codec, and the stream's own Recv), codec=vtproto (vtprotobuf's codec/grpc,
// and the stream's own Recv), codec=grpcfast (grpcfast's codec, and the
// generated receivers), for unary methods codec=grpcfast-pooled and
// codec=grpcfast-pooled-copy (pooled requests and reused responses, without
// and with the strings in one copy), and with -grpcfast.floor codec=floor
// (nothing decoded). The first call of each is checked, except on
// codec=floor (see the package documentation). Compare them, over rounds of
// -count 1, with
//
//	benchstat -col /codec results.txt
//
// Besides ns/op, B/op, allocs/op and MB/s (bytes of encoded messages moved
// per op), every sub-benchmark reports cpu-ns/op (user+system CPU time of the
// process per op, from getrusage) and allocs/msg (allocations per message
// received). With -grpcfast.server=process the stub server runs in a child
// process: the figures above are then the client's alone, and srv-cpu-ns/op,
// srv-B/op and srv-allocs/op are the server's.
//
// The flags (-grpcfast.size, -grpcfast.msgs, ...) are described in the
// package documentation. Generated benchmark files call Run.
func Run(b *testing.B, service string, methods ...Method) {
	b.Helper()
	cfg := flags
	if err := cfg.check(); err != nil {
		b.Fatal(err)
	}
	for _, m := range methods {
		if m.err != nil {
			b.Fatal(m.err)
		}
	}
	ms, replayed, err := fillMessages(service, methods, &cfg)
	if err != nil {
		b.Fatal(err)
	}
	if path := os.Getenv(childEnv); path != "" {
		if err := serveChild(service, methods, ms, &cfg, path); err != nil {
			b.Fatal(err)
		}
		return
	}
	if len(cfg.clientCPUs) > 0 {
		if err := pin("clientcpus", cfg.clientCPUs); err != nil {
			b.Fatal(errorf("%v", err))
		}
	}
	paths := newPaths(&cfg)
	envs, err := start(b.Name(), service, methods, ms, paths, &cfg)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		for _, e := range envs {
			if err := e.close(); err != nil {
				b.Error(err)
			}
		}
	})
	vtSkips := make([]string, len(methods))
	for i, m := range methods {
		vtSkips[i] = vtSkip(m, ms[i])
	}
	// skip says why path p does not run method i, or "" if it does; quiet
	// for the pooled paths on streams, which they serve as codec=grpcfast.
	skip := func(p *path, i int) (why string, quiet bool) {
		m := methods[i]
		switch {
		case p.vtproto && vtSkips[i] != "":
			return vtSkips[i], false
		case p.pooled && m.kind != unary:
			return "streams", true
		case p.pooled:
			return m.pooledSkip(p.copy), false
		}
		return "", false
	}
	if _, done := announced.LoadOrStore(service, true); !done {
		// Once per service and process, on lines that benchstat does not
		// take for configuration lines (no "key:" first): where replayed
		// messages came from, first; what is skipped, once per reason and
		// only for what the -bench filter selects, after the results.
		pattern, top := benchFilter(), b.Name()
		selected := func(i, j int) bool {
			for _, sh := range shapes(ms[i]) {
				for _, load := range loads(&cfg) {
					names := []string{top, methods[i].name}
					if sh.name != "" {
						names = append(names, sh.name)
					}
					if load.name != "" {
						names = append(names, strings.Split(load.name, "/")...)
					}
					if benchSelects(pattern, append(names, "codec="+paths[j].name)...) {
						return true
					}
				}
			}
			return false
		}
		for i, m := range methods {
			if replayed != nil && benchSelects(pattern, top, m.name) {
				fmt.Printf("replay %s/%s: %s\n", service, m.name, replayNote(replayed[i], cfg.replay))
			}
		}
		// What each size flag grew, once per message type and process.
		var notes []growNote
		for i, m := range methods {
			for k, set := range []*msgs{&ms[i], ms[i].batch} {
				if set == nil || !benchSelects(pattern, top, m.name, []string{"", ShapeBatch}[k]) {
					continue
				}
				for _, n := range set.notes {
					if n != nil {
						notes = append(notes, *n)
					}
				}
			}
		}
		for _, n := range newNotes(notes) {
			fmt.Println(n)
		}
		names := make([]string, len(methods))
		for i, m := range methods {
			names[i] = m.name
		}
		lines := skipLines(service, names, pathNames(paths), func(j, i int) string {
			if why, quiet := skip(paths[j], i); !quiet {
				return why
			}
			return ""
		}, selected)
		b.Cleanup(func() {
			for _, line := range lines {
				fmt.Println(line)
			}
		})
	}
	for i, m := range methods {
		var codecs []string
		for _, p := range paths {
			if why, _ := skip(p, i); why == "" {
				codecs = append(codecs, p.name)
			}
		}
		if benchSelects(benchFilter(), b.Name(), m.name) {
			printCodecs(codecs)
			if line := floorWorkLine(&cfg); line != "" {
				printFloorWork.Do(func() { fmt.Println(line) })
			}
		}
		b.Run(m.name, func(b *testing.B) {
			for _, sh := range shapes(ms[i]) {
				runIn(b, sh.name, func(b *testing.B) {
					for _, load := range loads(&cfg) {
						runIn(b, load.name, func(b *testing.B) {
							for j, p := range paths {
								if why, _ := skip(p, i); why != "" {
									continue
								}
								c := &client{cfg: &cfg, reqs: sh.reqs, ress: sh.ress, conns: envs[j].conns, n: load.conns}
								b.Run("codec="+p.name, func(b *testing.B) {
									runMethod(b, &cfg, service, sh.name, m, *sh.msgs, p, c, load, envs[j].child)
								})
							}
						})
					}
				})
			}
		})
	}
}

// shape is one case of a method: its sub-benchmark level ("" for the
// default case) and its messages.
type shape struct {
	name string
	*msgs
}

// shapes returns the cases of a method with messages ms: the default one,
// then its batch case if it has one.
func shapes(ms msgs) []shape {
	out := []shape{{"", &ms}}
	if ms.batch != nil {
		out = append(out, shape{ShapeBatch, ms.batch})
	}
	return out
}

// CodecsKey is the configuration key of the line Run prints before the
// results of a method whose set of paths differs from the previous
// method's: "codecs: proto vtproto grpcfast". benchstat starts a table for
// each configuration, so every table it prints has the same columns on
// every row, and its geomeans compare the same benchmarks (without it, the
// rows of streams, which have no pooled paths, or of methods without
// codec=vtproto, make benchstat warn that they may not be comparable).
const CodecsKey = "codecs"

// FloorWorkKey is the configuration key of the line Run prints, once, with
// -grpcfast.floorwork or -grpcfast.floorcopy: "floorwork: 5µs", "floorwork:
// copy" or "floorwork: copy+5µs", so that benchstat keeps apart the floor's
// results of different works (its table header names the work).
const FloorWorkKey = "floorwork"

var printFloorWork sync.Once

// floorWorkLine returns the FloorWorkKey line of c, or "" without a work.
func floorWorkLine(c *config) string {
	switch {
	case !c.floor || c.floorWork <= 0 && !c.floorCopy:
		return ""
	case !c.floorCopy:
		return fmt.Sprintf("%s: %v", FloorWorkKey, c.floorWork)
	case c.floorWork <= 0:
		return FloorWorkKey + ": copy"
	}
	return fmt.Sprintf("%s: copy+%v", FloorWorkKey, c.floorWork)
}

// lastCodecs is the value of the last CodecsKey line this process printed.
var lastCodecs struct {
	sync.Mutex
	v string
}

// printCodecs prints the CodecsKey line of codecs unless it is the last
// one printed.
func printCodecs(codecs []string) {
	v := strings.Join(codecs, " ")
	lastCodecs.Lock()
	defer lastCodecs.Unlock()
	if v != lastCodecs.v {
		lastCodecs.v = v
		fmt.Printf("%s: %s\n", CodecsKey, v)
	}
}

// announced holds the services whose replayed messages and skipped paths
// have been announced.
var announced sync.Map

// replayNote says where a method's messages came from.
func replayNote(n [2]int, dir string) string {
	side := func(n int, what string) string {
		if n == 0 {
			return "filled " + what
		}
		return strconv.Itoa(n) + " recorded " + what
	}
	return side(n[0], "requests") + " and " + side(n[1], "responses") + " from " + dir
}

// load is one combination of the -grpcfast.conns and -grpcfast.streams
// values, in one round of -grpcfast.rounds, and the name of its
// sub-benchmark levels: "conns=4/streams=64/round=2" for the flags that
// list several values and rounds > 1, "" when none does.
type load struct {
	name           string
	conns, streams int
}

// loads returns every combination in the order the paths run them: by
// connections, then streams, then round, so that a round runs every path
// (the level below) before the next round begins.
func loads(cfg *config) []load {
	var out []load
	for _, nc := range cfg.conns {
		for _, ns := range cfg.streams {
			var name []string
			if len(cfg.conns) > 1 {
				name = append(name, "conns="+strconv.Itoa(nc))
			}
			if len(cfg.streams) > 1 {
				name = append(name, "streams="+strconv.Itoa(ns))
			}
			if cfg.rounds <= 1 {
				out = append(out, load{strings.Join(name, "/"), nc, ns})
				continue
			}
			for r := range cfg.rounds {
				round := append(name[:len(name):len(name)], "round="+strconv.Itoa(r+1))
				out = append(out, load{strings.Join(round, "/"), nc, ns})
			}
		}
	}
	return out
}

// runIn runs f as the sub-benchmark name, or as b itself if name is empty.
func runIn(b *testing.B, name string, f func(b *testing.B)) {
	if name == "" {
		f(b)
		return
	}
	b.Run(name, f)
}

// env is one path's server, in this process or in a child process of its
// own, and client connections.
type env struct {
	conns *conns
	stop  func()          // the server in this process
	child *childproc.Proc // the server process
}

func (e *env) close() error {
	e.conns.close()
	if e.stop != nil {
		e.stop()
	}
	if e.child != nil {
		return e.child.Stop()
	}
	return nil
}

// start starts a server per path, in this process or each in a child
// process of its own, and dials it. A process of its own holds what one
// path keeps from one call to the next and nothing of the others': the
// pooled requests' spares and the free list of their owned copies stay
// warm from one of its runs to the next, and no path's collections are
// paced by another's live heap.
func start(top, service string, methods []Method, ms []msgs, paths []*path, cfg *config) ([]*env, error) {
	var envs []*env
	fail := func(err error) ([]*env, error) {
		for _, e := range envs {
			e.close()
		}
		return nil, err
	}
	_, topts := cfg.transportOptions()
	if cfg.server == ServerProcess {
		for _, p := range paths {
			child, err := startChild(top, p.name, cfg)
			if err != nil {
				return fail(err)
			}
			c, err := dial(child.Addrs[p.name], slices.Max(cfg.conns), topts)
			if err != nil {
				child.Stop()
				return fail(err)
			}
			envs = append(envs, &env{conns: c, child: child})
		}
		return envs, nil
	}
	for _, p := range paths {
		lis, target, dopts, err := listen(cfg)
		if err != nil {
			return fail(err)
		}
		srv := newServer(service, methods, ms, p, cfg)
		served := make(chan struct{})
		go func() {
			defer close(served)
			srv.Serve(lis)
		}()
		stop := func() {
			srv.Stop()
			<-served
		}
		c, err := dial(target, slices.Max(cfg.conns), append(dopts, topts...))
		if err != nil {
			stop()
			return fail(err)
		}
		envs = append(envs, &env{conns: c, stop: stop})
	}
	return envs, nil
}

// perOp is what one call of a method moves.
type perOp struct {
	payload    int64 // encoded bytes of the messages sent both ways
	clientRecv int   // messages the client receives
	serverRecv int   // messages the server receives
}

// perOpOf returns what one call of m moves: for a stream, the messages it
// sends in turn; for the single message of a side, the mean of its list.
func perOpOf(m Method, ms msgs, cfg *config) perOp {
	n := cfg.msgs
	req, res := meanSize(ms.reqs), meanSize(ms.ress)
	switch m.kind {
	case clientStreaming:
		return perOp{streamSize(ms.reqs, n) + res, 1, n}
	case serverStreaming:
		return perOp{req + streamSize(ms.ress, n), n, 1}
	case bidiStreaming:
		return perOp{streamSize(ms.reqs, n) + streamSize(ms.ress, n), n, n}
	default:
		return perOp{req + res, 1, 1}
	}
}

// meanSize is the mean encoded size of list's messages.
func meanSize(list []proto.Message) int64 {
	var sum int64
	for _, m := range list {
		sum += int64(proto.Size(m))
	}
	return sum / int64(len(list))
}

// streamSize is the encoded size of the n messages a stream sends from
// list, in turn.
func streamSize(list []proto.Message, n int) int64 {
	var sum int64
	for i := range n {
		sum += int64(proto.Size(list[i%len(list)]))
	}
	return sum
}

// vtMessage is what vtprotobuf's codec needs of a message.
type vtMessage interface {
	MarshalVT() ([]byte, error)
	UnmarshalVT([]byte) error
}

// vtSkip returns why codec=vtproto cannot run m with the messages ms, or ""
// if it can: a message type of m has no vtprotobuf methods (a file
// vtprotobuf did not run on, such as an editions file, or another module's
// type, such as google.longrunning.Operation), named; or vtprotobuf does
// not decode what it encodes for them (its UnmarshalVT fails on proto2
// groups).
func vtSkip(m Method, ms msgs) string {
	var none []string
	for _, msg := range []proto.Message{m.newReq(), m.newRes()} {
		name := string(msg.ProtoReflect().Descriptor().FullName())
		if !hasVT(msg) && !slices.Contains(none, name) {
			none = append(none, name)
		}
	}
	switch len(none) {
	case 1:
		return none[0] + " has no vtprotobuf methods"
	case 2:
		return none[0] + " and " + none[1] + " have no vtprotobuf methods"
	}
	for _, list := range [][]proto.Message{ms.reqs, ms.ress} {
		for _, msg := range list {
			b, err := msg.(vtMessage).MarshalVT()
			back := msg.ProtoReflect().New().Interface()
			if err == nil {
				err = back.(vtMessage).UnmarshalVT(b)
			}
			if err != nil {
				return fmt.Sprintf("vtprotobuf fails to round-trip %s: %v", msg.ProtoReflect().Descriptor().FullName(), err)
			}
			if !proto.Equal(back, msg) {
				return fmt.Sprintf("vtprotobuf's round trip changes %s", msg.ProtoReflect().Descriptor().FullName())
			}
		}
	}
	return ""
}

func runMethod(b *testing.B, cfg *config, service, shape string, m Method, ms msgs, p *path, c *client, load load, child *childproc.Proc) {
	fullMethod := "/" + serviceOf(service, shape) + "/" + m.name
	op := perOpOf(m, ms, cfg)
	recvHere := op.clientRecv
	if child == nil {
		recvHere += op.serverRecv
	}
	if child != nil {
		// go test sets GOMAXPROCS for each -test.cpu value of a
		// sub-benchmark: the server process follows.
		if err := child.SetProcs(runtime.GOMAXPROCS(0)); err != nil {
			b.Fatal(err)
		}
	}
	ctx := context.Background()
	call := func() error { return m.call(ctx, c, p, fullMethod) }
	// One call before timing: it connects, warms the pools and checks that
	// the method works on this path: both sides compare every message they
	// receive with the one sent (see checkHeader).
	checked := checkContext(ctx)
	if p.floor {
		checked = ctx // nothing received is decoded
	}
	if err := m.call(checked, c, p, fullMethod); err != nil {
		b.Fatalf("%s on codec=%s: %v", fullMethod, p.name, err)
	}
	if err := settle(b, cfg, child, load.streams, call); err != nil {
		b.Fatalf("%s on codec=%s: %v", fullMethod, p.name, err)
	}
	b.SetBytes(op.payload)
	b.ReportAllocs()
	prof, err := startProfile(strings.Join(slices.DeleteFunc([]string{
		service[strings.LastIndex(service, ".")+1:], m.name, shape, load.name, "codec=" + p.name,
	}, func(s string) bool { return s == "" }), "/"), cfg.profileDir)
	if err != nil {
		b.Fatal(err)
	}
	var srv0, srv1 childproc.Stats
	if child != nil {
		// The server's profile, when its CPU is the claim: in its own
		// process, where this one's profile cannot see it.
		if base := prof.serverBase(); base != "" {
			err = child.StartProfile(base)
		}
		if err == nil {
			srv0, err = child.Stats()
		}
		if err != nil {
			prof.stop() // so that the next sub-benchmark can profile
			b.Fatal(err)
		}
	}
	var mem0, mem1 runtime.MemStats
	runtime.ReadMemStats(&mem0)
	cpu0 := CPUTime()
	b.ResetTimer()
	err = runCalls(b.N, load.streams, call)
	b.StopTimer()
	cpu := CPUTime() - cpu0
	runtime.ReadMemStats(&mem1)
	if child != nil && err == nil {
		srv1, err = child.Stats()
		if procs := runtime.GOMAXPROCS(0); err == nil && (srv0.Procs != procs || srv1.Procs != procs) {
			err = errorf("the server process ran with GOMAXPROCS=%d and %d, this one with %d", srv0.Procs, srv1.Procs, procs)
		}
	}
	if child != nil && prof.serverBase() != "" {
		if perr := child.StopProfile(); err == nil {
			err = perr
		}
	}
	if perr := prof.stop(); err == nil {
		err = perr
	}
	if err != nil {
		b.Fatalf("%s on codec=%s: %v", fullMethod, p.name, err)
	}
	n := float64(b.N)
	b.ReportMetric(float64(cpu.Nanoseconds())/n, "cpu-ns/op")
	if op.payload > 0 {
		b.ReportMetric(float64(cpu.Nanoseconds())/(n*float64(op.payload)/(1<<20)), "cpu-ns/MiB")
	}
	if recvHere > 0 {
		b.ReportMetric(float64(mem1.Mallocs-mem0.Mallocs)/(n*float64(recvHere)), "allocs/msg")
	}
	if child != nil {
		b.ReportMetric(float64(srv1.CPUNs-srv0.CPUNs)/n, "srv-cpu-ns/op")
		b.ReportMetric(float64(srv1.Bytes-srv0.Bytes)/n, "srv-B/op")
		b.ReportMetric(float64(srv1.Mallocs-srv0.Mallocs)/n, "srv-allocs/op")
	}
}

// settle prepares a timed run of a path whose server is child (nil: in
// this process). The server's garbage from what it served before (the
// shorter runs that sized b.N, the other cases, the rounds before) is
// collected first, as the testing package collects this process's before
// each run: otherwise the run's server CPU would include it. With -warmup,
// untimed calls follow, so that the timed ones start from the path's steady
// state, as in a server that has served for a while: the collection and
// the start of a run leave the path's memory where it is not in that state
// (a pooled path with one copy starts with the free list of its copies
// full, which makes the collector's first cycle a long one, that needs
// more copies than the list holds). The first run, of one call, by which go
// test sizes b.N, has none: it would cost as much as the runs it sizes.
func settle(b *testing.B, cfg *config, child *childproc.Proc, streams int, call func() error) error {
	if child != nil {
		if err := child.Collect(); err != nil {
			return err
		}
	}
	if cfg.warmup <= 0 || b.N <= 1 {
		return nil
	}
	if err := warmUp(cfg.warmup, streams, call); err != nil {
		return fmt.Errorf("warming up: %v", err)
	}
	return nil
}

// warmUp makes calls, streams of them at a time, for at least d, and
// returns the first error.
func warmUp(d time.Duration, streams int, call func() error) error {
	for end := time.Now().Add(d); time.Now().Before(end); {
		if err := runCalls(max(streams, 8), streams, call); err != nil {
			return err
		}
	}
	return nil
}

// runCalls makes n calls, streams of them at a time, and returns the first
// error.
func runCalls(n, streams int, call func() error) error {
	if streams <= 1 {
		for range n {
			if err := call(); err != nil {
				return err
			}
		}
		return nil
	}
	var (
		next  atomic.Int64
		once  sync.Once
		first error
		wg    sync.WaitGroup
	)
	for range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(n) {
				if err := call(); err != nil {
					once.Do(func() { first = err })
					next.Store(int64(n)) // the others stop after their call
					return
				}
			}
		}()
	}
	wg.Wait()
	return first
}

func errorf(format string, args ...any) error {
	return fmt.Errorf("grpcfastbench: "+format, args...)
}
