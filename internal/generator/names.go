package generator

import "google.golang.org/protobuf/compiler/protogen"

// Method names the generator adds to messages. They must match the
// interfaces grpcfastimpl.Owner, grpcfastimpl.BytesFielder,
// grpcfastimpl.RequiredHolder and grpcfastimpl.Flat.
const (
	unknownMethod    = "GrpcfastUnknownFields"
	bytesFieldMethod = "GrpcfastBytesField"
	requiredMethod   = "GrpcfastRequired"
	flatMethod       = "GrpcfastFlat"
)

// serviceNames holds every name generated for one service.
type serviceNames struct {
	service *protogen.Service
	methods []methodNames
	// benchmark is the generated benchmark of the service's methods.
	benchmark string
	// registerPooled is the generated registration with pooled requests;
	// registerServer and serverInterface name protoc-gen-go-grpc's
	// registration and server interface, which it calls and takes.
	registerPooled  string
	registerServer  string
	serverInterface string
}

// methodNames holds every name generated for one method.
type methodNames struct {
	method *protogen.Method
	kind   methodKind
	// serverStream and clientStream name grpc-go's generic stream types for
	// this method (empty when that side does not stream).
	serverStream protogen.GoIdent
	clientStream protogen.GoIdent
	// requestReceiver is the server-side helper that receives requests;
	// responseReceiver the client-side helper that receives responses.
	requestReceiver  string
	responseReceiver string
}

func newServiceNames(s *protogen.Service) serviceNames {
	n := serviceNames{
		service:         s,
		benchmark:       "BenchmarkGrpcfast_" + s.GoName,
		registerPooled:  "Register" + s.GoName + "ServerPooled",
		registerServer:  "Register" + s.GoName + "Server",
		serverInterface: s.GoName + "Server",
	}
	for _, m := range s.Methods {
		n.methods = append(n.methods, newMethodNames(s, m))
	}
	return n
}

func newMethodNames(s *protogen.Service, m *protogen.Method) methodNames {
	k := kindOf(m)
	n := methodNames{method: m, kind: k}
	// Service and method are separated by "_", as in protoc-gen-go-grpc's
	// Service_MethodServer: without it, Foo.BarBaz and FooBar.Baz in one Go
	// package would both be FooBarBaz.
	prefix := "New" + s.GoName + "_" + m.GoName
	switch k {
	case clientStreaming:
		n.serverStream = grpcPackage.Ident("ClientStreamingServer")
	case serverStreaming:
		n.clientStream = grpcPackage.Ident("ServerStreamingClient")
	case bidiStreaming:
		n.serverStream = grpcPackage.Ident("BidiStreamingServer")
		n.clientStream = grpcPackage.Ident("BidiStreamingClient")
	}
	if k.serverReceives() {
		n.requestReceiver = prefix + "RequestReceiver"
	}
	if k.clientReceives() {
		n.responseReceiver = prefix + "ResponseReceiver"
	}
	return n
}
