package decode

import (
	"encoding/binary"
	"unicode/utf8"
)

// validInline is the length below which ValidUTF8 checks for ASCII itself,
// a word at a time: for short strings the call to utf8.Valid costs more
// than the check; for longer ones utf8.Valid is faster.
const validInline = 128

// ValidUTF8 is utf8.Valid, with the check for ASCII, which most strings
// are, inline for strings shorter than validInline bytes.
func ValidUTF8(v []byte) bool {
	const hi64 = 0x8080808080808080
	n := len(v)
	if n >= validInline {
		return utf8.Valid(v)
	}
	switch {
	case n >= 8:
		var or uint64
		for i := 0; i+8 <= n; i += 8 {
			or |= binary.LittleEndian.Uint64(v[i:])
		}
		or |= binary.LittleEndian.Uint64(v[n-8:]) // the tail, overlapping
		if or&hi64 == 0 {
			return true
		}
	case n >= 4:
		if (binary.LittleEndian.Uint32(v)|binary.LittleEndian.Uint32(v[n-4:]))&0x80808080 == 0 {
			return true
		}
	default:
		var or byte
		for _, c := range v {
			or |= c
		}
		if or < utf8.RuneSelf {
			return true
		}
	}
	return utf8.Valid(v)
}

// shortASCII reports whether every byte of b, shorter than 64 bytes, is
// below 0x80: b's words ORed together, those of a length that is not a
// multiple of 8 read twice (they overlap), without finding where the first
// other byte is (ASCIIPrefix). Most of what a nested message sweeps
// (Decoding.Sweep) is that short and 7-bit: an OTLP attribute's key and
// value, whose parents' sweeps stopped at the identifiers and timestamps
// before them. False for a longer b.
func shortASCII(b []byte) bool {
	const hi = 0x8080808080808080
	le := binary.LittleEndian
	var w uint64
	switch n := len(b); {
	case n >= 64:
		return false
	case n >= 32:
		w = le.Uint64(b) | le.Uint64(b[8:]) | le.Uint64(b[16:]) | le.Uint64(b[24:]) |
			le.Uint64(b[n-32:]) | le.Uint64(b[n-24:]) | le.Uint64(b[n-16:]) | le.Uint64(b[n-8:])
	case n >= 16:
		w = le.Uint64(b) | le.Uint64(b[8:]) | le.Uint64(b[n-16:]) | le.Uint64(b[n-8:])
	case n >= 8:
		w = le.Uint64(b) | le.Uint64(b[n-8:])
	case n >= 4:
		w = uint64(le.Uint32(b) | le.Uint32(b[n-4:]))
	case n > 0:
		w = uint64(b[0] | b[n/2] | b[n-1])
	}
	return w&hi == 0
}
