// Package grpcfastrecord records the messages of a gRPC server or client, so
// that the benchmarks protoc-gen-go-grpcfast generates can replay real
// traffic instead of messages filled from descriptors
// (-grpcfast.replay=DIR).
//
// Install its interceptors on a server or a client, in staging for
// instance; nothing is recorded unless they are installed. Record into a
// directory of your own, not a shared one such as /tmp:
//
//	cache, err := os.UserCacheDir() // or $HOME
//	...
//	rec, err := grpcfastrecord.New(filepath.Join(cache, "myserver", "corpus"), grpcfastrecord.Options{
//		MaxMessages:  500,
//		RedactFields: []string{"acme.v1.CreateUserRequest.password"},
//	})
//	...
//	srv := grpc.NewServer(
//		grpc.ChainUnaryInterceptor(rec.UnaryServerInterceptor()),
//		grpc.ChainStreamInterceptor(rec.StreamServerInterceptor()))
//	...
//	defer rec.Close() // flushes the files
//
// Recording is bounded per method and direction, in messages and bytes
// (Options), and sampled per method: one message in Every (or in
// Methods[fullMethod]). A recorded message is marshalled as soon as it is
// received or before it is sent, so messages that are reused afterwards
// (grpcfast's receivers) are recorded as they were.
//
// # What a recording holds
//
// A recording holds the messages as they crossed the wire, every field of
// them: whatever the clients sent and the server answered, passwords,
// tokens, keys and personal data included. Keep secrets out of it with
// Options.RedactFields (fields cleared by full name wherever they are) or
// Options.Redact (a function given a copy of each message), or record
// traffic that has none (test accounts); and treat the corpus as you treat
// that traffic: do not commit it, copy it only where its readers may read
// the traffic. Redaction works on a copy: the handler, the client and other
// interceptors see each message unchanged.
//
// # Files
//
// New creates the corpus directory (and its parents) with mode 0700 if it
// is missing, and refuses one that is a symbolic link or is not owned by
// the process's user. The recorder creates directories 0700 and files 0600,
// whatever the umask, and appends to a file that exists. It writes only
// into what it created or what the process's user owns: on Unix it opens
// every directory and file under the corpus from a descriptor of the
// corpus, one name at a time, without following symbolic links (openat
// with O_NOFOLLOW), and refuses a link, another user's directory or file, a
// file that is not a regular one or that has another hard link. Each such
// refusal is an error naming the path: Close returns it, and Options.Warnf
// says it when it happens; the method's requests or responses are then not
// recorded, the rest is. The corpus directory, and each directory and file
// in it that the recorder uses, is warned of (Options.Warnf) if other users
// may read or write it, and left as it is. On other systems (Windows) the
// recorder checks each path with Lstat before it opens it, and ownership
// and modes are the system's business.
//
// # Format
//
// A corpus is a directory with one directory per service (its full proto
// name) and, in it, one per method (its name as in the .proto file):
//
//	DIR/grpcfast.example.v1.ChunkService/Put/requests.binpb
//	DIR/grpcfast.example.v1.ChunkService/Put/responses.binpb
//
// requests.binpb holds the method's requests and responses.binpb its
// responses, each a sequence of messages in the binary wire format, each
// preceded by its length as a varint (as protodelim and Java's
// writeDelimitedTo write them). Either file may be missing. Instead of a
// .binpb file a corpus may have a requests.jsonl or responses.jsonl file:
// one message per line in protojson, handy to write by hand; a .binpb file
// wins over a .jsonl one. The recorder writes .binpb files, and appends to
// them if they exist. Read reads a corpus as untrusted input.
package grpcfastrecord

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"google.golang.org/grpc"
	"google.golang.org/grpc/grpclog"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// Names of the files of a method's directory.
const (
	RequestsFile       = "requests.binpb"
	ResponsesFile      = "responses.binpb"
	RequestsJSONFile   = "requests.jsonl"
	ResponsesJSONFile  = "responses.jsonl"
	defaultMaxMessages = 1000
	defaultMaxBytes    = 64 << 20
)

