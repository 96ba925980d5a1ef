//go:build linux || darwin || freebsd || netbsd || openbsd

package codec

import "syscall"

// mapRegion maps n bytes of anonymous memory outside the Go heap, readable
// and writable, or returns nil where the system refuses.
func mapRegion(n int) []byte {
	b, err := syscall.Mmap(-1, 0, n, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil
	}
	return b
}
