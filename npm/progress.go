package npm

import "github.com/spiritagents/spirit/fetch"

// progress wraps a possibly nil fetch.Progress.
type progress struct{ p fetch.Progress }

func (p progress) start(label string, total int64) {
	if p.p != nil {
		p.p.Start(label, total)
	}
}

func (p progress) done(err error) {
	if p.p != nil {
		p.p.Done(err)
	}
}
