package cli

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/itchyny/gojq"

	"github.com/spiritagents/spirit/internal/termtext"
)

// jqFilter is --jq: the command's JSON output is collected and, when the
// command ends, each JSON value in it is filtered through a jq program
// (gojq, the maintained jq implementation in Go that gh also uses). A
// string result is printed as text (like jq -r), anything else as indented
// JSON. The results come from outside (an index, a package), so they follow
// the terminal and CI-log rules of every other output, piped or not: a
// string is escaped by termtext, and a JSON result has the characters
// termtext would escape written as \u escapes (the same value). Exact
// bytes are --json without --jq.
type jqFilter struct {
	code *gojq.Code
	out  io.Writer // where the results go
	buf  bytes.Buffer
}

// newJQFilter compiles expr, so a mistake in it is a usage error before
// the command does any work.
func newJQFilter(expr string, out io.Writer) (*jqFilter, error) {
	q, err := gojq.Parse(expr)
	if err != nil {
		return nil, usageErrorf("--jq %q: %v", expr, err)
	}
	code, err := gojq.Compile(q)
	if err != nil {
		return nil, usageErrorf("--jq %q: %v", expr, err)
	}
	return &jqFilter{code: code, out: out}, nil
}

// Write collects the command's output.
func (j *jqFilter) Write(p []byte) (int, error) { return j.buf.Write(p) }

// flush filters what the command wrote and prints the results.
func (j *jqFilter) flush() error {
	dec := json.NewDecoder(&j.buf)
	for {
		var v any
		err := dec.Decode(&v)
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return withHint(fmt.Errorf("--jq: the output of this command is not JSON: %w", err), "--jq works on the commands that print --json")
		}
		iter := j.code.Run(v)
		for {
			r, ok := iter.Next()
			if !ok {
				break
			}
			if err, ok := r.(error); ok {
				var halt *gojq.HaltError
				if errors.As(err, &halt) && halt.Value() == nil {
					break
				}
				return fmt.Errorf("--jq: %w", err)
			}
			if s, ok := r.(string); ok {
				termtext.Fprintf(j.out, "%s\n", termtext.Multiline(s))
				continue
			}
			var b bytes.Buffer
			if err := writeJSON(&b, r); err != nil {
				return fmt.Errorf("--jq: %w", err)
			}
			if _, err := j.out.Write(termtext.JSON(b.Bytes())); err != nil {
				return fmt.Errorf("--jq: %w", err)
			}
		}
	}
}
