// Package grpcfasttest is what the module's tests share: deterministic
// messages (GenRich, RichOfSize, FullRich, ...), the tests' one oracle
// (CheckOracle: protobuf-go, which gRPC's standard codec calls), a Kinds
// server that checks every message it receives and clients for every
// method kind, a server and a connection on 127.0.0.1 (StartEnv,
// ServeAndDial), the three kinds of endpoint (Endpoint), the tests' one
// mem.BufferPool and its audits (Pool), streams that decode with a codec
// without the transport (CodecStream, CodecListStream), message slots
// prepared as pooled handlers prepare theirs (CopySlot, UnmarshalCopy),
// builders of hostile input, and what checked and race builds change
// (Poisoned, Race, SkipInCheckedBuild).
//
// It is a package of its own, not a _test.go file, so that the tests of the
// root package and those of the internal packages share one copy; only
// _test.go files may import it, which TestImportedOnlyByTests (doc_test.go)
// checks over the whole repository.
package grpcfasttest
