package grpcfastimpl_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/grpcfast/grpcfast"
	"github.com/grpcfast/grpcfast/grpcfastimpl"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
	"github.com/grpcfast/grpcfast/internal/testprotos/proto2"
)

// registrarFunc is a grpc.ServiceRegistrar that hands what it registers to
// a function.
type registrarFunc func(*grpc.ServiceDesc, any)

func (f registrarFunc) RegisterService(desc *grpc.ServiceDesc, impl any) { f(desc, impl) }

// wrappedOption is an option of another package that embeds one of
// grpcfast's: it is that option.
type wrappedOption struct{ grpcfast.PooledOption }

func pooledUnary[Req any]() grpcfastimpl.PooledMethod {
	return grpcfastimpl.PooledUnary("M", func(any, context.Context, *Req) (any, error) { return nil, nil })
}

// TestPooledRegistrarPooling: PooledRegistrar replaces a method's handler
// in a copy of the description, leaving the one given as it was, exactly
// when PooledMethod.Pooling says the method is pooled (the generated
// benchmarks skip their pooled paths on that answer); Pooling reports the
// owned copy only for a request type with a generated decoder; an option
// embedded in a struct of another package applies, a nil one is skipped.
func TestPooledRegistrarPooling(t *testing.T) {
	withCopy := []grpcfast.PooledOption{grpcfast.WithStringsInOneCopy()}
	for _, tc := range []struct {
		name       string
		m          grpcfastimpl.PooledMethod
		opts       []grpcfast.PooledOption
		ok, copies bool
	}{
		{"generated", pooledUnary[kinds.Rich](), nil, true, false},
		{"generated, with the copy", pooledUnary[kinds.Rich](), withCopy, true, true},
		{"generated, a nil option", pooledUnary[kinds.Rich](), []grpcfast.PooledOption{nil}, true, false},
		{"generated, the copy option embedded", pooledUnary[kinds.Rich](),
			[]grpcfast.PooledOption{wrappedOption{grpcfast.WithStringsInOneCopy()}}, true, true},
		{"generated without a decoder (a group), with the copy", pooledUnary[proto2.Item](), withCopy, true, false},
		{"a well-known type", pooledUnary[emptypb.Empty](), withCopy, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if ok, copies := tc.m.Pooling(tc.opts); ok != tc.ok || copies != tc.copies {
				t.Errorf("Pooling: %v, %v; want %v, %v", ok, copies, tc.ok, tc.copies)
			}
			plain := func(any, context.Context, func(any) error, grpc.UnaryServerInterceptor) (any, error) { return nil, nil }
			desc := &grpc.ServiceDesc{ServiceName: "pkg.Svc", HandlerType: (*any)(nil),
				Methods: []grpc.MethodDesc{{MethodName: "Other", Handler: plain}, {MethodName: "M", Handler: plain}}}
			var got *grpc.ServiceDesc
			grpcfastimpl.PooledRegistrar(registrarFunc(func(d *grpc.ServiceDesc, _ any) { got = d }), tc.opts, tc.m).
				RegisterService(desc, nil)
			if got == nil || got == desc || len(got.Methods) != 2 {
				t.Fatalf("registered %p with %d methods, want a copy of %p with 2", got, len(got.Methods), desc)
			}
			same := func(h any) bool { return reflect.ValueOf(h).Pointer() == reflect.ValueOf(plain).Pointer() }
			if !same(got.Methods[0].Handler) || !same(desc.Methods[0].Handler) || !same(desc.Methods[1].Handler) {
				t.Error("a method not listed, or the description given, had its handler changed")
			}
			if swapped := !same(got.Methods[1].Handler); swapped != tc.ok {
				t.Errorf("handler of M replaced: %v, want %v (what Pooling says)", swapped, tc.ok)
			}
		})
	}
}

// TestPooledRegistrarMissingMethod: a method that the description lacks
// panics, naming the service and the method.
func TestPooledRegistrarMissingMethod(t *testing.T) {
	defer func() {
		if msg, _ := recover().(string); !strings.Contains(msg, "service pkg.Svc has no unary method M") {
			t.Errorf("panic %q, want one naming pkg.Svc and M", msg)
		}
	}()
	desc := &grpc.ServiceDesc{ServiceName: "pkg.Svc", HandlerType: (*any)(nil)}
	grpcfastimpl.PooledRegistrar(registrarFunc(func(*grpc.ServiceDesc, any) {}), nil, pooledUnary[kinds.Rich]()).
		RegisterService(desc, nil)
}
