package grpcfastbench

import (
	"flag"
	"strings"
	"testing"
)

// TestFlagsNameTheirValue: every flag that takes a value names it in the
// usage that -h prints (a back-quoted word of its usage, as -grpcfast.size
// bytes), never the flag package's bare "value", and says what it is for.
func TestFlagsNameTheirValue(t *testing.T) {
	fs := flag.NewFlagSet("test", flag.ContinueOnError)
	var c config
	registerFlags(fs, &c)
	n := 0
	fs.VisitAll(func(f *flag.Flag) {
		n++
		if !strings.HasPrefix(f.Name, FlagPrefix) {
			t.Errorf("-%s: not under the prefix %s", f.Name, FlagPrefix)
		}
		name, usage := flag.UnquoteUsage(f)
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			return
		}
		if name == "bool" {
			t.Errorf("-%s: -h prints it as taking a bool, but -%s alone is refused (flag needs an argument): make it a bool flag", f.Name, f.Name)
		}
		if name == "" || name == "value" {
			t.Errorf("-%s: its usage names no value (-h prints %q): back-quote a word of %q", f.Name, name, f.Usage)
		}
		if len(strings.Fields(usage)) < 4 {
			t.Errorf("-%s: usage %q says too little", f.Name, usage)
		}
	})
	if n == 0 {
		t.Fatal("registerFlags registered no flag")
	}
}

// TestSharedWriteAlone: -grpcfast.sharedwrite alone turns the shared write
// buffers on, as a bool flag does; =false turns them off; without it, gRPC-Go
// keeps its own default.
func TestSharedWriteAlone(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"-grpcfast.sharedwrite"}, "true"},
		{[]string{"-grpcfast.sharedwrite=true"}, "true"},
		{[]string{"-grpcfast.sharedwrite=false"}, "false"},
		{[]string{"-grpcfast.sharedwrite=0"}, "false"},
	} {
		fs := flag.NewFlagSet("test", flag.ContinueOnError)
		var c config
		registerFlags(fs, &c)
		if err := fs.Parse(tc.args); err != nil {
			t.Errorf("%q: %v", tc.args, err)
			continue
		}
		if c.sharedWrite != tc.want {
			t.Errorf("%q: sharedWrite %q, want %q", tc.args, c.sharedWrite, tc.want)
		}
	}
}
