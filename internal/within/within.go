// Package within reads and writes files of a folder that came from
// outside (a marketplace folder or git clone, a registry repository)
// through an os.Root opened on that folder, so that a symbolic link
// leading out of it is never followed: the operation fails with an
// *EscapeError naming the entry. Links that stay inside are followed.
//
// Names may be absolute paths inside the folder or relative to it.
package within

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// ErrEscape is matched by every *EscapeError.
var ErrEscape = errors.New("symbolic link leads out of the folder")

// EscapeError says which entry of which folder is, or lies under, a
// symbolic link that leads out of the folder.
type EscapeError struct {
	Dir  string // the folder
	Name string // the entry, relative to Dir
	Err  error  // what os.Root said
}

func (e *EscapeError) Error() string {
	return fmt.Sprintf("%s in %s is a symbolic link (or lies under one) that leads out of the folder; it is not followed", filepath.ToSlash(e.Name), e.Dir)
}

// Is matches ErrEscape.
func (e *EscapeError) Is(target error) bool { return target == ErrEscape }

// Unwrap returns the os.Root error.
func (e *EscapeError) Unwrap() error { return e.Err }

// Rel returns name relative to dir, and an *EscapeError when an absolute
// name lies outside dir.
func Rel(dir, name string) (string, error) {
	if !filepath.IsAbs(name) {
		return filepath.Clean(name), nil
	}
	rel, err := filepath.Rel(dir, name)
	if err != nil || !filepath.IsLocal(rel) && rel != "." {
		return "", &EscapeError{Dir: dir, Name: name, Err: errors.New("not inside the folder")}
	}
	return rel, nil
}

// classify turns an os.Root failure on rel into an *EscapeError when a
// link on the way resolves outside dir (judged on the longest part of the
// path that exists); other errors are returned as they are.
func classify(dir, rel string, err error) error {
	if err == nil {
		return nil
	}
	resolvedDir, derr := filepath.EvalSymlinks(dir)
	if derr != nil {
		return err
	}
	for p := rel; p != "." && p != string(filepath.Separator); p = filepath.Dir(p) {
		resolved, rerr := filepath.EvalSymlinks(filepath.Join(dir, p))
		if errors.Is(rerr, fs.ErrNotExist) {
			continue
		}
		if rerr == nil {
			if r, err2 := filepath.Rel(resolvedDir, resolved); err2 == nil && (filepath.IsLocal(r) || r == ".") {
				return err
			}
		}
		// Outside, or a link that cannot be resolved (a loop, say).
		return &EscapeError{Dir: dir, Name: rel, Err: err}
	}
	return err
}

// with opens dir as an os.Root, runs f on the entry's relative name, and
// classifies its error.
func with(dir, name string, f func(r *os.Root, rel string) error) error {
	rel, err := Rel(dir, name)
	if err != nil {
		return err
	}
	r, err := os.OpenRoot(dir)
	if err != nil {
		return err
	}
	defer r.Close()
	return classify(dir, rel, f(r, rel))
}

// ReadFile reads the file name of dir.
func ReadFile(dir, name string) (data []byte, err error) {
	err = with(dir, name, func(r *os.Root, rel string) error {
		data, err = r.ReadFile(rel)
		return err
	})
	return data, err
}

// Open opens the file name of dir for reading; the caller closes it.
func Open(dir, name string) (f *os.File, err error) {
	err = with(dir, name, func(r *os.Root, rel string) error {
		f, err = r.Open(rel)
		return err
	})
	return f, err
}

// Stat describes the file name of dir, following links that stay inside.
func Stat(dir, name string) (fi fs.FileInfo, err error) {
	err = with(dir, name, func(r *os.Root, rel string) error {
		fi, err = r.Stat(rel)
		return err
	})
	return fi, err
}

// Remove removes the file name of dir (a link itself, never its target).
func Remove(dir, name string) error {
	return with(dir, name, removeAt)
}

// FindFiles returns, as absolute paths sorted in byte order, every regular
// file called base at any depth under the folder sub of dir (missing: none).
// Symbolic links are not walked into, and a link is not a regular file.
func FindFiles(dir, sub, base string) ([]string, error) {
	var out []string
	err := with(dir, sub, func(r *os.Root, rel string) error {
		return fs.WalkDir(r.FS(), filepath.ToSlash(rel), func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				if p == filepath.ToSlash(rel) && errors.Is(err, fs.ErrNotExist) {
					return fs.SkipAll
				}
				return err
			}
			if d.Type().IsRegular() && d.Name() == base {
				out = append(out, filepath.Join(dir, filepath.FromSlash(p)))
			}
			return nil
		})
	})
	slices.Sort(out)
	return out, err
}

// WriteFile replaces the file name of dir with data, as atomicfile.Write
// does (a temporary file renamed over it), making its folders: a link on
// the way that leads out of dir is refused, and a link at name itself is
// replaced, never written through.
func WriteFile(dir, name string, data []byte, perm fs.FileMode) error {
	return with(dir, name, func(r *os.Root, rel string) error {
		if err := r.MkdirAll(filepath.Dir(rel), 0o755); err != nil {
			return err
		}
		var rnd [8]byte
		_, _ = rand.Read(rnd[:])
		tmp := filepath.Join(filepath.Dir(rel), "."+filepath.Base(rel)+".tmp-"+hex.EncodeToString(rnd[:]))
		f, err := r.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if err != nil {
			return err
		}
		_, err = f.Write(data)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = r.Chmod(tmp, perm)
		}
		if err == nil {
			err = r.Rename(tmp, rel)
		}
		if err != nil {
			_ = removeAt(r, tmp)
		}
		return err
	})
}
