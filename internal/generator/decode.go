package generator

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"google.golang.org/protobuf/compiler/protogen"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/gofeaturespb"

	"github.com/grpcfast/grpcfast/internal/fieldrule"
)

// decodeMethod is the generated decoder (grpcfastimpl.Decoder).
const decodeMethod = "GrpcfastDecode"

var mathPackage = protogen.GoImportPath("math")

// decodable reports whether the generator writes a decoder for m: every
// message of the open (or hybrid) Go API but map entries and messages with
// groups, extension ranges or weak fields, which protobuf-go decodes (the
// codec decides by type, docs/differences.md).
func decodable(m *protogen.Message) bool {
	d := m.Desc
	if d.IsMapEntry() || m.APILevel == gofeaturespb.GoFeatures_API_OPAQUE || d.ExtensionRanges().Len() > 0 {
		return false
	}
	for _, fd := range m.Fields {
		f := fd.Desc
		if f.IsWeak() || f.Kind() == protoreflect.GroupKind {
			return false
		}
	}
	return true
}

// flat reports whether m, decodable, is grpcfastimpl.Flat: a decode into a
// new message of its type has nothing to allocate together in a fresh
// decode's slabs and chunks, which then cost more than they save. It has
// no field of a message type (nor a map), no oneof (whose wrappers a fresh
// decode takes from slabs), no repeated string or bytes field, and at most
// two singular string or bytes fields: one value costs one allocation in a
// chunk or alone, two cost one or two, and the chunks' pool round trip
// about one more.
func flat(m *protogen.Message) bool {
	values := 0
	for _, fd := range m.Fields {
		f := fd.Desc
		switch {
		case isMessage(f) || realOneof(fd) != nil:
			return false
		case f.Kind() != protoreflect.StringKind && f.Kind() != protoreflect.BytesKind:
		case f.Cardinality() == protoreflect.Repeated:
			return false
		default:
			values++
		}
	}
	return values <= 2
}

// spares names the SpareKind variables of one generated file, one per Go
// type whose values a generated decoder takes from a record's spares.
type spares struct {
	names map[protogen.GoIdent]string
	order []protogen.GoIdent
	used  map[string]bool
	file  string
}

func newSpares(f *protogen.File) *spares {
	return &spares{names: map[protogen.GoIdent]string{}, used: map[string]bool{}, file: fileTag(f)}
}

// fileTag makes the spares' variable names of f unlike those of the other
// files of its Go package, which declare their own: the proto file's path
// without ".proto", every character but letters and digits written "_"
// (google/bytestream/bytestream.proto: google_bytestream_bytestream).
func fileTag(f *protogen.File) string {
	return strings.Map(func(r rune) rune {
		if r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return r
		}
		return '_'
	}, strings.TrimSuffix(f.Desc.Path(), ".proto"))
}

// of returns the variable that holds the SpareKind of t, declaring it.
func (s *spares) of(t protogen.GoIdent) string {
	if n, ok := s.names[t]; ok {
		return n
	}
	// Two types of one name from two Go packages get a number.
	n := "grpcfastSpare_" + s.file + "_" + t.GoName
	for i := 2; s.used[n]; i++ {
		n = fmt.Sprintf("grpcfastSpare_%s_%s%d", s.file, t.GoName, i)
	}
	s.used[n] = true
	s.names[t] = n
	s.order = append(s.order, t)
	return n
}

// gen writes the variables that of declared.
func (s *spares) gen(g *protogen.GeneratedFile) {
	if len(s.order) == 0 {
		return
	}
	g.P("// The lists of spares (nested messages and oneof wrappers that a slot's reset")
	g.P("// recycled) that the generated decoders of this file take from, one per type.")
	g.P("var (")
	for _, t := range s.order {
		g.P(s.names[t], " = ", implPackage.Ident("NewSpareKind"), "() // ", g.QualifiedGoIdent(t))
	}
	g.P(")")
	g.P()
}

// decodedHere reports whether message type m is generated into the file
// f that g writes, and gets a decoder there.
func decodedHere(g *protogen.GeneratedFile, f *protogen.File, m *protogen.Message) bool {
	return m.Desc.ParentFile() == f.Desc && decodable(m)
}

// hasPointer reports whether protoc-gen-go makes fd a pointer to its value:
// a singular number, bool, enum or string field with presence, outside a
// oneof.
func hasPointer(fd *protogen.Field) bool {
	d := fd.Desc
	if d.IsList() || d.IsMap() || realOneof(fd) != nil || !d.HasPresence() {
		return false
	}
	switch d.Kind() {
	case protoreflect.MessageKind, protoreflect.GroupKind, protoreflect.BytesKind:
		return false
	}
	return true
}

