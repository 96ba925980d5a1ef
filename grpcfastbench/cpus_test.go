package grpcfastbench

import (
	"runtime"
	"slices"
	"strconv"
	"testing"
)

// TestCPUsFlag: lists of CPUs parse in the kernel's format, sorted, and
// print as their runs; a bad list names the flag and what it accepts.
func TestCPUsFlag(t *testing.T) {
	for _, tc := range []struct {
		in   string
		cpus []int
		out  string
	}{
		{"1", []int{1}, "1"},
		{"2-3,6", []int{2, 3, 6}, "2-3,6"},
		{"6,0,1,2", []int{0, 1, 2, 6}, "0-2,6"},
		{"0-0,1023", []int{0, 1023}, "0,1023"},
	} {
		var cpus []int
		if err := (cpusFlag{&cpus}).Set(tc.in); err != nil || !slices.Equal(cpus, tc.cpus) {
			t.Errorf("%q: %v, %v; want %v", tc.in, cpus, err, tc.cpus)
		}
		if got := (cpusFlag{&cpus}).String(); got != tc.out {
			t.Errorf("%q prints as %q, want %q", tc.in, got, tc.out)
		}
	}
	const accepts = "want CPU numbers from 0 to 1023 and ranges of them separated by commas, such as 1 or 2-3,6"
	for _, tc := range []struct{ arg, want string }{
		{"-grpcfast.servercpus=x", `invalid value "x" for flag -grpcfast.servercpus: ` + accepts},
		{"-grpcfast.servercpus=", `invalid value "" for flag -grpcfast.servercpus: ` + accepts},
		{"-grpcfast.servercpus=1,", `invalid value "1," for flag -grpcfast.servercpus: ` + accepts},
		{"-grpcfast.servercpus=3-1", `invalid value "3-1" for flag -grpcfast.servercpus: ` + accepts},
		{"-grpcfast.servercpus=-1", `invalid value "-1" for flag -grpcfast.servercpus: ` + accepts},
		{"-grpcfast.clientcpus=1024", `invalid value "1024" for flag -grpcfast.clientcpus: ` + accepts},
		{"-grpcfast.clientcpus=0-2,1", `invalid value "0-2,1" for flag -grpcfast.clientcpus: CPU 1 is in the list twice`},
	} {
		if err := parseFlag(tc.arg); err == nil || err.Error() != tc.want {
			t.Errorf("%s: error %v, want %q", tc.arg, err, tc.want)
		}
	}
}

// TestCPUsCheck: -servercpus needs the server in its own process, and
// either list may name only CPUs this process could run on.
func TestCPUsCheck(t *testing.T) {
	c := flags
	c.server, c.serverCPUs = ServerInProcess, []int{0}
	want := "-grpcfast.servercpus needs -grpcfast.server=process: the server runs on the client's CPUs otherwise"
	if err := c.check(); err == nil || err.Error() != want {
		t.Errorf("check: %v, want %q", err, want)
	}
	if runtime.GOOS != "linux" {
		c.server = ServerProcess
		want := "-grpcfast.servercpus=0: pinning to CPUs needs Linux (sched_setaffinity)"
		if err := c.check(); err == nil || err.Error() != want {
			t.Errorf("check: %v, want %q", err, want)
		}
		return
	}
	if startCPUsErr != nil {
		t.Fatal(startCPUsErr)
	}
	last := startCPUs[len(startCPUs)-1]
	if last == maxCPU {
		t.Skipf("this process may run on CPU %d, the highest a list may name", maxCPU)
	}
	for _, name := range []string{"servercpus", "clientcpus"} {
		c := flags
		c.server = ServerProcess
		list := []int{startCPUs[0], last + 1}
		if name == "servercpus" {
			c.serverCPUs = list
		} else {
			c.clientCPUs = list
		}
		want := "-grpcfast." + name + "=" + formatCPUs(list) + ": this process may not run on CPU " + strconv.Itoa(last+1) +
			" (it may on " + formatCPUs(startCPUs) + ")"
		if err := c.check(); err == nil || err.Error() != want {
			t.Errorf("check: %v, want %q", err, want)
		}
		list = list[:1]
		c.serverCPUs, c.clientCPUs = nil, nil
		if name == "servercpus" {
			c.serverCPUs = list
		} else {
			c.clientCPUs = list
		}
		if err := c.check(); err != nil {
			t.Errorf("-grpcfast.%s=%d: %v", name, list[0], err)
		}
	}
}