// Options bound and sample what a Recorder keeps. The zero value records
// every message, up to 1000 messages and 64 MiB per method and direction.
type Options struct {
	// MaxMessages is the most messages kept per method and direction
	// (default 1000).
	MaxMessages int
	// MaxBytes is the most encoded bytes kept per method and direction
	// (default 64 MiB); the message that would pass it is not kept, nor
	// any after it.
	MaxBytes int64
	// Every keeps one message in Every, per method and direction: the
	// first, the Every+1-th, and so on (default 1: all).
	Every int
	// Methods, if not nil, lists the methods to record by full name
	// ("/grpcfast.example.v1.ChunkService/Put"), each with its own Every
	// (0 for Options.Every); other methods are not recorded.
	Methods map[string]int
	// Warnf, if not nil, receives the recorder's warnings: a corpus
	// directory or file that other users may read or change, the first
	// error met recording a method's requests or responses (Close returns
	// them all). By default they go to grpclog, as warnings of component
	// "grpcfast".
	Warnf func(format string, args ...any)
	// RedactFields lists fields to keep out of the recording, each by its
	// full name as in the .proto file: "acme.v1.User.password" is field
	// password of message acme.v1.User (an extension: its own full name).
	// A field is cleared wherever a message of its type is in a recorded
	// message: at the top, nested, in every element of a repeated field, in
	// the values of a map. A repeated or map field named is emptied; a
	// required (proto2) field is set to its default instead, so that the
	// recording still decodes. New returns an error for a name that no
	// linked .proto file declares as a field.
	RedactFields []string
	// Redact, if not nil, is given a copy of each message to be recorded,
	// after RedactFields, with the full method name ("/pkg.Service/Method"),
	// and returns what to record: m changed, another message, or nil to
	// record nothing of this one (it still counts for Every). It may be
	// called concurrently.
	//
	// RedactFields and Redact work on a copy: the handler, the client and
	// other interceptors see each message as it was.
	Redact func(method string, m proto.Message) proto.Message
}

var logger = grpclog.Component("grpcfast")

// Recorder writes the messages that pass through its interceptors into a
// corpus directory. Its methods are safe for concurrent use.
type Recorder struct {
	corpus *corpus
	opts   Options
	redact redactor

	mu     sync.Mutex
	sinks  map[string]*sink // by full method and file name
	closed bool
}

// New returns a Recorder that writes into dir, which it creates (and its
// parents) with mode 0700 if needed.
//
// dir itself must be a directory, not a symbolic link to one (pass the
// path it leads to, from filepath.EvalSymlinks, if you mean it), and on
// Unix one owned by the process's user: New returns an error otherwise.
// Its parents may be links. If others may read, enter or write dir, New
// warns (Options.Warnf), as the recorder does for each directory and file
// it reuses under dir. The recorder never follows a symbolic link under
// dir, and on Unix writes only into what it created or what the process's
// user owns: see the package doc.
func New(dir string, opts Options) (*Recorder, error) {
	if opts.MaxMessages < 0 || opts.MaxBytes < 0 || opts.Every < 0 {
		return nil, fmt.Errorf("grpcfastrecord: Options{MaxMessages: %d, MaxBytes: %d, Every: %d}: MaxMessages, MaxBytes and Every must not be negative", opts.MaxMessages, opts.MaxBytes, opts.Every)
	}
	for m, every := range opts.Methods {
		if _, _, ok := splitMethod(m); !ok || every < 0 {
			return nil, fmt.Errorf("grpcfastrecord: Options.Methods[%q] = %d: want a full method name such as /pkg.Service/Method and a sampling of 0 or more", m, every)
		}
	}
	redact, err := newRedactor(opts.RedactFields)
	if err != nil {
		return nil, err
	}
	if opts.MaxMessages == 0 {
		opts.MaxMessages = defaultMaxMessages
	}
	if opts.MaxBytes == 0 {
		opts.MaxBytes = defaultMaxBytes
	}
	if opts.Every == 0 {
		opts.Every = 1
	}
	if opts.Warnf == nil {
		opts.Warnf = logger.Warningf
	}
	c, err := openCorpus(dir, opts.Warnf)
	if err != nil {
		return nil, err
	}
	return &Recorder{corpus: c, opts: opts, redact: redact, sinks: map[string]*sink{}}, nil
}

