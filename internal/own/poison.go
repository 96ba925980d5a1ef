package own

import (
	"math"
	"reflect"
	"unsafe"
)

// Poison is the byte pattern that checked builds write over memory taken
// back: 0xDEADBEEF repeated, easy to spot in a failing test's output.
var poison = [8]byte{0xDE, 0xAD, 0xBE, 0xEF, 0xDE, 0xAD, 0xBE, 0xEF}

// PoisonBytes overwrites b with the poison pattern in checked builds, and
// does nothing otherwise.
func PoisonBytes(b []byte) {
	if !Checked || len(b) == 0 {
		return
	}
	n := copy(b, poison[:])
	for n < len(b) {
		n += copy(b[n:], b[:n])
	}
}

// PoisonScalars overwrites the whole capacity of s, a slice of a type
// without pointers whose every bit pattern is a valid value (integers,
// floats, enums), with the poison pattern in checked builds.
func PoisonScalars[T any](s []T) {
	if !Checked || cap(s) == 0 {
		return
	}
	var zero T
	s = s[:cap(s)]
	PoisonBytes(unsafe.Slice((*byte)(unsafe.Pointer(unsafe.SliceData(s))), len(s)*int(unsafe.Sizeof(zero))))
}

// PoisonString is what a string field of a message taken back holds in
// quarantine builds (PoisonFields): the poison pattern, which is not valid
// UTF-8, so that a reply that echoes the message fails to encode or to
// decode (gRPC's codecs check proto3 strings) instead of arriving empty.
const PoisonString = "\xDE\xAD\xBE\xEF\xDE\xAD\xBE\xEF"

// pattern is the poison pattern as a number.
const pattern = 0xDEADBEEFDEADBEEF

// PoisonFields sets, in quarantine builds, the fields of the struct m
// points to (a generated message or oneof wrapper, reset and never reused)
// to the poison pattern: those that hold a value of their own, strings
// (PoisonString), bytes, numbers, enums, bools (true) and pointers to them
// (proto2 and optional fields), and those that point to a message, to a
// new message whose own such fields are poisoned (so that a oneof wrapper
// or a message whose child a reply echoes carries the pattern too). Fields
// that point into other memory (repeated fields, maps, oneofs) and
// unexported ones are left as they are. Outside quarantine builds it does
// nothing: a message that is reused must stay reset.
func PoisonFields(m any) {
	if !Quarantine {
		return
	}
	if v := reflect.ValueOf(m); v.Kind() == reflect.Pointer && !v.IsNil() && v.Elem().Kind() == reflect.Struct {
		poisonStruct(v.Elem(), true)
	}
}

// poisonStruct poisons the exported fields of struct v (PoisonFields); a
// field that points to a message gets a new one only if children.
func poisonStruct(v reflect.Value, children bool) {
	t := v.Type()
	for i := range t.NumField() {
		if !t.Field(i).IsExported() {
			continue
		}
		if f := v.Field(i); !poisonValue(f) && children {
			poisonMessage(f)
		}
	}
}

// poisonMessage sets v, a pointer to a struct, to a new struct whose
// fields that hold a value of their own are poisoned, and reports whether
// it did.
func poisonMessage(v reflect.Value) bool {
	if v.Kind() != reflect.Pointer || v.Type().Elem().Kind() != reflect.Struct {
		return false
	}
	m := reflect.New(v.Type().Elem())
	poisonStruct(m.Elem(), false)
	v.Set(m)
	return true
}

// poisonValue sets v to the poison pattern if it holds a value of its own
// (PoisonFields), and reports whether it did.
func poisonValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.String:
		v.SetString(PoisonString)
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		u := uint64(pattern)
		v.SetInt(int64(u)) // truncated to the field's size
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(pattern)
	case reflect.Float32, reflect.Float64:
		v.SetFloat(math.Float64frombits(pattern))
	case reflect.Slice:
		if v.Type().Elem().Kind() != reflect.Uint8 {
			return false
		}
		v.SetBytes(append([]byte(nil), poison[:]...))
	case reflect.Pointer:
		if v.Type().Elem().Kind() == reflect.Struct {
			return false
		}
		p := reflect.New(v.Type().Elem())
		if !poisonValue(p.Elem()) {
			return false
		}
		v.Set(p)
	default:
		return false
	}
	return true
}

// poisonElems sets, in quarantine builds, every element of s (the array of
// a repeated string, bytes, bool or message field, never reused) to the
// poison pattern: a message element to one new message whose fields are
// poisoned (PoisonFields). It reports whether it did; elements of another
// kind are left to the caller.
func poisonElems[T any](s []T) bool {
	if !Quarantine {
		return false
	}
	var e T
	v := reflect.ValueOf(&e).Elem()
	if !poisonValue(v) {
		if v.Kind() != reflect.Pointer || v.Type().Elem().Kind() != reflect.Struct {
			return false
		}
		m := reflect.New(v.Type().Elem())
		poisonStruct(m.Elem(), true)
		v.Set(m)
	}
	for i := range s {
		s[i] = e
	}
	return true
}
