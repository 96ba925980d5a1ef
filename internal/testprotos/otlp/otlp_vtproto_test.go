package otlp_test

import (
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
	"github.com/grpcfast/grpcfast/internal/testprotos/otlp"
)

// vtPooled reports whether vtprotobuf generated its pool for m's type (a
// pool= option): ReturnToVTPool is one of the methods it adds.
func vtPooled(m any) bool {
	_, ok := m.(interface{ ReturnToVTPool() })
	return ok
}

// TestVTProtoPeerUnpooled: the OTLP types' vtprotobuf code is generated
// without pool= options, as vtprotobuf's users generate it by default, so
// that the codec=vtproto and path=vt peers of the OTLP benchmarks decode
// as vtprotobuf does. With a pool, vtprotobuf's codec, which never returns
// a message to it, pays a sync.Pool.Get for every nested message it
// decodes (8.5% more instructions per export; docs/measurements.md).
// grpcfast needs no pool= option (docs/vtprotobuf.md).
func TestVTProtoPeerUnpooled(t *testing.T) {
	if !vtPooled(&kinds.Pooled{}) {
		t.Fatal("kinds.Pooled, generated with a pool= option, has no ReturnToVTPool: the probe finds nothing")
	}
	n := 0
	var walk func(ms protoreflect.MessageDescriptors)
	walk = func(ms protoreflect.MessageDescriptors) {
		for i := range ms.Len() {
			md := ms.Get(i)
			walk(md.Messages())
			if md.IsMapEntry() {
				continue
			}
			mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName())
			if err != nil {
				t.Fatal(err)
			}
			n++
			if m := mt.New().Interface(); vtPooled(m) {
				t.Errorf("%T has vtprotobuf's pool: remove its pool= option from testdata/buf.gen.yaml and regenerate", m)
			}
		}
	}
	walk(otlp.File_otlp_otlp_proto.Messages())
	if n < 15 {
		t.Fatalf("checked %d message types of otlp.proto, want its 15 or more", n)
	}
}
