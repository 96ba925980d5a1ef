package grpcfast

// WholeRetries returns how many decodes in pieces failed and were redone
// from one contiguous copy.
func WholeRetries() int64 { return wholeRetries.Load() }
