package bytestream

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast/grpcfastrecord"
)

var update = flag.Bool("update", false, "rewrite the corpus in testdata/corpus")

// corpusDir is the corpus that scripts/benchmarks.sh replays
// (-grpcfast.replay): a remote-cache client's batch reads.
const corpusDir = "testdata/corpus"

const (
	corpusBlobs    = 16       // blobs per BatchReadBlobs response
	corpusBlobSize = 64 << 10 // bytes per blob
	corpusCalls    = 2        // responses, in turn
)

// blob is the i-th blob of the corpus: a pattern that differs per blob (it
// compresses well in git; nothing in the benchmarks compresses it).
func blob(i int) []byte {
	b := make([]byte, corpusBlobSize)
	for j := range b {
		b[j] = byte(j*(i+3)>>4) ^ byte(i)
	}
	return b
}

func digest(b []byte) *Digest {
	h := sha256.Sum256(b)
	return &Digest{Hash: hex.EncodeToString(h[:]), SizeBytes: int64(len(b))}
}

// batch is the request and the response of the c-th BatchReadBlobs call:
// corpusBlobs blobs of corpusBlobSize bytes.
func batch(c int) (*BatchReadBlobsRequest, *BatchReadBlobsResponse) {
	req := &BatchReadBlobsRequest{InstanceName: "main", DigestFunction: 1}
	res := &BatchReadBlobsResponse{}
	for i := range corpusBlobs {
		b := blob(c*corpusBlobs + i)
		d := digest(b)
		req.Digests = append(req.Digests, d)
		res.Responses = append(res.Responses, &BatchReadBlobsResponse_Response{Digest: d, Data: b, Status: &Status{}})
	}
	return req, res
}

func delimited(t *testing.T, msgs ...proto.Message) []byte {
	var out []byte
	for _, m := range msgs {
		b, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		out = protowire.AppendBytes(out, b)
	}
	return out
}

// TestCorpus checks that the corpus in testdata is what batch makes
// (-update rewrites it), and that it reads back as the batches.
func TestCorpus(t *testing.T) {
	var reqs, ress []proto.Message
	for c := range corpusCalls {
		req, res := batch(c)
		reqs, ress = append(reqs, req), append(ress, res)
	}
	const service = "grpcfast.testdata.bytestream.ContentAddressableStorage"
	dir := filepath.Join(corpusDir, service, "BatchReadBlobs")
	files := map[string][]byte{
		grpcfastrecord.RequestsFile:  delimited(t, reqs...),
		grpcfastrecord.ResponsesFile: delimited(t, ress...),
	}
	for name, want := range files {
		path := filepath.Join(dir, name)
		if *update {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		got, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("%v (go test ./internal/testprotos/bytestream -run TestCorpus -update writes it)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is stale: go test ./internal/testprotos/bytestream -run TestCorpus -update", path)
		}
	}
	got, err := grpcfastrecord.Read(corpusDir, service, "BatchReadBlobs", false,
		func() proto.Message { return new(BatchReadBlobsResponse) })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != corpusCalls {
		t.Fatalf("%d responses, want %d", len(got), corpusCalls)
	}
	for i, m := range got {
		if !proto.Equal(m, ress[i]) || len(m.(*BatchReadBlobsResponse).Responses) != corpusBlobs {
			t.Errorf("response %d differs from batch(%d)", i, i)
		}
	}
}
