package own

// VTPooled is implemented by messages generated with vtprotobuf's pool
// feature.
type VTPooled interface {
	ResetVT()
	ReturnToVTPool()
}
