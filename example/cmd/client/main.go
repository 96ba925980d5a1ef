// Command client calls the example services once and reports what it did
// and how long it took:
//
//	go run ./example/cmd/client -addr 127.0.0.1:50051 -op put -size 1048576
//
// Flags:
//
//	-addr   server address (default 127.0.0.1:50051)
//	-codec  grpcfast (default): the codec that importing examplepb registers
//	        under "proto" for the whole process; standard: gRPC's standard
//	        codec, forced on this connection (grpc.ForceCodecV2)
//	-op     user (UserService.CreateUser), put (ChunkService.Put: upload -size
//	        bytes), get (ChunkService.Get: download -size bytes) or echo
//	        (EchoService.Echo: send -size bytes, receive them back)
//	-size   bytes to move for put, get and echo (default 1 MiB)
//	-chunk  bytes per message for put, get and echo (default 16384)
//	-timeout  deadline of the call (default 30s)
//
// put and get check the blob's size and CRC-32C (example.PutBlob and
// example.GetBlob); echo checks every byte it gets back. On error it prints
// the error and exits with 1 (2 for bad flags).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/example"
	"github.com/grpcfast/grpcfast/example/examplepb"
)

func main() {
	os.Exit(mainCode(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// mainCode runs one operation and returns the process's exit code: 0 on
// success, 2 for bad flags, 1 for any other error.
func mainCode(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	err := run(ctx, args, stdout, stderr)
	var uerr usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &uerr):
		return 2
	}
	fmt.Fprintln(stderr, "client:", err)
	return 1
}

// usageError is a bad command line; the flag set has printed it already.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// choiceFlag is a flag that accepts one of a few words.
type choiceFlag struct {
	value   string
	choices []string
}

func (c *choiceFlag) String() string { return c.value }

func (c *choiceFlag) Set(s string) error {
	for _, ch := range c.choices {
		if s == ch {
			c.value = s
			return nil
		}
	}
	return fmt.Errorf("want %s", orList(c.choices))
}

// orList formats words as "a, b or c".
func orList(words []string) string {
	s := ""
	for i, w := range words {
		switch {
		case i == 0:
		case i == len(words)-1:
			s += " or "
		default:
			s += ", "
		}
		s += w
	}
	return s
}

// config is the parsed command line.
type config struct {
	addr    string
	codec   string
	op      string
	size    int64
	chunk   int
	timeout time.Duration
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("client", flag.ContinueOnError)
	fs.SetOutput(stderr)
	var cfg config
	codec := &choiceFlag{value: "grpcfast", choices: []string{"grpcfast", "standard"}}
	op := &choiceFlag{value: "user", choices: []string{"user", "put", "get", "echo"}}
	fs.StringVar(&cfg.addr, "addr", "127.0.0.1:50051", "server `address`")
	fs.Var(codec, "codec", "`name`: grpcfast (the codec registered for the process) or standard (gRPC's, forced on this connection)")
	fs.Var(op, "op", "`name`: user (CreateUser), put (upload), get (download) or echo (bidi)")
	fs.Int64Var(&cfg.size, "size", 1<<20, "`bytes` to move for put, get and echo")
	fs.IntVar(&cfg.chunk, "chunk", example.DefaultChunkSize, "`bytes` per message for put, get and echo")
	fs.DurationVar(&cfg.timeout, "timeout", 30*time.Second, "deadline of the call")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: client [flags]\n\nCalls one method of the grpcfast example services and reports the elapsed time.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, err
		}
		return cfg, usageError{err}
	}
	cfg.codec, cfg.op = codec.value, op.value
	bad := func(format string, a ...any) (config, error) {
		err := fmt.Errorf(format, a...)
		fmt.Fprintln(stderr, err)
		fs.Usage()
		return cfg, usageError{err}
	}
	switch {
	case fs.NArg() > 0:
		return bad("unexpected argument %q: client takes only flags", fs.Arg(0))
	case cfg.size < 0:
		return bad("invalid value %d for flag -size: want 0 or more bytes", cfg.size)
	case cfg.chunk < 1 || cfg.chunk > example.MaxChunkSize:
		return bad("invalid value %d for flag -chunk: want 1 to %d bytes", cfg.chunk, example.MaxChunkSize)
	case cfg.timeout <= 0:
		return bad("invalid value %v for flag -timeout: want a duration greater than 0", cfg.timeout)
	}
	return cfg, nil
}

