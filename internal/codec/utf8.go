package codec

import (
	"fmt"
	"math"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/grpcfast/grpcfast/internal/decode"
	"github.com/grpcfast/grpcfast/internal/fieldrule"
)

// protobuf-go, and so gRPC's standard codec, refuses to encode or decode a
// string field that holds invalid UTF-8 when the field requires valid UTF-8:
// every string field of a proto3 file, and of an editions file with
// utf8_validation = VERIFY (the default). vtprotobuf's generated code does
// not check. The codec checks the encoded bytes instead: after
// MarshalToSizedBufferVT has written them, guided by a utf8Plan of the
// message type, which walks only the fields and nested messages that can
// hold such strings and skips the rest by their length; and before
// the generated decoders check them as they decode.

// utf8Plan lists the fields of a message type that need a look when the
// message's encoding is checked for invalid UTF-8.
type utf8Plan struct {
	md protoreflect.MessageDescriptor
	// ops says what to do with a field whose tag is one byte (field
	// numbers 1 to 15), by tag: the common case, decided by one lookup.
	ops   [128]utf8Op
	dense []utf8Field // indexed by field number, for numbers below len(dense)
	// sparse holds fields whose numbers are too large for dense.
	sparse map[protowire.Number]*utf8Field
}

// utf8Field is a field of a utf8Plan: a string that must be valid UTF-8, or
// a nested message (message, group or map entry) whose type has a plan.
type utf8Field struct {
	str   protoreflect.FieldDescriptor
	sub   *utf8Plan
	group bool // sub is encoded as a group
}

// utf8Op is what check does with a field with a one-byte tag.
type utf8Op uint8

const (
	opSlow    utf8Op = iota // the general path: field lookup by number
	opVarint                // skip a varint
	opFixed32               // skip 4 bytes
	opFixed64               // skip 8 bytes
	opSkip                  // skip a length-delimited field
	opString                // check a string
	opMessage               // check a nested message
)

// maxDense bounds the table of a utf8Plan that is indexed by field number.
const maxDense = 256

func (p *utf8Plan) field(tag uint64) *utf8Field {
	num := tag >> 3
	if num < uint64(len(p.dense)) {
		if f := &p.dense[num]; f.str != nil || f.sub != nil {
			return f
		}
		return nil
	}
	if p.sparse == nil || num > uint64(protowire.MaxValidNumber) {
		return nil
	}
	return p.sparse[protowire.Number(num)]
}

// newUTF8Plan returns the plan of md, or nil if no message of its type can
// hold a string that must be valid UTF-8 (in itself or in any message type
// reachable through its fields).
func newUTF8Plan(md protoreflect.MessageDescriptor) *utf8Plan {
	type node struct {
		md     protoreflect.MessageDescriptor
		strs   []protoreflect.FieldDescriptor
		subs   []protoreflect.FieldDescriptor
		needed bool
		plan   *utf8Plan
	}
	nodes := map[protoreflect.FullName]*node{}
	var order []*node
	var visit func(md protoreflect.MessageDescriptor) *node
	visit = func(md protoreflect.MessageDescriptor) *node {
		if n := nodes[md.FullName()]; n != nil {
			return n
		}
		n := &node{md: md}
		nodes[md.FullName()] = n
		order = append(order, n)
		fields := md.Fields()
		for i := range fields.Len() {
			fd := fields.Get(i)
			switch {
			case fieldrule.EnforceUTF8(fd):
				n.strs = append(n.strs, fd)
			case fd.Message() != nil:
				n.subs = append(n.subs, fd)
				visit(fd.Message())
			}
		}
		return n
	}
	root := visit(md)
	for changed := true; changed; {
		changed = false
		for _, n := range order {
			if n.needed {
				continue
			}
			n.needed = len(n.strs) > 0
			for _, fd := range n.subs {
				n.needed = n.needed || nodes[fd.Message().FullName()].needed
			}
			changed = changed || n.needed
		}
	}
	if !root.needed {
		return nil
	}
	for _, n := range order {
		if n.needed {
			n.plan = &utf8Plan{md: n.md}
		}
	}
	for _, n := range order {
		if !n.needed {
			continue
		}
		p := n.plan
		set := func(num protowire.Number, f utf8Field) {
			if num < maxDense {
				if int(num) >= len(p.dense) {
					p.dense = append(p.dense, make([]utf8Field, int(num)+1-len(p.dense))...)
				}
				p.dense[num] = f
				return
			}
			if p.sparse == nil {
				p.sparse = map[protowire.Number]*utf8Field{}
			}
			p.sparse[num] = &f
		}
		for _, fd := range n.strs {
			set(fd.Number(), utf8Field{str: fd})
		}
		for _, fd := range n.subs {
			if sub := nodes[fd.Message().FullName()]; sub.needed {
				set(fd.Number(), utf8Field{sub: sub.plan, group: fd.Kind() == protoreflect.GroupKind})
			}
		}
	}
	for _, n := range order {
		if n.needed {
			n.plan.setOps()
		}
	}
	return root.plan
}