// splitMethod splits "/pkg.Service/Method". Each part becomes a directory
// name under the corpus, so it is refused where it would not name a
// directory of its own there: empty, ".", "..", or holding a path
// separator or a NUL (a method name that a client or an unknown-service
// handler passes on is not checked by gRPC).
func splitMethod(full string) (service, method string, ok bool) {
	service, method, ok = strings.Cut(strings.TrimPrefix(full, "/"), "/")
	ok = ok && strings.HasPrefix(full, "/") && dirName(service) && dirName(method)
	return service, method, ok
}

// dirName reports whether name can be a directory name of its own.
func dirName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, "/\\\x00")
}

// sink is one file being recorded: a method's requests or responses.
type sink struct {
	every int
	max   int
	bytes int64

	mu      sync.Mutex
	service string
	method  string
	file    string
	path    string
	f       *os.File
	w       *bufio.Writer
	seen    int
	kept    int
	size    int64
	full    bool
	err     error
	encBuf  []byte
}

// sinkFor returns the sink of file in fullMethod's directory, or nil if the
// method is not recorded.
func (r *Recorder) sinkFor(fullMethod, file string) *sink {
	key := fullMethod + "\x00" + file
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return nil
	}
	if s, ok := r.sinks[key]; ok {
		return s
	}
	every := r.opts.Every
	if r.opts.Methods != nil {
		e, ok := r.opts.Methods[fullMethod]
		if !ok {
			r.sinks[key] = nil
			return nil
		}
		if e > 0 {
			every = e
		}
	}
	service, method, ok := splitMethod(fullMethod)
	if !ok {
		r.sinks[key] = nil
		return nil
	}
	s := &sink{every: every, max: r.opts.MaxMessages, bytes: r.opts.MaxBytes,
		service: service, method: method, file: file,
		path: filepath.Join(r.corpus.path, service, method, file)}
	r.sinks[key] = s
	return s
}

// record keeps m in the sink of file for fullMethod, if sampled and within
// bounds.
func (r *Recorder) record(fullMethod, file string, m any) {
	msg, ok := m.(proto.Message)
	if !ok {
		return
	}
	s := r.sinkFor(fullMethod, file)
	if s == nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.seen
	s.seen++
	if s.full || s.err != nil || n%s.every != 0 {
		return
	}
	if r.redact != nil || r.opts.Redact != nil {
		c := proto.Clone(msg)
		if !c.ProtoReflect().IsValid() { // a nil *T
			c = c.ProtoReflect().New().Interface()
		}
		if r.redact != nil {
			r.redact.redact(c.ProtoReflect())
		}
		if r.opts.Redact != nil {
			if c = r.opts.Redact(fullMethod, c); c == nil || !c.ProtoReflect().IsValid() {
				return // nothing to record
			}
		}
		msg = c
	}
	b, err := proto.MarshalOptions{}.MarshalAppend(s.encBuf[:0], msg)
	if err != nil {
		r.fail(s, fmt.Errorf("grpcfastrecord: %s: %w", s.path, err))
		return
	}
	s.encBuf = b
	need := int64(protowire.SizeVarint(uint64(len(b))) + len(b))
	if s.kept >= s.max || s.size+need > s.bytes {
		s.full = true
		s.closeLocked()
		return
	}
	if s.w == nil {
		f, err := r.corpus.openFile(s.service, s.method, s.file)
		if err != nil {
			r.fail(s, err)
			return
		}
		s.f, s.w = f, bufio.NewWriter(f)
	}
	if _, err := s.w.Write(protowire.AppendVarint(nil, uint64(len(b)))); err != nil {
		r.fail(s, fmt.Errorf("grpcfastrecord: %s: %w", s.path, err))
		return
	}
	if _, err := s.w.Write(b); err != nil {
		r.fail(s, fmt.Errorf("grpcfastrecord: %s: %w", s.path, err))
		return
	}
	s.kept++
	s.size += need
}

