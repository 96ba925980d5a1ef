package grpcfastbench

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

const (
	// fillDepth is how many levels of nested messages below the filled
	// message Fill sets; deeper message fields are left unset unless they are
	// required.
	fillDepth = 3
	// fillCount is how many elements Fill puts in each repeated field and
	// how many entries in each map.
	fillCount = 2
	// fillBytes is the length of the pattern Fill puts in a bytes field.
	fillBytes = 8
	// fillMaxSize is the largest size Fill grows to: protobuf messages are
	// limited to 2 GiB.
	fillMaxSize = math.MaxInt32
)

// Fill sets every field of m deterministically from its descriptor, then, if size > 0,
// grows it until proto.Size(m) is about size bytes. It returns an error (never panics)
// if m cannot be filled (for example m is nil/read-only).
//
// Fill first clears m (fields, extensions and unknown fields), so the same
// message type and size always give the same bytes under
// proto.MarshalOptions{Deterministic: true}, whatever m held before. The
// result always marshals and unmarshals back to a proto.Equal message and
// passes proto.CheckInitialized.
//
// Values, derived only from the descriptor:
//   - numbers are non-zero (from the field number), bool is true; strings
//     are ASCII, from the field name; bytes are an 8-byte non-zero pattern;
//     an enum is its first value with a non-zero number, else its first value
//     (an implicit-presence enum whose only value is 0 therefore stays unset);
//   - repeated fields get 2 elements, maps 2 entries with distinct keys
//     (for bool keys, true and false);
//   - of each oneof, exactly the first member is set; if that member is a
//     message whose type has a cycle of required fields (see below), the
//     next member is used. Proto3 optional fields are set like plain fields;
//   - message and group fields are filled recursively up to 3 levels below
//     m. Below that, and for a type already on the path from m (recursive
//     types), message fields, repeated message fields and maps with message
//     values are left unset, with two exceptions: a required message field
//     and a oneof member get a message with only its required fields set
//     (recursively), so the result is initialized and each oneof has one
//     member set. Optional fields of a type that can never be initialized
//     are left unset;
//   - extensions are not set.
//
// A message type with a cycle of required message fields (message A
// { required A next = 1; }, or A requires B which requires A) has no finite
// initialized value: Fill returns an error for m of such a type, before
// changing m.
//
// Growing, when size > proto.Size of the fill (the base size), puts the
// bytes where real payloads grow; Fill never shrinks below the base size, so
// for size <= base m is just the base fill. Set fields are searched in the
// filled tree breadth-first in field order, through singular and repeated
// message fields but not map values:
//
//  1. bytes: if m holds a singular bytes field outside the elements of
//     repeated message fields (a payload: WriteRequest.data, Chunk.data),
//     Fill lengthens the longest one at the shallowest level that has any
//     (the first on ties), else the first element of such a repeated bytes
//     field, repeating its value. A bytes field inside an element of a
//     repeated message field is an id or a small value of a batch (an OTLP
//     span's trace_id): it keeps its length, and the batch grows (2).
//  2. Else repeated fields: Fill adds elements to every non-empty repeated
//     field of the tree, one to each in turn (the deepest first), copies of
//     its first element as filled (for varint integer kinds, their widest
//     value), so that every list of the tree gets longer, and stops at the
//     first element that brings proto.Size(m) to size or more.
//  3. Else one long string: the longest singular string at the shallowest
//     level, else the first element of a repeated string field.
//
// A lengthened field (1 and 3) makes proto.Size(m) == size exactly, unless no
// length of that field gives exactly size (at that length a length prefix,
// the field's own or an enclosing message's, gets one byte wider) and
// neither lengthening one other string or bytes value nor widening one other
// integer field's varint (its value changes, still non-zero) makes up the
// few missing bytes. In that case proto.Size(m) is the smallest size above
// size that the field's length gives: at most 1+d bytes over, where d is the
// number of messages the field is nested in below m (a message whose only
// such field is the grown one, a wrapperspb.BytesValue, can be 1 byte over).
// Added elements (2) make proto.Size(m) < size + the encoded size of the
// last element added (plus any length-prefix widening it caused); when the
// only list grown holds varint integers, its last element is then narrowed
// to the narrowest width still reaching size, which makes proto.Size(m) ==
// size unless a length prefix gets wider at that size. Maps are never grown;
// a message with none of these fields stays at its base size.
//
// FillGrowing grows named fields instead, where m holds them.
//
// size must be below 2 GiB. Growing to tens of MiB is fast for string and
// bytes fields (one allocation); growing a repeated field costs one append
// per element.
func Fill(m proto.Message, size int) error {
	return FillGrowing(m, size)
}

