package codec

import (
	"reflect"
	"sync"
	"sync/atomic"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/grpcfast/grpcfast/internal/own"
)

// vtInfo is what the codec needs to know about a message type with
// vtprotobuf methods.
type vtInfo struct {
	// vtMarshals is false for message types that vtprotobuf encodes
	// wrongly: those with extension ranges, directly or in a nested
	// message type (see hasExtensionRanges). These types are encoded with
	// protobuf-go, as gRPC's codec does.
	vtMarshals bool
	// vtDecodes is false for message types that UnmarshalVT decodes wrongly:
	// those that contain a group field, directly or in a nested message.
	// vtprotobuf v0.6 looks at the wrong wire type when it looks for the end
	// of a group, and fails with io.ErrUnexpectedEOF on every valid group.
	// These types are decoded with protobuf-go, as gRPC's codec does, and
	// so are those with extension ranges and those for which
	// poolKeepsPresence is true.
	vtDecodes bool
	// required is true for types with required fields (proto2 required,
	// editions LEGACY_REQUIRED): UnmarshalVT checks them at the end of each
	// call, so such a message cannot be decoded in pieces.
	required bool
	// utf8 is the plan for checking the strings that must be valid UTF-8,
	// nil if the type cannot hold any.
	utf8 *utf8Plan
	// wire is the plan of the walk that checks the encoding of a message
	// before UnmarshalVT decodes it (wire.go).
	wire *wirePlan
}

var (
	typeInfos sync.Map // reflect.Type → *vtInfo, or a nil *vtInfo
	descInfos sync.Map // protoreflect.MessageDescriptor → *vtInfo

	// opaqueInfo is for types that are not proto.Message and so cannot be
	// inspected: trust UnmarshalVT, but decode in one piece.
	opaqueInfo = &vtInfo{vtMarshals: true, vtDecodes: true, required: true}
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
	pm, ok := v.(proto.Message)
	if !ok {
		typeInfos.Store(t, opaqueInfo)
		return opaqueInfo
	}
	md := pm.ProtoReflect().Descriptor()
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
	ext := hasExtensionRanges(md, map[protoreflect.FullName]bool{})
	return &vtInfo{
		vtMarshals: !ext,
		vtDecodes: !ext && !hasGroups(md, map[protoreflect.FullName]bool{}) &&
			!poolKeepsPresence(md, pooledType),
		required: md.RequiredNumbers().Len() > 0,
		utf8:     newUTF8Plan(md),
		wire:     newWirePlan(md),
	}
}

// presenceBytes returns md's singular bytes fields that track presence
// (proto2 optional, proto3 optional, editions explicit presence) outside a
// oneof: vtprotobuf's ResetVT leaves them empty but present.
func presenceBytes(md protoreflect.MessageDescriptor) []protoreflect.FieldDescriptor {
	var out []protoreflect.FieldDescriptor
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		od := fd.ContainingOneof()
		if fd.Kind() == protoreflect.BytesKind && !fd.IsList() && fd.HasPresence() && (od == nil || od.IsSynthetic()) {
			out = append(out, fd)
		}
	}
	return out
}

// hasGroups reports whether md or a message type reachable through its
// fields has a group field (in editions, a message field with delimited
// encoding, which is the same on the wire).
func hasGroups(md protoreflect.MessageDescriptor, seen map[protoreflect.FullName]bool) bool {
	if seen[md.FullName()] {
		return false
	}
	seen[md.FullName()] = true
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.Kind() == protoreflect.GroupKind {
			return true
		}
		if sub := fd.Message(); sub != nil && hasGroups(sub, seen) {
			return true
		}
	}
	return false
}

// poolKeepsPresence reports whether UnmarshalVT may decode a message of
// type md into a nested message that holds an optional bytes field left
// present by vtprotobuf's ResetVT, given which message types are pooled
// (generated with vtprotobuf's pool feature).
//
// When a pooled type has a message field (singular, repeated or oneof; not
// a map) of a pooled type, its UnmarshalVT takes the nested message from
// vtprotobuf's pool or reuses a repeated element beyond the field's length,
// and both were reset with ResetVT, which keeps m.F[:0] of the nested
// message's optional bytes fields: they read as present after the decode
// though the input lacks them. Nothing the codec can do before or after
// UnmarshalVT tells such a field from one that arrived empty, so messages
// of such types are decoded with protobuf-go instead.
func poolKeepsPresence(md protoreflect.MessageDescriptor, pooled func(protoreflect.MessageDescriptor) bool) bool {
	seen := map[protoreflect.FullName]bool{}
	var walk func(md protoreflect.MessageDescriptor) bool
	walk = func(md protoreflect.MessageDescriptor) bool {
		if seen[md.FullName()] {
			return false
		}
		seen[md.FullName()] = true
		parentPooled := pooled(md)
		fields := md.Fields()
		for i := range fields.Len() {
			fd := fields.Get(i)
			sub := fd.Message()
			if sub == nil {
				continue
			}
			if parentPooled && !fd.IsMap() && pooled(sub) && len(presenceBytes(sub)) > 0 {
				return true
			}
			if walk(sub) {
				return true
			}
		}
		return false
	}
	return walk(md)
}

// pooledType reports whether the Go type registered for md is pooled by
// vtprotobuf.
func pooledType(md protoreflect.MessageDescriptor) bool {
	mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName())
	if err != nil {
		return false
	}
	_, ok := mt.Zero().Interface().(own.VTPooled)
	return ok
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
