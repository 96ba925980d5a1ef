//go:build unix

package grpcfastrecord_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/grpcfast/grpcfast/grpcfastrecord"
	"github.com/grpcfast/grpcfast/internal/testprotos/kinds"
)

// snapshot returns every path under dir with its mode and contents.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		v := fi.Mode().String()
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			v += " " + string(b)
		}
		out[path] = v
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func mkdir(t *testing.T, path string, perm os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(path, perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil {
		t.Fatal(err)
	}
}

func writeFile(t *testing.T, path, data string, perm os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(data), perm); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, perm); err != nil {
		t.Fatal(err)
	}
}

// TestRecordRefusesLinks plants a symbolic link where the recorder would
// write a method's requests, at each level of the corpus: the link's target
// is left as it was, and Close returns (and Warnf says) an error naming the
// link. The recorder goes on recording the methods it can.
func TestRecordRefusesLinks(t *testing.T) {
	for _, tc := range []struct {
		name string
		// plant makes the corpus's links to target, a directory outside the
		// corpus, and returns the path of the link the recorder meets.
		plant func(t *testing.T, dir, target string) string
		// responses is whether the method's responses are still recorded.
		responses bool
	}{
		{"requests file", func(t *testing.T, dir, target string) string {
			mkdir(t, filepath.Join(dir, service, "Unary"), 0o700)
			link := filepath.Join(dir, service, "Unary", grpcfastrecord.RequestsFile)
			symlink(t, filepath.Join(target, "Unary", grpcfastrecord.RequestsFile), link)
			return link
		}, true},
		{"requests file, dangling link", func(t *testing.T, dir, target string) string {
			mkdir(t, filepath.Join(dir, service, "Unary"), 0o700)
			link := filepath.Join(dir, service, "Unary", grpcfastrecord.RequestsFile)
			symlink(t, filepath.Join(target, "missing"), link)
			return link
		}, true},
		{"method directory", func(t *testing.T, dir, target string) string {
			mkdir(t, filepath.Join(dir, service), 0o700)
			link := filepath.Join(dir, service, "Unary")
			symlink(t, filepath.Join(target, "Unary"), link)
			return link
		}, false},
		{"service directory", func(t *testing.T, dir, target string) string {
			link := filepath.Join(dir, service)
			symlink(t, target, link)
			return link
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir, target := t.TempDir(), t.TempDir()
			mkdir(t, filepath.Join(target, "Unary"), 0o700)
			writeFile(t, filepath.Join(target, "Unary", grpcfastrecord.RequestsFile), "untouched", 0o600)
			link := tc.plant(t, dir, target)
			before := snapshot(t, target)
			var w warnings
			rec, err := grpcfastrecord.New(dir, grpcfastrecord.Options{Warnf: w.warnf})
			if err != nil {
				t.Fatal(err)
			}
			callUnary(t, rec, &kinds.Rich{Name: "secret-password"})
			callUnary(t, rec, &kinds.Rich{Name: "secret-password"})
			err = rec.Close()
			want := "grpcfastrecord: " + link + " is a symbolic link: the recorder does not follow links in the corpus"
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Close: %v; want an error with %q", err, want)
			}
			if got := w.all(); !slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, want) }) {
				t.Errorf("warnings %q; want one with %q", got, want)
			}
			if after := snapshot(t, target); !equalMaps(before, after) {
				t.Errorf("the link's target changed:\nbefore %q\nafter  %q", before, after)
			}
			res, err := grpcfastrecord.Read(dir, service, "Unary", false, newRich)
			if tc.responses && (err != nil || len(res) != 2) {
				t.Errorf("responses beside the link: %v, %v; want both recorded", res, err)
			}
		})
	}
}

// symlink makes link point to target.
func symlink(t *testing.T, target, link string) {
	t.Helper()
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
}

