// Package errkind makes errors that match a sentinel with errors.Is
// without repeating its text: fmt.Errorf("%w: …") prints the sentinel
// first, which stutters when the message already says the same thing
// ("URL must use https: registry URL must use https: http://…").
package errkind

import (
	"errors"
	"fmt"
)

// Errorf formats a message like fmt.Errorf (a %w in it wraps as usual) and
// returns an error with that text that also matches kind.
func Errorf(kind error, format string, a ...any) error {
	return &kindError{kind: kind, err: fmt.Errorf(format, a...)}
}

type kindError struct {
	kind error
	err  error
}

func (e *kindError) Error() string { return e.err.Error() }
func (e *kindError) Unwrap() []error {
	if inner := errors.Unwrap(e.err); inner != nil {
		return []error{e.kind, inner}
	}
	return []error{e.kind}
}
