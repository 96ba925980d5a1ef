// Package drpcpb is drpc's generated code for the example's services
// (protoc-gen-go-drpc with vtprotobuf's codec/drpc as its protobuf library).
//
// protoc-gen-go-drpc writes its code into the package of the messages it
// sends. The messages here are those of example/examplepb, so that every peer
// sends the same generated types: this file, the only one written by hand,
// names them in this package.
package drpcpb

import "github.com/grpcfast/grpcfast/example/examplepb"

// The example's messages, under the names the generated code uses.
type (
	Chunk               = examplepb.Chunk
	PutResponse         = examplepb.PutResponse
	GetRequest          = examplepb.GetRequest
	CreateUserRequest   = examplepb.CreateUserRequest
	CreateUserResponse  = examplepb.CreateUserResponse
	CreateUsersRequest  = examplepb.CreateUsersRequest
	CreateUsersResponse = examplepb.CreateUsersResponse
)
