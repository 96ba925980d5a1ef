package grpcfastbench

import (
	"flag"
	"fmt"
	"slices"
	"strconv"
	"strings"
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

// config is what the flags set. Run reads it once per benchmark.
type config struct {
	size       int    // target encoded size of every message; 0: one value per field
	msgs       int    // messages per stream, in each streaming direction
	streams    []int  // concurrent calls; one set of sub-benchmarks per value
	conns      []int  // client connections the calls are spread over; likewise
	transport  string // TransportTCP or TransportBufconn
	server     string // ServerInProcess or ServerProcess
	bidi       string // BidiPipelined or BidiPingPong
	profileDir string // where to write CPU and allocation profiles; "" for none
}

var flags = config{
	msgs: 100, streams: []int{1}, conns: []int{1},
	transport: TransportTCP, server: ServerInProcess, bidi: BidiPipelined,
}

func init() { registerFlags(flag.CommandLine, &flags) }

// registerFlags registers the harness's flags on fs, filling c.
func registerFlags(fs *flag.FlagSet, c *config) {
	fs.Var(intFlag{&c.size, 0}, FlagPrefix+"size",
		"grow every request and response until it encodes to about `bytes` (0: one value per field)")
	fs.Var(intFlag{&c.msgs, 1}, FlagPrefix+"msgs",
		"`n` messages per stream in each streaming direction")
	fs.Var(intsFlag{&c.streams, 1}, FlagPrefix+"streams",
		"`n` calls in flight at once; a list such as 1,8,64 runs each (sub-benchmarks streams=N)")
	fs.Var(intsFlag{&c.conns, 1}, FlagPrefix+"conns",
		"spread the calls over `n` client connections; a list such as 1,4 runs each (sub-benchmarks conns=N)")
	fs.Var(choiceFlag{&c.transport, []string{TransportTCP, TransportBufconn}}, FlagPrefix+"transport",
		"`transport`: tcp (loopback) or bufconn (in memory, in-process server only)")
	fs.Var(choiceFlag{&c.server, []string{ServerInProcess, ServerProcess}}, FlagPrefix+"server",
		"where the stub server runs: inprocess, or process (a child process; adds the server's CPU, bytes and allocations per op)")
	fs.Var(choiceFlag{&c.bidi, []string{BidiPipelined, BidiPingPong}}, FlagPrefix+"bidi",
		"bidi `mode`: pipelined (the client sends while it receives) or pingpong (one response before the next request)")
	fs.StringVar(&c.profileDir, FlagPrefix+"profile", "",
		"write a CPU and an allocation profile per sub-benchmark into `dir`")
}

// check reports a combination of flags that cannot run.
func (c *config) check() error {
	if c.server == ServerProcess && c.transport == TransportBufconn {
		return fmt.Errorf("-%sserver=%s needs -%stransport=%s: an in-memory connection cannot reach another process",
			FlagPrefix, ServerProcess, FlagPrefix, TransportTCP)
	}
	return nil
}

// intFlag is an integer flag with a lower bound; its error names the flag's
// accepted range.
type intFlag struct {
	p   *int
	min int
}

func (f intFlag) String() string {
	if f.p == nil {
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
