package peers

import (
	"context"
	"errors"
	"net"
	"net/http"

	"connectrpc.com/connect"

	"github.com/grpcfast/grpcfast/example"
	"github.com/grpcfast/grpcfast/example/examplepb"
	"github.com/grpcfast/grpcfast/peers/examplepbconnect"
)

// connectPeer is connect-go with its generated code (examplepbconnect),
// speaking the Connect protocol over h2c (see the package documentation),
// gzip off on both ends: its default codec (protobuf-go), or (vt) a codec
// named "proto" that encodes with vtprotobuf's methods.
func connectPeer(name string, vt bool, h hooks) Peer {
	var opts []connect.Option
	if vt {
		var codec connect.Codec = vtCodec{}
		if h.connectCodec != nil {
			codec = h.connectCodec(name, codec)
		}
		opts = append(opts, connect.WithCodec(codec))
	}
	// Both ends support gzip by default, and a handler compresses every
	// response of a client that accepts it: take gzip away from both.
	handlerOpts := []connect.HandlerOption{connect.WithCompression("gzip", nil, nil)}
	clientOpts := []connect.ClientOption{connect.WithAcceptCompression("gzip", nil, nil)}
	for _, o := range opts {
		handlerOpts = append(handlerOpts, o)
		clientOpts = append(clientOpts, o)
	}
	var protocols http.Protocols
	protocols.SetUnencryptedHTTP2(true)
	return Peer{
		Name: name,
		Serve: func(lis net.Listener) func() {
			mux := http.NewServeMux()
			mux.Handle(examplepbconnect.NewChunkServiceHandler(connectChunkServer{}, handlerOpts...))
			mux.Handle(examplepbconnect.NewUserServiceHandler(connectUserServer{example.NewUserServer()}, handlerOpts...))
			var handler http.Handler = mux
			if h.httpHandler != nil {
				handler = h.httpHandler(name, handler)
			}
			srv := &http.Server{Handler: handler, Protocols: &protocols}
			served := make(chan struct{})
			go func() {
				defer close(served)
				srv.Serve(lis)
			}()
			return func() {
				srv.Close()
				<-served
			}
		},
		Dial: func(addr string) (Client, error) {
			tr := &http.Transport{Protocols: &protocols}
			hc := &http.Client{Transport: tr}
			url := "http://" + addr
			return &connectClient{
				tr:    tr,
				chunk: examplepbconnect.NewChunkServiceClient(hc, url, clientOpts...),
				user:  examplepbconnect.NewUserServiceClient(hc, url, clientOpts...),
			}, nil
		},
	}
}

// vtCodec is the codec of connect-vtproto: vtprotobuf's methods under
// connect-go's name for binary protobuf, "proto", with MarshalAppend, which
// connect-go calls to marshal into its pooled buffers. Messages without
// vtprotobuf's methods are encoded with protobuf-go.
type vtCodec struct{}

func (vtCodec) Name() string { return "proto" }

func (vtCodec) Marshal(msg any) ([]byte, error) { return vtMarshalAppend(nil, msg) }

func (vtCodec) MarshalAppend(buf []byte, msg any) ([]byte, error) {
	return vtMarshalAppend(buf, msg)
}

func (vtCodec) Unmarshal(buf []byte, msg any) error { return vtUnmarshal(buf, msg) }

// IsBinary tells connect-go that the encoding is binary (connect-go's own
// codecs say so too).
func (vtCodec) IsBinary() bool { return true }

type connectChunkServer struct {
	examplepbconnect.UnimplementedChunkServiceHandler
}

func (connectChunkServer) Put(_ context.Context, stream *connect.ClientStream[examplepb.Chunk]) (*connect.Response[examplepb.PutResponse], error) {
	var sum putSum
	for stream.Receive() {
		sum.add(stream.Msg().Data)
	}
	if err := stream.Err(); err != nil {
		return nil, err
	}
	return connect.NewResponse(sum.response()), nil
}

func (connectChunkServer) Get(_ context.Context, req *connect.Request[examplepb.GetRequest], stream *connect.ServerStream[examplepb.Chunk]) error {
	b, chunkSize, err := checkGetRequest(req.Msg)
	if err != nil {
		return connect.NewError(connect.CodeInvalidArgument, err)
	}
	return sendBlob(b.data, chunkSize, stream.Send)
}

// connectUserServer serves the example's UserServer with connect-go's
// signatures.
type connectUserServer struct {
	user *example.UserServer
}

func (s connectUserServer) CreateUser(ctx context.Context, req *connect.Request[examplepb.CreateUserRequest]) (*connect.Response[examplepb.CreateUserResponse], error) {
	resp, err := s.user.CreateUser(ctx, req.Msg)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(resp), nil
}

func (s connectUserServer) CreateUsers(ctx context.Context, req *connect.Request[examplepb.CreateUsersRequest]) (*connect.Response[examplepb.CreateUsersResponse], error) {
	resp, err := s.user.CreateUsers(ctx, req.Msg)
	if err != nil {
		return nil, err
	}
	return connect.NewResponse(resp), nil
}

type connectClient struct {
	tr    *http.Transport
	chunk examplepbconnect.ChunkServiceClient
	user  examplepbconnect.UserServiceClient
}

func (c *connectClient) Put(ctx context.Context, size int64, chunkSize int) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream := c.chunk.Put(ctx)
	b := getBlob(size)
	// On an error Send returns io.EOF, and CloseAndReceive the call's error.
	sendErr := sendBlob(b.data, chunkSize, stream.Send)
	resp, err := stream.CloseAndReceive()
	if err != nil {
		return errors.Join(err, sendErr)
	}
	if sendErr != nil {
		return sendErr
	}
	return checkPut(b, resp.Msg)
}

func (c *connectClient) Get(ctx context.Context, size int64, chunkSize int) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := c.chunk.Get(ctx, connect.NewRequest(&examplepb.GetRequest{Size: size, ChunkSize: int32(chunkSize)}))
	if err != nil {
		return err
	}
	defer stream.Close()
	check := newGetCheck(size, chunkSize)
	for stream.Receive() {
		if err := check.add(stream.Msg()); err != nil {
			return err
		}
	}
	if err := stream.Err(); err != nil {
		return err
	}
	return check.done()
}

func (c *connectClient) CreateUser(ctx context.Context, req *examplepb.CreateUserRequest) (*examplepb.CreateUserResponse, error) {
	resp, err := c.user.CreateUser(ctx, connect.NewRequest(req))
	if err != nil {
		return nil, err
	}
	return resp.Msg, nil
}

func (c *connectClient) Close() error {
	c.tr.CloseIdleConnections()
	return nil
}
