package codec

// ScribbleFreeRegions overwrites every free scratch region with b, and
// returns how many it overwrote: a decode that left something of the
// message it copied there referring to it would show b.
func ScribbleFreeRegions(b byte) int {
	rs := &scratchRegions
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for _, r := range rs.free {
		for i := range r {
			r[i] = b
		}
	}
	return len(rs.free)
}
