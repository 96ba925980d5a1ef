package decode

// Flat is implemented by the generated messages whose decode into a fresh
// message has nothing to allocate together (grpcfastimpl.Flat has the
// contract): the codec decodes them in a Plain state, without taking the
// slabs and chunks of a FreshDecoding from their pool and giving them back.
type Flat interface {
	GrpcfastFlat()
}

// plainStates are the two Plain states, with the UTF-8 check and without,
// each with its 7-bit twin, set up where they stay: a state points to its
// twin.
var plainStates [2]Decodings

func init() {
	plainStates[0].Init(nil, false, false)
	plainStates[1].Init(nil, false, true)
}

// Plain returns the state of a decode into a fresh message of a Flat type:
// it copies each string and bytes value into an array of its own and
// allocates each nested message alone, as protobuf-go does, and checks
// UTF-8 unless noUTF8. It has no slabs, chunks nor record: a decode only
// reads a state, so every decode of a Flat type, on any goroutine, shares
// one of two.
func Plain(noUTF8 bool) *Decoding {
	if noUTF8 {
		return &plainStates[1].state
	}
	return &plainStates[0].state
}