// FillGrowing is Fill, except that if m's filled tree holds one of the
// fields named by grow (full names, such as
// google.bytestream.WriteRequest.data), the growth goes there first: into
// those repeated fields, by adding elements to each in turn; else into the
// first of them that is a string or bytes field, by lengthening it (the
// shallowest, longest on ties). A named field m does not hold (unset, too
// deep, or of another message) changes nothing: m grows by Fill's rules.
func FillGrowing(m proto.Message, size int, grow ...protoreflect.FullName) error {
	_, err := fillGrowth(m, size, true, grow...)
	return err
}

// fillGrowth is FillGrowing, and says what grew. With strs false, rule 3
// is off: a message with no bytes field and no repeated field to grow keeps
// the length of its strings (unless grow names one it holds).
func fillGrowth(m proto.Message, size int, strs bool, grow ...protoreflect.FullName) (g growth, err error) {
	if m == nil {
		return g, errors.New("grpcfastbench: Fill: nil message")
	}
	rm := m.ProtoReflect()
	if rm == nil || !rm.IsValid() {
		return g, fmt.Errorf("grpcfastbench: Fill: %T is nil or read-only", m)
	}
	if size > fillMaxSize {
		return g, fmt.Errorf("grpcfastbench: Fill: size %d is not below 2 GiB", size)
	}
	md := rm.Descriptor()
	f := &filler{sat: map[protoreflect.FullName]bool{}}
	if !f.satisfiable(md) {
		return g, fmt.Errorf("grpcfastbench: Fill: %s has a cycle of required message fields, so no finite message of it is initialized", md.FullName())
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("grpcfastbench: Fill %s: %v", md.FullName(), r)
		}
	}()
	clearMessage(rm)
	f.fill(rm, 0, nil)
	g = growth{base: proto.Size(m)}
	if size > 0 {
		g = growTo(rm, size, grow, strs)
	}
	g.size = proto.Size(m)
	return g, nil
}

// clearMessage clears every field, extension and the unknown fields of m.
func clearMessage(m protoreflect.Message) {
	var set []protoreflect.FieldDescriptor
	m.Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
		set = append(set, fd)
		return true
	})
	for _, fd := range set {
		m.Clear(fd)
	}
	if len(m.GetUnknown()) > 0 {
		m.SetUnknown(nil)
	}
}

// filler fills one message; sat memoizes satisfiable.
type filler struct {
	sat map[protoreflect.FullName]bool
}

// satisfiable reports whether a finite initialized message of md exists:
// false when md reaches, through required message fields only, a cycle.
func (f *filler) satisfiable(md protoreflect.MessageDescriptor) bool {
	return f.satisfiableOn(md, map[protoreflect.FullName]bool{})
}

// satisfiableOn is satisfiable with stack, the types on the current chain of
// required fields. A type that reaches one on the stack is on a cycle with it
// (the stack is itself a chain of required fields), so memoizing false for it
// is right.
func (f *filler) satisfiableOn(md protoreflect.MessageDescriptor, stack map[protoreflect.FullName]bool) bool {
	name := md.FullName()
	if ok, done := f.sat[name]; done {
		return ok
	}
	if stack[name] {
		return false
	}
	stack[name] = true
	ok := true
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.Cardinality() == protoreflect.Required && isMessage(fd) && !f.satisfiableOn(fd.Message(), stack) {
			ok = false
			break
		}
	}
	delete(stack, name)
	f.sat[name] = ok
	return ok
}

