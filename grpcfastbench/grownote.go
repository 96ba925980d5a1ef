package grpcfastbench

import (
	"fmt"
	"strings"
	"sync"

	"google.golang.org/protobuf/reflect/protoreflect"
)

// describe says, in one line, what flag (such as "-grpcfast.size=16384")
// did to a message of type msg: which fields grew and how, or why none did.
func (g growth) describe(flag string, msg protoreflect.FullName) string {
	if len(g.fields) == 0 {
		return fmt.Sprintf("%s keeps %s at %d bytes: %s", flag, msg, g.size, g.kept)
	}
	names := make([]string, len(g.fields))
	for i, fd := range g.fields {
		names[i] = fieldLabel(fd)
	}
	how := "longer"
	if g.elements {
		how = "by added elements"
	}
	return fmt.Sprintf("%s grows %s from %d to %d bytes: %s, %s", flag, msg, g.base, g.size, strings.Join(names, ", "), how)
}

// fieldLabel names fd by its message's short name, with its kind:
// "CreateUserRequest.name (string)", "CreateUsersRequest.users (repeated
// CreateUserRequest)".
func fieldLabel(fd protoreflect.FieldDescriptor) string {
	kind := fd.Kind().String()
	if isMessage(fd) {
		kind = string(fd.Message().Name())
	}
	if fd.IsList() {
		kind = "repeated " + kind
	}
	return fmt.Sprintf("%s.%s (%s)", fd.ContainingMessage().Name(), fd.Name(), kind)
}

// growNote is what one size flag did to the filled messages of one type.
type growNote struct {
	flag string // "-grpcfast.size=16384", "-grpcfast.batch=16384 (shape=batch)"
	msg  protoreflect.FullName
	g    growth
}

func (n growNote) String() string { return n.g.describe(n.flag, n.msg) }

// noted holds the (flag, message type) pairs whose growNote this process
// has printed: each once per process, however many methods and services
// fill that type.
var noted sync.Map

// newNotes returns the notes of notes that this process has not printed
// yet, in order, and marks them printed.
func newNotes(notes []growNote) []growNote {
	var out []growNote
	for _, n := range notes {
		if _, done := noted.LoadOrStore(n.flag+" "+string(n.msg), true); !done {
			out = append(out, n)
		}
	}
	return out
}
