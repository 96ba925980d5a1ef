package codec_test

// Binary logging of sent messages (marshal_sendbuf_test.go).

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc/binarylog"
	binlogpb "google.golang.org/grpc/binarylog/grpc_binarylog_v1"

	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

// ---------------------------------------------------------------------------
// Binary logging.

// Binary logging has no exported per-server or per-connection switch in
// grpc-go v1.85.0 (grpc.binaryLogger and withBinaryLogger are reachable only
// through google.golang.org/grpc/internal): the global logger is built from
// GRPC_BINARY_LOG_FILTER when internal/binarylog is initialised. So the
// TestSendBufBinaryLog re-runs itself in a child process of this test binary
// with GRPC_BINARY_LOG_FILTER=* in its environment, and there sets a sink
// (binarylog.SetSink, before any server or client exists) that keeps every
// log entry to check it at the end.
const sbBinlogChildEnv = "GRPCFAST_SENDBUF_BINLOG_CHILD"

type recordingSink struct {
	mu      sync.Mutex
	entries []*binlogpb.GrpcLogEntry
}

func (s *recordingSink) Write(e *binlogpb.GrpcLogEntry) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.entries = append(s.entries, e)
	return nil
}

func (s *recordingSink) Close() error { return nil }

// runBinlogChild runs test alone in a child process of this test binary,
// with GRPC_BINARY_LOG_FILTER=* and env=1 in its environment.
func runBinlogChild(t *testing.T, test, env string) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^"+test+"$", "-test.count=1", "-test.v", "-test.timeout=2m")
	cmd.Env = append(os.Environ(), env+"=1", "GRPC_BINARY_LOG_FILTER=*")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child process with GRPC_BINARY_LOG_FILTER=*: %v\n%s", err, out)
	}
	if !bytes.Contains(out, []byte("--- PASS: "+test)) {
		t.Fatalf("the child process did not run the test:\n%s", out)
	}
	t.Logf("child process:\n%s", out)
}

func testBinaryLogChild(t *testing.T) {
	if os.Getenv("GRPC_BINARY_LOG_FILTER") != "*" {
		t.Fatal("child process started without GRPC_BINARY_LOG_FILTER=*")
	}
	sink := &recordingSink{}
	binarylog.SetSink(sink)
	e := startSB(t, &grpcfasttest.KindsServer{}, nil, nil, nil, nil, false)
	sbLoad.run(t, e.client)
	requireUsed(t, e.srvPool, e.cliPool)
	e.finish(t)
	if t.Failed() {
		return
	}

	// Every buffer has come back and been poisoned: the logged copies
	// must still be the messages sent.
	sink.mu.Lock()
	defer sink.mu.Unlock()
	methods := map[uint64]string{}
	for _, en := range sink.entries {
		if h := en.GetClientHeader(); h != nil {
			methods[en.CallId] = h.MethodName
		}
	}
	counts := map[string]int{}
	bad := 0
	for _, en := range sink.entries {
		msg := en.GetMessage()
		if msg == nil {
			continue
		}
		key := en.Logger.String() + " " + en.Type.String()
		counts[key]++
		method := strings.TrimPrefix(methods[en.CallId], "/grpcfast.testdata.kinds.Kinds/")
		fromClient := en.Type == binlogpb.GrpcLogEntry_EVENT_TYPE_CLIENT_MESSAGE
		err := checkLogged(method, fromClient, msg.Data)
		if err == nil && (en.PayloadTruncated || int(msg.Length) != len(msg.Data)) {
			err = fmt.Errorf("truncated: %d of %d bytes", len(msg.Data), msg.Length)
		}
		if err != nil {
			if bad++; bad <= 5 {
				t.Errorf("%s of %s (call %d): %v", key, method, en.CallId, err)
			}
		}
	}
	if bad > 5 {
		t.Errorf("%d logged messages were wrong", bad)
	}
	for _, c := range []struct {
		key  string
		want int
	}{
		{"LOGGER_CLIENT EVENT_TYPE_CLIENT_MESSAGE", sbLoad.clientMsgs()},
		{"LOGGER_SERVER EVENT_TYPE_CLIENT_MESSAGE", sbLoad.clientMsgs()},
		{"LOGGER_SERVER EVENT_TYPE_SERVER_MESSAGE", sbLoad.serverMsgs()},
		{"LOGGER_CLIENT EVENT_TYPE_SERVER_MESSAGE", sbLoad.serverMsgs()},
	} {
		if counts[c.key] != c.want {
			t.Errorf("%d %s entries, want %d", counts[c.key], c.key, c.want)
		}
	}
	t.Logf("binary log: %d entries, messages %v", len(sink.entries), counts)
}

// checkLogged checks a message copied by binary logging.
func checkLogged(method string, fromClient bool, data []byte) error {
	switch {
	case method == "PooledBidi":
		m := &kinds.Pooled{}
		if err := m.UnmarshalVT(data); err != nil {
			return err
		}
		return grpcfasttest.CheckPooled(m, -1)
	case method == "ClientStream" && !fromClient:
		m := &kinds.Summary{}
		if err := m.UnmarshalVT(data); err != nil {
			return err
		}
		if m.Count != int64(sbLoad.msgs) {
			return fmt.Errorf("summary of %d messages, want %d", m.Count, sbLoad.msgs)
		}
		return nil
	case method == "ServerStream" && fromClient:
		m := &kinds.Rich{}
		if err := m.UnmarshalVT(data); err != nil {
			return err
		}
		if len(m.Numbers) != 1 || m.Numbers[0] != int64(sbLoad.msgs) {
			return fmt.Errorf("server-stream request %v", m)
		}
		return nil
	case method == "Unary" || method == "ClientStream" || method == "ServerStream" || method == "Bidi":
		m := &kinds.Rich{}
		if err := m.UnmarshalVT(data); err != nil {
			return err
		}
		return grpcfasttest.CheckRich(m, -1)
	}
	return fmt.Errorf("unknown method %q", method)
}

// TestSendBufBinaryLog: binary logging on, on both ends: SendMsg copies
// (Materialize) each sent message for the log after its write. Every
// logged copy is checked once every buffer has been poisoned. It runs in a
// child process (binary logging is process-wide), which runs this test
// alone.
func TestSendBufBinaryLog(t *testing.T) {
	if os.Getenv(sbBinlogChildEnv) != "" {
		testBinaryLogChild(t)
		return
	}
	runBinlogChild(t, "TestSendBufBinaryLog", sbBinlogChildEnv)
}
