package css

// This file is not part of upstream bluemonday: see SPIRIT.md at the root of
// this copy.

import (
	"regexp"
	"sync"
)

// lazyRegexp is a regular expression compiled on its first use rather than
// at program start, so that a program that links this package but never
// sanitizes a style attribute does not pay for compiling some forty
// expressions. It has the methods the handlers call.
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

// MatchString is regexp.Regexp.MatchString.
func (r *lazyRegexp) MatchString(s string) bool { return r.get().MatchString(s) }

// FindString is regexp.Regexp.FindString.
func (r *lazyRegexp) FindString(s string) string { return r.get().FindString(s) }

// ReplaceAll is regexp.Regexp.ReplaceAll.
func (r *lazyRegexp) ReplaceAll(src, repl []byte) []byte { return r.get().ReplaceAll(src, repl) }

// String is regexp.Regexp.String.
func (r *lazyRegexp) String() string { return r.src }