// setOps fills p.ops from p's fields.
func (p *utf8Plan) setOps() {
	for tag := range uint64(len(p.ops)) {
		op := opSlow
		switch protowire.Type(tag & 7) {
		case protowire.VarintType:
			op = opVarint
		case protowire.Fixed32Type:
			op = opFixed32
		case protowire.Fixed64Type:
			op = opFixed64
		case protowire.BytesType:
			op = opSkip
			if f := p.field(tag); f != nil {
				switch {
				case f.str != nil:
					op = opString
				case !f.group:
					op = opMessage
				}
			}
		}
		if tag>>3 == 0 {
			op = opSlow // field number 0: left to UnmarshalVT
		}
		p.ops[tag] = op
	}
}

// invalidUTF8Error reports a string field that holds invalid UTF-8.
type invalidUTF8Error struct{ fd protoreflect.FieldDescriptor }

func (e *invalidUTF8Error) Error() string {
	return fmt.Sprintf("grpcfast: field %s contains invalid UTF-8", e.fd.FullName())
}

// check returns an error if b, the encoding of a message of p's type or a
// run of its whole fields, holds invalid UTF-8 in a string field that
// requires valid UTF-8, in the message or in a nested one. It reads fields
// as vtprotobuf's UnmarshalVT does, and stops without an error at anything
// malformed: UnmarshalVT, which decodes b next, reports it. Every
// occurrence of a field is checked, as protobuf-go checks each value it
// decodes, even one that a later occurrence replaces.
func (p *utf8Plan) check(b []byte) error { return p.checkFrom(b, math.MaxInt) }

// checkFrom is check, where high is the length of the rest of b at the
// first byte above 0x7f that a sweep found, or math.MaxInt where none swept
// b yet: the bytes before it are 7-bit, so no string among them, nested
// ones included, needs a look. A string or a nested message at or after it
// sweeps again, so that no byte is swept twice, and a nested message that
// holds it is checked from where the sweep stopped: a repeated message
// field of 7-bit elements costs one sweep, not one per element.
func (p *utf8Plan) checkFrom(b []byte, high int) error {
	for len(b) > 0 {
		c := b[0]
		if c >= 0x80 || len(b) < 2 {
			goto slow
		}
		// A one-byte tag (field numbers up to 15): the common case,
		// decided by one lookup.
		switch op := p.ops[c]; op {
		case opSkip, opString, opMessage:
			var l uint64
			i := 1
			if c := b[1]; c < 0x80 {
				l, i = uint64(c), 2
			} else {
				v, n, st := readVarint(b[1:])
				if st != fieldOK {
					return nil
				}
				l, i = v, 1+n
			}
			if l > uint64(len(b)-i) {
				return nil
			}
			end := i + int(l)
			if op != opSkip {
				if rest := len(b) - i; rest < high {
					n := decode.ASCIIPrefix(b[i:])
					if n == rest {
						return nil
					}
					high = rest - n
				}
				// The value holds the first byte above 0x7f found (at
				// len(b)-high), or follows it.
				if after := len(b) - end; after < high {
					if op == opString {
						if !decode.ValidUTF8(b[i:end]) {
							return &invalidUTF8Error{p.dense[c>>3].str}
						}
					} else if err := p.dense[c>>3].sub.checkFrom(b[i:end], high-after); err != nil {
						return err
					}
				}
			}
			b = b[end:]
			continue
		case opVarint:
			i := 1
			for i < len(b) && i < 11 && b[i] >= 0x80 {
				i++
			}
			if i >= len(b) || i == 11 {
				return nil
			}
			b = b[i+1:]
			continue
		case opFixed32:
			if len(b) < 5 {
				return nil
			}
			b = b[5:]
			continue
		case opFixed64:
			if len(b) < 9 {
				return nil
			}
			b = b[9:]
			continue
		}
	slow:
		n, err := p.checkField(b)
		if n <= 0 {
			return err
		}
		b = b[n:]
	}
	return nil
}

