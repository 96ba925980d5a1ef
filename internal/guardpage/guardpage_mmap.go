//go:build linux || darwin || freebsd || netbsd || openbsd

package guardpage

import (
	"fmt"
	"syscall"
)

// Guarded reports whether Check guards its copies on this system.
const Guarded = true

// atEnd returns a copy of b that ends where a page mapped PROT_NONE
// begins, with no capacity beyond its length, and the function that unmaps
// both.
func atEnd(b []byte) ([]byte, func() error, error) {
	page := syscall.Getpagesize()
	n := (len(b) + page - 1) / page * page
	mem, err := syscall.Mmap(-1, 0, n+page, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, nil, fmt.Errorf("mmap of %d bytes: %w", n+page, err)
	}
	unmap := func() error { return syscall.Munmap(mem) }
	if err := syscall.Mprotect(mem[n:], syscall.PROT_NONE); err != nil {
		unmap()
		return nil, nil, fmt.Errorf("mprotect: %w", err)
	}
	in := mem[n-len(b) : n : n]
	copy(in, b)
	return in, unmap, nil
}
