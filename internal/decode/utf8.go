package decode

import (
	"encoding/binary"
	"math/bits"
	"unicode/utf8"
)

// hi64 and hi32 are the high bit of every byte of a word and of a half word:
// a word ANDed with one is zero where its bytes are all below 0x80.
const (
	hi64 = 0x8080808080808080
	hi32 = 0x80808080
)

// validInline is the length below which ValidUTF8 checks for ASCII itself,
// a word at a time: for short strings the call to utf8.Valid costs more
// than the check; for longer ones utf8.Valid is faster.
const validInline = 128

// ValidUTF8 is utf8.Valid, with the check for ASCII, which most strings
// are, inline for strings shorter than validInline bytes.
func ValidUTF8(v []byte) bool {
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
		if (binary.LittleEndian.Uint32(v)|binary.LittleEndian.Uint32(v[n-4:]))&hi32 == 0 {
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

// Sweep returns s without the UTF-8 check, and 0, if s checks and b is
// 7-bit; otherwise s, and the length of b's rest from its first byte of
// 0x80 or more (0 if s checks nothing). A generated decoder calls it at the
// first string field it checks, with the input from that field on, and
// decodes the rest of the message with the state it returns, so that no
// string in it, nested ones included, is checked again and nested messages
// do not sweep what was swept; of the strings that follow, it checks only
// those that end with less than that length left (within the 7-bit prefix,
// a string is valid UTF-8). An input shorter than wholeSweep bytes is first
// read whole (shortASCII), which is faster where it is 7-bit than finding
// its prefix. Generated decoders call it only with a state that checks
// (grpcfastimpl.Unswept), and never inline it.
//
//go:noinline
func (s *Decoding) Sweep(b []byte) (*Decoding, int) {
	if s.noUTF8 {
		return s, 0
	}
	if len(b) < wholeSweep && shortASCII(b) { // the length tested here too: no call for a longer b
		return s.ascii, 0
	}
	n := ASCIIPrefix(b)
	if n == len(b) {
		return s.ascii, 0
	}
	return s, len(b) - n
}

// wholeSweep is the length below which Sweep reads its input whole first.
const wholeSweep = 64

// shortASCII reports whether every byte of b, shorter than wholeSweep, is
// below 0x80: b's words ORed together, those of a length that is not a
// multiple of 8 read twice (they overlap), without finding where the first
// other byte is (ASCIIPrefix). Most of what a nested message sweeps
// (Decoding.Sweep) is that short and 7-bit: an OTLP attribute's key and
// value, whose parents' sweeps stopped at the identifiers and timestamps
// before them. False for a longer b.
func shortASCII(b []byte) bool {
	le := binary.LittleEndian
	var w uint64
	switch n := len(b); {
	case n >= wholeSweep:
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
	return w&hi64 == 0
}

// ASCIIPrefix returns the length of the longest prefix of b whose bytes
// are all below 0x80: reading 32 bytes at a time, then 8, the last 8 bytes
// of b (overlapping what was read) and, in a b shorter than 8, 4 and 1.
func ASCIIPrefix(b []byte) int {
	n := len(b)
	r := b // what is left to read, from n-len(r) on
	for len(r) >= 32 {
		w := binary.LittleEndian.Uint64(r[:8]) | binary.LittleEndian.Uint64(r[8:16]) |
			binary.LittleEndian.Uint64(r[16:24]) | binary.LittleEndian.Uint64(r[24:32])
		if w&hi64 != 0 {
			break
		}
		r = r[32:]
	}
	for len(r) >= 8 {
		if w := binary.LittleEndian.Uint64(r[:8]) & hi64; w != 0 {
			return n - len(r) + bits.TrailingZeros64(w)/8
		}
		r = r[8:]
	}
	if len(r) == 0 {
		return n
	}
	if n >= 8 {
		// The last 8 bytes: those before r were found below 0x80, so the
		// first one found here is in r.
		if w := binary.LittleEndian.Uint64(b[n-8:]) & hi64; w != 0 {
			return n - 8 + bits.TrailingZeros64(w)/8
		}
		return n
	}
	if n >= 4 {
		if w := binary.LittleEndian.Uint32(b[:4]) & hi32; w != 0 {
			return bits.TrailingZeros32(w) / 8
		}
		r = b[4:]
	}
	for i, c := range r {
		if c >= 0x80 {
			return n - len(r) + i
		}
	}
	return n
}
