package vtregistered_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"testing"

	vtcodec "github.com/planetscale/vtprotobuf/codec/grpc"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
	"github.com/grpcfast/grpcfast/internal/testprotos/otlp"
)

// TestMain registers vtprotobuf's codec under "proto" after every init has
// run, as a service's main() does: it replaces the grpcfast codec that the
// generated package registered.
func TestMain(m *testing.M) {
	encoding.RegisterCodec(vtcodec.Codec{})
	os.Exit(m.Run())
}

// msg is message i of stream s: consecutive messages set different fields,
// so that a codec that merges into a reused message shows the previous one.
func msg(s, i int) *kinds.Rich {
	m := &kinds.Rich{Id: int64(s<<16 | i)}
	if i%2 == 0 {
		m.Name = fmt.Sprintf("stream %d message %d", s, i)
		m.Data = []byte(m.Name)
		m.Inner = &kinds.Inner{Label: m.Name, Values: []uint32{uint32(i)}}
		m.Counts = map[string]int64{m.Name: int64(i)}
	}
	return m
}

const msgs = 6

type server struct{ kinds.UnimplementedKindsServer }

func (server) ClientStream(stream grpc.ClientStreamingServer[kinds.Rich, kinds.Summary]) error {
	r := kinds.NewKinds_ClientStreamRequestReceiver(stream)
	var last *kinds.Rich
	n := 0
	for {
		m, err := r.Recv()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		if want := msg(int(m.Id>>16), n); !proto.Equal(m, want) {
			return status.Errorf(codes.DataLoss, "message %d: got %v, want %v", n, m, want)
		}
		last = m
		n++
	}
	if want := msg(int(last.Id>>16), n-1); !proto.Equal(last, want) {
		return status.Errorf(codes.DataLoss, "after io.EOF the last message is %v, want %v", last, want)
	}
	return stream.SendAndClose(&kinds.Summary{Count: int64(n)})
}

func (server) ServerStream(req *kinds.Rich, stream grpc.ServerStreamingServer[kinds.Rich]) error {
	for i := range msgs {
		if err := stream.Send(msg(int(req.Id), i)); err != nil {
			return err
		}
	}
	return nil
}

