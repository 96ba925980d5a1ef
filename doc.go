// Package grpcfast is the runtime of protoc-gen-go-grpcfast: a gRPC codec
// that encodes and decodes through vtprotobuf's generated methods into
// pooled buffers, and receivers that decode every message of a stream into
// one reused message.
//
// A program needs no code for the codec: the generated x_grpcfast.pb.go
// files register it under the name "proto" when their package is
// initialised, in place of gRPC's standard codec. Messages without
// vtprotobuf methods (health checks, reflection, well-known types, editions
// files) are encoded and decoded exactly as gRPC's standard codec does.
// Register changes the codec's options; ServerOption and DialOption force it
// on one server or connection. StandardCodec returns gRPC's standard codec,
// to compare with or to force on one server or connection instead.
//
// For streams, replace stream.Recv() with a generated receiver:
//
//	r := examplepb.NewChunkService_PutRequestReceiver(stream)
//	defer r.Release() // gives its memory to the next stream when this one is done
//	for chunk, err := range r.All() {
//		if err != nil {
//			return err
//		}
//		use(chunk.Data) // valid until the next message arrives
//	}
//
// For a client that calls unary methods in a loop, a generated reusing
// client receives each method's responses into messages it reuses
// (Responses):
//
//	c := examplepb.NewUserServiceReusingClient(conn) // one per goroutine
//	defer c.Release()
//	resp, err := c.CreateUser(ctx, req) // valid until the next CreateUser through c
//
// On the server, a generated Register<Service>ServerPooled decodes unary
// requests into pooled messages (KeepRequest, WithStringsInOneCopy).
//
// Build tests with -race or -tags grpcfast_checked to poison memory that the
// codec, the receivers and the reusing clients take back (Checked), so that
// a message kept past its lifetime fails the tests.
//
// Code that only generated code calls lives in package grpcfastimpl.
package grpcfast