// goType returns the Go type of a map key or value field.
func goType(g *protogen.GeneratedFile, fd *protogen.Field) string {
	switch fd.Desc.Kind() {
	case protoreflect.BoolKind:
		return "bool"
	case protoreflect.EnumKind:
		return g.QualifiedGoIdent(fd.Enum.GoIdent)
	case protoreflect.Int32Kind, protoreflect.Sint32Kind, protoreflect.Sfixed32Kind:
		return "int32"
	case protoreflect.Uint32Kind, protoreflect.Fixed32Kind:
		return "uint32"
	case protoreflect.Int64Kind, protoreflect.Sint64Kind, protoreflect.Sfixed64Kind:
		return "int64"
	case protoreflect.Uint64Kind, protoreflect.Fixed64Kind:
		return "uint64"
	case protoreflect.FloatKind:
		return "float32"
	case protoreflect.DoubleKind:
		return "float64"
	case protoreflect.StringKind:
		return "string"
	case protoreflect.BytesKind:
		return "[]byte"
	case protoreflect.MessageKind:
		return "*" + g.QualifiedGoIdent(fd.Message.GoIdent)
	}
	panic("no Go type for " + fd.Desc.Kind().String())
}

// wireOf returns the wire type of fd's values, unpacked.
func wireOf(fd *protogen.Field) protowire.Type {
	switch fd.Desc.Kind() {
	case protoreflect.Fixed32Kind, protoreflect.Sfixed32Kind, protoreflect.FloatKind:
		return protowire.Fixed32Type
	case protoreflect.Fixed64Kind, protoreflect.Sfixed64Kind, protoreflect.DoubleKind:
		return protowire.Fixed64Type
	case protoreflect.StringKind, protoreflect.BytesKind, protoreflect.MessageKind:
		return protowire.BytesType
	}
	return protowire.VarintType
}

// tagOf returns the tag of field number num with wire type w.
func tagOf(num protoreflect.FieldNumber, w protowire.Type) uint64 {
	return uint64(protowire.EncodeTag(num, w))
}

// decodeGen writes one generated decoder.
type decodeGen struct {
	g  *protogen.GeneratedFile
	f  *protogen.File
	sp *spares
	// sweep: the message has string fields outside maps whose UTF-8 is
	// checked; the decoder keeps fIeld (the input from the value on) and
	// aScii for them (utf8).
	sweep bool
	// inMap: the field being written is a map entry's key or value.
	inMap bool
	// inlined: the field being written is a nested message's, decoded by
	// its parent (message).
	inlined bool
	// cases are the cases of the switch on a tag read in the loop (nExt):
	// a goto to a field's label, or code of its own.
	cases []dispatch
	// next is the field expected after the one being written (the next
	// one by number, outside its oneof), nil for none.
	next *protogen.Field
}

// dispatch is a case of the switch on a tag that the decoder could not
// predict: tags, and the label of the field's code or the code that
// replaces a goto.
type dispatch struct {
	tags, comment, label string
	code                 func()
}

// sweeps reports whether fd is a string field outside a map whose UTF-8
// protobuf-go checks.
func sweeps(fd *protogen.Field) bool {
	return !fd.Desc.IsMap() && fieldrule.EnforceUTF8(fd.Desc)
}

func (d *decodeGen) pw(name string) string {
	return d.g.QualifiedGoIdent(protowirePackage.Ident(name))
}

func (d *decodeGen) impl(name string) string {
	return d.g.QualifiedGoIdent(implPackage.Ident(name))
}

// read writes the read of a value of fd's wire type from src into vAl,
// advancing src past it. A varint or a length of one byte, most of them, is
// read inline; the rest by a call.
func (d *decodeGen) read(fd *protogen.Field, src string) {
	g := d.g
	switch wireOf(fd) {
	case protowire.Fixed32Type:
		g.P("vAl, nN := ", d.pw("ConsumeFixed32"), "(", src, ")")
	case protowire.Fixed64Type:
		g.P("vAl, nN := ", d.pw("ConsumeFixed64"), "(", src, ")")
	case protowire.BytesType:
		d.inline("vAl", "[]byte", "len("+src+") > 1 && "+src+"[0] < 0x80 && int("+src+"[0]) < len("+src+")",
			"vAl, "+src+" = "+src+"[1 : 1+int("+src+"[0])], "+src+"[1+int("+src+"[0]):]", d.pw("ConsumeBytes"), src)
		return
	default:
		d.inline("vAl", "uint64", "len("+src+") > 0 && "+src+"[0] < 0x80",
			"vAl, "+src+" = uint64("+src+"[0]), "+src+"[1:]", d.pw("ConsumeVarint"), src)
		return
	}
	d.failRead("nN")
	g.P(src, " = ", src, "[nN:]")
}

// tag writes the read of the tag at the start of src, which is not empty,
// into tAg, advancing src past it: a tag of one byte with a valid field
// number inline, the rest by a call.
func (d *decodeGen) tag(src string) {
	d.g.P("tAg := uint64(", src, "[0])")
	d.inline("tAg", "", "tAg-8 < 0x78", src+" = "+src+"[1:]", d.impl("ReadTag"), src)
}

