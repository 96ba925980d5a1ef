//go:build !unix

package grpcfastrecord

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// corpus is the directory a Recorder writes into. Where there is no
// openat(2) (Windows, Plan 9, WebAssembly), each directory and file is
// checked with Lstat before it is opened, and a file opened is checked to
// be the one looked at: a link is refused, but what the check sees can
// still change before the open, and ownership is not checked. Modes are
// those the system gives (on Windows, the directory's access list).
type corpus struct {
	path  string
	warnf func(format string, args ...any)
}

func openCorpus(dir string, warnf func(format string, args ...any)) (*corpus, error) {
	if dir == "" {
		return nil, errors.New("grpcfastrecord: no corpus directory given")
	}
	dir = filepath.Clean(dir)
	if parent := filepath.Dir(dir); parent != dir {
		if err := os.MkdirAll(parent, 0o700); err != nil {
			return nil, fmt.Errorf("grpcfastrecord: %w", err)
		}
	}
	if err := makeDir(dir); err != nil {
		return nil, err
	}
	return &corpus{path: dir, warnf: warnf}, nil
}

// makeDir creates path 0700 unless it is a directory already, and refuses
// a link.
func makeDir(path string) error {
	if err := os.Mkdir(path, 0o700); err == nil {
		return nil
	} else if !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("grpcfastrecord: %w", err)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return fmt.Errorf("grpcfastrecord: %w", err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return fmt.Errorf("grpcfastrecord: %s is a symbolic link: the recorder does not follow links in the corpus", path)
	}
	if !fi.IsDir() {
		return fmt.Errorf("grpcfastrecord: %s is not a directory", path)
	}
	return nil
}

func (c *corpus) openFile(service, method, file string) (*os.File, error) {
	dir := c.path
	for _, name := range []string{service, method} {
		dir = filepath.Join(dir, name)
		if err := makeDir(dir); err != nil {
			return nil, err
		}
	}
	path := filepath.Join(dir, file)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		return f, nil
	}
	if !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("grpcfastrecord: %w", err)
	}
	before, err := os.Lstat(path)
	if err != nil {
		return nil, fmt.Errorf("grpcfastrecord: %w", err)
	}
	if before.Mode()&fs.ModeSymlink != 0 {
		return nil, fmt.Errorf("grpcfastrecord: %s is a symbolic link: the recorder does not follow links in the corpus", path)
	}
	if !before.Mode().IsRegular() {
		return nil, fmt.Errorf("grpcfastrecord: %s is not a regular file: the recorder writes only into regular files", path)
	}
	f, err = os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		return nil, fmt.Errorf("grpcfastrecord: %w", err)
	}
	if after, err := f.Stat(); err != nil || !os.SameFile(before, after) {
		f.Close()
		return nil, fmt.Errorf("grpcfastrecord: %s changed while it was opened: the recorder does not follow links in the corpus", path)
	}
	return f, nil
}

func (c *corpus) close() error { return nil }
