package latepb

// A generated package that imports libraries with a "proto" codec of their
// own (here, to make the order of initialisation certain, where a program's
// import paths usually decide it): its generated init runs after theirs, and
// grpcfast's codec registers in front of them.
import (
	_ "go.opentelemetry.io/collector/pdata/ptrace/ptraceotlp"

	_ "github.com/grpcfast/grpcfast/compose/keepbuf/registered"
)
