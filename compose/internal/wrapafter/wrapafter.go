// Package wrapafter registers keepbuf's codec after the generated package
// earlypb has registered grpcfast's: keepbuf's then wraps grpcfast's, as a
// library initialised after a generated package does.
package wrapafter

import (
	"github.com/grpcfast/grpcfast/compose/earlypb"
	"github.com/grpcfast/grpcfast/compose/keepbuf"
)

// Chunk is here so that the import of earlypb is used.
type Chunk = earlypb.Chunk

func init() { keepbuf.Register() }
