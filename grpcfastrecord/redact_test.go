package grpcfastrecord_test

import (
	"bytes"
	"slices"
	"strings"
	"sync"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	"github.com/grpcfast/grpcfast/grpcfastrecord"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
	"github.com/grpcfast/grpcfast/internal/testprotos/proto2"
)

// redactCase is a message passed through a recorder with RedactFields as a
// request of method, and what the corpus must hold for it.
type redactCase struct {
	method string
	in     proto.Message
	want   proto.Message
	newMsg func() proto.Message
}

// checkRedacted records each case's message as a request and as a
// response, and checks that the corpus holds the redacted message while the
// handler and the client got the original, unchanged.
func checkRedacted(t *testing.T, opts grpcfastrecord.Options, cases []redactCase) {
	t.Helper()
	dir := t.TempDir()
	rec, err := grpcfastrecord.New(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		orig := proto.Clone(c.in)
		origBytes := marshal(t, c.in)
		reply := proto.Clone(c.in)
		seen, res := intercept(t, rec, c.method, c.in, reply)
		if !bytes.Equal(seen, origBytes) {
			t.Errorf("%s: the handler saw %x, want the request as sent, %x", c.method, seen, origBytes)
		}
		if !proto.Equal(c.in, orig) {
			t.Errorf("%s: the request became %v, want %v", c.method, c.in, orig)
		}
		if res != reply || !proto.Equal(reply, orig) {
			t.Errorf("%s: the client got %v, want the handler's reply %v", c.method, res, orig)
		}
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		for _, requests := range []bool{true, false} {
			got, err := grpcfastrecord.Read(dir, service, c.method, requests, c.newMsg)
			if err != nil {
				t.Errorf("%s: %v", c.method, err)
				continue
			}
			if len(got) != 1 || !proto.Equal(got[0], c.want) {
				t.Errorf("%s requests=%v: recorded %v, want %v", c.method, requests, got, c.want)
			}
		}
	}
}

// TestRedactFields redacts fields by full name at every place a message of
// their type can be: at the top, nested, in a repeated field's elements, in
// a oneof, in map values, in an extension; repeated and map fields named
// are emptied, and a required field keeps a value so the corpus decodes.
func TestRedactFields(t *testing.T) {
	const secret = "secret-password"
	inner := func(label string) *kinds.Inner {
		return &kinds.Inner{Label: label, Payload: []byte("kept"), Values: []uint32{1, 2}}
	}
	rich := &kinds.Rich{
		Id: 7, Name: secret, Data: []byte("kept"), Words: []string{secret, secret},
		Inner: inner(secret), Inners: []*kinds.Inner{inner(secret), inner(""), inner(secret)},
		Counts: map[string]int64{"a": 1}, Choice: &kinds.Rich_Nested{Nested: inner(secret)},
	}
	redactedInner := func() *kinds.Inner { return &kinds.Inner{Payload: []byte("kept"), Values: []uint32{1, 2}} }
	redactedRich := func() *kinds.Rich {
		return &kinds.Rich{
			Id: 7, Data: []byte("kept"),
			Inner: redactedInner(), Inners: []*kinds.Inner{redactedInner(), redactedInner(), redactedInner()},
			Counts: map[string]int64{"a": 1}, Choice: &kinds.Rich_Nested{Nested: redactedInner()},
		}
	}
	// Deep: Rich inside Decodable inside the repeated Decodable.children.
	deep := &kinds.Decodable{Name: "kept", Children: []*kinds.Decodable{
		{Rich: proto.Clone(rich).(*kinds.Rich), Riches: []*kinds.Rich{proto.Clone(rich).(*kinds.Rich)}},
		{Choice: &kinds.Decodable_Other{Other: proto.Clone(rich).(*kinds.Rich)}},
	}}
	deepWant := &kinds.Decodable{Name: "kept", Children: []*kinds.Decodable{
		{Rich: redactedRich(), Riches: []*kinds.Rich{redactedRich()}},
		{Choice: &kinds.Decodable_Other{Other: redactedRich()}},
	}}
	// proto2: a map of messages, a required field, an extension.
	entries := &proto2.Entries{
		Id: proto.Int64(42), Note: proto.String(secret), Tags: []string{"kept"},
		Children: map[string]*proto2.Entries{"c": {Id: proto.Int64(43), Note: proto.String(secret)}},
		Next:     &proto2.Entries{Id: proto.Int64(44), Names: map[int32]string{1: secret}},
	}
	entriesWant := &proto2.Entries{
		Id: proto.Int64(0), Tags: []string{"kept"},
		Children: map[string]*proto2.Entries{"c": {Id: proto.Int64(0)}},
		Next:     &proto2.Entries{Id: proto.Int64(0)},
	}
	ext := &proto2.Extendable{Id: proto.Int32(1)}
	proto.SetExtension(ext, proto2.E_Note, secret)

	checkRedacted(t, grpcfastrecord.Options{RedactFields: []string{
		"grpcfast.testdata.kinds.Rich.name",
		"grpcfast.testdata.kinds.Rich.words",
		"grpcfast.testdata.kinds.Inner.label",
		"grpcfast.testdata.proto2.Entries.id",
		"grpcfast.testdata.proto2.Entries.note",
		"grpcfast.testdata.proto2.Entries.names",
		"grpcfast.testdata.proto2.note",
	}}, []redactCase{
		{"Rich", rich, redactedRich(), newRich},
		{"Deep", deep, deepWant, func() proto.Message { return new(kinds.Decodable) }},
		{"Entries", entries, entriesWant, func() proto.Message { return new(proto2.Entries) }},
		{"Extendable", ext, &proto2.Extendable{Id: proto.Int32(1)}, func() proto.Message { return new(proto2.Extendable) }},
		{"Summary", &kinds.Summary{Count: 3}, &kinds.Summary{Count: 3}, newSummary},
	})
}

