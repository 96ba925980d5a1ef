package own

import (
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// ClipViews sets the capacity of every bytes field, element and map value
// of m, at any depth, to its length. vtprotobuf's UnmarshalVTUnsafe leaves
// them views of its input whose capacity runs to the input's end; with the
// owned copy that input is the array that the request's strings view, and
// an append to a bytes field would write into those strings. The generated
// decoder makes such views clipped; this is for what vtprotobuf decoded.
func ClipViews(m proto.Message) {
	if m != nil {
		clipMessage(m.ProtoReflect())
	}
}

func clipMessage(m protoreflect.Message) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsList():
			l := v.List()
			for i := range l.Len() {
				switch {
				case fd.Kind() == protoreflect.BytesKind:
					l.Set(i, clipValue(l.Get(i)))
				case fd.Message() != nil:
					clipMessage(l.Get(i).Message())
				}
			}
		case fd.IsMap():
			mp := v.Map()
			switch vd := fd.MapValue(); {
			case vd.Kind() == protoreflect.BytesKind:
				var keys []protoreflect.MapKey
				mp.Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
					keys = append(keys, k)
					return true
				})
				for _, k := range keys {
					mp.Set(k, clipValue(mp.Get(k)))
				}
			case vd.Message() != nil:
				mp.Range(func(_ protoreflect.MapKey, v protoreflect.Value) bool {
					clipMessage(v.Message())
					return true
				})
			}
		case fd.Kind() == protoreflect.BytesKind:
			// A Value does not keep a slice's capacity (Bytes returns it
			// clipped), so there is no telling whether the field needs it.
			m.Set(fd, clipValue(v))
		case fd.Message() != nil:
			clipMessage(v.Message())
		}
		return true
	})
}

// clipValue returns bytes value v with its capacity set to its length.
func clipValue(v protoreflect.Value) protoreflect.Value {
	b := v.Bytes()
	return protoreflect.ValueOfBytes(b[:len(b):len(b)])
}
