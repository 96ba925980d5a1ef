//go:build grpcfast_checked || race

package own

// Checked is true in builds with the grpcfast_checked tag or the race
// detector: memory that the codec or a receiver takes back is poisoned.
const Checked = true