func equalMaps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestRecordRefusesWhatItDoesNotOwn checks the other things the recorder
// will not write into: a corpus directory that is a link or not a
// directory, a FIFO, a file with another hard link, and (as root, which can
// give them away) directories and files of another user.
func TestRecordRefusesWhatItDoesNotOwn(t *testing.T) {
	tmp := t.TempDir()
	realDir := filepath.Join(tmp, "real")
	mkdir(t, realDir, 0o700)
	link := filepath.Join(tmp, "link")
	symlink(t, realDir, link)
	if _, err := grpcfastrecord.New(link, grpcfastrecord.Options{}); err == nil || err.Error() != "grpcfastrecord: "+link+" is a symbolic link: the recorder does not follow links in the corpus" {
		t.Errorf("New on a link: %v", err)
	}
	if _, err := grpcfastrecord.New(link+"/", grpcfastrecord.Options{}); err == nil || !strings.Contains(err.Error(), link+" is a symbolic link") {
		t.Errorf("New on a link with a trailing slash: %v", err)
	}
	file := filepath.Join(tmp, "file")
	writeFile(t, file, "", 0o600)
	if _, err := grpcfastrecord.New(file, grpcfastrecord.Options{}); err == nil || err.Error() != "grpcfastrecord: "+file+" is not a directory" {
		t.Errorf("New on a file: %v", err)
	}

	// record prepares a corpus with plant, records one call into it and
	// returns Close's error.
	record := func(t *testing.T, plant func(dir string)) error {
		t.Helper()
		dir := t.TempDir()
		mkdir(t, filepath.Join(dir, service, "Unary"), 0o700)
		plant(dir)
		rec, err := grpcfastrecord.New(dir, grpcfastrecord.Options{Warnf: func(string, ...any) {}})
		if err != nil {
			t.Fatal(err)
		}
		callUnary(t, rec, &kinds.Rich{Name: "secret"})
		return rec.Close()
	}
	t.Run("fifo", func(t *testing.T) {
		var path string
		err := record(t, func(dir string) {
			path = filepath.Join(dir, service, "Unary", grpcfastrecord.RequestsFile)
			if err := unix.Mkfifo(path, 0o600); err != nil {
				t.Fatal(err)
			}
		})
		if want := "grpcfastrecord: " + path + " is not a regular file"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Close: %v; want an error with %q", err, want)
		}
	})
	t.Run("hard link", func(t *testing.T) {
		other := filepath.Join(t.TempDir(), "other")
		writeFile(t, other, "untouched", 0o600)
		var path string
		err := record(t, func(dir string) {
			path = filepath.Join(dir, service, "Unary", grpcfastrecord.RequestsFile)
			if err := os.Link(other, path); err != nil {
				t.Fatal(err)
			}
		})
		if want := "grpcfastrecord: " + path + " has 2 hard links"; err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Close: %v; want an error with %q", err, want)
		}
		if b, err := os.ReadFile(other); err != nil || string(b) != "untouched" {
			t.Errorf("the other link's file holds %q, %v; want it untouched", b, err)
		}
	})

	if os.Geteuid() != 0 {
		// "/" belongs to root.
		if _, err := grpcfastrecord.New("/", grpcfastrecord.Options{}); err == nil || !strings.HasPrefix(err.Error(), "grpcfastrecord: / is owned by uid 0, not by this process's user") {
			t.Errorf("New(\"/\"): %v; want an error: not ours", err)
		}
		return
	}
	const nobody = 65534
	foreign := filepath.Join(tmp, "foreign")
	mkdir(t, foreign, 0o700)
	if err := os.Chown(foreign, nobody, nobody); err != nil {
		t.Fatal(err)
	}
	if _, err := grpcfastrecord.New(foreign, grpcfastrecord.Options{}); err == nil || err.Error() != fmt.Sprintf("grpcfastrecord: %s is owned by uid %d, not by this process's user (uid 0): the recorder writes only into directories and files of its own", foreign, nobody) {
		t.Errorf("New on another user's directory: %v", err)
	}
	for _, level := range []string{service, service + "/Unary", service + "/Unary/" + grpcfastrecord.RequestsFile} {
		t.Run("another user's "+level, func(t *testing.T) {
			var path string
			err := record(t, func(dir string) {
				path = filepath.Join(dir, filepath.FromSlash(level))
				if strings.HasSuffix(level, ".binpb") {
					writeFile(t, path, "", 0o600)
				}
				if err := os.Chown(path, nobody, nobody); err != nil {
					t.Fatal(err)
				}
			})
			if want := fmt.Sprintf("grpcfastrecord: %s is owned by uid %d", path, nobody); err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("Close: %v; want an error with %q", err, want)
			}
		})
	}
}

