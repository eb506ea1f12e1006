package manifest

import "io/fs"

// MaxSize is the largest package.json accepted (1 MiB).
const MaxSize = 1 << 20

// MaxDepth is the deepest JSON nesting accepted.
const MaxDepth = 64

// Options tune Validate.
type Options struct {
	// Host, when set ("cli" or "desktop"), must be in supportedHosts.
	Host string
	// Strict makes every warning an error.
	Strict bool
}

// Validate checks package.json bytes and reports every problem. fsys is the
// package root, used for the rules that look at files (main, icon, css,
// hooks, symlink escapes); when it is nil those rules are skipped, and so is
// reading the CLI hooks file.
func Validate(data []byte, fsys fs.FS, opts Options) *Report {
	panic("TODO")
}
