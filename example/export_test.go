package example

// Test and benchmark plumbing, compiled only into the tests.

// FillPattern fills b with the example blob's bytes at offset off.
var FillPattern = fillPattern

// PatternChecksum returns the CRC-32C of the example blob's first size bytes.
var PatternChecksum = patternChecksum

// WithStandardRecv makes handlers and GetBlob receive with the stream's own
// Recv, which allocates a new message for every message received, as code
// written without grpcfast does: the standard path the tests compare with.
func WithStandardRecv() Option {
	return func(o *options) { o.standardRecv = true }
}