// TestReceiversWithVTProtoCodecRegistered: with vtprotobuf's merging codec
// registered process-wide, the generated receivers on both ends return
// every message as it was sent, 16 streams at once, and the last one is
// intact after io.EOF.
func TestReceiversWithVTProtoCodecRegistered(t *testing.T) {
	if _, ok := encoding.GetCodecV2("proto").(*grpcfast.Codec); ok {
		t.Fatal(`the codec registered under "proto" is still grpcfast's`)
	}
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	kinds.RegisterKindsServer(srv, server{})
	go srv.Serve(lis)
	defer srv.Stop()
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	client := kinds.NewKindsClient(conn)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for s := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for round := range 10 {
				id := s*10 + round
				cs, err := client.ClientStream(ctx)
				if err != nil {
					errs <- err
					return
				}
				for i := range msgs {
					if err := cs.Send(msg(id, i)); err != nil && err != io.EOF {
						errs <- err
						return
					}
				}
				if _, err := cs.CloseAndRecv(); err != nil {
					errs <- err
					return
				}
				ss, err := client.ServerStream(ctx, &kinds.Rich{Id: int64(id)})
				if err != nil {
					errs <- err
					return
				}
				r := kinds.NewKinds_ServerStreamResponseReceiver(ss)
				var last *kinds.Rich
				for i := 0; ; i++ {
					m, err := r.Recv()
					if err == io.EOF {
						break
					}
					if err != nil {
						errs <- err
						return
					}
					if want := msg(id, i); !proto.Equal(m, want) {
						errs <- fmt.Errorf("client: message %d: got %v, want %v", i, m, want)
						return
					}
					last = m
				}
				if want := msg(id, msgs-1); !proto.Equal(last, want) {
					errs <- fmt.Errorf("client: after io.EOF the last message is %v, want %v", last, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

func (server) Unary(_ context.Context, in *kinds.Rich) (*kinds.Rich, error) {
	if want := msg(int(in.Id>>16), int(in.Id&0xffff)); !proto.Equal(in, want) {
		return nil, status.Errorf(codes.DataLoss, "request: got %v, want %v", in, want)
	}
	return proto.Clone(in).(*kinds.Rich), nil
}

// TestPooledWithVTProtoCodecRegistered: with vtprotobuf's merging codec
// registered process-wide, the pooled registration's requests (with and
// without the owned copy, which that codec ignores) are decoded into reset
// pooled messages: consecutive requests that set different fields show
// nothing of the one before, 16 clients at once.
func TestPooledWithVTProtoCodecRegistered(t *testing.T) {
	for _, opts := range [][]grpcfast.PooledOption{nil, {grpcfast.WithStringsInOneCopy()}} {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := grpc.NewServer()
		kinds.RegisterKindsServerPooled(srv, server{}, opts...)
		go srv.Serve(lis)
		conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		client := kinds.NewKindsClient(conn)
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		for s := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 20 {
					want := msg(s, i)
					got, err := client.Unary(context.Background(), want)
					if err == nil && !proto.Equal(got, want) {
						err = fmt.Errorf("reply %v, want %v", got, want)
					}
					if err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		conn.Close()
		srv.Stop()
	}
}

type otlpServer struct {
	otlp.UnimplementedTraceServiceServer
}

func (otlpServer) Export(_ context.Context, in *otlp.ExportTraceServiceRequest) (*otlp.ExportTraceServiceResponse, error) {
	c, i, err := otlp.VaryingExportOf(in)
	if err != nil {
		return nil, status.Errorf(codes.DataLoss, "request %v: %v", in, err)
	}
	if want := otlp.VaryingExport(c, i); !proto.Equal(in, want) {
		return nil, status.Errorf(codes.DataLoss, "request: got %v, want %v", in, want)
	}
	return &otlp.ExportTraceServiceResponse{}, nil
}

// TestPooledGeneratedDecoderWithVTProtoCodecRegistered: OTLP's request
// types have generated decoders, which the owned copy uses with the
// grpcfast codec. With vtprotobuf's merging codec registered instead, the
// pooled requests (with and without the copy) are still decoded into reset
// messages: exports whose spans and oneof cases change from one to the next
// show nothing of the one before, 16 clients at once.
func TestPooledGeneratedDecoderWithVTProtoCodecRegistered(t *testing.T) {
	for _, opts := range [][]grpcfast.PooledOption{nil, {grpcfast.WithStringsInOneCopy()}} {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		srv := grpc.NewServer()
		otlp.RegisterTraceServiceServerPooled(srv, otlpServer{}, opts...)
		go srv.Serve(lis)
		conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
		if err != nil {
			t.Fatal(err)
		}
		client := otlp.NewTraceServiceClient(conn)
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		for s := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range 30 {
					if _, err := client.Export(context.Background(), otlp.VaryingExport(s, i)); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		conn.Close()
		srv.Stop()
	}
}

// TestReusingClientWithVTProtoCodecRegistered: with vtprotobuf's merging
// codec registered process-wide, a generated reusing client returns every
// unary response as it was sent, although consecutive responses set
// different fields (a codec that merged into the reused message would show
// the last one's), 8 goroutines at once with a client each, and responses
// kept with Take stay intact.
func TestReusingClientWithVTProtoCodecRegistered(t *testing.T) {
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := grpc.NewServer()
	kinds.RegisterKindsServer(srv, server{})
	go srv.Serve(lis)
	defer srv.Stop()
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := kinds.NewKindsReusingClient(conn)
			defer c.Release()
			var kept []*kinds.Rich
			for i := range 20 {
				got, err := c.Unary(context.Background(), msg(g, i))
				if err != nil {
					errs <- err
					return
				}
				if !proto.Equal(got, msg(g, i)) {
					errs <- fmt.Errorf("goroutine %d, call %d: got %v, want %v", g, i, got, msg(g, i))
					return
				}
				if i%5 == 0 {
					kept = append(kept, c.TakeUnary())
				}
			}
			for j, m := range kept {
				if !proto.Equal(m, msg(g, j*5)) {
					errs <- fmt.Errorf("goroutine %d: the response taken at call %d changed: %v", g, j*5, m)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