func isMessage(fd protoreflect.FieldDescriptor) bool {
	return fd.Kind() == protoreflect.MessageKind || fd.Kind() == protoreflect.GroupKind
}

// limited reports whether a message of md, nested in the message at depth
// whose path from the root is path, is left unset: too deep or recursive.
func limited(md protoreflect.MessageDescriptor, depth int, path []protoreflect.FullName) bool {
	if depth+1 > fillDepth {
		return true
	}
	for _, n := range path {
		if n == md.FullName() {
			return true
		}
	}
	return false
}

// fill sets the fields of the empty message m at depth below the root; path
// holds the types of its ancestors.
func (f *filler) fill(m protoreflect.Message, depth int, path []protoreflect.FullName) {
	md := m.Descriptor()
	path = append(path[:len(path):len(path)], md.FullName())
	fields := md.Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			continue
		}
		switch {
		case fd.IsMap():
			f.fillMap(m, fd, depth, path)
		case fd.IsList():
			f.fillList(m, fd, depth, path)
		case isMessage(fd):
			sub := fd.Message()
			if limited(sub, depth, path) {
				if fd.Cardinality() == protoreflect.Required {
					v := m.NewField(fd)
					f.minimal(v.Message())
					m.Set(fd, v)
				}
				continue
			}
			if !f.satisfiable(sub) {
				continue // optional (a required one would make md unsatisfiable)
			}
			v := m.NewField(fd)
			f.fill(v.Message(), depth+1, path)
			m.Set(fd, v)
		default:
			m.Set(fd, scalar(fd, fd.Kind(), string(fd.Name()), int64(fd.Number())))
		}
	}
	oneofs := md.Oneofs()
	for i := range oneofs.Len() {
		if od := oneofs.Get(i); !od.IsSynthetic() {
			f.fillOneof(m, od, depth, path)
		}
	}
}

// fillOneof sets the first member of od that can be set.
func (f *filler) fillOneof(m protoreflect.Message, od protoreflect.OneofDescriptor, depth int, path []protoreflect.FullName) {
	members := od.Fields()
	for i := range members.Len() {
		fd := members.Get(i)
		if !isMessage(fd) {
			m.Set(fd, scalar(fd, fd.Kind(), string(fd.Name()), int64(fd.Number())))
			return
		}
		sub := fd.Message()
		if !f.satisfiable(sub) {
			continue
		}
		v := m.NewField(fd)
		if limited(sub, depth, path) {
			f.minimal(v.Message())
		} else {
			f.fill(v.Message(), depth+1, path)
		}
		m.Set(fd, v)
		return
	}
}

// minimal sets only the required fields of m, recursively. Its type must be
// satisfiable, so the recursion ends.
func (f *filler) minimal(m protoreflect.Message) {
	fields := m.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.Cardinality() != protoreflect.Required {
			continue
		}
		if isMessage(fd) {
			v := m.NewField(fd)
			f.minimal(v.Message())
			m.Set(fd, v)
			continue
		}
		m.Set(fd, scalar(fd, fd.Kind(), string(fd.Name()), int64(fd.Number())))
	}
}

func (f *filler) fillList(m protoreflect.Message, fd protoreflect.FieldDescriptor, depth int, path []protoreflect.FullName) {
	if isMessage(fd) && (limited(fd.Message(), depth, path) || !f.satisfiable(fd.Message())) {
		return
	}
	list := m.Mutable(fd).List()
	for i := range fillCount {
		if isMessage(fd) {
			v := list.NewElement()
			f.fill(v.Message(), depth+1, path)
			list.Append(v)
			continue
		}
		list.Append(scalar(fd, fd.Kind(), string(fd.Name())+"_"+strconv.Itoa(i), int64(fd.Number())+int64(i)))
	}
}

