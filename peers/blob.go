package peers

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"sync"

	"github.com/grpcfast/grpcfast/example/examplepb"
)

const (
	// ChunkSize is the size of a streamed chunk: 16 KiB, as in make bench.
	ChunkSize = 16 << 10
	// BlobSize is what one streaming call moves: 256 chunks, 4 MiB, as in
	// make bench (-grpcfast.size=16384 -grpcfast.msgs=256).
	BlobSize = 256 * ChunkSize

	// maxBlob and maxChunk bound what a server accepts in a GetRequest.
	maxBlob  = 256 << 20
	maxChunk = 1 << 20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

type blob struct {
	data []byte
	crc  uint32
}

var blobs sync.Map // int64 -> *blob

// getBlob returns the blob of size bytes and its CRC-32C: a deterministic
// pseudo-random sequence (xorshift64), the same in every process, so that
// chunks swapped, repeated or dropped change the bytes. It remembers the
// sizes it was asked for.
func getBlob(size int64) *blob {
	if b, ok := blobs.Load(size); ok {
		return b.(*blob)
	}
	data := make([]byte, size+7)
	x := uint64(0x9e3779b97f4a7c15)
	for i := 0; i < len(data)-7; i += 8 {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		binary.LittleEndian.PutUint64(data[i:], x)
	}
	data = data[:size:size]
	b, _ := blobs.LoadOrStore(size, &blob{data: data, crc: crc32.Checksum(data, castagnoli)})
	return b.(*blob)
}

// sendBlob sends data in chunks of chunkSize bytes, the last one shorter,
// from one reused Chunk that points into data: the sender copies nothing
// itself, the codec copies what it encodes.
func sendBlob(data []byte, chunkSize int, send func(*examplepb.Chunk) error) error {
	var c examplepb.Chunk
	for off := 0; off < len(data); {
		n := min(chunkSize, len(data)-off)
		c.Data = data[off : off+n]
		if err := send(&c); err != nil {
			return err
		}
		off += n
	}
	return nil
}

// putSum is what the server of a Put computes: the size and CRC-32C of
// what it received.
type putSum struct {
	size int64
	crc  uint32
}

func (s *putSum) add(b []byte) {
	s.size += int64(len(b))
	s.crc = crc32.Update(s.crc, castagnoli, b)
}

func (s *putSum) response() *examplepb.PutResponse {
	return &examplepb.PutResponse{Size: s.size, Crc32C: s.crc}
}

// checkPut checks a Put's answer against the blob that was sent.
func checkPut(b *blob, resp *examplepb.PutResponse) error {
	if resp.GetSize() != int64(len(b.data)) || resp.GetCrc32C() != b.crc {
		return fmt.Errorf("put %d bytes (crc32c %08x); the server received %d (crc32c %08x)",
			len(b.data), b.crc, resp.GetSize(), resp.GetCrc32C())
	}
	return nil
}

// getCheck checks the chunks of a Get, as they arrive, against the blob.
type getCheck struct {
	data      []byte
	chunkSize int
	off       int
}

func newGetCheck(size int64, chunkSize int) *getCheck {
	return &getCheck{data: getBlob(size).data, chunkSize: chunkSize}
}

func (g *getCheck) add(c *examplepb.Chunk) error {
	n := min(g.chunkSize, len(g.data)-g.off)
	if n <= 0 {
		return fmt.Errorf("get: a chunk of %d bytes after the whole blob (%d bytes)", len(c.GetData()), len(g.data))
	}
	if !bytes.Equal(c.GetData(), g.data[g.off:g.off+n]) {
		return fmt.Errorf("get: the chunk at offset %d (%d bytes) differs from the blob's %d bytes there", g.off, len(c.GetData()), n)
	}
	g.off += n
	return nil
}

func (g *getCheck) done() error {
	if g.off != len(g.data) {
		return fmt.Errorf("get: received %d bytes, want %d", g.off, len(g.data))
	}
	return nil
}

// checkGetRequest validates a GetRequest and returns the blob and chunk
// size to send.
func checkGetRequest(req *examplepb.GetRequest) (*blob, int, error) {
	size, chunkSize := req.GetSize(), int(req.GetChunkSize())
	if size < 0 || size > maxBlob || chunkSize <= 0 || chunkSize > maxChunk {
		return nil, 0, fmt.Errorf("get: size %d not in [0, %d] or chunk size %d not in [1, %d]", size, maxBlob, chunkSize, maxChunk)
	}
	return getBlob(size), chunkSize, nil
}