// TestRedactFunc changes, replaces and drops messages with Options.Redact,
// after RedactFields, and checks it is given the method and a copy.
func TestRedactFunc(t *testing.T) {
	var mu sync.Mutex
	var methods []string
	opts := grpcfastrecord.Options{
		RedactFields: []string{"grpcfast.testdata.kinds.Rich.words"},
		Redact: func(method string, m proto.Message) proto.Message {
			mu.Lock()
			methods = append(methods, method)
			mu.Unlock()
			r := m.(*kinds.Rich)
			if len(r.Words) != 0 {
				t.Errorf("Redact got %v before RedactFields cleared words", r)
			}
			switch {
			case strings.HasSuffix(method, "/Drop"):
				return nil
			case strings.HasSuffix(method, "/Replace"):
				return &kinds.Rich{Name: "replaced"}
			}
			// Change the copy deeply: the handler must not see it.
			r.Name = "[redacted]"
			if r.Inner != nil {
				r.Inner.Label = "[redacted]"
			}
			for _, in := range r.Inners {
				in.Label = "[redacted]"
			}
			return r
		},
	}
	in := &kinds.Rich{Name: "secret", Words: []string{"w"}, Inner: &kinds.Inner{Label: "secret", Payload: []byte("kept")},
		Inners: []*kinds.Inner{{Label: "secret"}, {Label: "secret"}}}
	want := &kinds.Rich{Name: "[redacted]", Inner: &kinds.Inner{Label: "[redacted]", Payload: []byte("kept")},
		Inners: []*kinds.Inner{{Label: "[redacted]"}, {Label: "[redacted]"}}}
	checkRedacted(t, opts, []redactCase{
		{"Change", in, want, newRich},
		{"Replace", proto.Clone(in), &kinds.Rich{Name: "replaced"}, newRich},
	})
	wantMethods := []string{"/" + service + "/Change", "/" + service + "/Change", "/" + service + "/Replace", "/" + service + "/Replace"}
	if !slices.Equal(methods, wantMethods) {
		t.Errorf("Redact was given methods %q, want %q", methods, wantMethods)
	}

	// A message Redact drops is not recorded, and still counts for Every.
	dir := t.TempDir()
	opts.Every = 2
	rec, err := grpcfastrecord.New(dir, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"first", "second", "third"} {
		intercept(t, rec, "Drop", &kinds.Rich{Name: name}, &kinds.Rich{Name: name})
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	if got, err := grpcfastrecord.Read(dir, service, "Drop", true, newRich); err != nil || len(got) != 0 {
		t.Errorf("dropped messages: recorded %v, %v; want none", got, err)
	}
}

// TestRedactFieldsErrors checks that New refuses a name that is not the
// full name of a field a linked .proto file declares.
func TestRedactFieldsErrors(t *testing.T) {
	for name, want := range map[string]string{
		"password":                               `grpcfastrecord: Options.RedactFields[0] = "password": no linked .proto file declares it (want the full name of a field, such as pkg.Message.field)`,
		"grpcfast.testdata.kinds.Rich.nope":      `grpcfastrecord: Options.RedactFields[0] = "grpcfast.testdata.kinds.Rich.nope": no linked .proto file declares it (want the full name of a field, such as pkg.Message.field)`,
		"grpcfast.testdata.kinds.Rich":           `grpcfastrecord: Options.RedactFields[0] = "grpcfast.testdata.kinds.Rich": not a field but a message (want the full name of a field, such as pkg.Message.field)`,
		"grpcfast.testdata.kinds.COLOR_RED":      `grpcfastrecord: Options.RedactFields[0] = "grpcfast.testdata.kinds.COLOR_RED": not a field but an enum value (want the full name of a field, such as pkg.Message.field)`,
		"user.password[0]":                       `grpcfastrecord: Options.RedactFields[0] = "user.password[0]": want the full name of a field, such as pkg.Message.field`,
		"":                                       `grpcfastrecord: Options.RedactFields[0] = "": want the full name of a field, such as pkg.Message.field`,
		"grpcfast.testdata.kinds.Rich.choice":    `grpcfastrecord: Options.RedactFields[0] = "grpcfast.testdata.kinds.Rich.choice": not a field but a oneof (want the full name of a field, such as pkg.Message.field)`,
		"grpcfast.testdata.kinds.Kinds.Unary":    `grpcfastrecord: Options.RedactFields[0] = "grpcfast.testdata.kinds.Kinds.Unary": not a field but a method (want the full name of a field, such as pkg.Message.field)`,
		"grpcfast.testdata.kinds.Rich.text":      "",
		"grpcfast.testdata.kinds.Inner.payload":  "",
		"grpcfast.testdata.proto2.Extendable.id": "",
	} {
		dir := t.TempDir()
		rec, err := grpcfastrecord.New(dir, grpcfastrecord.Options{RedactFields: []string{name}})
		if want == "" {
			if err != nil {
				t.Errorf("%q: %v, want no error", name, err)
			} else {
				rec.Close()
			}
			continue
		}
		if err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %s", name, err, want)
		}
	}
}

