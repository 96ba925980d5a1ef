package own

// Record is what a slot keeps of the decodes into its message, for its
// next reset: the nested messages and oneof wrappers that generated
// decoders took from it or added to it (spares.go), and the arrays and maps
// that they left in the message's fields (arrays.go). A record holds
// pointers, so that what it records cannot be freed and its address reused
// by an allocation of the caller's before the reset.
type Record struct {
	generated bool          // decoded by a generated decoder (SetGenerated)
	spares    []spareList   // by SpareKind (spares.go); kept by Clear
	kinds     []SpareKind   // the kinds that spares has a list of
	arrays    []arrayEntry  // the arrays and maps of the decode (arrays.go)
	inline    [4]arrayEntry // arrays' first array: small messages record without allocating
}

// Clear empties the record for the next decode, but for its spares.
func (o *Record) Clear() {
	o.generated = false
	clear(o.arrays)
	o.arrays = o.arrays[:0]
}
