// Package registered registers keepbuf's codec when it is initialised, as
// cortexpb does: a program that imports it gets the codec.
package registered

import "github.com/grpcfast/grpcfast/compose/keepbuf"

func init() { keepbuf.Register() }