func (f *filler) fillMap(m protoreflect.Message, fd protoreflect.FieldDescriptor, depth int, path []protoreflect.FullName) {
	kd, vd := fd.MapKey(), fd.MapValue()
	if isMessage(vd) && (limited(vd.Message(), depth, path) || !f.satisfiable(vd.Message())) {
		return
	}
	mp := m.Mutable(fd).Map()
	for i := range fillCount {
		var key protoreflect.MapKey
		if kd.Kind() == protoreflect.BoolKind {
			key = protoreflect.ValueOfBool(i == 0).MapKey()
		} else {
			key = scalar(kd, kd.Kind(), string(fd.Name())+"_"+strconv.Itoa(i), int64(i)+1).MapKey()
		}
		var v protoreflect.Value
		if isMessage(vd) {
			v = mp.NewValue()
			f.fill(v.Message(), depth+1, path)
		} else {
			v = scalar(vd, vd.Kind(), string(fd.Name())+"_value_"+strconv.Itoa(i), int64(fd.Number())+int64(i))
		}
		mp.Set(key, v)
	}
}

// scalar is the value of a non-message field of kind k (fd gives the enum
// type); num >= 1 seeds numbers and bytes, name is the string value.
func scalar(fd protoreflect.FieldDescriptor, k protoreflect.Kind, name string, num int64) protoreflect.Value {
	switch k {
	case protoreflect.BoolKind:
		return protoreflect.ValueOfBool(true)
	case protoreflect.EnumKind:
		return protoreflect.ValueOfEnum(enumValue(fd.Enum()))
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return protoreflect.ValueOfInt32(int32(num))
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return protoreflect.ValueOfInt64(num)
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return protoreflect.ValueOfUint32(uint32(num))
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return protoreflect.ValueOfUint64(uint64(num))
	case protoreflect.FloatKind:
		return protoreflect.ValueOfFloat32(float32(num) + 0.5)
	case protoreflect.DoubleKind:
		return protoreflect.ValueOfFloat64(float64(num) + 0.25)
	case protoreflect.StringKind:
		return protoreflect.ValueOfString(name)
	case protoreflect.BytesKind:
		return protoreflect.ValueOfBytes(bytePattern(num, fillBytes))
	}
	panic(fmt.Sprintf("unexpected kind %v of %s", k, fd.FullName()))
}

// enumValue is the first value of ed with a non-zero number, else its first.
func enumValue(ed protoreflect.EnumDescriptor) protoreflect.EnumNumber {
	values := ed.Values()
	for i := range values.Len() {
		if n := values.Get(i).Number(); n != 0 {
			return n
		}
	}
	return values.Get(0).Number()
}

// bytePattern is n non-zero bytes seeded by seed.
func bytePattern(seed int64, n int) []byte {
	b := make([]byte, n)
	for j := range b {
		b[j] = byte((uint64(seed)+uint64(j))%255) + 1
	}
	return b
}

// widths is, for an integer kind encoded as a varint, one non-zero value of
// each encoded width, narrowest first; nil for other kinds.
func widths(k protoreflect.Kind) []protoreflect.Value {
	var vs []protoreflect.Value
	switch k {
	case protoreflect.Int32Kind:
		for w := range 5 {
			vs = append(vs, protoreflect.ValueOfInt32(1<<(7*w)))
		}
		vs = append(vs, protoreflect.ValueOfInt32(-1)) // 10 bytes
	case protoreflect.Int64Kind:
		for w := range 9 {
			vs = append(vs, protoreflect.ValueOfInt64(1<<(7*w)))
		}
		vs = append(vs, protoreflect.ValueOfInt64(-1))
	case protoreflect.Uint32Kind:
		for w := range 5 {
			vs = append(vs, protoreflect.ValueOfUint32(1<<(7*w)))
		}
	case protoreflect.Uint64Kind:
		for w := range 10 {
			vs = append(vs, protoreflect.ValueOfUint64(1<<(7*w)))
		}
	case protoreflect.Sint32Kind: // zigzag doubles positive values
		vs = append(vs, protoreflect.ValueOfInt32(1))
		for w := 1; w < 5; w++ {
			vs = append(vs, protoreflect.ValueOfInt32(1<<(7*w-1)))
		}
	case protoreflect.Sint64Kind:
		vs = append(vs, protoreflect.ValueOfInt64(1))
		for w := 1; w < 10; w++ {
			vs = append(vs, protoreflect.ValueOfInt64(1<<(7*w-1)))
		}
	}
	return vs
}

