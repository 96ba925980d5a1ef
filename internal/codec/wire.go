package codec

import (
	"errors"
	"github.com/grpcfast/grpcfast/internal/decode"
	"io"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// vtprotobuf's UnmarshalVT trusts its input more than protobuf-go, and so
// gRPC's standard codec, does: it recurses into nested messages without a
// limit (a deep enough message exhausts the goroutine stack, a fatal error
// that recover does not catch), reads a field number as int32(tag>>3) (a tag
// of 2^32+n sets field n), keeps field numbers of 2^29 and more as unknown
// fields, and accepts some malformed varints, packed fields and groups.
//
// Before UnmarshalVT decodes a run of fields, the codec walks them once with
// a wirePlan of the message type, without recursion, and rejects what
// protobuf-go rejects for the wire format: field numbers outside
// [1, 2^29-1], wire types 6 and 7, unexpected end-group tags, varints longer
// than protobuf-go reads, lengths past the end, packed fields whose content
// is not a whole number of values, unknown groups that do not close or
// nest deeper than protobuf-go allows, messages nested deeper than
// protobuf-go's RecursionLimit, and strings that must be valid UTF-8 and are
// not. A known field that arrives with another wire type, which UnmarshalVT
// refuses and protobuf-go keeps as an unknown field, sends the message to
// protobuf-go without a decode by UnmarshalVT (errNeedProto).
//
// What the walk accepts, UnmarshalVT decodes without reading past the end
// of any field (the walk has checked every extent it relies on), so a
// message decodes the same way whole or in runs of its top-level fields.

// maxMessageDepth is how deep protobuf-go lets messages nest with its default
// RecursionLimit (proto.Unmarshal, gRPC's codec): the top-level message is at
// depth 0; a map entry counts as a message where mapEntryIsLevel.
const maxMessageDepth = protowire.DefaultRecursionLimit - 1

// mapEntryIsLevel reports whether the protobuf-go that this program links
// counts a map entry toward RecursionLimit, as a nested message
// (decode.MapLevel).
var mapEntryIsLevel = decode.MapLevel == 1

// maxGroupDepth is how deep unknown groups may nest, counting the outermost
// as 1: protobuf-go skips them with protowire.ConsumeFieldValue, which starts
// from DefaultRecursionLimit whatever the depth of the message.
const maxGroupDepth = protowire.DefaultRecursionLimit + 1

// malformedError reports input that protobuf-go rejects too: the codec
// returns it without a decode by protobuf-go.
type malformedError struct {
	reason string
	err    error // io.ErrUnexpectedEOF for truncated input, as UnmarshalVT
}

func (e *malformedError) Error() string {
	if e.err != nil {
		return "grpcfast: cannot parse invalid wire-format data: " + e.reason + ": " + e.err.Error()
	}
	return "grpcfast: cannot parse invalid wire-format data: " + e.reason
}

func (e *malformedError) Unwrap() error { return e.err }

// varintError is the error for a varint that protowire.ConsumeVarint
// rejected with code n.
func varintError(n int) error {
	if errors.Is(protowire.ParseError(n), io.ErrUnexpectedEOF) {
		return errWireTrunc
	}
	return errWireVarint
}

var (
	errWireDepth    = &malformedError{reason: "exceeded maximum recursion depth"}
	errWireNumber   = &malformedError{reason: "invalid field number"}
	errWireType     = &malformedError{reason: "invalid wire type"}
	errWireEndGroup = &malformedError{reason: "unexpected end group"}
	errWireVarint   = &malformedError{reason: "invalid varint"}
	errWireLength   = &malformedError{reason: "length past the end", err: io.ErrUnexpectedEOF}
	errWirePacked   = &malformedError{reason: "invalid packed field"}
	errWireGroup    = &malformedError{reason: "invalid group"}
	errWireTrunc    = &malformedError{reason: "truncated field", err: io.ErrUnexpectedEOF}
)

// errNeedProto says that UnmarshalVT would refuse input that protobuf-go
// accepts: protobuf-go decodes it.
var errNeedProto = errors.New("grpcfast: decoded by protobuf-go")

// finalDecodeError reports whether err, from the walk, is one protobuf-go
// returns for the same input, so that decoding with protobuf-go again is
// pointless.
func finalDecodeError(err error) bool {
	switch err.(type) {
	case *malformedError, *invalidUTF8Error:
		return true
	}
	return false
}

// wireOp is what the walk does with a field.
type wireOp uint8

const (
	wSlow         wireOp = iota // the general path: decode the tag, look up the field
	wVarint                     // skip a varint
	wFixed32                    // skip 4 bytes
	wFixed64                    // skip 8 bytes
	wBytes                      // skip a length-delimited field
	wString                     // a string that must be valid UTF-8
	wMessage                    // a nested message (or map entry): walk it
	wPackedVarint               // packed varints
	wPacked32                   // packed fixed32
	wPacked64                   // packed fixed64
	wGroup                      // an unknown group: skip it as protobuf-go does
	wReject                     // end group outside a group, wire types 6 and 7
)

// wireField is a known field of a wirePlan.
type wireField struct {
	fd    protoreflect.FieldDescriptor
	ops   [8]wireOp // by wire type; wSlow for a wire type UnmarshalVT refuses
	sub   *wirePlan // for messages and map entries
	isMap bool
	// reqBit is the field's bit in its plan's required mask, 0 if the
	// field is not required.
	reqBit uint64
}

// wirePlan is what the walk knows about a message type.
type wirePlan struct {
	// ops decides a field with a one-byte tag (numbers 1 to 15) with one
	// lookup; wSlow sends it to the general path.
	ops    [128]wireOp
	dense  []wireField // by field number, for numbers below len(dense)
	sparse map[protowire.Number]*wireField
	// required has the reqBit of every required field (proto2 required,
	// editions LEGACY_REQUIRED; for a map entry, a value of a message type
	// with required fields, which protobuf-go checks even when absent).
	// UnmarshalVT checks required fields at the end of every occurrence of
	// a message, where protobuf-go checks the message that all occurrences
	// merge into: an occurrence that lacks one sends the message to
	// protobuf-go (errNeedProto) without a decode by UnmarshalVT, which
	// would fail, at a cost of one more decode of all that precedes it.
	required uint64
	// manyRequired: more than 64 required fields, beyond the mask; every
	// message of the type goes to protobuf-go.
	manyRequired bool
	// entry: a map entry's plan. vtprotobuf's decoder ORs a key that comes
	// twice in one entry, replaces a message value that comes twice
	// instead of merging it, and leaves a missing message value nil, where
	// protobuf-go takes the last key, merges, and makes an empty message:
	// the walk sends such an entry to protobuf-go (errNeedProto). Every
	// field of an entry takes the general path, which counts them in
	// entryKey and entryValue.
	entry, entryMessage bool
}

// Bits of a map entry's seen mask (wirePlan.entry): its key and its value.
// A map entry has at most one required bit (its value's), the lowest.
const (
	entryKey   = 1 << 62
	entryValue = 1 << 63
)

// unknownOps is what the walk does with an unknown field, by wire type.
var unknownOps = [8]wireOp{wVarint, wFixed64, wBytes, wGroup, wReject, wFixed32, wReject, wReject}

func (p *wirePlan) field(num uint64) *wireField {
	if num < uint64(len(p.dense)) {
		if f := &p.dense[num]; f.fd != nil {
			return f
		}
		return nil
	}
	if p.sparse == nil {
		return nil
	}
	return p.sparse[protowire.Number(num)]
}

// newWirePlan returns the plan of md and of every message type reachable
// from it (a cyclic graph of message types gives a cyclic graph of plans).
func newWirePlan(md protoreflect.MessageDescriptor) *wirePlan {
	plans := map[protoreflect.FullName]*wirePlan{}
	var build func(md protoreflect.MessageDescriptor) *wirePlan
	build = func(md protoreflect.MessageDescriptor) *wirePlan {
		if p := plans[md.FullName()]; p != nil {
			return p
		}
		p := &wirePlan{}
		plans[md.FullName()] = p
		fields := md.Fields()
		nreq := 0
		for i := range fields.Len() {
			fd := fields.Get(i)
			f := wireField{fd: fd, isMap: fd.IsMap()}
			if fd.Cardinality() == protoreflect.Required ||
				md.IsMapEntry() && fd.Number() == 2 && fd.Message() != nil && fd.Message().RequiredNumbers().Len() > 0 {
				if nreq < 64 {
					f.reqBit = 1 << nreq
					p.required |= f.reqBit
				} else {
					p.manyRequired = true
				}
				nreq++
			}
			for wt := range f.ops {
				f.ops[wt] = wSlow
			}
			switch fd.Kind() {
			case protoreflect.BoolKind, protoreflect.EnumKind, protoreflect.Int32Kind, protoreflect.Sint32Kind,
				protoreflect.Uint32Kind, protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Uint64Kind:
				f.ops[protowire.VarintType] = wVarint
				if fd.IsList() {
					f.ops[protowire.BytesType] = wPackedVarint
				}
			case protoreflect.Sfixed32Kind, protoreflect.Fixed32Kind, protoreflect.FloatKind:
				f.ops[protowire.Fixed32Type] = wFixed32
				if fd.IsList() {
					f.ops[protowire.BytesType] = wPacked32
				}
			case protoreflect.Sfixed64Kind, protoreflect.Fixed64Kind, protoreflect.DoubleKind:
				f.ops[protowire.Fixed64Type] = wFixed64
				if fd.IsList() {
					f.ops[protowire.BytesType] = wPacked64
				}
			case protoreflect.StringKind:
				f.ops[protowire.BytesType] = wBytes
				if enforceUTF8(fd) {
					f.ops[protowire.BytesType] = wString
				}
			case protoreflect.BytesKind:
				f.ops[protowire.BytesType] = wBytes
			case protoreflect.MessageKind:
				f.ops[protowire.BytesType] = wMessage
				f.sub = build(fd.Message())
			default:
				// Groups: types with group fields are not decoded by
				// UnmarshalVT, so their plans are never walked.
				continue
			}
			num := fd.Number()
			if num < maxDense {
				if int(num) >= len(p.dense) {
					p.dense = append(p.dense, make([]wireField, int(num)+1-len(p.dense))...)
				}
				p.dense[num] = f
			} else {
				if p.sparse == nil {
					p.sparse = map[protowire.Number]*wireField{}
				}
				p.sparse[num] = &f
			}
		}
		p.entry = md.IsMapEntry()
		p.entryMessage = p.entry && md.Fields().ByNumber(2).Message() != nil
		for tag := range uint64(len(p.ops)) {
			op := wSlow
			if tag>>3 != 0 && !p.entry {
				if f := p.field(tag >> 3); f != nil {
					op = f.ops[tag&7]
				} else if op = unknownOps[tag&7]; op == wGroup || op == wReject {
					op = wSlow
				}
			}
			p.ops[tag] = op
		}
		return p
	}
	return build(md)
}

// wireFrame is a message the walk has entered: the plan and end of the
// message it left.
type wireFrame struct {
	plan    *wirePlan
	end     int
	seen    uint64 // the required fields seen
	counted bool   // the frame counts toward maxMessageDepth
}

// validate walks b, a run of whole fields of a message of p's type, and
// returns nil if UnmarshalVT may decode it, errNeedProto if protobuf-go must
// decode it instead, or the error for input that protobuf-go rejects.
// Strings are checked for valid UTF-8 only if checkUTF8 is true.
func (p *wirePlan) validate(b []byte, checkUTF8 bool) error {
	var frames [6]wireFrame // deeper messages grow it on the heap
	stack := frames[:0]
	plan, end, i := p, len(b), 0
	needProto := false
	var seen uint64 // required fields seen in the current message
	depth := 0      // nesting of the current message, as protobuf-go counts it
	for {
		for i < end {
			var (
				op  wireOp
				f   *wireField
				hdr int // bytes of the tag
			)
			if c := b[i]; c < 0x80 {
				op, hdr = plan.ops[c], 1
				if op != wSlow {
					if op == wString || op == wMessage || plan.required != 0 {
						f = plan.field(uint64(c >> 3))
					}
					goto do
				}
			}
			{
				tag, n := protowire.ConsumeVarint(b[i:end])
				if n < 0 {
					return varintError(n)
				}
				num, wt := tag>>3, protowire.Type(tag&7)
				if num < uint64(protowire.MinValidNumber) || num > uint64(protowire.MaxValidNumber) {
					return errWireNumber
				}
				hdr = n
				if f = plan.field(num); f != nil {
					if op = f.ops[wt]; op == wSlow {
						// UnmarshalVT refuses a known field with another
						// wire type; protobuf-go keeps it as unknown.
						if f.isMap && mapEntryIsLevel && depth+1 > maxMessageDepth {
							// protobuf-go counts the map entry first.
							return errWireDepth
						}
						needProto = true
						op = unknownOps[wt]
						f = nil
					}
				} else {
					op = unknownOps[wt]
				}
				if op == wGroup {
					n := skipGroup(b[i+hdr:end], num)
					if n < 0 {
						return errWireGroup
					}
					i += hdr + n
					continue
				}
				if op == wReject {
					if wt == protowire.EndGroupType {
						return errWireEndGroup
					}
					return errWireType
				}
			}
		do:
			if f != nil {
				seen |= f.reqBit
				if plan.entry {
					bit := uint64(entryKey)
					if f.fd.Number() == 2 {
						bit = entryValue
					}
					if seen&bit != 0 {
						needProto = true // a key or value twice in one entry
					}
					seen |= bit
				}
			}
			i += hdr
			switch op {
			case wVarint:
				// As protowire.ConsumeVarint: at most 10 bytes, the
				// tenth 0 or 1.
				j := i
				for j < end && b[j] >= 0x80 && j-i < 9 {
					j++
				}
				if j >= end {
					return errWireTrunc
				}
				if j-i == 9 && b[j] > 1 {
					return errWireVarint
				}
				i = j + 1
				continue
			case wFixed32:
				if end-i < 4 {
					return errWireTrunc
				}
				i += 4
				continue
			case wFixed64:
				if end-i < 8 {
					return errWireTrunc
				}
				i += 8
				continue
			}
			// Length-delimited.
			var l uint64
			if i < end && b[i] < 0x80 {
				l = uint64(b[i])
				i++
			} else {
				v, n := protowire.ConsumeVarint(b[i:end])
				if n < 0 {
					return varintError(n)
				}
				l = v
				i += n
			}
			if l > uint64(end-i) {
				return errWireLength
			}
			next := i + int(l)
			switch op {
			case wString:
				if checkUTF8 && !validUTF8(b[i:next]) {
					return &invalidUTF8Error{f.fd}
				}
			case wMessage:
				counted := !f.isMap || mapEntryIsLevel
				if counted {
					if depth+1 > maxMessageDepth {
						return errWireDepth
					}
					depth++
				}
				stack = append(stack, wireFrame{plan, end, seen, counted})
				plan, end, seen = f.sub, next, 0
				continue
			case wPackedVarint:
				if !packedVarintsOK(b[i:next]) {
					return errWirePacked
				}
			case wPacked32:
				if l%4 != 0 {
					return errWirePacked
				}
			case wPacked64:
				if l%8 != 0 {
					return errWirePacked
				}
			}
			i = next
		}
		if seen&plan.required != plan.required || plan.manyRequired || plan.entryMessage && seen&entryValue == 0 {
			needProto = true
		}
		if len(stack) == 0 {
			break
		}
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		plan, end, seen = top.plan, top.end, top.seen
		if top.counted {
			depth--
		}
	}
	if needProto {
		return errNeedProto
	}
	return nil
}

// packedVarintsOK reports whether v is a sequence of whole varints that
// protobuf-go reads: none longer than 10 bytes, none of 10 bytes with bits
// beyond the 64th.
func packedVarintsOK(v []byte) bool {
	if len(v) == 0 {
		return true
	}
	if v[len(v)-1] >= 0x80 {
		return false
	}
	run := 0
	for _, c := range v {
		if c >= 0x80 {
			run++
			continue
		}
		if run >= 9 && (run > 9 || c > 1) {
			return false
		}
		run = 0
	}
	return true
}

// skipGroup returns the length of the unknown group that starts at b (just
// after its start tag, field number num), end tag included, or -1 if
// protobuf-go's protowire.ConsumeFieldValue rejects it. It walks nested
// groups without recursion.
func skipGroup(b []byte, num uint64) int {
	var nums [8]uint64
	stack := append(nums[:0], num)
	i := 0
	for {
		tag, n := protowire.ConsumeVarint(b[i:])
		if n < 0 {
			return -1
		}
		i += n
		// protowire.ConsumeTag: numbers up to MaxInt32 inside a group.
		gnum := tag >> 3
		if gnum < uint64(protowire.MinValidNumber) || gnum > math.MaxInt32 {
			return -1
		}
		switch protowire.Type(tag & 7) {
		case protowire.VarintType:
			_, n = protowire.ConsumeVarint(b[i:])
		case protowire.Fixed32Type:
			n = 4
			if len(b)-i < 4 {
				n = -1
			}
		case protowire.Fixed64Type:
			n = 8
			if len(b)-i < 8 {
				n = -1
			}
		case protowire.BytesType:
			_, n = protowire.ConsumeBytes(b[i:])
		case protowire.StartGroupType:
			if len(stack) >= maxGroupDepth {
				return -1
			}
			stack = append(stack, gnum)
			continue
		case protowire.EndGroupType:
			if gnum != stack[len(stack)-1] {
				return -1
			}
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return i
			}
			continue
		default:
			return -1
		}
		if n < 0 {
			return -1
		}
		i += n
	}
}
