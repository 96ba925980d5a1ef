// Package interop_test checks the message sizes that scripts/interop.sh
// benchmarks the shapes of gRPC's interop messages with (packages plain and
// pooled, the same messages without and with vtprotobuf's pool).
package interop_test

import (
	"os"
	"regexp"
	"strconv"
	"testing"

	"github.com/grpcfast/grpcfast/grpcfastbench"
	"github.com/grpcfast/grpcfast/internal/testprotos/interop/plain"
	"github.com/grpcfast/grpcfast/internal/testprotos/interop/pooled"
	"google.golang.org/protobuf/proto"
)

// payloadBody is the size of gRPC's interop payloads that the script
// measures: 16 KiB.
const payloadBody = 16384

// scriptSize returns the value of the line name=N of scripts/interop.sh.
func scriptSize(t *testing.T, name string) int {
	t.Helper()
	src, err := os.ReadFile("../../../scripts/interop.sh")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^` + name + `=([0-9]+)$`).FindSubmatch(src)
	if m == nil {
		t.Fatalf("scripts/interop.sh has no line %s=N", name)
	}
	n, err := strconv.Atoi(string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestPayloadSizes checks that the -grpcfast.size values of
// scripts/interop.sh make grpcfastbench fill every Payload that the
// benchmarks stream with a body of exactly 16 KiB, in both packages, and that
// vtprotobuf encodes each message to that size.
func TestPayloadSizes(t *testing.T) {
	outSize, inSize := scriptSize(t, "out_size"), scriptSize(t, "in_size")
	var (
		plainOut  plain.StreamingOutputCallResponse
		plainIn   plain.StreamingInputCallRequest
		pooledOut pooled.StreamingOutputCallResponse
		pooledIn  pooled.StreamingInputCallRequest
	)
	for _, tc := range []struct {
		msg interface {
			proto.Message
			SizeVT() int
		}
		size int
		body func() []byte
	}{
		{&plainOut, outSize, func() []byte { return plainOut.GetPayload().GetBody() }},
		{&plainIn, inSize, func() []byte { return plainIn.GetPayload().GetBody() }},
		{&pooledOut, outSize, func() []byte { return pooledOut.GetPayload().GetBody() }},
		{&pooledIn, inSize, func() []byte { return pooledIn.GetPayload().GetBody() }},
	} {
		if err := grpcfastbench.Fill(tc.msg, tc.size); err != nil {
			t.Fatal(err)
		}
		name := proto.MessageName(tc.msg)
		if n := len(tc.body()); n != payloadBody {
			t.Errorf("%s filled to %d bytes: its payload's body has %d bytes, want %d", name, tc.size, n, payloadBody)
		}
		if n := tc.msg.SizeVT(); n != tc.size {
			t.Errorf("%s filled to %d bytes: SizeVT is %d", name, tc.size, n)
		}
	}
}
