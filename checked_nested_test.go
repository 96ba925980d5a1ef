package grpcfast_test

import (
	"context"
	"io"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/internal/grpcfasttest"
	"github.com/grpcfast/grpcfast/internal/testprotos/hostile"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
	"github.com/grpcfast/grpcfast/internal/testprotos/otlp"
)

// nestedRich is a request with a part of every kind that a careless handler
// might return in its reply or keep: a nested message, repeated message
// elements, a oneof's message member, a repeated string field, and a
// nested message's bytes and numbers. kinds.Rich and kinds.Inner are in no
// vtprotobuf pool= option.
func nestedRich(i int) *kinds.Rich {
	inner := func(j int) *kinds.Inner {
		return &kinds.Inner{Label: "l", Payload: grpcfasttest.Pattern(64 + j + i), Values: []uint32{uint32(i), uint32(j), 7}}
	}
	return &kinds.Rich{Id: int64(i), Inner: inner(1), Inners: []*kinds.Inner{inner(2), inner(3)},
		Choice: &kinds.Rich_Nested{Nested: inner(4)}, Words: []string{"w", strconv.Itoa(i)}}
}

// TestCheckedPooledReplySharesNested: in checked builds, a pooled handler
// whose reply shares a nested part of its request sends that part changed
// (poisoned, or reset to empty), whatever vtprotobuf pools, in both pooled
// modes: the user's tests catch the misuse. Bytes that are views of the
// owned copy are never reused, and so arrive intact there. A shared part
// that holds strings (loud) holds the poison pattern, which is not valid
// UTF-8, so that every such call fails with codes.Internal: the misuse is
// caught by a test that checks no value of the reply.
func TestCheckedPooledReplySharesNested(t *testing.T) {
	if !grpcfast.Checked {
		t.Skip("poison needs a checked build (-race or -tags grpcfast_checked)")
	}
	for _, mode := range pooledModes {
		copied := mode.opts != nil
		for _, tc := range []struct {
			name  string
			reply func(in *kinds.Rich) *kinds.Rich
			part  func(m *kinds.Rich) proto.Message
			safe  bool // shared memory that is never reused
			loud  bool // a shared part that holds strings: the call fails
		}{
			{"nested message", func(in *kinds.Rich) *kinds.Rich { return &kinds.Rich{Inner: in.Inner} },
				func(m *kinds.Rich) proto.Message { return m.GetInner() }, false, true},
			{"repeated element", func(in *kinds.Rich) *kinds.Rich { return &kinds.Rich{Inners: in.Inners[1:]} },
				func(m *kinds.Rich) proto.Message { return m.GetInners()[0] }, false, true},
			{"oneof member", func(in *kinds.Rich) *kinds.Rich { return &kinds.Rich{Choice: in.Choice} },
				func(m *kinds.Rich) proto.Message { return m.GetNested() }, false, true},
			{"repeated string", func(in *kinds.Rich) *kinds.Rich { return &kinds.Rich{Words: in.Words} },
				func(m *kinds.Rich) proto.Message { return &kinds.Rich{Words: m.GetWords()} }, false, true},
			{"nested numbers", func(in *kinds.Rich) *kinds.Rich {
				return &kinds.Rich{Inner: &kinds.Inner{Values: in.Inner.Values}}
			}, func(m *kinds.Rich) proto.Message { return &kinds.Inner{Values: m.GetInner().GetValues()} }, false, false},
			{"nested bytes", func(in *kinds.Rich) *kinds.Rich {
				return &kinds.Rich{Inner: &kinds.Inner{Payload: in.Inner.Payload}}
			}, func(m *kinds.Rich) proto.Message { return &kinds.Inner{Payload: m.GetInner().GetPayload()} }, copied, false},
		} {
			t.Run(mode.name+"/"+tc.name, func(t *testing.T) {
				conn := startPooled(t, pooledUnary{fn: func(_ context.Context, in *kinds.Rich) (*kinds.Rich, error) {
					return tc.reply(in), nil // wrong: shares the request's memory
				}}, mode.opts)
				client := kinds.NewKindsClient(conn)
				loud := tc.loud
				caught := 0
				for i := range 20 {
					sent := nestedRich(i)
					got, err := client.Unary(context.Background(), sent)
					switch {
					case loud && status.Code(err) == codes.Internal && strings.Contains(err.Error(), "UTF-8"):
						caught++
						continue
					case loud:
						t.Fatalf("call %d: reply %v, error %v; want code Internal, for the poison's invalid UTF-8", i, got, err)
					case err != nil:
						t.Fatal(err)
					}
					if !proto.Equal(tc.part(got), tc.part(sent)) {
						caught++
					}
				}
				switch {
				case tc.safe && caught > 0:
					t.Errorf("%d of 20 replies changed, sharing memory that is never reused", caught)
				case !tc.safe && caught != 20:
					t.Errorf("%d of 20 replies changed; want every one: the misuse passes the user's tests", caught)
				}
			})
		}
	}
}

