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
