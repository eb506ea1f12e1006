package npm

// Progress receives download progress. Any method may be left a no-op; a
// nil Progress is allowed everywhere.
type Progress interface {
	// Start begins a download of total bytes (-1 when unknown); label
	// names the package, never a credential.
	Start(label string, total int64)
	// Add reports n more bytes.
	Add(n int64)
	// Done ends the download, with its error or nil.
	Done(err error)
}

// progress wraps a possibly nil Progress.
type progress struct{ p Progress }

func (p progress) start(label string, total int64) {
	if p.p != nil {
		p.p.Start(label, total)
	}
}

func (p progress) add(n int64) {
	if p.p != nil && n > 0 {
		p.p.Add(n)
	}
}

func (p progress) done(err error) {
	if p.p != nil {
		p.p.Done(err)
	}
}