// slot is a field of a message in the filled tree: a singular field, or
// element idx of a list.
type slot struct {
	m     protoreflect.Message
	fd    protoreflect.FieldDescriptor
	idx   int // -1 for a singular field
	depth int
	// inList: m is, or is inside, an element of a repeated message field,
	// so a bytes value here is an id or a small value of a batch (a span's
	// trace_id), not the payload.
	inList bool
}

func (s slot) get() protoreflect.Value {
	if s.idx < 0 {
		return s.m.Get(s.fd)
	}
	return s.m.Mutable(s.fd).List().Get(s.idx)
}

func (s slot) set(v protoreflect.Value) {
	if s.idx < 0 {
		s.m.Set(s.fd, v)
		return
	}
	s.m.Mutable(s.fd).List().Set(s.idx, v)
}

// length is the length of a string or bytes slot.
func (s slot) length() int {
	if s.fd.Kind() == protoreflect.StringKind {
		return len(s.get().String())
	}
	return len(s.get().Bytes())
}

// lengthener returns a function that sets s to its current value repeated
// to n bytes, for n up to max; the values share one buffer.
func (s slot) lengthener(max int) func(n int) {
	var cur []byte
	if s.fd.Kind() == protoreflect.StringKind {
		cur = []byte(s.get().String())
		if len(cur) == 0 {
			cur = []byte(s.fd.Name())
		}
	} else {
		cur = s.get().Bytes()
		if len(cur) == 0 {
			cur = bytePattern(int64(s.fd.Number()), fillBytes)
		}
	}
	buf := make([]byte, max)
	k := copy(buf, cur)
	for k < max {
		k += copy(buf[k:], buf[:k])
	}
	if s.fd.Kind() == protoreflect.StringKind {
		str := string(buf)
		return func(n int) { s.set(protoreflect.ValueOfString(str[:n])) }
	}
	return func(n int) { s.set(protoreflect.ValueOfBytes(buf[:n:n])) }
}

// tree is the filled message, walked breadth-first.
type tree struct {
	strs  []slot // set singular string and bytes fields
	elems []slot // elements of repeated string and bytes fields
	ints  []slot // set singular varint integer fields
	lists []slot // non-empty repeated fields (idx -1)
}

func walk(root protoreflect.Message) *tree {
	t := &tree{}
	type node struct {
		m      protoreflect.Message
		depth  int
		inList bool
	}
	queue := []node{{root, 0, false}}
	for len(queue) > 0 {
		n := queue[0]
		queue = queue[1:]
		fields := n.m.Descriptor().Fields()
		for i := range fields.Len() {
			fd := fields.Get(i)
			switch {
			case fd.IsMap():
			case fd.IsList():
				list := n.m.Get(fd).List()
				if list.Len() == 0 {
					continue
				}
				t.lists = append(t.lists, slot{n.m, fd, -1, n.depth, n.inList})
				list = n.m.Mutable(fd).List()
				for j := range list.Len() {
					switch {
					case isMessage(fd):
						queue = append(queue, node{list.Get(j).Message(), n.depth + 1, true})
					case fd.Kind() == protoreflect.StringKind || fd.Kind() == protoreflect.BytesKind:
						t.elems = append(t.elems, slot{n.m, fd, j, n.depth, n.inList})
					}
				}
			case !n.m.Has(fd):
			case isMessage(fd):
				queue = append(queue, node{n.m.Mutable(fd).Message(), n.depth + 1, n.inList})
			case fd.Kind() == protoreflect.StringKind || fd.Kind() == protoreflect.BytesKind:
				t.strs = append(t.strs, slot{n.m, fd, -1, n.depth, n.inList})
			case widths(fd.Kind()) != nil:
				t.ints = append(t.ints, slot{n.m, fd, -1, n.depth, n.inList})
			}
		}
	}
	return t
}

