package grpcfast

import "google.golang.org/grpc/encoding"

// NextOf returns the codec that c hands the values it does not keep to.
func NextOf(c *Codec) encoding.CodecV2 { return c.c.Next }

// ResponsesCopy reports whether r decodes into one owned copy.
func ResponsesCopy[M any](r *Responses[M]) bool { return r.copy }