// inline writes the read of a value from src into v (declared with type
// typ unless typ is ""): the statement fast where cond holds, for the common
// value of one byte; otherwise call(src), which returns the value and its
// length, or a negative length.
func (d *decodeGen) inline(v, typ, cond, fast, call, src string) {
	g := d.g
	if typ != "" {
		g.P("var ", v, " ", typ)
	}
	g.P("if ", cond, " {")
	g.P(fast)
	g.P("} else {")
	g.P("rEad, nN := ", call, "(", src, ")")
	d.failRead("nN")
	g.P(v, ", ", src, " = rEad, ", src, "[nN:]")
	g.P("}")
}

// failRead writes the return of the error of a read that gave n.
func (d *decodeGen) failRead(n string) {
	d.g.P("if ", n, " < 0 {")
	d.g.P("return ", d.impl("ErrWire"), "(", n, ")")
	d.g.P("}")
}

func (d *decodeGen) fail(cond, err string) {
	d.g.P("if ", cond, " {")
	d.g.P("return ", d.impl(err))
	d.g.P("}")
}

// utf8 writes the check of vAl, a value of string field fd, where
// protobuf-go checks it. Outside maps, the first such value of a message
// checks first whether the rest of the message's input (fIeld) is 7-bit,
// once, unless the state checks nothing already: if it is, the decode goes
// on with the state's twin that checks nothing, for this message and those
// nested in it, which do not sweep their input again. If it is not, aScii
// is how much input is left where its 7-bit prefix ends: a string that ends
// with that much left or more lies within the prefix and is not checked
// (the Span name before its fixed64 times, a key before its int value);
// the others are.
//
// A nested message's field that its parent decodes (inlined) is checked
// against the parent's aScii where the parent has one: the string ends
// where the parent's dAtA begins. It is checked unless the parent's sweep
// found it 7-bit, and always in a map entry, whose rest is not dAtA's.
func (d *decodeGen) utf8(fd *protogen.Field) {
	if !fieldrule.EnforceUTF8(fd.Desc) {
		return
	}
	g := d.g
	var guard string // the check's condition, if any
	switch {
	case d.inlined && !d.inMap && d.sweep:
		guard = "aScii < 0 || len(dAtA) < aScii"
	case !d.inlined && !d.inMap:
		g.P("if aScii < 0 {")
		g.P("dEc, aScii = ", d.impl("Sweep"), "(dEc, fIeld)")
		g.P("}")
		guard = "len(dAtA) < aScii"
	}
	if guard != "" {
		g.P("if ", guard, " {")
	}
	g.P("if eRr := ", d.impl("CheckUTF8"), "(dEc, vAl, ", strconv.Quote(string(fd.Desc.FullName())), "); eRr != nil {")
	g.P("return eRr")
	g.P("}")
	if guard != "" {
		g.P("}")
	}
}

// value returns the Go expression of vAl, a value of fd (not a message);
// for a string, after the UTF-8 check it writes. Bytes are never nil
// (protobuf-go's bytes with presence, repeated and map values).
func (d *decodeGen) value(fd *protogen.Field) string {
	g := d.g
	switch fd.Desc.Kind() {
	case protoreflect.StringKind:
		d.utf8(fd)
		return d.impl("String") + "(dEc, vAl)"
	case protoreflect.BytesKind:
		return d.impl("BytesPresent") + "(dEc, vAl)"
	case protoreflect.BoolKind:
		return d.pw("DecodeBool") + "(vAl)"
	case protoreflect.EnumKind:
		return g.QualifiedGoIdent(fd.Enum.GoIdent) + "(int32(vAl))"
	case protoreflect.Int32Kind:
		return "int32(vAl)"
	case protoreflect.Int64Kind:
		return "int64(vAl)"
	case protoreflect.Uint32Kind:
		return "uint32(vAl)"
	case protoreflect.Uint64Kind, protoreflect.Fixed32Kind, protoreflect.Fixed64Kind:
		return "vAl"
	case protoreflect.Sint32Kind:
		return d.impl("DecodeSint32") + "(vAl)"
	case protoreflect.Sint64Kind:
		return d.pw("DecodeZigZag") + "(vAl)"
	case protoreflect.Sfixed32Kind:
		return "int32(vAl)"
	case protoreflect.Sfixed64Kind:
		return "int64(vAl)"
	case protoreflect.FloatKind:
		return g.QualifiedGoIdent(mathPackage.Ident("Float32frombits")) + "(vAl)"
	case protoreflect.DoubleKind:
		return g.QualifiedGoIdent(mathPackage.Ident("Float64frombits")) + "(vAl)"
	}
	panic("not a value: " + fd.Desc.Kind().String())
}

