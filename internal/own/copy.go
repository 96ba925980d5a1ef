package own

// LeaveOutBytes makes the record leave out, from now until Clear, the arrays of
// bytes fields: after a decode into one owned copy they are views of it,
// which must never be written into (strings of the same message point into
// it too) nor reused.
func (o *Record) LeaveOutBytes() { o.noBytes = true }

// isBytes reports whether T is byte: a []byte is a bytes field (no other
// field is a slice of bytes).
func isBytes[T any]() bool {
	var zero T
	_, ok := any(zero).(byte)
	return ok
}
