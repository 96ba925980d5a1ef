package codec

import (
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
)

// V1 adapts a codec registered with encoding.RegisterCodec (vtprotobuf's
// codec/grpc, gogo's) to a CodecV2, as gRPC adapts it when it looks the
// codec up: gRPC uses a V1 codec registered under a name in place of any
// CodecV2 of that name, so a grpcfast codec made while one is registered
// hands it the values it does not keep.
func V1(c encoding.Codec) encoding.CodecV2 { return v1{c} }

type v1 struct{ c encoding.Codec }

func (a v1) Name() string { return a.c.Name() }

func (a v1) Marshal(v any) (mem.BufferSlice, error) {
	b, err := a.c.Marshal(v)
	if err != nil || len(b) == 0 {
		return nil, err
	}
	return mem.BufferSlice{mem.SliceBuffer(b)}, nil
}

// Unmarshal gives the V1 codec a copy of data that nothing frees: a V1 codec
// may keep references into it (vtprotobuf's unsafe decoders).
func (a v1) Unmarshal(data mem.BufferSlice, v any) error {
	return a.c.Unmarshal(data.Materialize(), v)
}
