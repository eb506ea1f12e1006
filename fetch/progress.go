package fetch

import "io"

// Progress receives the progress of a download. It is the one progress
// type of every download (npm tarballs, marketplace archives, URL
// installs); callers take a nil Progress to mean none.
type Progress interface {
	// Start begins a download of total bytes (-1 when unknown); label
	// names what is downloaded, never a credential.
	Start(label string, total int64)
	// Add reports n more bytes.
	Add(n int64)
	// Done ends the download, with its error or nil.
	Done(err error)
}

// ProgressWriter returns a writer that reports the length of each write
// to p (a Download.Tee's writer); with a nil p it discards.
func ProgressWriter(p Progress) io.Writer {
	if p == nil {
		return io.Discard
	}
	return progressWriter{p}
}

type progressWriter struct{ p Progress }

func (w progressWriter) Write(b []byte) (int, error) {
	if len(b) > 0 {
		w.p.Add(int64(len(b)))
	}
	return len(b), nil
}