// longest is the longest slot at the shallowest depth in slots (in
// breadth-first order), the first on ties.
func longest(slots []slot) int {
	best := 0
	for i, s := range slots {
		if s.depth != slots[0].depth {
			break
		}
		if s.length() > slots[best].length() {
			best = i
		}
	}
	return best
}

// growth says what growTo grew: fields, by added elements or by length,
// or, when there are none, why nothing grew.
type growth struct {
	base, size int // proto.Size of the base fill, and at the end
	fields     []protoreflect.FieldDescriptor
	elements   bool
	kept       string
}

// Why growTo left a message at its base size.
const (
	keptBase    = "its base fill is already that size or more"
	keptNothing = "it has no bytes, repeated or string field to grow (maps never grow)"
	keptStrings = "it has no bytes or repeated field, and its method's other message has one: " +
		"its strings are ids, not a payload, and keep their length (-" + FlagPrefix + "grow names a field to grow anyway)"
)

// growTo grows root, of proto.Size below size, as Fill and FillGrowing
// document, and says what it grew. With strs false, rule 3 is off.
func growTo(root protoreflect.Message, size int, named []protoreflect.FullName, strs bool) growth {
	msg := root.Interface()
	base := proto.Size(msg)
	if base >= size {
		return growth{base: base, kept: keptBase}
	}
	t := walk(root)
	byLength := func(s slot) growth {
		growLength(msg, s, t.others(s), base, size)
		return growth{base: base, fields: []protoreflect.FieldDescriptor{s.fd}}
	}
	byElements := func(lists []slot) growth {
		growLists(msg, lists, size)
		g := growth{base: base, elements: true}
		for _, s := range lists {
			if !slices.Contains(g.fields, s.fd) {
				g.fields = append(g.fields, s.fd)
			}
		}
		return g
	}
	if len(named) > 0 {
		isNamed := func(s slot) bool { return slices.Contains(named, s.fd.FullName()) }
		if lists := filter(t.lists, isNamed); len(lists) > 0 {
			return byElements(lists)
		}
		for _, slots := range [][]slot{t.strs, t.elems} {
			if sel := filter(slots, isNamed); len(sel) > 0 {
				return byLength(sel[longest(sel)])
			}
		}
	}
	// A bytes value inside an element of a repeated message field is an id
	// or a small value of a batch: the batch grows by elements instead.
	isBytes := func(s slot) bool { return s.fd.Kind() == protoreflect.BytesKind && !s.inList }
	isString := func(s slot) bool { return s.fd.Kind() == protoreflect.StringKind }
	if primary, ok := pick(t, isBytes); ok {
		return byLength(primary)
	}
	if len(t.lists) > 0 {
		return byElements(t.lists)
	}
	primary, ok := pick(t, isString)
	switch {
	case !ok:
		return growth{base: base, kept: keptNothing}
	case !strs:
		return growth{base: base, kept: keptStrings}
	}
	return byLength(primary)
}

// payload reports whether the base fill of m's type has something that
// Fill grows before a string: a bytes field outside the elements of repeated
// message fields, or a repeated field.
func payload(m proto.Message) bool {
	c := m.ProtoReflect().New().Interface()
	if err := Fill(c, 0); err != nil {
		return false
	}
	t := walk(c.ProtoReflect())
	if len(t.lists) > 0 {
		return true
	}
	for _, s := range t.strs {
		if s.fd.Kind() == protoreflect.BytesKind && !s.inList {
			return true
		}
	}
	return false
}

// batchFields returns the repeated message fields of m's type (not maps)
// that its base fill sets at the top level: the lists a batch grows by.
func batchFields(m proto.Message) []protoreflect.FullName {
	c := m.ProtoReflect().New().Interface()
	if err := Fill(c, 0); err != nil {
		return nil
	}
	rm := c.ProtoReflect()
	var out []protoreflect.FullName
	fields := rm.Descriptor().Fields()
	for i := range fields.Len() {
		fd := fields.Get(i)
		if fd.IsList() && isMessage(fd) && rm.Get(fd).List().Len() > 0 {
			out = append(out, fd.FullName())
		}
	}
	return out
}

