package generator

import (
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/planetscale/vtprotobuf/generator/pattern"
)

// Option names accepted by the plugin, as written in buf.gen.yaml's opt or
// protoc's --go-grpcfast_opt. protogen itself handles paths=, module= and M.
const (
	OptionRegisterCodec  = "register_codec"
	OptionBenchmarks     = "benchmarks"
	OptionVTProtoCheck   = "vtproto_check"
	OptionPoolNotes      = "pool_notes"
	OptionPool           = "pool"
	OptionPooledRequests = "pooled_requests"
)

// Config holds the plugin options. It is filled by one flag.FlagSet through
// Set, which protogen calls once for every option it does not handle itself.
type Config struct {
	// RegisterCodec makes every generated file register the grpcfast codec
	// under the name "proto" in an init function.
	RegisterCodec bool
	// Benchmarks makes the plugin write x_grpcfast_bench_test.go, with a
	// benchmark of every method of every service, next to every
	// x_grpcfast.pb.go that has services.
	Benchmarks bool
	// VTProtoCheck makes every x_grpcfast.pb.go assert at compile time that
	// protoc-gen-go-vtproto generated its messages' methods (editions files
	// excepted: vtprotobuf cannot generate for them).
	VTProtoCheck bool
	// PoolNotes and Pool are the pool_notes= and pool= options, accepted
	// (and pool='s globs checked) so that a buf.gen.yaml written for
	// v0.4 still runs. They no longer change anything: the generated
	// decoders reuse nested messages whatever vtprotobuf pools, so there
	// is nothing left to note.
	PoolNotes bool
	Pool      map[string]bool
	// PooledRequests makes the plugin write Register<Service>ServerPooled
	// for every service with a unary method. It calls protoc-gen-go-grpc's
	// Register<Service>Server and names its <Service>Server interface, so
	// it needs protoc-gen-go-grpc's output in the same package.
	PooledRequests bool
	// Notes receives the notes; os.Stderr unless set otherwise.
	Notes io.Writer

	flags *flag.FlagSet
}

// NewConfig returns a Config with every option at its default and registers
// the options on fs.
func NewConfig(fs *flag.FlagSet) *Config {
	c := &Config{RegisterCodec: true, Benchmarks: true, VTProtoCheck: true, PoolNotes: true, PooledRequests: true,
		Pool: map[string]bool{}, Notes: os.Stderr, flags: fs}
	fs.Var(boolOption{OptionRegisterCodec, &c.RegisterCodec}, OptionRegisterCodec,
		"register the grpcfast codec under \"proto\" when the generated package is initialised")
	fs.Var(boolOption{OptionBenchmarks, &c.Benchmarks}, OptionBenchmarks,
		"write x_grpcfast_bench_test.go: benchmarks of every method, gRPC's standard path against grpcfast's")
	fs.Var(boolOption{OptionVTProtoCheck, &c.VTProtoCheck}, OptionVTProtoCheck,
		"fail the build when protoc-gen-go-vtproto's marshal, unmarshal and size methods are missing")
	fs.Var(boolOption{OptionPoolNotes, &c.PoolNotes}, OptionPoolNotes,
		"no effect since v0.5.0 (generated decoders reuse nested messages whatever vtprotobuf pools); accepted for compatibility")
	fs.Var(boolOption{OptionPooledRequests, &c.PooledRequests}, OptionPooledRequests,
		"write Register<Service>ServerPooled for services with unary methods (needs protoc-gen-go-grpc's output in the same package)")
	fs.Var(poolOption{c.Pool}, OptionPool,
		"no effect since v0.5.0; accepted for compatibility, as protoc-gen-go-vtproto's pool= (<go import path>.<Message>, or a glob of them); repeatable")
	return c
}

// Set sets the option name to value. Its error names the option, the value
// it got and what it accepts.
func (c *Config) Set(name, value string) error {
	if c.flags.Lookup(name) == nil {
		var hint string
		if near := c.nearest(name); near != "" {
			hint = " (did you mean " + near + "?)"
		}
		return fmt.Errorf("unknown option %q (value %q)%s: %s accepts %s, and protogen's paths, module and M options",
			name, value, hint, PluginName, strings.Join(c.names(), ", "))
	}
	return c.flags.Set(name, value)
}

// nearest returns the option whose name is within two edits of name (a
// letter missing, added or changed, '-' for '_'), the closest, or "".
func (c *Config) nearest(name string) string {
	best, bestD := "", 3
	for _, n := range c.names() {
		if d := editDistance(name, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance between a and b, in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			sub := prev[j-1]
			if a[i-1] != b[j-1] {
				sub++
			}
			cur[j] = min(sub, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func (c *Config) names() []string {
	var names []string
	c.flags.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	sort.Strings(names)
	return names
}

// Usage describes the options, for --help.
func Usage() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s %s: a protoc/buf plugin that writes x_grpcfast.pb.go.\n\n", PluginName, Version)
	b.WriteString("Options (buf.gen.yaml opt, or protoc --go-grpcfast_opt=name=value):\n")
	var fs flag.FlagSet
	NewConfig(&fs)
	fs.VisitAll(func(f *flag.Flag) {
		if f.Name == OptionPool {
			fmt.Fprintf(&b, "  %s=<go import path>.<Message>, or a glob such as <go import path>.* (repeatable)\n      %s\n", f.Name, f.Usage)
			return
		}
		fmt.Fprintf(&b, "  %s=true|false (default %s)\n      %s\n", f.Name, f.DefValue, f.Usage)
	})
	b.WriteString("  paths=import|source_relative, module=PREFIX, M<file>=<go import path>\n      as for protoc-gen-go\n")
	return b.String()
}

// boolOption is a flag.Value for a boolean option. It accepts exactly
// "true" and "false", so a typo fails loudly instead of meaning false.
type boolOption struct {
	name string
	p    *bool
}

func (o boolOption) Set(v string) error {
	switch v {
	case "true":
		*o.p = true
	case "false":
		*o.p = false
	default:
		return fmt.Errorf("option %s: invalid value %q: want true or false", o.name, v)
	}
	return nil
}

func (o boolOption) String() string {
	if o.p == nil {
		return ""
	}
	if *o.p {
		return "true"
	}
	return "false"
}

// poolOption is the repeatable pool= option. It accepts what
// protoc-gen-go-vtproto's pool= accepts: a glob (vtprotobuf's
// generator/pattern, doublestar's syntax with "/" as the separator: *, **,
// ?, [...], {a,b}, \ escapes; a comma cannot get through protoc's or buf's
// parameter string, to either plugin), matched against "<go import
// path>.<Go type name>". A value without glob characters must have that
// shape: vtprotobuf takes any other without a word and pools nothing.
type poolOption struct{ m map[string]bool }

func (o poolOption) Set(v string) error {
	if strings.ContainsAny(v, globChars) {
		if !pattern.ValidatePattern(v) {
			return fmt.Errorf("option %s: invalid value %q: not a valid glob as protoc-gen-go-vtproto's pool= option takes them (*, **, ?, [...])", OptionPool, v)
		}
		o.m[v] = true
		return nil
	}
	i := strings.LastIndex(v, ".")
	if i <= strings.LastIndex(v, "/") || i == len(v)-1 || i == 0 {
		return fmt.Errorf("option %s: invalid value %q: want <go import path>.<Message>, or a glob of them, as protoc-gen-go-vtproto's pool= option", OptionPool, v)
	}
	o.m[v] = true
	return nil
}

// globChars are the characters that make a pool= value a glob.
const globChars = "*?[{\\"

func (o poolOption) String() string { return "" }
