package example

import (
	"google.golang.org/grpc"
	"google.golang.org/grpc/experimental"

	"github.com/grpcfast/grpcfast"
)

// Transport settings of BulkServerOptions and BulkDialOptions. They were
// chosen by measuring 16 MiB streams of 16 KiB chunks over loopback TCP with
// gRPC-Go v1.85.0 (BenchmarkPut and BenchmarkGet, transport=bulk); see the
// option functions for what each one does and costs.
const (
	// BulkWriteBufferSize is the size of the buffer in which gRPC batches
	// outgoing frames before writing them to the connection (gRPC's
	// default: 32 KiB).
	BulkWriteBufferSize = 128 << 10

	// BulkReadBufferSize is the size of the buffer through which gRPC reads
	// the connection (gRPC's default: 32 KiB).
	BulkReadBufferSize = 64 << 10
)

// BulkServerOptions returns gRPC server options for servers whose calls move
// large streams (many MiB in chunks of 16 KiB or more). Give the clients
// BulkDialOptions: each side configures the buffers through which it writes
// and reads its connections.
//
// They are gRPC transport configuration, independent of the codec: they
// help gRPC's standard codec as much as grpcfast's. Measured with 16 MiB
// streams of 16 KiB chunks over loopback TCP, client and server in one
// process, they cut the write(2) calls per stream from about 670 to 270 and
// the read(2) calls from about 650 to 350, and the CPU time and wall time
// per stream by about 10% on either codec (5 to 15% across runs on a noisy
// machine), almost all of it from the write buffer. Unary calls on the same
// connections cost the same as with gRPC's defaults. Each option:
//
//   - grpc.WriteBufferSize(BulkWriteBufferSize), 128 KiB: gRPC's writer
//     copies outgoing frames into this buffer and writes it to the
//     connection when it is full or when there is nothing more to send. With
//     the default 32 KiB a stream of 16 KiB messages costs a write for every
//     25 KiB or so. One stream never gets further than gRPC-Go's fixed
//     per-stream write quota (64 KiB) ahead of the writer, so batches stay
//     near 64 KiB and larger buffers do not help (256 KiB and 1 MiB, with
//     read buffers of the same size, measured slower). Memory: gRPC takes
//     the buffer from a process-wide pool for each batch and returns it
//     after the write (its default shared write buffer), so an idle
//     connection holds none and a busy one 128 KiB.
//   - grpc.ReadBufferSize(BulkReadBufferSize), 64 KiB: one read takes a whole
//     batch that the peer wrote, where the default takes half of it. Reads
//     are cheap next to writes on loopback: alone it changed the CPU time by
//     less than the noise. Memory: on Linux, for a plain TCP connection, gRPC
//     takes the buffer from a pool for each read and returns it once
//     consumed; otherwise (TLS, for one, or other systems) each connection
//     keeps 64 KiB for its lifetime.
//   - experimental.BufferPool(grpcfast.DefaultBufferPool()): the pool from
//     which the transport takes a buffer for every DATA frame it receives
//     (above 1 KiB), and its temporary buffers for compression. gRPC's
//     default pool clears every buffer it hands out, 16 MiB of clearing per
//     16 MiB received, although the transport overwrites each buffer
//     completely before anyone reads it; grpcfast's pool does not clear, and
//     its finer size classes waste less. The clearing took 1 to 3% of the
//     CPU time in profiles, less than the noise of the benchmarks, so its
//     measured effect alone is nil. It is the pool that grpcfast's codec
//     already uses, so the transport and the codec share their buffers. It
//     does not change the pool of gRPC's standard codec. Memory: buffers sit
//     in sync.Pools and go back to the garbage collector when unused. The
//     option is in gRPC-Go's experimental package and may change.
//
// Left out, as measured in the same benchmarks:
//
//   - Static flow-control windows (grpc.InitialWindowSize and
//     grpc.InitialConnWindowSize, 1 to 16 MiB, or their Static variants):
//     they turn off gRPC's BDP estimation. With 2 MiB windows a stream
//     allocated about 12% fewer bytes (fewer pooled buffers in flight, no
//     BDP pings) and moved no faster (1 MiB was slower), but every unary
//     call on the connection took about 30% more time and CPU, and a static
//     window caps a stream at one window per round trip (2 MiB at 50 ms is
//     40 MiB/s). They bound the unread data buffered per stream (up to
//     16 MiB with BDP estimation), so they suit memory-constrained
//     deployments more than fast ones.
//   - grpc.WithDisableRetry and grpc.MaxRetryRPCBufferSize: no difference.
//     gRPC-Go still allocates a closure per SendMsg and keeps the messages
//     of an uncommitted call for transparent retries.
//   - grpc.SharedWriteBuffer: already gRPC's default; turning it off keeps
//     a write buffer per connection and made no difference.
//
// BulkServerOptions returns a new slice on every call: append to it freely.
func BulkServerOptions() []grpc.ServerOption {
	return []grpc.ServerOption{
		grpc.WriteBufferSize(BulkWriteBufferSize),
		grpc.ReadBufferSize(BulkReadBufferSize),
		experimental.BufferPool(grpcfast.DefaultBufferPool()),
	}
}

// BulkDialOptions returns the client side of BulkServerOptions, which
// documents each option and its cost: grpc.WithWriteBufferSize(128 KiB),
// grpc.WithReadBufferSize(64 KiB) and
// experimental.WithBufferPool(grpcfast.DefaultBufferPool()). They apply to
// every connection of the grpc.ClientConn, for all its calls.
//
// BulkDialOptions returns a new slice on every call: append to it freely.
func BulkDialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithWriteBufferSize(BulkWriteBufferSize),
		grpc.WithReadBufferSize(BulkReadBufferSize),
		experimental.WithBufferPool(grpcfast.DefaultBufferPool()),
	}
}
