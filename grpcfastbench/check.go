package grpcfastbench

import (
	"context"
	"fmt"
	"strconv"
	"sync/atomic"

	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// The warm-up call of every method on every path is a checked call: each
// side compares every message it receives with the one the other side sent
// (proto.Equal), and fails the call, and so the benchmark, on the first
// that differs. A codec that decodes nothing, or a receiver that loses or
// mixes up fields, therefore cannot produce figures.
//
// A reused message that a broken codec leaves untouched still holds the
// previous message, which may equal the expected one. So every message of
// a checked call is made unique: the sender appends to it an unknown field
// (markField) that holds the call's number and the message's index, and
// the receiver expects exactly that. The client sends the call's number in
// the checkHeader metadata, which also reaches a server in a child process.
// The timed calls carry no mark and are not checked.
const checkHeader = "grpcfastbench-check"

// markField is the number of the unknown field that marks the messages of a
// checked call: the largest field number, or the largest one below it that
// the message does not declare.
const markField = protowire.MaxValidNumber

// checkKey marks a checked call in the client's context.
type checkKey struct{}

// checkCalls numbers the checked calls of this process.
var checkCalls atomic.Uint64

// check is a checked call, or none (on false).
type check struct {
	on   bool
	call uint64
}

// checkContext returns ctx for a new checked call.
func checkContext(ctx context.Context) context.Context {
	n := checkCalls.Add(1)
	ctx = metadata.AppendToOutgoingContext(ctx, checkHeader, strconv.FormatUint(n, 10))
	return context.WithValue(ctx, checkKey{}, check{true, n})
}

// clientCheck returns the check of the client's call with ctx.
func clientCheck(ctx context.Context) check {
	k, _ := ctx.Value(checkKey{}).(check)
	return k
}

// serverCheck returns the check of the server's call with ctx.
func serverCheck(ctx context.Context) check {
	v := metadata.ValueFromIncomingContext(ctx, checkHeader)
	if len(v) == 0 {
		return check{}
	}
	n, err := strconv.ParseUint(v[0], 10, 64)
	return check{err == nil, n}
}

// at returns the i-th message a stream sends from list, in turn: marked
// with the call and i on a checked call.
func (k check) at(list []proto.Message, i int) proto.Message {
	m := list[i%len(list)]
	if !k.on {
		return m
	}
	c := proto.Clone(m)
	rm := c.ProtoReflect()
	num := markField
	for rm.Descriptor().Fields().ByNumber(num) != nil {
		num--
	}
	mark := protowire.AppendTag(rm.GetUnknown(), num, protowire.BytesType)
	mark = protowire.AppendString(mark, "grpcfastbench call "+strconv.FormatUint(k.call, 10)+" message "+strconv.Itoa(i))
	rm.SetUnknown(protoreflect.RawFields(mark))
	return c
}

// same returns an error unless got, the i-th message of its kind that side
// received in a call of method, equals want.
func same(method, side, what string, i int, got any, want proto.Message) error {
	g, ok := got.(proto.Message)
	if !ok {
		return fmt.Errorf("grpcfastbench: %s: %s received a %T, not a proto.Message", method, side, got)
	}
	if proto.Equal(g, want) {
		return nil
	}
	return fmt.Errorf("grpcfastbench: %s: %s received %s %d unlike the one sent (%d bytes encoded, want %d): "+
		"the path's codec or receiver loses or changes what it decodes",
		method, side, what, i, proto.Size(g), proto.Size(want))
}

// checker returns what checks the i-th message of its kind that side
// receives in a call of method: nothing, unless k is on.
func checker[M any](k check, method, side, what string, sent []proto.Message) func(int, *M) error {
	if !k.on {
		return func(int, *M) error { return nil }
	}
	return func(i int, got *M) error {
		return same(method, side, what, i, got, k.at(sent, i))
	}
}

// sentMsgs is what a stub server checks the messages it receives against:
// those the client sends, kept encoded, so that the server's heap holds
// nothing of them that its collector has to scan. A decoded replay corpus
// (the 4 recorded OTLP exports of internal/testprotos/otlp decode into
// hundreds of KiB of small messages) would otherwise be most of a stub
// server's live heap, which the collector marks in every cycle, on every
// path that allocates: it cost the default path about a fifth of its server
// CPU per export (docs/measurements.md, the collector's pace). A server's
// heap is its handlers' and its codec's; a checked call, a few per run,
// decodes the messages anew.
type sentMsgs struct {
	typ protoreflect.MessageType
	enc [][]byte
	// list holds the messages as they are where one of them does not
	// encode, or they are not all of one type; nil otherwise.
	list []proto.Message
}

// sentMarshal and sentUnmarshal encode and decode the messages a stub
// server checks as they are, required fields missing included.
var (
	sentMarshal   = proto.MarshalOptions{AllowPartial: true}
	sentUnmarshal = proto.UnmarshalOptions{AllowPartial: true}
)

// encodeSent returns list, kept encoded where its messages all encode and
// are all of one type.
func encodeSent(list []proto.Message) sentMsgs {
	if len(list) == 0 {
		return sentMsgs{}
	}
	typ := list[0].ProtoReflect().Type()
	enc := make([][]byte, len(list))
	for i, m := range list {
		b, err := sentMarshal.Marshal(m)
		if err != nil || m.ProtoReflect().Type() != typ {
			return sentMsgs{list: list}
		}
		enc[i] = b
	}
	return sentMsgs{typ: typ, enc: enc}
}

// decode returns the messages, decoded anew from their encoding: equal
// (proto.Equal) to those encodeSent was given.
func (s sentMsgs) decode() ([]proto.Message, error) {
	if s.enc == nil {
		return s.list, nil
	}
	list := make([]proto.Message, len(s.enc))
	for i, b := range s.enc {
		m := s.typ.New().Interface()
		if err := sentUnmarshal.Unmarshal(b, m); err != nil {
			return nil, fmt.Errorf("grpcfastbench: the stub server's copy of request %d does not decode: %v", i, err)
		}
		list[i] = m
	}
	return list, nil
}
