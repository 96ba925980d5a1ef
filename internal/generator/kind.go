package generator

import "google.golang.org/protobuf/compiler/protogen"

// methodKind is one of the four gRPC method kinds.
type methodKind int

const (
	unary methodKind = iota
	clientStreaming
	serverStreaming
	bidiStreaming
)

// kindOf is the one place that decides a method's kind.
func kindOf(m *protogen.Method) methodKind {
	switch c, s := m.Desc.IsStreamingClient(), m.Desc.IsStreamingServer(); {
	case c && s:
		return bidiStreaming
	case c:
		return clientStreaming
	case s:
		return serverStreaming
	default:
		return unary
	}
}

// serverReceives reports whether the server side receives a stream of
// requests.
func (k methodKind) serverReceives() bool { return k == clientStreaming || k == bidiStreaming }

// clientReceives reports whether the client side receives a stream of
// responses.
func (k methodKind) clientReceives() bool { return k == serverStreaming || k == bidiStreaming }

func (k methodKind) String() string {
	switch k {
	case clientStreaming:
		return "client-streaming"
	case serverStreaming:
		return "server-streaming"
	case bidiStreaming:
		return "bidirectional-streaming"
	default:
		return "unary"
	}
}
