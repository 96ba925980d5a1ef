package codec

import (
	"reflect"
	"sync"
	"sync/atomic"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/grpcfast/grpcfast/internal/fieldrule"
	"github.com/grpcfast/grpcfast/internal/own"
)

// vtInfo is what the codec needs to know about a message type with a
// generated decoder, to encode it.
type vtInfo struct {
	// vtMarshals is false for message types that vtprotobuf encodes
	// wrongly: those that reach a message type with extension ranges
	// through their fields (see hasExtensionRanges). These types are
	// encoded with protobuf-go, as gRPC's codec does.
	vtMarshals bool
	// utf8 is the plan for checking the strings that must be valid UTF-8,
	// nil if the type cannot hold any.
	utf8 *utf8Plan
	// negZero is true for message types that can hold a -0.0 that
	// vtprotobuf's encoding leaves out (fieldrule.HoldsNegZero): their
	// generated messages have GrpcfastNegZero (NegZeroHolder).
	negZero bool
}

var (
	typeInfos sync.Map // reflect.Type → *vtInfo, or a nil *vtInfo
	descInfos sync.Map // protoreflect.MessageDescriptor → *vtInfo
)

// infoCache holds, in front of typeInfos, the vtInfo of generated types
// looked up by the address of their runtime type: a load and a compare,
// where a sync.Map hashes the reflect.Type. Types whose addresses collide
// take turns in a slot and fall back to typeInfos.
var infoCache [64]atomic.Pointer[cachedInfo]

type cachedInfo struct {
	t    reflect.Type
	info *vtInfo
}

// infoSlot returns the slot of infoCache for v's dynamic type.
func infoSlot(v any) *atomic.Pointer[cachedInfo] {
	return &infoCache[uintptr(own.TypePointerOf(v))>>4%uintptr(len(infoCache))]
}

// vtInfoOf returns the vtInfo of v's type. Most calls are one lookup by
// v's Go type: a generated message type has one descriptor. Other types
// (wrappers, dynamic messages) are looked up by their descriptor.
func vtInfoOf(v any) *vtInfo {
	t := reflect.TypeOf(v)
	slot := infoSlot(v)
	if e := slot.Load(); e != nil && e.t == t {
		return e.info
	}
	if info, ok := typeInfos.Load(t); ok {
		if info := info.(*vtInfo); info != nil {
			return info
		}
		return descInfoOf(v.(proto.Message).ProtoReflect().Descriptor())
	}
	return newTypeInfo(v, t)
}

func newTypeInfo(v any, t reflect.Type) *vtInfo {
	md := v.(proto.Message).ProtoReflect().Descriptor()
	info := descInfoOf(md)
	// Cache by Go type only a generated type, whose every value has the
	// descriptor registered for it with that Go type; a nil *vtInfo says
	// to look up by descriptor.
	mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName())
	if err == nil && reflect.TypeOf(mt.Zero().Interface()) == t && mt.Descriptor() == md {
		typeInfos.Store(t, info)
		infoSlot(v).Store(&cachedInfo{t, info})
	} else {
		typeInfos.Store(t, (*vtInfo)(nil))
	}
	return info
}

func descInfoOf(md protoreflect.MessageDescriptor) *vtInfo {
	if info, ok := descInfos.Load(md); ok {
		return info.(*vtInfo)
	}
	info, _ := descInfos.LoadOrStore(md, newVTInfo(md))
	return info.(*vtInfo)
}

func newVTInfo(md protoreflect.MessageDescriptor) *vtInfo {
	return &vtInfo{
		vtMarshals: !hasExtensionRanges(md, map[protoreflect.FullName]bool{}),
		utf8:       newUTF8Plan(md),
		negZero:    fieldrule.HoldsNegZero(md),
	}
}

// hasExtensionRanges reports whether md or a message type reachable through
// its fields has extension ranges. vtprotobuf's SizeVT and
// MarshalToSizedBufferVT leave out extension fields, and its UnmarshalVT
// decodes each extension field with proto.Unmarshal without Merge, which
// first resets the message and so drops the fields decoded before it.
func hasExtensionRanges(md protoreflect.MessageDescriptor, seen map[protoreflect.FullName]bool) bool {
	if seen[md.FullName()] {
		return false
	}
	seen[md.FullName()] = true
	if md.ExtensionRanges().Len() > 0 {
		return true
	}
	fields := md.Fields()
	for i := range fields.Len() {
		if sub := fields.Get(i).Message(); sub != nil && hasExtensionRanges(sub, seen) {
			return true
		}
	}
	return false
}