// run parses args, makes one call and prints what it did on stdout.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	dopts := []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	if cfg.codec == "standard" {
		// Overrides, for this connection, the grpcfast codec that importing
		// examplepb registered under "proto" for the process.
		dopts = append(dopts, grpc.WithDefaultCallOptions(grpc.ForceCodecV2(grpcfast.StandardCodec())))
	}
	conn, err := grpc.NewClient(cfg.addr, dopts...)
	if err != nil {
		return err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
	defer cancel()

	start := time.Now()
	var did string
	switch cfg.op {
	case "user":
		resp, err := examplepb.NewUserServiceClient(conn).CreateUser(ctx,
			&examplepb.CreateUserRequest{Name: "gopher", Email: "gopher@example.com", Age: 16, Tags: []string{"example"}})
		if err != nil {
			return fmt.Errorf("create user: %w", err)
		}
		did = fmt.Sprintf("created user %s", resp.GetId())
	case "put":
		if err := example.PutBlob(ctx, examplepb.NewChunkServiceClient(conn), cfg.size, cfg.chunk); err != nil {
			return fmt.Errorf("put %d bytes: %w", cfg.size, err)
		}
		did = fmt.Sprintf("put %d bytes in %d-byte chunks, size and crc32c checked", cfg.size, cfg.chunk)
	case "get":
		if err := example.GetBlob(ctx, examplepb.NewChunkServiceClient(conn), cfg.size, cfg.chunk); err != nil {
			return fmt.Errorf("get %d bytes: %w", cfg.size, err)
		}
		did = fmt.Sprintf("got %d bytes in %d-byte chunks, size and crc32c checked", cfg.size, cfg.chunk)
	case "echo":
		if err := echo(ctx, examplepb.NewEchoServiceClient(conn), cfg.size, cfg.chunk); err != nil {
			return fmt.Errorf("echo %d bytes: %w", cfg.size, err)
		}
		did = fmt.Sprintf("echoed %d bytes in %d-byte chunks, every byte checked", cfg.size, cfg.chunk)
	}
	fmt.Fprintf(stdout, "%s in %v (codec %s, %s)\n", did, time.Since(start).Round(time.Microsecond), cfg.codec, cfg.addr)
	return nil
}

// fill fills b with the bytes at offset off of echo's blob.
func fill(b []byte, off int64) {
	for i := range b {
		p := off + int64(i)
		b[i] = byte(p*31 + p>>8)
	}
}

// echo sends size bytes to EchoService.Echo in chunks of chunk bytes while
// it receives them back, and checks that every chunk comes back as sent.
func echo(ctx context.Context, client examplepb.EchoServiceClient, size int64, chunk int) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel() // ends the call if we return early
	stream, err := client.Echo(ctx)
	if err != nil {
		return err
	}
	sent := make(chan error, 1)
	go func() {
		c := &examplepb.Chunk{Data: make([]byte, chunk)}
		for off := int64(0); off < size; {
			n := int(min(int64(chunk), size-off))
			c.Data = c.Data[:n]
			fill(c.Data, off)
			if err := stream.Send(c); err != nil {
				sent <- err // io.EOF: Recv has the call's status
				return
			}
			off += int64(n)
		}
		sent <- stream.CloseSend()
	}()
	r := examplepb.NewEchoService_EchoResponseReceiver(stream)
	defer r.Release() // the last message is not used after the stream
	want := make([]byte, chunk)
	var got int64
	for c, err := range r.All() {
		if err != nil {
			return err
		}
		n := int(min(int64(chunk), size-got))
		if got >= size || len(c.Data) != n {
			return fmt.Errorf("a chunk of %d bytes at offset %d of %d", len(c.Data), got, size)
		}
		fill(want[:n], got)
		if string(c.Data) != string(want[:n]) {
			return fmt.Errorf("the chunk at offset %d came back changed", got)
		}
		got += int64(n)
	}
	if err := <-sent; err != nil && err != io.EOF {
		return fmt.Errorf("send: %w", err)
	}
	if got != size {
		return fmt.Errorf("got back %d bytes of %d", got, size)
	}
	return nil
}