// message writes the decode of vAl into message e of type mt, with depth
// levels left below the current message (protobuf-go fails when a nested
// message would have fewer than zero). Where vAl is one field of mt that
// inlinable accepts, and nothing else, the code of mt's decoder for that
// field is written here, so that the commonest nested messages (an OTLP
// attribute's AnyValue of one string) cost no call: mt's own code for the
// field (its oneof wrapper, presence, the UTF-8 check), with x the nested
// message, and what mt's decoder records of its arrays at its end
// (logArrays). Where vAl is empty, nothing is. Other encodings go to mt's
// decoder, to the runtime's DecodeFieldMask for a google.protobuf.FieldMask,
// or to its DecodeMessage where mt has no decoder here.
func (d *decodeGen) message(e string, mt *protogen.Message, depth string) {
	g := d.g
	d.fail(depth+" < 1", "ErrDepth")
	fields := inlinable(d.f, mt)
	if len(fields) > 0 {
		g.P("switch {")
		// An empty encoding merges nothing: the nested message is a new
		// one, empty, or one that a field before it merged into, whose
		// decode recorded its arrays.
		g.P("case len(vAl) == 0: // empty: nothing to merge")
		for _, fd := range fields {
			// The shape of vAl that is fd alone, and its value's read.
			var cond, value string
			switch tag := tagOf(fd.Desc.Number(), wireOf(fd)); wireOf(fd) {
			case protowire.BytesType:
				cond = fmt.Sprintf("len(vAl) > 1 && vAl[0] == %d && vAl[1] < 0x80 && int(vAl[1]) == len(vAl)-2", tag)
				value = "vAl := vAl[2:]"
			case protowire.VarintType:
				cond = fmt.Sprintf("len(vAl) == 2 && vAl[0] == %d && vAl[1] < 0x80 || len(vAl) == 3 && vAl[0] == %[1]d && vAl[1] >= 0x80 && vAl[2] < 0x80", tag)
				value = "vAl := " + d.impl("ShortVarint") + "(vAl[1:])"
			case protowire.Fixed64Type:
				cond = fmt.Sprintf("len(vAl) == 9 && vAl[0] == %d", tag)
				value = "vAl, _ := " + d.pw("ConsumeFixed64") + "(vAl[1:])"
			case protowire.Fixed32Type:
				cond = fmt.Sprintf("len(vAl) == 5 && vAl[0] == %d", tag)
				value = "vAl, _ := " + d.pw("ConsumeFixed32") + "(vAl[1:])"
			}
			inline := func(cond, value, comment string) {
				g.P("case ", cond, ": // ", fd.Desc.Name(), comment)
				g.P(value)
				g.P("x := ", e)
				d.inlined = true
				d.set(fd)
				d.inlined = false
				d.logArrays(mt)
			}
			inline(cond, value, ", alone: "+decodeMethod+"'s code for it")
			// A wrapper's number may be any varint (a file's mode, a
			// size, a time), its string or bytes longer than 127 bytes:
			// these shapes cost the holder a case more, and protobuf-go's
			// Unmarshal otherwise, where a type of this file has its own
			// decoder.
			if wrappers[mt.Desc.FullName()] {
				switch tag := tagOf(fd.Desc.Number(), wireOf(fd)); wireOf(fd) {
				case protowire.BytesType:
					inline(fmt.Sprintf("len(vAl) > 2 && vAl[0] == %d && vAl[1] >= 0x80 && vAl[2] < 0x80 && int(vAl[1]&0x7f)|int(vAl[2])<<7 == len(vAl)-3", tag),
						"vAl := vAl[3:]", ", alone, of 128 to 16383 bytes")
				case protowire.VarintType:
					inline(fmt.Sprintf("len(vAl) > 3 && vAl[0] == %d && %s(vAl[1:])", tag, d.impl("IsVarint")),
						"vAl, _ := "+d.pw("ConsumeVarint")+"(vAl[1:])", ", alone, of 3 to 10 bytes")
				}
			}
		}
		g.P("default:")
	}
	switch paths := fieldMaskPaths(mt); {
	case decodedHere(g, d.f, mt):
		g.P("if eRr := ", e, ".", decodeMethod, "(vAl, dEc, ", depth, "-1); eRr != nil {")
	case paths != nil:
		g.P("if eRr := ", d.impl("DecodeFieldMask"), "(", e, ", &", e, ".", paths.GoName, ", vAl, dEc); eRr != nil {")
	default:
		g.P("if eRr := ", d.impl("DecodeMessage"), "(", e, ", vAl, dEc, ", depth, "-1); eRr != nil {")
	}
	g.P("return eRr")
	g.P("}")
	if len(fields) > 0 {
		g.P("}")
	}
}

