package grpcfast

import "github.com/grpcfast/grpcfast/internal/own"

// Checked reports whether this build poisons memory that the codec and the
// receivers take back: true with the grpcfast_checked build tag
// (go test -tags grpcfast_checked ./...) and in every build with the race
// detector (go test -race ./...).
//
// In a checked build, before memory is reused it is overwritten with the
// pattern 0xDEADBEEF: the bytes and repeated numbers that a Receiver keeps
// for its next message (when a newer message has arrived, and on Release),
// buffers the codec returns to its pool, and the one-element arrays of the
// buffer slices the codec hands gRPC to send, once gRPC has freed them. A
// program that keeps a received message, or a slice of one, past the next
// Recv or Release then reads the pattern instead of another message's data,
// so the mistake fails its own tests rather than leaking data in
// production.
//
// With -race alone the memory is still reused afterwards, so that race
// tests exercise the reuse: a slice kept too long reads the pattern until a
// later message lands in the same memory, and then that message. With the
// grpcfast_checked tag, memory taken back is poisoned and never reused, so a
// slice kept too long reads the pattern for good: the surest way for a test
// suite to catch such a mistake. The fields of the messages taken back are
// poisoned too: a string holds the pattern, which is not valid UTF-8, so a
// pooled handler's reply that echoes a part of its request fails with
// codes.Internal. Checked builds cost the time to write the pattern and,
// with the tag, the reuse; do not ship them.
const Checked = own.Checked