// checkField checks the field at the start of b (len(b) > 0) and returns
// its length, or 0 if check is to stop (with an error or not).
func (p *utf8Plan) checkField(b []byte) (int, error) {
	tag, off, st := readVarint(b)
	if st != fieldOK {
		return 0, nil
	}
	switch protowire.Type(tag & 7) {
	case protowire.VarintType:
		_, n, st := readVarint(b[off:])
		if st != fieldOK {
			return 0, nil
		}
		return off + n, nil
	case protowire.Fixed32Type:
		if len(b)-off < 4 {
			return 0, nil
		}
		return off + 4, nil
	case protowire.Fixed64Type:
		if len(b)-off < 8 {
			return 0, nil
		}
		return off + 8, nil
	case protowire.BytesType:
		l, n, st := readVarint(b[off:])
		off += n
		if st != fieldOK || l > uint64(len(b)-off) {
			return 0, nil
		}
		v := b[off : off+int(l)]
		if f := p.field(tag); f != nil {
			if f.str != nil {
				if !decode.ValidUTF8(v) {
					return 0, &invalidUTF8Error{f.str}
				}
			} else if !f.group {
				if err := f.sub.check(v); err != nil {
					return 0, err
				}
			}
		}
		return off + int(l), nil
	case protowire.StartGroupType:
		body, n := groupBody(b[off:])
		if n < 0 {
			return 0, nil
		}
		if f := p.field(tag); f != nil && f.group {
			if err := f.sub.check(b[off : off+body]); err != nil {
				return 0, err
			}
		}
		return off + n, nil
	}
	return 0, nil
}

// groupBody returns the length of the body of the group that starts at b
// (just after its start tag) and the length of the body and its end tag,
// or -1, -1 if b ends first or holds something malformed. Like vtprotobuf's
// protohelpers.Skip, it does not check that the end tag's field number
// matches, nor the field numbers inside.
func groupBody(b []byte) (int, int) {
	depth := 1
	off := 0
	for off < len(b) {
		tagStart := off
		tag, n, st := readVarint(b[off:])
		if st != fieldOK {
			return -1, -1
		}
		off += n
		switch protowire.Type(tag & 7) {
		case protowire.VarintType:
			_, n, st := readVarint(b[off:])
			if st != fieldOK {
				return -1, -1
			}
			off += n
		case protowire.Fixed32Type:
			off += 4
		case protowire.Fixed64Type:
			off += 8
		case protowire.BytesType:
			l, n, st := readVarint(b[off:])
			if st != fieldOK || l > uint64(len(b)-off-n) {
				return -1, -1
			}
			off += n + int(l)
		case protowire.StartGroupType:
			depth++
		case protowire.EndGroupType:
			depth--
			if depth == 0 {
				return tagStart, off
			}
		default:
			return -1, -1
		}
	}
	return -1, -1
}