// otlpKeeper is a TraceService whose Export keeps parts of its request past
// the call, without KeepRequest: wrong.
type otlpKeeper struct {
	otlp.UnimplementedTraceServiceServer
	kept chan []proto.Message
}

func (s otlpKeeper) Export(_ context.Context, in *otlp.ExportTraceServiceRequest) (*otlp.ExportTraceServiceResponse, error) {
	rs := in.ResourceSpans[0]
	span := rs.ScopeSpans[0].Spans[0]
	s.kept <- []proto.Message{rs.Resource, span, span.Attributes[0].Value}
	return &otlp.ExportTraceServiceResponse{}, nil
}

// TestCheckedPooledKeptNested: in checked builds, the parts of an OTLP
// request (every type pooled by vtprotobuf) that a pooled handler keeps past
// its call are changed by the time the reply is sent, in both pooled modes.
func TestCheckedPooledKeptNested(t *testing.T) {
	if !grpcfast.Checked {
		t.Skip("poison needs a checked build (-race or -tags grpcfast_checked)")
	}
	for _, mode := range pooledModes {
		t.Run(mode.name, func(t *testing.T) {
			srv := otlpKeeper{kept: make(chan []proto.Message, 1)}
			done := outPayloads{done: make(chan struct{}, 1)}
			_, conn := grpcfasttest.ServeAndDial(t, func(s *grpc.Server) { otlp.RegisterTraceServiceServerPooled(s, srv, mode.opts...) },
				[]grpc.ServerOption{grpc.StatsHandler(done)}, nil)
			client := otlp.NewTraceServiceClient(conn)
			for i := range 10 {
				req := otlp.VaryingExport(i%3, i)
				rs := req.ResourceSpans[0]
				rs.Resource = &otlp.Resource{DroppedAttributesCount: uint32(i + 1), Attributes: []*otlp.KeyValue{
					{Key: "host", Value: &otlp.AnyValue{Value: &otlp.AnyValue_IntValue{IntValue: int64(i)}}}}}
				span := rs.ScopeSpans[0].Spans[0]
				want := []proto.Message{rs.Resource, span, span.Attributes[0].Value}
				if _, err := client.Export(context.Background(), req); err != nil {
					t.Fatal(err)
				}
				kept := <-srv.kept
				<-done.done // the request went back before its reply was encoded
				for j, k := range kept {
					if proto.Equal(k, want[j]) {
						t.Fatalf("call %d: kept part %d (%T) unchanged after the call; want it reset or poisoned", i, j, k)
					}
				}
			}
		})
	}
}

// bidiKeeper is a Kinds server whose Bidi and PooledBidi keep the nested
// parts of one message past the next Recv: wrong without Take.
type bidiKeeper struct {
	kinds.UnimplementedKindsServer
	changed chan bool
}

func (s bidiKeeper) Bidi(stream grpc.BidiStreamingServer[kinds.Rich, kinds.Rich]) error {
	return keepPastRecv(s.changed, kinds.NewKinds_BidiRequestReceiver(stream), func(m *kinds.Rich) []proto.Message {
		return []proto.Message{m.Inner, m.Inners[0], m.GetNested()}
	})
}

func (s bidiKeeper) PooledBidi(stream grpc.BidiStreamingServer[kinds.Pooled, kinds.Pooled]) error {
	return keepPastRecv(s.changed, kinds.NewKinds_PooledBidiRequestReceiver(stream), func(m *kinds.Pooled) []proto.Message {
		return []proto.Message{m.One, m.Items[0], m.Inners[0]}
	})
}

