//go:build unix

package grpcfastrecord

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"golang.org/x/sys/unix"
)

// corpus is the directory a Recorder writes into, held open from New to
// Close. Everything under it is reached from that descriptor, one name at a
// time, with openat(2) and O_NOFOLLOW: a symbolic link planted at any level
// makes the open fail instead of leading elsewhere, and what it opens is
// checked to be owned by this process's user (files: a regular file with a
// single link).
type corpus struct {
	path  string
	fd    int
	warnf func(format string, args ...any)

	mu     sync.Mutex
	warned map[string]bool // paths warned of
}

const (
	dirFlags  = unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC
	fileFlags = unix.O_WRONLY | unix.O_APPEND | unix.O_NOFOLLOW | unix.O_NOCTTY | unix.O_CLOEXEC
)

// openCorpus creates dir (and its parents) if needed and opens it. dir
// must not be a symbolic link (its parents may be) and must be a directory
// owned by this process's user; one that others may read or write is
// warned about.
func openCorpus(dir string, warnf func(format string, args ...any)) (*corpus, error) {
	if dir == "" {
		return nil, errors.New("grpcfastrecord: no corpus directory given")
	}
	dir = filepath.Clean(dir) // no trailing slash: it would make open follow a link
	if parent := filepath.Dir(dir); parent != dir {
		if err := os.MkdirAll(parent, 0o700); err != nil {
			return nil, fmt.Errorf("grpcfastrecord: %w", err)
		}
	}
	created := false
	switch err := ignoringEINTR(func() error { return unix.Mkdirat(unix.AT_FDCWD, dir, 0o700) }); {
	case err == nil:
		created = true
	case !errors.Is(err, unix.EEXIST):
		return nil, fmt.Errorf("grpcfastrecord: %w", &os.PathError{Op: "mkdir", Path: dir, Err: err})
	}
	fd, err := openat(unix.AT_FDCWD, dir, dirFlags, 0)
	if err != nil {
		return nil, explain(unix.AT_FDCWD, dir, dir, unix.S_IFDIR, err)
	}
	c := &corpus{path: dir, fd: fd, warnf: warnf, warned: map[string]bool{}}
	if err := c.check(fd, dir, unix.S_IFDIR, created); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return c, nil
}

// openFile opens service/method/file for appending, creating what is
// missing: directories 0700, the file 0600.
func (c *corpus) openFile(service, method, file string) (*os.File, error) {
	svc, svcPath, err := c.openDir(c.fd, c.path, service)
	if err != nil {
		return nil, err
	}
	defer unix.Close(svc)
	m, mPath, err := c.openDir(svc, svcPath, method)
	if err != nil {
		return nil, err
	}
	defer unix.Close(m)
	path := filepath.Join(mPath, file)
	created := true
	fd, err := openat(m, file, fileFlags|unix.O_CREAT|unix.O_EXCL, 0o600)
	if errors.Is(err, unix.EEXIST) {
		// O_NONBLOCK: a FIFO planted here must not block the call; it is
		// refused below as not a regular file.
		created = false
		fd, err = openat(m, file, fileFlags|unix.O_NONBLOCK, 0)
	}
	if err != nil {
		return nil, explain(m, file, path, unix.S_IFREG, err)
	}
	if err := c.check(fd, path, unix.S_IFREG, created); err != nil {
		unix.Close(fd)
		return nil, err
	}
	if !created {
		if err := unix.SetNonblock(fd, false); err != nil {
			unix.Close(fd)
			return nil, fmt.Errorf("grpcfastrecord: %w", &os.PathError{Op: "fcntl", Path: path, Err: err})
		}
	}
	return os.NewFile(uintptr(fd), path), nil
}