// fieldMaskPaths returns the paths field of mt if mt is
// google.protobuf.FieldMask (field_mask.proto: repeated string paths = 1,
// checked for UTF-8, and nothing else), which protobuf-go generates
// without a decoder of ours, and whose holder decodes it through the
// runtime's DecodeFieldMask, which checks the paths; nil otherwise, and a
// copy of another shape (a vendored file of other syntax) goes to
// protobuf-go.
func fieldMaskPaths(mt *protogen.Message) *protogen.Field {
	if mt.Desc.FullName() != "google.protobuf.FieldMask" || len(mt.Fields) != 1 {
		return nil
	}
	fd := mt.Fields[0]
	if d := fd.Desc; d.Number() != 1 || !d.IsList() || d.Kind() != protoreflect.StringKind || !fieldrule.EnforceUTF8(d) {
		return nil
	}
	return fd
}

// maxInlined is the most fields of a nested message type that its
// parents decode themselves (inlinable): each costs its parent's decoder
// a case.
const maxInlined = 8

// inlinable returns the fields of mt that a parent decodes itself where a
// nested message of type mt is that one field (message), in order of
// number. mt gets its decoder in f, or is one of google.protobuf's
// wrappers (wrappers), and holds one field at a time: it has one field
// (a wrapper: `message UserID { string value = 1; }`), or all
// its fields are one oneof's (OTLP's AnyValue), so that its encoding is
// mostly one field. The fields are singular, not messages, and their tags
// are one byte; none if mt has more than maxInlined. A type of more fields
// is seldom sent with one, and each field inlined would make every
// parent's decoder longer, which costs every stack walk through it (the
// runtime's memory profile samples one allocation per 512 KiB, walking
// the stack, and the walk's cost grows with the functions' length).
func inlinable(f *protogen.File, mt *protogen.Message) []*protogen.Field {
	if (mt.Desc.ParentFile() != f.Desc && !wrappers[mt.Desc.FullName()]) || !decodable(mt) || len(mt.Fields) == 0 {
		return nil
	}
	if o := realOneof(mt.Fields[0]); len(mt.Fields) > 1 && (o == nil || len(o.Fields) != len(mt.Fields)) {
		return nil
	}
	var fields []*protogen.Field
	for _, fd := range mt.Fields {
		d := fd.Desc
		if !d.IsList() && !d.IsMap() && !isMessage(d) && tagOf(d.Number(), wireOf(fd)) < 0x80 {
			fields = append(fields, fd)
		}
	}
	if len(fields) > maxInlined {
		return nil
	}
	slices.SortFunc(fields, func(a, b *protogen.Field) int { return cmp.Compare(a.Desc.Number(), b.Desc.Number()) })
	return fields
}

// wrappers are google.protobuf's wrappers (wrappers.proto), which
// inlinable accepts from another file: protobuf-go generates them, so that
// they have no generated decoder, and the runtime has none either (it does
// not import wrapperspb: limits.md). Their Go fields are protoc-gen-go's,
// as protogen names them, in whichever package go_package puts them.
var wrappers = map[protoreflect.FullName]bool{
	"google.protobuf.DoubleValue": true,
	"google.protobuf.FloatValue":  true,
	"google.protobuf.Int64Value":  true,
	"google.protobuf.UInt64Value": true,
	"google.protobuf.Int32Value":  true,
	"google.protobuf.UInt32Value": true,
	"google.protobuf.BoolValue":   true,
	"google.protobuf.StringValue": true,
	"google.protobuf.BytesValue":  true,
}

// spare writes e = a spare *T, or a new one: TakeSpare (a slot's record)
// and NextSpare (a fresh message's slabs) inline, NewSpare called when
// neither has one.
func (d *decodeGen) spare(e string, t protogen.GoIdent) {
	k := d.sp.of(t)
	d.g.P("if ", e, " = ", d.impl("TakeSpare"), "[", t, "](dEc, ", k, "); ", e, " == nil {")
	d.g.P("if ", e, " = ", d.impl("NextSpare"), "[", t, "](dEc, ", k, "); ", e, " == nil {")
	d.g.P(e, " = ", d.impl("NewSpare"), "[", t, "](dEc, ", k, ")")
	d.g.P("}")
	d.g.P("}")
}

