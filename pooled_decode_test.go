package grpcfast_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/testprotos/otlp"
)

// varyingOTLP is a TraceService that checks every export against the
// VaryingExport it should be: DataLoss for anything else.
type varyingOTLP struct {
	otlp.UnimplementedTraceServiceServer
}

func (varyingOTLP) Export(_ context.Context, in *otlp.ExportTraceServiceRequest) (*otlp.ExportTraceServiceResponse, error) {
	c, i, err := otlp.VaryingExportOf(in)
	if err != nil {
		return nil, status.Errorf(codes.DataLoss, "request %v: %v", in, err)
	}
	if want := otlp.VaryingExport(c, i); !proto.Equal(in, want) {
		return nil, status.Errorf(codes.DataLoss, "request: got %v, want %v", in, want)
	}
	return &otlp.ExportTraceServiceResponse{}, nil
}

// TestPooledGeneratedDecoder: OTLP's request types have generated decoders,
// which the owned copy decodes with over real gRPC. 8 clients at once send
// exports whose spans and attributes' oneof cases change from one to the
// next, and every request equals what was sent (nothing of the one before
// shows through the reused messages and wrappers); half of them interleave
// hostile input (malformed, nested past 10,000 through AnyValue's kvlist),
// which fails exactly where protobuf-go fails and never disturbs the
// others.
func TestPooledGeneratedDecoder(t *testing.T) {
	// ExportTraceServiceRequest.resource_spans, ResourceSpans.scope_spans,
	// ScopeSpans.spans, Span.attributes, then KeyValue.value,
	// AnyValue.kvlist_value, KeyValueList.values over and over.
	path := [][]byte{grpcfasttest.Tag(1, protowire.BytesType), grpcfasttest.Tag(2, protowire.BytesType), grpcfasttest.Tag(2, protowire.BytesType), grpcfasttest.Tag(9, protowire.BytesType)}
	deep := grpcfasttest.Nested(append(path, grpcfasttest.RepeatTags(10002, grpcfasttest.Tag(2, protowire.BytesType), grpcfasttest.Tag(6, protowire.BytesType), grpcfasttest.Tag(1, protowire.BytesType))...), nil)
	bad := [][]byte{deep}
	for _, b := range grpcfasttest.Malformed() {
		bad = append(bad, b)
	}
	for _, mode := range pooledModes {
		t.Run(mode.name, func(t *testing.T) {
			_, conn := grpcfasttest.ServeAndDial(t, func(s *grpc.Server) {
				otlp.RegisterTraceServiceServerPooled(s, varyingOTLP{}, mode.opts...)
			}, nil, nil)
			client := otlp.NewTraceServiceClient(conn)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			err := grpcfasttest.Concurrently(ctx, 8, func(ctx context.Context, c int) error {
				for i := range 40 {
					if c%2 == 1 && i%4 == 0 {
						b := bad[(c+i)%len(bad)]
						var out []byte
						err := conn.Invoke(ctx, otlp.TraceService_Export_FullMethodName, &b, &out, grpc.ForceCodecV2(rawCodec{}))
						stdErr := proto.Unmarshal(b, new(otlp.ExportTraceServiceRequest))
						if (status.Code(err) == codes.Internal) != (stdErr != nil) {
							return fmt.Errorf("hostile request %x…: %v; protobuf-go: %v", b[:min(len(b), 16)], err, stdErr)
						}
						continue
					}
					if _, err := client.Export(ctx, otlp.VaryingExport(c, i)); err != nil {
						return fmt.Errorf("export %d of client %d: %v", i, c, err)
					}
				}
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
		})
	}
}
