package own

import (
	"math"
	"reflect"
	"sync"
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

// PoisonOwn sets, in checked builds, the fields of the struct m points to
// (a message or oneof wrapper given back, reset, that a later decode
// reuses after ClearOwn) to the poison pattern: strings (PoisonString),
// numbers, enums, bools (true), pointers to them and fields that point to
// a message (nil after the reset) to one of the pattern, shared
// (poisonedPtr), and the elements of the arrays that its repeated message
// fields hold (kept for the next decode, empty) up to their capacity. Bytes
// fields, which hold the arrays that the record keeps for the next decode
// (poisoned in place: KeepBytes), other repeated fields (strings:
// KeepCleared), maps and oneofs are left as they are. A reply that echoes
// the message, or a part of it, given back before gRPC encodes the reply,
// then fails on its strings' invalid UTF-8. It allocates nothing once it
// has seen m's type, and does nothing outside checked builds.
func PoisonOwn(m any) {
	v, plan, ok := ownFields(m)
	switch {
	case !ok:
	case v.Kind() != reflect.Struct:
		poisonValue(v)
	default:
		for _, f := range plan {
			switch fv := v.Field(f.i); {
			case f.messages:
				if fv.Cap() > 0 {
					fillMessages(fv.UnsafePointer(), fv.Cap(), fv.Type().Elem())
				}
			case fv.Kind() == reflect.Pointer: // a message, or an optional field
				fv.Set(poisonedPtr(fv.Type()))
			default:
				poisonValue(fv)
			}
		}
	}
}

// ClearOwn clears what PoisonOwn poisoned, so that the next decode finds
// m reset, its kept arrays in their fields, empty and cleared.
func ClearOwn(m any) {
	v, plan, ok := ownFields(m)
	switch {
	case !ok:
	case v.Kind() != reflect.Struct:
		v.SetZero()
	default:
		for _, f := range plan {
			if fv := v.Field(f.i); f.messages {
				// Not Value.Slice, which allocates.
				clear(unsafe.Slice((*unsafe.Pointer)(fv.UnsafePointer()), fv.Cap()))
			} else {
				fv.SetZero()
			}
		}
	}
}

// ownFields returns, in checked builds, what m points to and, if that is a
// struct, the fields that PoisonOwn and ClearOwn touch (planOf); ok is
// false outside checked builds, and where m is not a pointer or is nil.
func ownFields(m any) (v reflect.Value, plan []fieldPlan, ok bool) {
	if !Checked {
		return v, nil, false
	}
	if v = reflect.ValueOf(m); v.Kind() != reflect.Pointer || v.IsNil() {
		return v, nil, false
	}
	if v = v.Elem(); v.Kind() == reflect.Struct {
		plan = planOf(v.Type())
	}
	return v, plan, true
}

// fieldPlan is a field that PoisonOwn and ClearOwn touch: a string,
// number or bool, a pointer to one or to a message, or (messages) a
// repeated message field.
type fieldPlan struct {
	i        int
	messages bool
}

// plans holds the fieldPlans of each struct type: reflect.Type →
// []fieldPlan.
var plans sync.Map

// planOf returns the exported fields of struct type t that PoisonOwn and
// ClearOwn touch.
func planOf(t reflect.Type) []fieldPlan {
	if p, ok := plans.Load(t); ok {
		return p.([]fieldPlan)
	}
	var plan []fieldPlan
	for i := range t.NumField() {
		f := t.Field(i)
		switch {
		case !f.IsExported():
		case ownValue(f.Type) || isMessage(f.Type):
			plan = append(plan, fieldPlan{i, false})
		case f.Type.Kind() == reflect.Slice && isMessage(f.Type.Elem()):
			plan = append(plan, fieldPlan{i, true})
		}
	}
	p, _ := plans.LoadOrStore(t, plan)
	return p.([]fieldPlan)
}

// poisoned holds, for each pointer type, one value of the pattern that
// every poisoned field of the type points to: pointer type → reflect.Value.
var poisoned sync.Map

// poisonedPtr returns the value of pointer type t that poisoned fields
// share: a scalar of the pattern, or a message whose fields hold it
// (poisonStruct).
func poisonedPtr(t reflect.Type) reflect.Value {
	if v, ok := poisoned.Load(t); ok {
		return v.(reflect.Value)
	}
	p := reflect.New(t.Elem())
	if t.Elem().Kind() == reflect.Struct {
		poisonStruct(p.Elem(), true)
	} else {
		poisonValue(p.Elem())
	}
	v, _ := poisoned.LoadOrStore(t, p)
	return v.(reflect.Value)
}

// ownValue reports whether a value of type t holds a value of its own
// other than bytes: a string, number, bool, or a pointer to one.
func ownValue(t reflect.Type) bool {
	k := t.Kind()
	if k == reflect.Pointer {
		k = t.Elem().Kind()
	}
	switch k {
	case reflect.String, reflect.Bool, reflect.Float32, reflect.Float64,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return true
	}
	return false
}

// isMessage reports whether t is a pointer to a struct: a message.
func isMessage(t reflect.Type) bool {
	return t.Kind() == reflect.Pointer && t.Elem().Kind() == reflect.Struct
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

// poisonElems sets, in checked builds (its caller, KeepCleared, tests
// Checked), every element of s, the array of a repeated string,
// bytes, bool or message field given back, to the poison pattern, and
// reports whether it did; elements of another kind are left to the
// caller. In quarantine builds, which never reuse the array, every kind:
// message elements point to one message of the pattern, shared
// (poisonedPtr). In other checked builds, strings only, which the next
// decode overwrites (it never reads what is beyond the field's length);
// PoisonOwn poisons message elements apart, until the slot is decoded
// into again (ClearOwn).
func poisonElems[T any](s []T) bool {
	if len(s) == 0 {
		return false
	}
	p := unsafe.Pointer(unsafe.SliceData(s))
	switch t := reflect.TypeFor[T](); {
	case t.Kind() == reflect.String:
		for i := range len(s) {
			*(*string)(unsafe.Add(p, uintptr(i)*t.Size())) = PoisonString
		}
	case !Quarantine:
		return false
	case isMessage(t):
		fillMessages(p, len(s), t)
	case t.Kind() == reflect.Bool:
		for i := range len(s) {
			*(*bool)(unsafe.Add(p, uintptr(i)*t.Size())) = true
		}
	case t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8:
		b := append([]byte(nil), poison[:]...)
		for i := range len(s) {
			*(*[]byte)(unsafe.Add(p, uintptr(i)*t.Size())) = b
		}
	default:
		return false
	}
	return true
}

// fillMessages sets the n elements of the array p of pointers to messages
// of type t to the message of the pattern (poisonedPtr).
func fillMessages(p unsafe.Pointer, n int, t reflect.Type) {
	m := poisonedPtr(t).UnsafePointer()
	for i := range n {
		*(*unsafe.Pointer)(unsafe.Add(p, uintptr(i)*unsafe.Sizeof(m))) = m
	}
}