// field writes the cases of fd.
func (d *decodeGen) field(fd *protogen.Field) {
	g := d.g
	desc := fd.Desc
	num := desc.Number()
	w := wireOf(fd)
	kind := desc.Kind()
	isMsg := kind == protoreflect.MessageKind
	tag := tagOf(num, w)
	d.begin(fieldLabel(num, false), strconv.FormatUint(tag, 10), string(desc.Name()))
	if desc.IsMap() {
		d.inMap = true
		d.mapEntry(fd)
		d.inMap = false
		d.end()
		return
	}
	// The elements of a repeated field come one after the other: with a
	// tag of one byte, the next one is decoded without going back to the
	// switch.
	loop := desc.IsList() && tag < 0x80
	if loop && kind == protoreflect.StringKind {
		d.stringRun(fd, tag)
		d.end()
		return
	}
	if loop {
		g.P("for {")
	}
	if sweeps(fd) {
		g.P("fIeld := dAtA")
	}
	endLoop := func() {
		if loop {
			g.P("if len(dAtA) == 0 || dAtA[0] != ", tag, " {")
			g.P("break")
			g.P("}")
			g.P("dAtA = dAtA[1:]")
			g.P("}")
		}
	}
	switch oneof := realOneof(fd); {
	case oneof != nil && isMsg:
		d.read(fd, "dAtA")
		g.P("wR, oK := x.", oneof.GoName, ".(*", fd.GoIdent, ")")
		g.P("if !oK {")
		d.spare("wR", fd.GoIdent)
		g.P("x.", oneof.GoName, " = wR")
		g.P("}")
		g.P("if wR.", fd.GoName, " == nil {")
		d.spare("wR."+fd.GoName, fd.Message.GoIdent)
		g.P("}")
		d.message("wR."+fd.GoName, fd.Message, "dEpth")
	case desc.IsList() && isMsg:
		d.read(fd, "dAtA")
		g.P("var eL *", fd.Message.GoIdent)
		g.P("if nN := len(x.", fd.GoName, "); nN < cap(x.", fd.GoName, ") {")
		g.P("x.", fd.GoName, " = x.", fd.GoName, "[:nN+1]")
		g.P("eL = x.", fd.GoName, "[nN]")
		g.P("} else {")
		g.P("x.", fd.GoName, " = ", d.impl("AppendMessage"), "(x.", fd.GoName, ", dEc, ", tag, ", dAtA)")
		g.P("eL = x.", fd.GoName, "[nN]")
		g.P("}")
		g.P("if eL == nil {")
		d.spare("eL", fd.Message.GoIdent)
		g.P("x.", fd.GoName, "[len(x.", fd.GoName, ")-1] = eL")
		g.P("}")
		d.message("eL", fd.Message, "dEpth")
		endLoop()
	case desc.IsList():
		d.read(fd, "dAtA")
		v := d.value(fd)
		g.P("if len(x.", fd.GoName, ") == cap(x.", fd.GoName, ") {")
		g.P("x.", fd.GoName, " = ", d.impl("Grow"), "(x.", fd.GoName, ", ", tag, ", dAtA)")
		g.P("}")
		g.P("x.", fd.GoName, " = append(x.", fd.GoName, ", ", v, ")")
		endLoop()
		if w != protowire.BytesType {
			// Packed: the same values, one after the other.
			d.end()
			d.begin(fieldLabel(num, true), strconv.FormatUint(tagOf(num, protowire.BytesType), 10), string(desc.Name())+", packed")
			g.P("pAcked, nN := ", d.pw("ConsumeBytes"), "(dAtA)")
			d.failRead("nN")
			g.P("dAtA = dAtA[nN:]")
			switch w {
			case protowire.Fixed32Type:
				g.P("x.", fd.GoName, " = ", d.impl("GrowBy"), "(x.", fd.GoName, ", len(pAcked)/4)")
			case protowire.Fixed64Type:
				g.P("x.", fd.GoName, " = ", d.impl("GrowBy"), "(x.", fd.GoName, ", len(pAcked)/8)")
			default:
				g.P("x.", fd.GoName, " = ", d.impl("GrowBy"), "(x.", fd.GoName, ", ", d.impl("PackedVarints"), "(pAcked))")
			}
			g.P("for len(pAcked) > 0 {")
			d.read(fd, "pAcked")
			g.P("x.", fd.GoName, " = append(x.", fd.GoName, ", ", d.value(fd), ")")
			g.P("}")
		}
	case isMsg:
		d.read(fd, "dAtA")
		g.P("if x.", fd.GoName, " == nil {")
		d.spare("x."+fd.GoName, fd.Message.GoIdent)
		g.P("}")
		d.message("x."+fd.GoName, fd.Message, "dEpth")
	default:
		d.read(fd, "dAtA")
		d.set(fd)
	}
	d.end()
}

// set writes the store of vAl, a value of fd read from the input, into
// message x: fd is a singular field (in a oneof or not) that is not a
// message. decodeGen.field writes it after the read, decodeGen.message in
// the holder of a nested message that is fd alone.
func (d *decodeGen) set(fd *protogen.Field) {
	g := d.g
	switch oneof := realOneof(fd); {
	case oneof != nil:
		g.P("wR, oK := x.", oneof.GoName, ".(*", fd.GoIdent, ")")
		g.P("if !oK {")
		d.spare("wR", fd.GoIdent)
		g.P("x.", oneof.GoName, " = wR")
		g.P("}")
		g.P("wR.", fd.GoName, " = ", d.value(fd))
	case fd.Desc.Kind() == protoreflect.BytesKind && !fd.Desc.HasPresence():
		g.P("x.", fd.GoName, " = ", d.impl("Bytes"), "(dEc, x.", fd.GoName, ", vAl)")
	case hasPointer(fd):
		v := d.value(fd)
		g.P("if x.", fd.GoName, " == nil {")
		g.P("x.", fd.GoName, " = new(", goType(g, fd), ")")
		g.P("}")
		g.P("*x.", fd.GoName, " = ", v)
	default:
		g.P("x.", fd.GoName, " = ", d.value(fd))
	}
}

