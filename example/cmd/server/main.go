// Command server serves the example services (UserService, ChunkService,
// EchoService) with gRPC health checking and server reflection, so that any
// gRPC tool (grpcurl, ghz, a health probe) can be pointed at it:
//
//	go run ./example/cmd/server -addr 127.0.0.1:50051 -codec grpcfast
//
// Flags:
//
//	-addr   address to listen on (default 127.0.0.1:50051, loopback only;
//	        port 0 picks a free port)
//	-codec  grpcfast (default): the codec that importing examplepb registers
//	        under "proto" for the whole process; standard: gRPC's standard
//	        codec, forced on this server (grpc.ForceServerCodecV2)
//	-drain  how long to keep serving, health NOT_SERVING, after a signal and
//	        before the graceful stop, for load balancers that poll health
//	        (default 0s)
//	-grace  how long the graceful stop may wait for calls in flight before
//	        the server closes them (default 10s)
//
// It prints one line when it listens, ending with the address it listens on
// (so a script can read the port that -addr 127.0.0.1:0 picked), one when a
// signal starts the shutdown and one when it has stopped. On SIGINT or
// SIGTERM it reports NOT_SERVING for every service, waits -drain, stops
// accepting calls and lets the calls in flight finish, for up to -grace.
//
// The handlers are the example's (example.Register) whichever the codec:
// they receive with the generated receive helpers and send from one reused
// message. Health and reflection messages have no vtprotobuf methods; the
// grpcfast codec encodes them exactly as the standard codec does.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"sort"
	"syscall"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/reflection"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/example"
)

func main() {
	os.Exit(mainCode(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

// mainCode runs the server until SIGINT or SIGTERM (or until ctx is done)
// and returns the process's exit code: 0 once stopped, 2 for bad flags, 1
// for any other error.
func mainCode(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, args, stdout, stderr)
	var uerr usageError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &uerr):
		// The flag package has printed the error and the usage.
		return 2
	}
	fmt.Fprintln(stderr, "server:", err)
	return 1
}

// usageError is a bad command line; the flag set has printed it already.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

// codecFlag is the -codec flag: grpcfast or standard.
type codecFlag string

func (c *codecFlag) String() string { return string(*c) }

func (c *codecFlag) Set(s string) error {
	switch s {
	case "grpcfast", "standard":
		*c = codecFlag(s)
		return nil
	}
	return errors.New(`want grpcfast or standard`)
}

// config is the parsed command line.
type config struct {
	addr  string
	codec string
	drain time.Duration
	grace time.Duration
}

// parseFlags parses args; errors and -h go to stderr with the usage.
func parseFlags(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := config{}
	codec := codecFlag("grpcfast")
	fs.StringVar(&cfg.addr, "addr", "127.0.0.1:50051", "`address` to listen on (port 0: any free port)")
	fs.Var(&codec, "codec", "`name`: grpcfast (the codec registered for the process) or standard (gRPC's, forced on this server)")
	fs.DurationVar(&cfg.drain, "drain", 0, "after a signal, how long to keep serving with health NOT_SERVING before stopping")
	fs.DurationVar(&cfg.grace, "grace", 10*time.Second, "how long the graceful stop waits for calls in flight before closing them")
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: server [flags]\n\nServes the grpcfast example services with health checking and reflection.\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return cfg, err
		}
		return cfg, usageError{err}
	}
	cfg.codec = string(codec)
	bad := func(format string, a ...any) (config, error) {
		err := fmt.Errorf(format, a...)
		fmt.Fprintln(stderr, err)
		fs.Usage()
		return cfg, usageError{err}
	}
	switch {
	case fs.NArg() > 0:
		return bad("unexpected argument %q: server takes only flags", fs.Arg(0))
	case cfg.drain < 0:
		return bad("invalid value %v for flag -drain: want a duration of 0 or more", cfg.drain)
	case cfg.grace <= 0:
		return bad("invalid value %v for flag -grace: want a duration greater than 0", cfg.grace)
	}
	return cfg, nil
}

// newServer returns a server with the example services, health checking
// (SERVING for "" and every service) and reflection, and its health server.
func newServer(codec string) (*grpc.Server, *health.Server) {
	var opts []grpc.ServerOption
	if codec == "standard" {
		// Overrides, for this server, the grpcfast codec that importing
		// examplepb registered under "proto" for the process.
		opts = append(opts, grpc.ForceServerCodecV2(grpcfast.StandardCodec()))
	}
	srv := grpc.NewServer(opts...)
	example.Register(srv)
	hs := health.NewServer()
	healthpb.RegisterHealthServer(srv, hs)
	reflection.Register(srv)
	hs.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	for name := range srv.GetServiceInfo() {
		hs.SetServingStatus(name, healthpb.HealthCheckResponse_SERVING)
	}
	return srv, hs
}

// run parses args, serves until ctx is done, then shuts down gracefully (see
// the package comment). It reports progress on stdout and flag errors on
// stderr; a bad command line is a usageError.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	return runWith(ctx, nil, args, stdout, stderr)
}

// runWith is run, with a drain that also ends when endDrain is closed (a nil
// endDrain never is): tests end it instead of waiting for -drain.
func runWith(ctx context.Context, endDrain <-chan struct{}, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	lis, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		return fmt.Errorf("-addr %s: %w", cfg.addr, err)
	}
	srv, hs := newServer(cfg.codec)
	names := make([]string, 0, len(srv.GetServiceInfo()))
	for name := range srv.GetServiceInfo() {
		names = append(names, name)
	}
	sort.Strings(names)

	served := make(chan error, 1)
	go func() { served <- srv.Serve(lis) }()
	// The address is the last field, for scripts.
	fmt.Fprintf(stdout, "example server (codec %s, %d services) listening on %s\n", cfg.codec, len(names), lis.Addr())

	select {
	case err := <-served:
		// Serve failed before any signal.
		srv.Stop()
		return fmt.Errorf("serve: %w", err)
	case <-ctx.Done():
	}

	// NOT_SERVING first, so that whoever reads the line below finds it.
	hs.Shutdown()
	fmt.Fprintf(stdout, "example server stopping: health NOT_SERVING, draining %v, graceful stop for up to %v\n", cfg.drain, cfg.grace)
	if cfg.drain > 0 {
		drain := time.NewTimer(cfg.drain)
		select {
		case <-drain.C:
		case <-endDrain:
			drain.Stop()
		}
	}
	stopped := make(chan struct{})
	go func() {
		srv.GracefulStop()
		close(stopped)
	}()
	timer := time.NewTimer(cfg.grace)
	defer timer.Stop()
	how := "gracefully"
	select {
	case <-stopped:
	case <-timer.C:
		// Closes the calls still in flight (health Watch streams, for
		// one, never end by themselves); GracefulStop then returns.
		srv.Stop()
		<-stopped
		how = fmt.Sprintf("after the %v grace period, closing the calls still in flight", cfg.grace)
	}
	<-served // Serve returns nil once stopped
	fmt.Fprintf(stdout, "example server stopped %s\n", how)
	return nil
}
