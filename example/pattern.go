package example

import (
	"encoding/binary"
	"hash/crc32"
	"sync"
)

// castagnoli is the CRC-32C table (hardware-accelerated on amd64 and arm64).
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

const (
	// patternPeriod is the period of the pattern's base; a prime, so that
	// power-of-two chunk boundaries fall at different phases.
	patternPeriod = 251
	// stampEvery is the spacing of the block numbers stamped over the base,
	// so that chunks that are swapped, repeated or dropped change the bytes
	// even when their length is a multiple of patternPeriod.
	stampEvery = 4096
	stampLen   = 8
)

var patternBase = func() (t [2 * patternPeriod]byte) {
	for i := range t {
		t[i] = byte((i%patternPeriod)*97 + 13)
	}
	return t
}()

// fillPattern fills b with the bytes at offsets off to off+len(b) of the
// example blob: a deterministic pattern that Get sends and PutBlob uploads,
// so that either side can check a blob by its CRC-32C (patternChecksum).
// Byte p is a function of p alone: a base sequence with a prime period, with
// the number p/4096 stamped, little-endian, over the first 8 bytes of every
// 4096. It runs at memory-copy speed.
func fillPattern(b []byte, off int64) {
	if len(b) == 0 {
		return
	}
	if off < 0 {
		panic("example: negative pattern offset")
	}
	start := int(off % patternPeriod)
	n := copy(b, patternBase[start:start+patternPeriod])
	for n < len(b) {
		// b[:n] is a whole number of periods: extend it by doubling.
		n += copy(b[n:], b[:n])
	}
	end := off + int64(len(b))
	var stamp [stampLen]byte
	for blk := off / stampEvery; blk*stampEvery < end; blk++ {
		p := blk * stampEvery
		if p+stampLen <= off {
			continue
		}
		binary.LittleEndian.PutUint64(stamp[:], uint64(blk))
		for i := int64(0); i < stampLen; i++ {
			if q := p + i; q >= off && q < end {
				b[q-off] = stamp[i]
			}
		}
	}
}

var checksums sync.Map // int64 size -> uint32 CRC-32C

// patternChecksum returns the CRC-32C (Castagnoli) of the first size bytes
// of the example blob (fillPattern). It remembers the sizes it was asked for.
func patternChecksum(size int64) uint32 {
	if v, ok := checksums.Load(size); ok {
		return v.(uint32)
	}
	var buf [64 << 10]byte
	var crc uint32
	for off := int64(0); off < size; {
		n := int(min(int64(len(buf)), size-off))
		fillPattern(buf[:n], off)
		crc = crc32.Update(crc, castagnoli, buf[:n])
		off += int64(n)
	}
	checksums.Store(size, crc)
	return crc
}

// blobSum accumulates the size and CRC-32C of a blob received in pieces.
type blobSum struct {
	size int64
	crc  uint32
}

func (s *blobSum) add(b []byte) {
	s.size += int64(len(b))
	s.crc = crc32.Update(s.crc, castagnoli, b)
}