// fieldLabel is the label of the code of field num, or of its packed form.
func fieldLabel(num protoreflect.FieldNumber, packed bool) string {
	if packed {
		return fmt.Sprintf("dEcode%dpAcked", num)
	}
	return fmt.Sprintf("dEcode%d", num)
}

// begin starts the code of a field (or its packed form) under label, and
// adds tag to the switch of the tags not predicted.
func (d *decodeGen) begin(label, tag, comment string) {
	d.cases = append(d.cases, dispatch{tags: tag, comment: comment, label: label})
	d.g.P(label, ":")
	d.g.P("{ // ", comment)
}

// end ends the code of a field (goOn).
func (d *decodeGen) end() {
	d.goOn()
	d.g.P("}")
}

// goOn writes what follows a field's value: the end of the message where
// the input ends; the next field's code where its tag of one byte comes
// next, as encoders write fields in order of number; otherwise the loop
// that reads a tag and switches on it (nExt).
func (d *decodeGen) goOn() {
	g := d.g
	g.P("if len(dAtA) == 0 {")
	g.P("goto eNd")
	g.P("}")
	if n := d.next; n != nil {
		// A packed field (a scalar, never of the bytes wire type) is
		// expected in its packed form, as encoders write it.
		packed := n.Desc.IsPacked()
		tag := tagOf(n.Desc.Number(), wireOf(n))
		if packed {
			tag = tagOf(n.Desc.Number(), protowire.BytesType)
		}
		if tag < 0x80 {
			g.P("if dAtA[0] == ", tag, " {")
			g.P("dAtA = dAtA[1:]")
			g.P("goto ", fieldLabel(n.Desc.Number(), packed))
			g.P("}")
		}
	}
	g.P("goto nExt")
}

// stringRun writes the decode of the run of values of fd, a repeated
// string field whose tag is one byte: one call of AppendStrings, which
// checks UTF-8 where utf8 would, and not at all for a field that does not
// require it.
func (d *decodeGen) stringRun(fd *protogen.Field, tag uint64) {
	g := d.g
	g.P("var eRr error")
	if fieldrule.EnforceUTF8(fd.Desc) {
		g.P("x.", fd.GoName, ", dAtA, dEc, aScii, eRr = ", d.impl("AppendStrings"), "(dEc, x.", fd.GoName, ", dAtA, ", tag, ", aScii, ", strconv.Quote(string(fd.Desc.FullName())), ")")
	} else {
		g.P("x.", fd.GoName, ", dAtA, _, _, eRr = ", d.impl("AppendStrings"), "(dEc, x.", fd.GoName, ", dAtA, ", tag, ", 0, \"\")")
	}
	g.P("if eRr != nil {")
	g.P("return eRr")
	g.P("}")
}

// mapEntry writes the decode of an entry of map field fd, as protobuf-go's
// consumeMap: a key or value that comes twice is the last one (a message
// value merges), a missing one is the zero value (an empty message), a key
// or value with another wire type, and any other field, is skipped.
func (d *decodeGen) mapEntry(fd *protogen.Field) {
	g := d.g
	key, val := fd.Message.Fields[0], fd.Message.Fields[1]
	d.read(fd, "dAtA")
	g.P("eNtry := vAl")
	// Where protobuf-go counts the entry as a level, it fails before it
	// looks at the wire type (the other cases, below).
	d.fail("dEpth < "+d.impl("MapLevel"), "ErrDepth")
	g.P("var mK ", goType(g, key))
	g.P("var mV ", goType(g, val))
	g.P("for len(eNtry) > 0 {")
	d.tag("eNtry")
	g.P("switch tAg {")
	g.P("case ", tagOf(1, wireOf(key)), ":")
	d.read(key, "eNtry")
	g.P("mK = ", d.value(key))
	g.P("continue")
	g.P("case ", tagOf(2, wireOf(val)), ":")
	d.read(val, "eNtry")
	if val.Desc.Kind() == protoreflect.MessageKind {
		g.P("if mV == nil {")
		d.spare("mV", val.Message.GoIdent)
		g.P("}")
		d.message("mV", val.Message, "dEpth-"+d.impl("MapLevel"))
	} else {
		g.P("mV = ", d.value(val))
	}
	g.P("continue")
	g.P("}")
	g.P("nN := ", d.impl("SkipField"), "(tAg, eNtry)")
	d.failRead("nN")
	g.P("eNtry = eNtry[nN:]")
	g.P("}")
	if val.Desc.Kind() == protoreflect.MessageKind {
		g.P("if mV == nil {")
		d.spare("mV", val.Message.GoIdent)
		g.P("}")
	}
	g.P("if x.", fd.GoName, " == nil {")
	g.P("x.", fd.GoName, " = make(map[", goType(g, key), "]", goType(g, val), ")")
	g.P("}")
	g.P("x.", fd.GoName, "[mK] = mV")
	var other []string
	for _, t := range []protowire.Type{protowire.VarintType, protowire.Fixed64Type, protowire.StartGroupType, protowire.Fixed32Type} {
		other = append(other, strconv.FormatUint(tagOf(fd.Desc.Number(), t), 10))
	}
	d.cases = append(d.cases, dispatch{tags: strings.Join(other, ", "), comment: string(fd.Desc.Name()) + ", another wire type: an unknown field",
		code: func() { d.fail("dEpth < "+d.impl("MapLevel"), "ErrDepth") }})
}

