package grpcfastimpl

import "unsafe"

// OwnerPointer is the pointer type of a generated message type M that has
// a decoder in the same generated file: the record and reuse of its fields
// call its GrpcfastRecord and GrpcfastReuse directly, where RecordMessage,
// KeepMessagesSpare and SpareMessage find them by a type assertion.
type OwnerPointer[M any] interface {
	*M
	Owner
}

// RecordOwner is RecordMessage for a field of type P.
func RecordOwner[M any, P OwnerPointer[M]](o *Record, m P) {
	i := o.Open(unsafe.Pointer(m))
	if m != nil {
		m.GrpcfastRecord(o)
	}
	o.Close(i)
}

// RecordOwners is RecordMessages for a repeated field of type P. Its loop
// is RecordOwner written out: RecordOwner does not inline, and a call per
// element shows in BenchmarkDecodeOTLP's slot path.
func RecordOwners[M any, P OwnerPointer[M]](o *Record, s []P) {
	RecordSlice(o, s)
	g := o.OpenGroup()
	for _, m := range s[:cap(s)] {
		i := o.Open(unsafe.Pointer(m))
		if m != nil {
			m.GrpcfastRecord(o)
		}
		o.Close(i)
	}
	o.Close(g)
}

// SpareOwner is SpareMessage for a field of type P.
func SpareOwner[M any, P OwnerPointer[M]](o *Record, k SpareKind, m P) {
	if !o.Generated() {
		ReleaseMessage(o, (*M)(m))
		return
	}
	ok, end := o.MatchMessage(unsafe.Pointer(m))
	if ok {
		m.GrpcfastReuse(o)
		o.PutSpare(k, unsafe.Pointer(m))
	}
	o.Seek(end)
}

// KeepOwnersSpare is KeepMessagesSpare for a repeated field of type P.
func KeepOwnersSpare[M any, P OwnerPointer[M]](o *Record, k SpareKind, s []P) []P {
	// P is *M: the two slice types share their layout.
	ms := *(*[]*M)(unsafe.Pointer(&s))
	if !o.Generated() {
		ms = KeepMessages(o, ms)
	} else {
		ms = keepMessages(o, ms,
			func(m *M) bool { P(m).GrpcfastReuse(o); return true },
			func(m *M) { o.PutSpare(k, unsafe.Pointer(m)) })
	}
	return *(*[]P)(unsafe.Pointer(&ms))
}
