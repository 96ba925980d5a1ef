package own

import (
	"sync"
	"sync/atomic"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// ClipViews sets the capacity of every bytes field, element and map value
// of m, at any depth, to its length. vtprotobuf's UnmarshalVTUnsafe leaves
// them views of its input whose capacity runs to the input's end; with the
// owned copy that input is the array that the request's strings view, and
// an append to a bytes field would write into those strings. The generated
// decoder makes its views clipped; this is for a message that
// UnmarshalVTUnsafe decoded whole, once, after the decode.
//
// It visits fields by their descriptors, not with Range, which skips a
// proto3 bytes field that is empty: a peer may still send one, and its
// view has the copy's capacity all the same. Message types from which no
// bytes field can be reached are not walked.
func ClipViews(m proto.Message) {
	if m != nil {
		r := m.ProtoReflect()
		if reachesBytes(r.Descriptor()) {
			Clipped.Add(int64(clipMessage(r)))
		}
	}
}

// clipMessage clips m's bytes values and returns how many it set. m may be
// a nil message: vtprotobuf's decoder leaves the value of a map entry that
// has none (a peer's "*\x00") nil.
func clipMessage(m protoreflect.Message) (n int) {
	if !m.IsValid() {
		return 0
	}
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() && m.WhichOneof(od) != fd {
			continue
		}
		switch {
		case fd.IsList():
			if (fd.Kind() != protoreflect.BytesKind && fd.Message() == nil) || !m.Has(fd) {
				continue
			}
			if fd.Message() != nil && !reachesBytes(fd.Message()) {
				continue
			}
			l := m.Get(fd).List()
			for i := range l.Len() {
				if fd.Kind() == protoreflect.BytesKind {
					l.Set(i, clipValue(l.Get(i)))
					n++
				} else {
					n += clipMessage(l.Get(i).Message())
				}
			}
		case fd.IsMap():
			vd := fd.MapValue()
			if (vd.Kind() != protoreflect.BytesKind && (vd.Message() == nil || !reachesBytes(vd.Message()))) || !m.Has(fd) {
				continue
			}
			mp := m.Get(fd).Map()
			if vd.Kind() == protoreflect.BytesKind {
				var keys []protoreflect.MapKey
				mp.Range(func(k protoreflect.MapKey, _ protoreflect.Value) bool {
					keys = append(keys, k)
					return true
				})
				for _, k := range keys {
					mp.Set(k, clipValue(mp.Get(k)))
				}
				n += len(keys)
				continue
			}
			mp.Range(func(_ protoreflect.MapKey, v protoreflect.Value) bool {
				n += clipMessage(v.Message())
				return true
			})
		case fd.Kind() == protoreflect.BytesKind:
			// Even when empty: a Value does not keep a slice's capacity
			// (Bytes returns it clipped), so there is no telling whether
			// the field needs it, and setting an empty proto3 bytes field
			// leaves it unset, as it was.
			if fd.HasPresence() && !m.Has(fd) {
				continue
			}
			m.Set(fd, clipValue(m.Get(fd)))
			n++
		case fd.Message() != nil:
			if m.Has(fd) && reachesBytes(fd.Message()) {
				n += clipMessage(m.Get(fd).Message())
			}
		}
	}
	return n
}

// Clipped counts the bytes values that ClipViews has set, for the tests
// that check that each value of a request is clipped once, not once per
// decode of a message that merges into it: one add per request.
var Clipped atomic.Int64

// clipValue returns bytes value v with its capacity set to its length.
func clipValue(v protoreflect.Value) protoreflect.Value {
	b := v.Bytes()
	return protoreflect.ValueOfBytes(b[:len(b):len(b)])
}

// reaches caches reachesBytes: protoreflect.FullName → bool.
var reaches sync.Map

// reachesBytes reports whether a message of type md can hold a bytes
// value, in a field of its own or of a message under it.
func reachesBytes(md protoreflect.MessageDescriptor) bool {
	if v, ok := reaches.Load(md.FullName()); ok {
		return v.(bool)
	}
	r := findBytes(md, map[protoreflect.FullName]bool{})
	reaches.Store(md.FullName(), r)
	return r
}

func findBytes(md protoreflect.MessageDescriptor, seen map[protoreflect.FullName]bool) bool {
	if seen[md.FullName()] {
		return false
	}
	seen[md.FullName()] = true
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.IsMap() {
			fd = fd.MapValue()
		}
		if fd.Kind() == protoreflect.BytesKind || fd.Message() != nil && findBytes(fd.Message(), seen) {
			return true
		}
	}
	return false
}
