package grpcfast

// WholeRetries returns how many decodes in pieces failed and were redone
// from one contiguous copy.
func WholeRetries() int64 { return wholeRetries.Load() }

// DefaultPoolingThreshold is the pooling threshold of a codec made without
// WithPoolingThreshold, for the tests' message sizes.
const DefaultPoolingThreshold = defaultPoolingThreshold

// MinPooledCap is the smallest buffer capacity that gRPC returns to a pool.
var MinPooledCap = minPooledCap
