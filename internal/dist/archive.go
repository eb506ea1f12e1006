package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"time"
)

// entry is one file of a release archive.
type entry struct {
	name string
	mode fs.FileMode
	data []byte
}

// sortedEntries returns the entries in name order.
func sortedEntries(entries []entry) []entry {
	out := slices.Clone(entries)
	slices.SortFunc(out, func(a, b entry) int { return strings.Compare(a.name, b.name) })
	return out
}

// writeTarGz writes a reproducible .tar.gz: entries sorted under dir/, owner
// root (0:0), the given modes, every time mtime; the gzip header has no name
// and no time.
func writeTarGz(file, dir string, entries []entry, mtime time.Time) error {
	var b bytes.Buffer
	zw, err := gzip.NewWriterLevel(&b, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(zw)
	hdr := func(name string, mode fs.FileMode, flag byte, size int64) *tar.Header {
		return &tar.Header{Typeflag: flag, Name: name, Mode: int64(mode), Size: size,
			ModTime: mtime, Uname: "root", Gname: "root", Format: tar.FormatUSTAR}
	}
	if err := tw.WriteHeader(hdr(dir+"/", 0o755, tar.TypeDir, 0)); err != nil {
		return err
	}
	for _, e := range sortedEntries(entries) {
		if err := tw.WriteHeader(hdr(path.Join(dir, e.name), e.mode, tar.TypeReg, int64(len(e.data)))); err != nil {
			return err
		}
		if _, err := tw.Write(e.data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(file, b.Bytes(), 0o644)
}

// writeZip writes a reproducible .zip: entries sorted under dir/, the given
// modes, every time mtime (UTC), deflated at the best compression.
func writeZip(file, dir string, entries []entry, mtime time.Time) error {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, flate.BestCompression)
	})
	dh := &zip.FileHeader{Name: dir + "/", Method: zip.Store, Modified: mtime}
	dh.SetMode(fs.ModeDir | 0o755)
	if _, err := zw.CreateHeader(dh); err != nil {
		return err
	}
	for _, e := range sortedEntries(entries) {
		h := &zip.FileHeader{Name: path.Join(dir, e.name), Method: zip.Deflate, Modified: mtime}
		h.SetMode(e.mode)
		w, err := zw.CreateHeader(h)
		if err != nil {
			return err
		}
		if _, err := w.Write(e.data); err != nil {
			return err
		}
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(file, b.Bytes(), 0o644)
}