// fail keeps err, the first error of s (locked), which records nothing
// more, and warns of it.
func (r *Recorder) fail(s *sink, err error) {
	s.err = err
	r.opts.Warnf("%v; recording nothing more into it", err)
}

// closeLocked flushes and closes the sink's file, keeping the first error.
func (s *sink) closeLocked() {
	if s.w == nil {
		return
	}
	if err := s.w.Flush(); err != nil && s.err == nil {
		s.err = fmt.Errorf("grpcfastrecord: %s: %w", s.path, err)
	}
	if err := s.f.Close(); err != nil && s.err == nil {
		s.err = fmt.Errorf("grpcfastrecord: %s: %w", s.path, err)
	}
	s.f, s.w = nil, nil
}

// Close flushes and closes every file; the interceptors record nothing
// after it. It returns the first error any recording met.
func (r *Recorder) Close() error {
	r.mu.Lock()
	r.closed = true
	sinks := r.sinks
	r.mu.Unlock()
	var errs []error
	for _, s := range sinks {
		if s == nil {
			continue
		}
		s.mu.Lock()
		s.closeLocked()
		s.full = true
		if s.err != nil {
			errs = append(errs, s.err)
		}
		s.mu.Unlock()
	}
	// No sink opens a file any more: each is full.
	r.mu.Lock()
	if err := r.corpus.close(); err != nil {
		errs = append(errs, fmt.Errorf("grpcfastrecord: %s: %w", r.corpus.path, err))
	}
	r.mu.Unlock()
	return errors.Join(errs...)
}

// UnaryServerInterceptor records the requests and responses of unary calls
// a server handles.
func (r *Recorder) UnaryServerInterceptor() grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		r.record(info.FullMethod, RequestsFile, req)
		resp, err := handler(ctx, req)
		if err == nil {
			r.record(info.FullMethod, ResponsesFile, resp)
		}
		return resp, err
	}
}

// StreamServerInterceptor records the messages of the streams a server
// handles: those it receives as requests, those it sends as responses.
func (r *Recorder) StreamServerInterceptor() grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		return handler(srv, &serverStream{ServerStream: ss, r: r, method: info.FullMethod})
	}
}

type serverStream struct {
	grpc.ServerStream
	r      *Recorder
	method string
}

func (s *serverStream) RecvMsg(m any) error {
	err := s.ServerStream.RecvMsg(m)
	if err == nil {
		s.r.record(s.method, RequestsFile, m)
	}
	return err
}

func (s *serverStream) SendMsg(m any) error {
	s.r.record(s.method, ResponsesFile, m)
	return s.ServerStream.SendMsg(m)
}

// UnaryClientInterceptor records the requests and responses of a client's
// unary calls.
func (r *Recorder) UnaryClientInterceptor() grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		r.record(method, RequestsFile, req)
		err := invoker(ctx, method, req, reply, cc, opts...)
		if err == nil {
			r.record(method, ResponsesFile, reply)
		}
		return err
	}
}

// StreamClientInterceptor records the messages of a client's streams: those
// it sends as requests, those it receives as responses.
func (r *Recorder) StreamClientInterceptor() grpc.StreamClientInterceptor {
	return func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
		cs, err := streamer(ctx, desc, cc, method, opts...)
		if err != nil {
			return nil, err
		}
		return &clientStream{ClientStream: cs, r: r, method: method}, nil
	}
}

type clientStream struct {
	grpc.ClientStream
	r      *Recorder
	method string
}

func (s *clientStream) SendMsg(m any) error {
	s.r.record(s.method, RequestsFile, m)
	return s.ClientStream.SendMsg(m)
}

func (s *clientStream) RecvMsg(m any) error {
	err := s.ClientStream.RecvMsg(m)
	if err == nil {
		s.r.record(s.method, ResponsesFile, m)
	}
	return err
}
