package own

import "unsafe"

// Copy marks. A pooled handler with the owned copy turned on marks a
// prepared message PreparedCopy instead of Prepared: the codec then copies
// the whole encoded message into one new array that is never reused, and
// decodes with UnmarshalVTUnsafe, so that the message's strings and bytes are
// views of that array; after a successful decode it replaces the mark with
// DecodedCopy, and the record of the message's memory then leaves out what
// points into the array (see Owned.SetViews). The marks are empty slices of
// arrays of their own, as Prepared and Decoded are.
var copyMarks = [2]*[1]byte{new([1]byte), new([1]byte)}

func isCopyMark(b []byte, i int) bool {
	return cap(b) == 0 && unsafe.SliceData(b) == &copyMarks[i][0]
}

// SetPreparedCopy marks the unknown fields *uf of a prepared message for a
// decode into one owned copy.
func SetPreparedCopy(uf *[]byte) { *uf = copyMarks[0][:0:0] }

// TakePreparedCopy reports whether *uf carries the PreparedCopy mark, and
// removes it.
func TakePreparedCopy(uf *[]byte) bool {
	if isCopyMark(*uf, 0) {
		*uf = nil
		return true
	}
	return false
}

// SetDecodedCopy marks a message that a grpcfast codec decoded as views of
// one owned copy. As with SetDecoded, a message that got unknown fields is
// not marked.
func SetDecodedCopy(uf *[]byte) {
	if len(*uf) == 0 {
		*uf = copyMarks[1][:0:0]
	}
}

// TakeDecodedCopy reports whether *uf carries the DecodedCopy mark, and
// removes it.
func TakeDecodedCopy(uf *[]byte) bool {
	if isCopyMark(*uf, 1) {
		*uf = nil
		return true
	}
	return false
}

// SetViews makes the record leave out, from now until Clear, the arrays of
// bytes fields: after a decode into one owned copy they are views of it,
// which must never be written into (strings of the same message point into
// it too) nor reused.
func (o *Owned) SetViews() { o.views = true }

// isBytes reports whether T is byte: a []byte is a bytes field (no other
// field is a slice of bytes).
func isBytes[T any]() bool {
	var zero T
	_, ok := any(zero).(byte)
	return ok
}
