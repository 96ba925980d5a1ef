//go:build grpcfast_checked

package own

// Quarantine is true in builds with the grpcfast_checked tag: memory that
// the codec or a receiver takes back is poisoned and never reused, so that
// the poison stays visible to whatever still holds it.
const Quarantine = true
