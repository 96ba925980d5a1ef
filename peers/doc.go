// Package peers benchmarks the example's services on the RPC stacks a user
// would pick instead of grpcfast, side by side with gRPC's standard path and
// grpcfast in one run: a client stream (ChunkService.Put), a server stream
// (ChunkService.Get) and a unary call (UserService.CreateUser), each with the
// server in the benchmark's process and in a process of its own. make
// bench-peers runs them and prints one benchstat table (bench_test.go).
//
// The peers, as the sub-benchmarks name them (peer=NAME):
//
//   - grpcfast: gRPC-Go with the grpcfast codec forced on both ends and the
//     generated receivers, which decode every message of a stream into one
//     reused message.
//   - grpc-std: gRPC-Go with its standard codec forced on both ends, and the
//     streams' own Recv, which allocates a message per call: what a program
//     without grpcfast does.
//   - grpc-floor: grpcfast's peer, but its codec encodes a chunk without
//     copying it (the encoding points at the chunk's bytes, which the
//     transport writes after Send returns: safe only because the blob is
//     never written). It is what gRPC-Go's sending side costs when the codec
//     costs nothing, the floor for any codec on gRPC-Go, and what an API
//     that took the caller's bytes without a copy could at best save.
//   - drpc-vtproto: drpc (storj.io/drpc) with its generated code, generated
//     with vtprotobuf's codec/drpc as the protobuf library, used as
//     generated: Recv allocates a message per call, and MarshalVT a buffer
//     per message sent.
//   - drpc-reuse: drpc tuned by hand: the same generated code, but streams
//     receive into one reused message per stream (drpc.Stream.MsgRecv), and
//     chunks and unary calls are encoded with vtprotobuf through an encoding
//     with MarshalAppend, which drpc calls to marshal into its connection's
//     and stream's reused write buffers instead of a new buffer per message.
//   - connect: connect-go (connectrpc.com/connect), Connect protocol, its
//     default codec (protobuf-go), gzip off on both ends.
//   - connect-vtproto: the same with a codec named "proto" that encodes
//     with vtprotobuf's methods, into connect-go's pooled buffers
//     (MarshalAppend), as connect-go's default codec does with protobuf-go.
//
// connect-go runs over HTTP/2 without TLS (h2c, net/http's own support:
// http.Protocols.SetUnencryptedHTTP2, no golang.org/x/net/http2/h2c), as
// gRPC-Go and drpc run over one TCP connection. The Connect protocol can
// stream over HTTP/1.1 too, but there every call in flight takes a
// connection of its own and bidirectional streams do not work: HTTP/2 is
// what a connect-go service that streams runs on.
//
// Every peer moves the same bytes with the same work per message: the
// sender points one reused Chunk at the next 16 KiB of a blob (no copy, no
// fill), the receiver checks every byte (Put: CRC-32C, which the server
// answers with; Get: against the blob), so every benchmark operation checks
// the payload.
//
// OTLP: BenchmarkOTLPCollectors replays the recorded OTLP trace exports of
// internal/testprotos/otlp's corpus (CorpusDir) to an OpenTelemetry trace
// receiver served five ways, each in a process of its own (collector=NAME,
// Collectors): the OpenTelemetry Collector's pdata
// (ptraceotlp.RegisterGRPCServer) with its pooling gate pdata.useProtoPooling
// off (pdata) and on (pdata-pooled), and gRPC-Go with its standard codec
// (grpc-std), grpcfast's codec (grpcfast) and a pooled handler with
// grpcfast.WithStringsInOneCopy (grpcfast-pooled-copy). BenchmarkDecodeOTLP
// decodes the same exports alone on the root's receive paths and pdata's
// (path=NAME). Linking pdata and internal/testprotos/otlp in one binary is
// fine: pdata registers no protobuf-go descriptors, and its "proto" codec
// and grpcfast's hand each other the types they do not keep.
package peers
