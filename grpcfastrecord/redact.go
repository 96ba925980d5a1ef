package grpcfastrecord

import (
	"fmt"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// redactor clears the fields Options.RedactFields names, by full name,
// wherever they are in a message.
type redactor map[protoreflect.FullName]bool

// newRedactor checks that each name is the full name of a field or an
// extension that a linked .proto file declares.
func newRedactor(names []string) (redactor, error) {
	if len(names) == 0 {
		return nil, nil
	}
	r := redactor{}
	for i, name := range names {
		full := protoreflect.FullName(name)
		if !full.IsValid() {
			return nil, fmt.Errorf("grpcfastrecord: Options.RedactFields[%d] = %q: want the full name of a field, such as pkg.Message.field", i, name)
		}
		d, err := protoregistry.GlobalFiles.FindDescriptorByName(full)
		if err != nil {
			return nil, fmt.Errorf("grpcfastrecord: Options.RedactFields[%d] = %q: no linked .proto file declares it (want the full name of a field, such as pkg.Message.field)", i, name)
		}
		if _, ok := d.(protoreflect.FieldDescriptor); !ok {
			return nil, fmt.Errorf("grpcfastrecord: Options.RedactFields[%d] = %q: not a field but %s (want the full name of a field, such as pkg.Message.field)", i, name, kindOf(d))
		}
		r[full] = true
	}
	return r, nil
}

func kindOf(d protoreflect.Descriptor) string {
	switch d.(type) {
	case protoreflect.MessageDescriptor:
		return "a message"
	case protoreflect.EnumDescriptor:
		return "an enum"
	case protoreflect.EnumValueDescriptor:
		return "an enum value"
	case protoreflect.OneofDescriptor:
		return "a oneof"
	case protoreflect.ServiceDescriptor:
		return "a service"
	case protoreflect.MethodDescriptor:
		return "a method"
	}
	return fmt.Sprintf("a %T", d)
}

// redact clears the named fields of m, and of every message in it: nested,
// an element of a repeated field, a map's value. A required field is set to
// its default instead, so that the recording still decodes.
func (r redactor) redact(m protoreflect.Message) {
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		// Range lets f change the field it is given, and only that one.
		switch {
		case r[fd.FullName()]:
			m.Clear(fd)
			if fd.Cardinality() == protoreflect.Required {
				if fd.Message() != nil {
					m.Set(fd, m.NewField(fd))
				} else {
					m.Set(fd, fd.Default())
				}
			}
		case fd.IsMap():
			if fd.MapValue().Message() != nil {
				v.Map().Range(func(_ protoreflect.MapKey, e protoreflect.Value) bool {
					r.redact(e.Message())
					return true
				})
			}
		case fd.IsList():
			if fd.Message() != nil {
				l := v.List()
				for i := range l.Len() {
					r.redact(l.Get(i).Message())
				}
			}
		case fd.Message() != nil:
			r.redact(v.Message())
		}
		return true
	})
}