// filter returns the slots that keep accepts, in order.
func filter(slots []slot, keep func(slot) bool) []slot {
	var out []slot
	for _, s := range slots {
		if keep(s) {
			out = append(out, s)
		}
	}
	return out
}

// pick returns the singular field of the kind accepted by keep to lengthen
// (the longest at the shallowest level), else the first such element of a
// repeated field.
func pick(t *tree, keep func(slot) bool) (slot, bool) {
	if strs := filter(t.strs, keep); len(strs) > 0 {
		return strs[longest(strs)], true
	}
	if elems := filter(t.elems, keep); len(elems) > 0 {
		return elems[0], true
	}
	return slot{}, false
}

// others are the slots that can make up a gap left by lengthening primary:
// the other string and bytes values, then the varint integers.
func (t *tree) others(primary slot) []slot {
	var out []slot
	for _, slots := range [][]slot{t.strs, t.elems, t.ints} {
		for _, s := range slots {
			if s != primary {
				out = append(out, s)
			}
		}
	}
	return out
}

// growLength sets the length of primary so that proto.Size(msg) == size, or
// failing that the smallest size above it, using others to make up a gap.
func growLength(msg proto.Message, primary slot, others []slot, base, size int) {
	cur := primary.length()
	// Each byte of the field adds at least one byte to the message, so hi
	// reaches size; lo stays below it.
	lo, hi := cur, cur+(size-base)
	setLen := primary.lengthener(hi)
	sizeAt := func(n int) int {
		setLen(n)
		return proto.Size(msg)
	}
	// Newton steps: each lands on size unless a length prefix changes width.
	n := hi
	for range 4 {
		s := sizeAt(n)
		if s == size {
			return
		}
		if s < size {
			lo = max(lo, n)
			n += size - s
		} else {
			hi = min(hi, n)
			n -= s - size
		}
		if n <= lo || n > hi {
			break
		}
	}
	// hi is the smallest length reaching size: bisect what is left.
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		s := sizeAt(mid)
		if s == size {
			return
		}
		if s < size {
			lo = mid
		} else {
			hi = mid
		}
	}
	// No length gives size: a few bytes short, let another field make up
	// the rest.
	for j := 1; j <= 3 && hi-j >= cur; j++ {
		if sizeAt(hi-j) >= size {
			break
		}
		for _, o := range others {
			if adjust(msg, o, size) {
				return
			}
		}
	}
	setLen(hi)
}

// adjust tries to make proto.Size(msg) == size, from a few bytes below, by
// lengthening the string or bytes slot s or widening its varint; it leaves s
// unchanged if it cannot.
func adjust(msg proto.Message, s slot, size int) bool {
	orig := s.get()
	if k := s.fd.Kind(); k == protoreflect.StringKind || k == protoreflect.BytesKind {
		n := s.length()
		setLen := s.lengthener(n + 8)
		for m := n + 1; m <= n+8; m++ {
			setLen(m)
			if got := proto.Size(msg); got == size {
				return true
			} else if got > size {
				break
			}
		}
	} else {
		for _, v := range widths(s.fd.Kind()) {
			s.set(v)
			if proto.Size(msg) == size {
				return true
			}
		}
	}
	s.set(orig)
	return false
}

