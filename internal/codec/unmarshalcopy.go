package codec

import (
	"google.golang.org/grpc/mem"

	"github.com/grpcfast/grpcfast/internal/reuse"
)

// decodeCopy decodes data into v, a message that the slot whose Header is
// slot prepared for the owned copy (grpcfast.WithStringsInOneCopy), with its
// generated decoder d: the whole message is copied into one array that nothing else
// refers to (ownedCopy: new, or one that the collector found unreferenced),
// which this codec never writes into again, and every string and bytes
// field is a view of it instead of an allocation of its own. gRPC frees
// data when Unmarshal returns; the views point into the copy, which lives
// as long as anything refers to it. The decoder takes
// the nested messages and oneof wrappers that the slot's last reset gave
// back to its record.
func (c *Codec) decodeCopy(data mem.BufferSlice, d generatedDecoder, v any, slot *reuse.Header) error {
	b := ownedCopy(data) // reused only once unreferenced (copies.go)
	o := slot.Record()
	o.SetGenerated()
	err := decodeAll(b, d, slot.CopyDecoding(c.NoUTF8), v)
	if err != nil {
		o.Clear() // the slot keeps nothing of a failed decode
	}
	return err
}
