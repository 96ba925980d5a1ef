package grpcfastbench

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

const pinEnv = "GRPCFASTBENCH_TEST_PIN"

// TestPinProcess: pinProcess pins every thread of a process, those it
// starts afterwards too. It runs in a process of its own (this test binary
// again), so that this one keeps its CPUs.
func TestPinProcess(t *testing.T) {
	if cpu := os.Getenv(pinEnv); cpu != "" {
		pinHelper(t, cpu)
		return
	}
	if startCPUsErr != nil {
		t.Fatal(startCPUsErr)
	}
	cpu := strconv.Itoa(startCPUs[len(startCPUs)-1])
	cmd := exec.Command(os.Args[0], "-test.run=^TestPinProcess$", "-test.v")
	cmd.Env = append(os.Environ(), pinEnv+"="+cpu)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if !strings.Contains(string(out), "every thread runs on CPU "+cpu) {
		t.Fatalf("the pinned process did not report its threads:\n%s", out)
	}
}

// pinHelper is TestPinProcess in the process it starts: it pins itself to
// cpu, makes the runtime start more threads, and checks every thread's
// CPUs as the kernel lists them.
func pinHelper(t *testing.T, cpu string) {
	n, err := strconv.Atoi(cpu)
	if err != nil {
		t.Fatal(err)
	}
	if err := pinProcess([]int{n}); err != nil {
		t.Fatal(err)
	}
	// Goroutines that hold their threads make the runtime start new ones.
	var wg sync.WaitGroup
	release := make(chan struct{})
	for range 4 {
		wg.Add(1)
		go func() {
			runtime.LockOSThread()
			wg.Done()
			<-release
		}()
	}
	wg.Wait()
	defer close(release)
	status, err := filepath.Glob("/proc/self/task/*/status")
	if err != nil || len(status) < 5 {
		t.Fatalf("%d threads listed (%v), want at least 5", len(status), err)
	}
	for _, f := range status {
		b, err := os.ReadFile(f)
		if os.IsNotExist(err) {
			continue // a thread that has exited
		}
		if err != nil {
			t.Fatal(err)
		}
		_, rest, _ := strings.Cut(string(b), "Cpus_allowed_list:")
		if got, _, _ := strings.Cut(strings.TrimSpace(rest), "\n"); got != cpu {
			t.Fatalf("%s: the thread may run on CPUs %q, want %s", f, got, cpu)
		}
	}
	t.Logf("every thread runs on CPU %s (%d threads)", cpu, len(status))
}
