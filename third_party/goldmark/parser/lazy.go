package parser

// This file is not part of upstream goldmark: see SPIRIT.md at the root of
// this copy.

import (
	"regexp"
	"sync"
)

// lazyRegexp is a regular expression compiled on its first use rather than
// at program start, so that a program that links this package but renders
// no Markdown does not pay for it.
type lazyRegexp struct {
	src  string
	once sync.Once
	re   *regexp.Regexp
}

func lazyCompile(src string) *lazyRegexp { return &lazyRegexp{src: src} }

func (r *lazyRegexp) get() *regexp.Regexp {
	r.once.Do(func() { r.re = regexp.MustCompile(r.src) })
	return r.re
}

func (r *lazyRegexp) Match(b []byte) bool { return r.get().Match(b) }

func (r *lazyRegexp) FindSubmatchIndex(b []byte) []int { return r.get().FindSubmatchIndex(b) }
