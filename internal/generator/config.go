package generator

import (
	"flag"
	"fmt"
	"sort"
	"strings"
)

// Option names accepted by the plugin, as written in buf.gen.yaml's opt or
// protoc's --go-grpcfast_opt. protogen itself handles paths=, module= and M.
const (
	OptionRegisterCodec = "register_codec"
	OptionBenchmarks    = "benchmarks"
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

	flags *flag.FlagSet
}

// NewConfig returns a Config with every option at its default and registers
// the options on fs.
func NewConfig(fs *flag.FlagSet) *Config {
	c := &Config{RegisterCodec: true, Benchmarks: true, flags: fs}
	fs.Var(boolOption{OptionRegisterCodec, &c.RegisterCodec}, OptionRegisterCodec,
		"register the grpcfast codec under \"proto\" when the generated package is initialised")
	fs.Var(boolOption{OptionBenchmarks, &c.Benchmarks}, OptionBenchmarks,
		"write x_grpcfast_bench_test.go: benchmarks of every method, gRPC's standard path against grpcfast's")
	return c
}

// Set sets the option name to value. Its error names the option, the value
// it got and what it accepts.
func (c *Config) Set(name, value string) error {
	if c.flags.Lookup(name) == nil {
		return fmt.Errorf("unknown option %q (value %q): %s accepts %s, and protogen's paths, module and M options",
			name, value, PluginName, strings.Join(c.names(), ", "))
	}
	return c.flags.Set(name, value)
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
