package generator_test

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// largeProto returns a proto3 file with n messages of every field shape the
// generator handles and a service for every ten messages, with one method of
// each kind.
func largeProto(n int) string {
	var b strings.Builder
	b.WriteString("syntax = \"proto3\";\npackage large;\noption go_package = \"example.com/large\";\n")
	for i := range n {
		fmt.Fprintf(&b, `message M%d {
  bytes data = 1;
  string name = 2;
  repeated int64 nums = 3;
  repeated M%d kids = 4;
  M%d next = 5;
  map<string, M%d> named = 6;
  oneof pick { bytes raw = 7; M%d one = 8; }
  optional bytes maybe = 9;
  optional M%d parent = 10;
}
`, i, (i+1)%n, (i+1)%n, i, i, (i+2)%n)
	}
	for i := 0; i < n; i += 10 {
		fmt.Fprintf(&b, `service S%d {
  rpc U(M%d) returns (M%d);
  rpc C(stream M%d) returns (M%d);
  rpc D(M%d) returns (stream M%d);
  rpc B(stream M%d) returns (stream M%d);
}
`, i, i, i+1, i, i+2, i+3, i, i, i+4)
	}
	return b.String()
}

// BenchmarkGenerateLarge runs the plugin in-process on a file of 2000
// messages and 200 services (parsing the request included, compiling the
// .proto not), and reports the time per thousand messages.
func BenchmarkGenerateLarge(b *testing.B) {
	const n = 2000
	req := compile(b, []string{"large.proto"}, "", map[string]string{"large.proto": largeProto(n)})
	var elapsed time.Duration
	for range b.N {
		start := time.Now()
		resp := run(b, req)
		elapsed += time.Since(start)
		if resp.Error != nil || len(resp.File) != 2 {
			b.Fatalf("error %q, %d files", resp.GetError(), len(resp.File))
		}
	}
	b.ReportMetric(float64(elapsed.Milliseconds())/float64(b.N)/(n/1000), "ms/1000msgs")
}
