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