// growLists appends elements to the lists, one to each in turn, the last
// (deepest) first, until proto.Size(msg) >= size. An element added is a copy
// of the list's first whose strings differ from those of every other copy
// (distinct), of the same lengths: a list of equal strings would measure a
// decoder that finds values it has seen before (grpcfast's, in a decode
// into a new message) on what few messages hold.
func growLists(msg proto.Message, lists []slot, size int) {
	type grower struct {
		list protoreflect.List
		next func() protoreflect.Value
	}
	gs := make([]grower, len(lists))
	for i, s := range lists {
		list := s.m.Mutable(s.fd).List()
		g := grower{list: list}
		switch ws := widths(s.fd.Kind()); {
		case isMessage(s.fd):
			first := proto.Clone(list.Get(0).Message().Interface())
			n := 0
			g.next = func() protoreflect.Value {
				n++
				m := proto.Clone(first).ProtoReflect()
				distinguish(m, n)
				return protoreflect.ValueOfMessage(m)
			}
		case ws != nil:
			// The widest value whose width the narrower ones continue without
			// a hole (int32's -1 takes 10 bytes, the positive ones at most 5), so
			// narrowing the last element can hit every size in between.
			wide := ws[len(ws)-1]
			if s.fd.Kind() == protoreflect.Int32Kind {
				wide = ws[len(ws)-2]
			}
			g.next = func() protoreflect.Value { return wide }
		case s.fd.Kind() == protoreflect.StringKind:
			first, n := list.Get(0).String(), 0
			g.next = func() protoreflect.Value {
				n++
				return protoreflect.ValueOfString(distinct(first, n))
			}
		default:
			first := protoreflect.ValueOfBytes(slices.Clone(list.Get(0).Bytes()))
			g.next = func() protoreflect.Value { return first }
		}
		gs[len(lists)-1-i] = g
	}
	var last protoreflect.List // the list that got the last element
	round := func() {
		for _, g := range gs {
			g.list.Append(g.next())
		}
		last = gs[len(gs)-1].list
	}
	before := proto.Size(msg)
	round()
	got := proto.Size(msg)
	each := max(got-before, 1)
	// Whole rounds in bulk while far below size (length prefixes widen by a
	// few bytes at most per level and list), then one element at a time.
	slack := 5 * (lists[len(lists)-1].depth + 2) * len(lists)
	for got < size {
		n := (size - got - slack) / each
		if n <= 0 {
			break
		}
		for range n {
			round()
		}
		got = proto.Size(msg)
	}
	for got < size {
		for _, g := range gs {
			g.list.Append(g.next())
			last = g.list
			if got = proto.Size(msg); got >= size {
				break
			}
		}
	}
	// With a single list of integers, narrow the last element to the
	// narrowest width still reaching size.
	if ws := widths(lists[0].fd.Kind()); len(lists) == 1 && ws != nil {
		i := last.Len() - 1
		orig := last.Get(i)
		for _, v := range ws {
			last.Set(i, v)
			if proto.Size(msg) >= size {
				return
			}
		}
		last.Set(i, orig)
	}
}

// distinct returns s with its last bytes, up to 4 of those below 0x80, set
// to the digits of n in base 36: copy n of a string, of its length and
// still valid UTF-8, different from copies 1 to 36^4-1 (fewer where s has
// fewer such bytes; s itself where it has none).
func distinct(s string, n int) string {
	k := 0
	for k < min(len(s), 4) && s[len(s)-1-k] < 0x80 {
		k++
	}
	if k == 0 {
		return s
	}
	b := []byte(s)
	for i := len(b) - 1; i >= len(b)-k; i-- {
		b[i] = "0123456789abcdefghijklmnopqrstuvwxyz"[n%36]
		n /= 36
	}
	return string(b)
}

// distinguish makes the strings of m, and of the messages it holds,
// copy n of themselves (distinct). Map entries are left as they are: the
// keys of one map differ already.
func distinguish(m protoreflect.Message, n int) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap():
		case fd.IsList():
			l := v.List()
			for i := range l.Len() {
				switch {
				case fd.Kind() == protoreflect.StringKind:
					l.Set(i, protoreflect.ValueOfString(distinct(l.Get(i).String(), n)))
				case isMessage(fd):
					distinguish(l.Get(i).Message(), n)
				}
			}
		case fd.Kind() == protoreflect.StringKind:
			m.Set(fd, protoreflect.ValueOfString(distinct(v.String(), n)))
		case isMessage(fd):
			distinguish(v.Message(), n)
		}
		return true
	})
}