// keepPastRecv keeps the parts of the first message that r receives past
// the next Recv (wrong), sends to changed whether every part changed, and
// reads the rest of the stream.
func keepPastRecv[M any](changed chan<- bool, r *grpcfast.Receiver[M], partsOf func(*M) []proto.Message) error {
	defer r.Release()
	m, err := r.Recv()
	if err != nil {
		return err
	}
	parts := partsOf(m)
	var want []proto.Message
	for _, p := range parts {
		want = append(want, proto.Clone(p))
	}
	if _, err := r.Recv(); err != nil {
		return err
	}
	all := true
	for i := range parts {
		all = all && !proto.Equal(parts[i], want[i])
	}
	changed <- all
	for {
		if _, err := r.Recv(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}

// TestCheckedReceiverKeptNested: in checked builds, nested messages,
// repeated elements and oneof members of a received message that a handler
// keeps past the next Recv are changed, for a type in no pool= option
// (Rich) and for pooled ones (Pooled).
func TestCheckedReceiverKeptNested(t *testing.T) {
	if !grpcfast.Checked {
		t.Skip("poison needs a checked build (-race or -tags grpcfast_checked)")
	}
	srv := bidiKeeper{changed: make(chan bool, 1)}
	_, conn := grpcfasttest.ServeAndDial(t, func(s *grpc.Server) { kinds.RegisterKindsServer(s, srv) }, nil, nil)
	client := kinds.NewKindsClient(conn)
	t.Run("Rich", func(t *testing.T) {
		stream, err := client.Bidi(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			if err := stream.Send(nestedRich(i)); err != nil {
				t.Fatal(err)
			}
		}
		if !<-srv.changed {
			t.Error("kept parts of a Rich unchanged after the next Recv")
		}
		stream.CloseSend()
		if _, err := stream.Recv(); err != io.EOF {
			t.Fatal(err)
		}
	})
	t.Run("Pooled", func(t *testing.T) {
		stream, err := client.PooledBidi(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		for i := range 3 {
			m := &kinds.Pooled{Name: "p", One: &kinds.PooledInner{Payload: grpcfasttest.Pattern(10 + i), Values: []int64{int64(i)}},
				Items:  []*kinds.PooledInner{{Payload: grpcfasttest.Pattern(20 + i), Values: []int64{1, 2}}},
				Inners: []*kinds.Inner{{Label: "x", Payload: grpcfasttest.Pattern(30 + i), Values: []uint32{3}}}}
			if err := stream.Send(m); err != nil {
				t.Fatal(err)
			}
		}
		if !<-srv.changed {
			t.Error("kept parts of a Pooled unchanged after the next Recv")
		}
		stream.CloseSend()
		if _, err := stream.Recv(); err != io.EOF {
			t.Fatal(err)
		}
	})
}

// holderKeeper is a Hostile server whose pooled EchoHolder keeps the
// well-known types of its request past its call (wrong without
// KeepRequest): a FieldMask, a Struct, a Timestamp.
type holderKeeper struct {
	hostile.UnimplementedHostileServer
	kept chan []proto.Message
}

func (s holderKeeper) EchoHolder(_ context.Context, in *hostile.Holder) (*hostile.Holder, error) {
	s.kept <- []proto.Message{in.Mask, in.Fields, in.Time}
	return &hostile.Holder{Label: "ok"}, nil
}

// TestCheckedPooledKeptKnown: in checked builds, the well-known types of a
// pooled request (decoded by the runtime, a FieldMask through
// DecodeFieldMask) that a handler keeps past its call are changed by the
// time its reply is sent, over gRPC, in both pooled modes.
func TestCheckedPooledKeptKnown(t *testing.T) {
	grpcfasttest.NeedChecked(t)
	for _, mode := range pooledModes {
		t.Run(mode.name, func(t *testing.T) {
			srv := holderKeeper{kept: make(chan []proto.Message, 1)}
			done := outPayloads{done: make(chan struct{}, 1)}
			_, conn := grpcfasttest.ServeAndDial(t, func(s *grpc.Server) { hostile.RegisterHostileServerPooled(s, srv, mode.opts...) },
				[]grpc.ServerOption{grpc.StatsHandler(done)}, nil)
			client := hostile.NewHostileClient(conn)
			for i := range 5 {
				req := &hostile.Holder{
					Mask:   &fieldmaskpb.FieldMask{Paths: []string{"user.display_name", "path " + strconv.Itoa(i)}},
					Fields: grpcfasttest.KnownStruct(),
					Time:   &timestamppb.Timestamp{Seconds: int64(1_764_000_000 + i), Nanos: 5},
				}
				want := []proto.Message{req.Mask, req.Fields, req.Time}
				if _, err := client.EchoHolder(context.Background(), req); err != nil {
					t.Fatal(err)
				}
				kept := <-srv.kept
				<-done.done // the request went back before its reply was encoded
				for j, k := range kept {
					if proto.Equal(k, want[j]) {
						t.Fatalf("call %d: kept %T unchanged after the call; want it reset or poisoned", i, k)
					}
				}
			}
		})
	}
}