// TestRedactOverGRPC records every kind of call through a server with
// RedactFields and Redact: streams whose messages a receiver reuses
// included. The corpus holds the messages without the field, and what the
// client sent and received still has it.
func TestRedactOverGRPC(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	calls := 0
	rec, err := grpcfastrecord.New(dir, grpcfastrecord.Options{
		RedactFields: []string{"grpcfast.testdata.kinds.Rich.data"},
		Redact: func(_ string, m proto.Message) proto.Message {
			mu.Lock()
			calls++
			mu.Unlock()
			return m
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	c := serve(t, []grpc.ServerOption{
		grpc.ChainUnaryInterceptor(rec.UnaryServerInterceptor()),
		grpc.ChainStreamInterceptor(rec.StreamServerInterceptor()),
	}, nil)
	reqs, ress := traffic(t, c)
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	// The server sends data in every ServerStream response: the client
	// must have received it.
	for i, m := range ress["ServerStream"] {
		if d := m.(*kinds.Rich).Data; len(d) != 1 || d[0] != byte(i) {
			t.Errorf("ServerStream response %d reached the client with data %x, want %x", i, d, []byte{byte(i)})
		}
	}
	n := 0
	strip := func(ms map[string][]proto.Message) map[string][]proto.Message {
		out := map[string][]proto.Message{}
		for method, list := range ms {
			for _, m := range list {
				m = proto.Clone(m)
				if r, ok := m.(*kinds.Rich); ok {
					r.Data = nil
				}
				out[method] = append(out[method], m)
				n++
			}
		}
		return out
	}
	check(t, dir, strip(reqs), strip(ress))
	if calls != n {
		t.Errorf("Redact called %d times, want once per message, %d", calls, n)
	}
}