// TestRecordModes checks that what the recorder creates is 0700 and 0600
// exactly, whatever the umask: one that takes the owner's write bit away
// too, and one that takes nothing away.
func TestRecordModes(t *testing.T) {
	for _, umask := range []int{0o277, 0} {
		t.Run(fmt.Sprintf("umask %04o", umask), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "corpus")
			old := unix.Umask(umask)
			var w warnings
			rec, err := grpcfastrecord.New(dir, grpcfastrecord.Options{Warnf: w.warnf})
			if err == nil {
				callUnary(t, rec, &kinds.Rich{Name: "secret"})
				err = rec.Close()
			}
			unix.Umask(old)
			if err != nil {
				t.Fatal(err)
			}
			for path, want := range map[string]os.FileMode{
				dir:                                  os.ModeDir | 0o700,
				filepath.Join(dir, service):          os.ModeDir | 0o700,
				filepath.Join(dir, service, "Unary"): os.ModeDir | 0o700,
				filepath.Join(dir, service, "Unary", grpcfastrecord.RequestsFile):  0o600,
				filepath.Join(dir, service, "Unary", grpcfastrecord.ResponsesFile): 0o600,
			} {
				fi, err := os.Lstat(path)
				if err != nil {
					t.Error(err)
				} else if fi.Mode() != want {
					t.Errorf("%s: mode %v, want %v", path, fi.Mode(), want)
				}
			}
			if got := w.all(); len(got) != 0 {
				t.Errorf("warnings for a corpus it created: %q", got)
			}
		})
	}
}

// TestRecordWarnsLooseCorpus reuses a corpus that other users may read:
// the recorder warns once for each directory and file of it that it uses,
// leaves their modes as they were, and appends to the file it owns. A
// private corpus gets no warning.
func TestRecordWarnsLooseCorpus(t *testing.T) {
	for _, loose := range []bool{true, false} {
		t.Run(fmt.Sprint("loose=", loose), func(t *testing.T) {
			dir := t.TempDir()
			svc := filepath.Join(dir, service)
			method := filepath.Join(svc, "Unary")
			file := filepath.Join(method, grpcfastrecord.RequestsFile)
			modes := map[string]os.FileMode{dir: 0o755, svc: 0o711, method: 0o770, file: 0o604}
			if !loose {
				modes = map[string]os.FileMode{dir: 0o700, svc: 0o700, method: 0o700, file: 0o600}
			}
			mkdir(t, method, 0o700)
			writeFile(t, file, string(delimit(marshal(t, &kinds.Rich{Name: "earlier"}))), modes[file])
			for _, d := range []string{method, svc, dir} {
				if err := os.Chmod(d, modes[d]); err != nil {
					t.Fatal(err)
				}
			}
			var w warnings
			rec, err := grpcfastrecord.New(dir, grpcfastrecord.Options{Warnf: w.warnf})
			if err != nil {
				t.Fatal(err)
			}
			callUnary(t, rec, &kinds.Rich{Name: "later"})
			callUnary(t, rec, &kinds.Rich{Name: "later still"})
			if err := rec.Close(); err != nil {
				t.Fatal(err)
			}
			var want []string
			if loose {
				for _, p := range []string{dir, svc, method, file} {
					want = append(want, fmt.Sprintf("grpcfastrecord: %s has mode %04o: other users may read or change what is recorded there (chmod go-rwx %s)", p, modes[p], p))
				}
			}
			if got := w.all(); !slices.Equal(got, want) {
				t.Errorf("warnings:\n%q\nwant\n%q", got, want)
			}
			for p, m := range modes {
				if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != m {
					t.Errorf("%s: %v, %v; want its mode left %04o", p, fi.Mode(), err, m)
				}
			}
			got, err := grpcfastrecord.Read(dir, service, "Unary", true, newRich)
			if err != nil || len(got) != 3 || got[0].(*kinds.Rich).Name != "earlier" || got[2].(*kinds.Rich).Name != "later still" {
				t.Errorf("requests %v, %v; want the earlier one and the two later", got, err)
			}
		})
	}
}