// genDecode writes m's GrpcfastDecode (grpcfastimpl.Decoder).
func genDecode(g *protogen.GeneratedFile, f *protogen.File, m *protogen.Message, sp *spares) {
	d := &decodeGen{g: g, f: f, sp: sp}
	comment(g, decodeMethod+" implements "+d.impl("Decoder")+".")
	g.P("func (x *", m.GoIdent, ") ", decodeMethod, "(dAtA []byte, dEc *", implPackage.Ident("Decoding"), ", dEpth int) error {")
	for _, fd := range m.Fields {
		d.sweep = d.sweep || sweeps(fd)
	}
	if d.sweep {
		g.P("aScii := ", d.impl("Unswept"), "(dEc) // the input left where its 7-bit prefix ends, once swept (utf8)")
	}
	// The fields' code, in order of number, each under its label: a field
	// goes on to the next one's code where the next tag is the one
	// expected (goOn), and to the loop that switches on the tag (nExt)
	// where it is not.
	fields := slices.Clone(m.Fields)
	slices.SortFunc(fields, func(a, b *protogen.Field) int { return cmp.Compare(a.Desc.Number(), b.Desc.Number()) })
	if len(fields) > 0 {
		d.next = fields[0]
		d.goOn()
	}
	for i, fd := range fields {
		d.next = nil
		for _, n := range fields[i+1:] {
			if o := realOneof(fd); o == nil || realOneof(n) != o {
				d.next = n
				break
			}
		}
		d.field(fd)
	}
	if len(fields) > 0 {
		g.P("nExt:")
	}
	g.P("for len(dAtA) > 0 {")
	d.tag("dAtA")
	if len(d.cases) > 0 {
		g.P("switch tAg {")
		for _, c := range d.cases {
			g.P("case ", c.tags, ": // ", c.comment)
			if c.code != nil {
				c.code()
			} else {
				g.P("goto ", c.label)
			}
		}
		g.P("}")
	}
	g.P("// An unknown field, or a known one with another wire type: kept as")
	g.P("// protobuf-go keeps it, its tag in the shortest form.")
	g.P("nN := ", d.impl("SkipField"), "(tAg, dAtA)")
	d.failRead("nN")
	g.P("x.unknownFields = ", d.impl("AppendUnknown"), "(x.unknownFields, tAg, dAtA[:nN])")
	g.P("dAtA = dAtA[nN:]")
	g.P("}")
	if len(fields) > 0 {
		g.P("eNd:")
	}
	d.logArrays(m)
	g.P("return nil")
	g.P("}")
	g.P()
}

// logArrays writes, for a decode into a slot, the record of the fields of
// m that hold an array or a map (grpcfastimpl.LogBytes and the others).
func (d *decodeGen) logArrays(m *protogen.Message) {
	var calls []string
	for _, fd := range m.Fields {
		if realOneof(fd) != nil {
			continue
		}
		var fn string
		switch keepActionOf(fd) {
		case keepBytes:
			fn = "LogBytes"
		case keepScalars:
			fn = "LogScalars"
		case keepCleared, keepMessages:
			fn = "LogCleared"
		case keepMap:
			fn = "LogMap"
		default:
			continue
		}
		calls = append(calls, d.impl(fn)+"(dEc, &x."+fd.GoName+")")
	}
	if len(calls) == 0 {
		return
	}
	d.g.P("if dEc.Record != nil {")
	for _, c := range calls {
		d.g.P(c)
	}
	d.g.P("}")
}

// holdsRequired reports whether md or a message type reachable through its
// fields, in any Go package, has required fields.
func holdsRequired(md protoreflect.MessageDescriptor, seen map[protoreflect.FullName]bool) bool {
	if seen[md.FullName()] {
		return false
	}
	seen[md.FullName()] = true
	if md.RequiredNumbers().Len() > 0 {
		return true
	}
	fields := md.Fields()
	for i := range fields.Len() {
		if sub := fields.Get(i).Message(); sub != nil && holdsRequired(sub, seen) {
			return true
		}
	}
	return false
}