// openDir opens the directory name in the directory parent (at
// parentPath), creating it if needed, and returns it and its path.
func (c *corpus) openDir(parent int, parentPath, name string) (int, string, error) {
	path := filepath.Join(parentPath, name)
	created := false
	switch err := ignoringEINTR(func() error { return unix.Mkdirat(parent, name, 0o700) }); {
	case err == nil:
		created = true
	case !errors.Is(err, unix.EEXIST):
		return -1, "", fmt.Errorf("grpcfastrecord: %w", &os.PathError{Op: "mkdir", Path: path, Err: err})
	}
	fd, err := openat(parent, name, dirFlags, 0)
	if err != nil {
		return -1, "", explain(parent, name, path, unix.S_IFDIR, err)
	}
	if err := c.check(fd, path, unix.S_IFDIR, created); err != nil {
		unix.Close(fd)
		return -1, "", err
	}
	return fd, path, nil
}

// check checks that fd, opened at path, is of type typ (unix.S_IFDIR or
// unix.S_IFREG) and owned by this process's user, and a file has one link.
// If the recorder created it, it gets mode 0700 or 0600 whatever the umask;
// if not, a mode that lets others in is warned about.
func (c *corpus) check(fd int, path string, typ uint32, created bool) error {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("grpcfastrecord: %w", &os.PathError{Op: "fstat", Path: path, Err: err})
	}
	mode := uint32(st.Mode)
	if mode&unix.S_IFMT != typ {
		return notType(path, typ)
	}
	if uid := os.Geteuid(); int(st.Uid) != uid {
		return fmt.Errorf("grpcfastrecord: %s is owned by uid %d, not by this process's user (uid %d): the recorder writes only into directories and files of its own", path, st.Uid, uid)
	}
	if typ == unix.S_IFREG && uint64(st.Nlink) != 1 {
		return fmt.Errorf("grpcfastrecord: %s has %d hard links: the recorder appends only to a file with one", path, st.Nlink)
	}
	want := uint32(0o600)
	if typ == unix.S_IFDIR {
		want = 0o700
	}
	perm := mode & 0o7777
	switch {
	case created && perm != want:
		// The umask took bits away; it cannot have added any.
		if err := ignoringEINTR(func() error { return unix.Fchmod(fd, want) }); err != nil {
			return fmt.Errorf("grpcfastrecord: %w", &os.PathError{Op: "chmod", Path: path, Err: err})
		}
	case !created && perm&0o077 != 0 && c.firstWarning(path):
		c.warnf("grpcfastrecord: %s has mode %04o: other users may read or change what is recorded there (chmod go-rwx %s)", path, perm, path)
	}
	return nil
}

// explain turns the failed open of name in dir (at path) into an error
// that says why: a symbolic link, or not of the type wanted.
func explain(dir int, name, path string, typ uint32, err error) error {
	var st unix.Stat_t
	if ignoringEINTR(func() error { return unix.Fstatat(dir, name, &st, unix.AT_SYMLINK_NOFOLLOW) }) == nil {
		switch uint32(st.Mode) & unix.S_IFMT {
		case unix.S_IFLNK:
			return fmt.Errorf("grpcfastrecord: %s is a symbolic link: the recorder does not follow links in the corpus", path)
		case typ:
		default:
			return notType(path, typ)
		}
	}
	return fmt.Errorf("grpcfastrecord: %w", &os.PathError{Op: "open", Path: path, Err: err})
}

func notType(path string, typ uint32) error {
	if typ == unix.S_IFDIR {
		return fmt.Errorf("grpcfastrecord: %s is not a directory", path)
	}
	return fmt.Errorf("grpcfastrecord: %s is not a regular file: the recorder writes only into regular files", path)
}

// firstWarning reports whether path has not been warned of yet.
func (c *corpus) firstWarning(path string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	first := !c.warned[path]
	c.warned[path] = true
	return first
}

func (c *corpus) close() error {
	if c.fd < 0 {
		return nil
	}
	err := unix.Close(c.fd)
	c.fd = -1
	return err
}

func openat(dir int, name string, flags int, perm uint32) (int, error) {
	for {
		fd, err := unix.Openat(dir, name, flags, perm)
		if err != unix.EINTR {
			return fd, err
		}
	}
}

func ignoringEINTR(f func() error) error {
	for {
		if err := f(); err != unix.EINTR {
			return err
		}
	}
}
