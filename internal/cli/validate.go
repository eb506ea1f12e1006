package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/internal/iostreams"
	"github.com/spiritagents/spirit/internal/termtext"
	"github.com/spiritagents/spirit/manifest"
)

// ValidateOptions are the inputs of `spirit extension validate`.
type ValidateOptions struct {
	IO     *iostreams.IOStreams
	JSON   bool
	Paths  []string
	Strict bool
	// Host, when set, is the host whose support the packages must declare
	// (--host or SPIRIT_HOST).
	Host string
	// Activate runs each statically valid package in the real runner
	// (--activate) and adds what it finds.
	Activate bool
	activate func(ctx context.Context, path string) []manifest.Problem
}

func newCmdValidate(f *Factory, runF func(*ValidateOptions) error) *cobra.Command {
	opts := &ValidateOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "validate [PATH…]",
		Short: "Check extension packages and report every problem",
		Long: `Check extension packages before publishing them, and report every problem at
once: each with a JSON pointer into package.json, a message (the Spirit Agent
apps' own wording) and a severity.

PATH is a package directory (the default is the current directory), a
package.json, a .zip (exactly one package.json anywhere; its folder is the
package root) or a .tgz (npm layout, package/ root).

With --activate, each package that passes the static checks is also run in
the real runner, in a throwaway data directory and the sandbox, and the
runtime contract is reported in the same form: activation fails or times out
(with the file:line:column Node reports), a declared tool has no handler
(error), activate returns a handler for an undeclared tool (warning), or
system-prompt is requested but no prompt is returned (error).

Exit status: 0 when every package is valid (warnings allowed), 3 when any is
invalid, 1 when an input cannot be read, 2 on usage errors.`,
		Example: `  spirit extension validate ./my-ext
  spirit extension validate my-ext-1.0.0.tgz other.zip --json
  spirit extension validate --strict --host desktop .
  spirit extension validate --activate ./my-ext`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Paths = args
			if len(opts.Paths) == 0 {
				opts.Paths = []string{"."}
			}
			opts.JSON = f.Global.JSON
			if f.Global.Host != "" || f.Getenv("SPIRIT_HOST") != "" {
				host, err := f.HostKind()
				if err != nil {
					return err
				}
				opts.Host = string(host)
			}
			if opts.Activate {
				host, err := f.HostKind()
				if err != nil {
					return err
				}
				opts.activate = (&activateChecker{f: f, host: host}).check
			}
			if runF != nil {
				return runF(opts)
			}
			return runValidate(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Strict, "strict", false, "treat warnings as errors")
	cmd.Flags().BoolVar(&opts.Activate, "activate", false, "also run each package in the real runner and check its handlers")
	return cmd
}

// ValidationReport is the --json report of one path. Its fields are a public contract.
type ValidationReport struct {
	Path     string             `json:"path"`
	ID       string             `json:"id,omitempty"`
	Version  string             `json:"version,omitempty"`
	Valid    bool               `json:"valid"`
	Error    string             `json:"error,omitempty"`
	Problems []manifest.Problem `json:"problems"`
}

// readError marks an input that could not be read at all (exit 1).
type readError struct{ err error }

func (e *readError) Error() string { return e.err.Error() }
func (e *readError) Unwrap() error { return e.err }

func runValidate(ctx context.Context, opts *ValidateOptions) error {
	mopts := manifest.Options{Strict: opts.Strict, Host: opts.Host}
	reports := make([]ValidationReport, 0, len(opts.Paths))
	unreadable, invalid := 0, 0
	for _, p := range opts.Paths {
		rep := validatePath(p, mopts)
		if rep.Valid && opts.activate != nil {
			for _, pr := range opts.activate(ctx, p) {
				if opts.Strict {
					pr.Severity = manifest.SeverityError
				}
				rep.Valid = rep.Valid && pr.Severity != manifest.SeverityError
				rep.Problems = append(rep.Problems, pr)
			}
		}
		switch {
		case rep.Error != "":
			unreadable++
		case !rep.Valid:
			invalid++
		}
		reports = append(reports, rep)
	}
	if opts.JSON {
		if err := writeJSON(opts.IO.Out, reports); err != nil {
			return err
		}
	} else {
		printValidation(opts.IO.Out, opts.IO.ErrOut, reports)
	}
	switch {
	case unreadable > 0:
		// Reports for the readable paths are already out; this only sets the exit code.
		return &exitError{code: ExitFailure}
	case invalid > 0:
		return &problemsError{}
	}
	return nil
}

func printValidation(out, errOut io.Writer, reports []ValidationReport) {
	var errs, warns, valid int
	for _, r := range reports {
		if r.Error != "" {
			termtext.Fprintf(errOut, "%s: cannot read: %s\n", r.Path, r.Error)
			continue
		}
		for _, p := range r.Problems {
			loc := r.Path + ": "
			if p.Pointer != "" {
				loc += p.Pointer + ": "
			}
			sev := ""
			if p.Severity == manifest.SeverityWarning {
				sev = "warning: "
				warns++
			} else {
				errs++
			}
			line := loc + sev + p.Message
			if p.Detail != "" {
				line += " (" + p.Detail + ")"
			}
			termtext.Fprintln(out, line)
			if p.Hint != "" {
				termtext.Fprintf(out, "  Hint: %s\n", p.Hint)
			}
		}
		if r.Valid {
			valid++
			termtext.Fprintf(out, "%s: ok: %s %s\n", r.Path, r.ID, r.Version)
		}
	}
	termtext.Fprintf(out, "%s checked: %d valid, %d invalid, %d unreadable; %s, %s\n",
		plural(len(reports), "package"), valid, countInvalid(reports), countUnreadable(reports),
		plural(errs, "error"), plural(warns, "warning"))
}

func countInvalid(rs []ValidationReport) (n int) {
	for _, r := range rs {
		if r.Error == "" && !r.Valid {
			n++
		}
	}
	return n
}

func countUnreadable(rs []ValidationReport) (n int) {
	for _, r := range rs {
		if r.Error != "" {
			n++
		}
	}
	return n
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// validatePath validates one directory, package.json, .zip or .tgz.
func validatePath(p string, opts manifest.Options) ValidationReport {
	rep := ValidationReport{Path: p, Problems: []manifest.Problem{}}
	data, fsys, err := openPackage(p)
	var re *readError
	switch {
	case errors.As(err, &re):
		rep.Error = err.Error()
		return rep
	case err != nil:
		// The package is readable but breaks a packaging rule.
		rep.Problems = append(rep.Problems, manifest.Problem{InDocument: true, Message: err.Error(), Severity: manifest.SeverityError})
		return rep
	}
	r := manifest.Validate(data, fsys, opts)
	rep.Problems = append(rep.Problems, r.Problems...)
	rep.Valid = r.Valid()
	if r.Manifest != nil {
		rep.ID, rep.Version = r.Manifest.ID, r.Manifest.Version
	}
	return rep
}

// openPackage returns the package.json bytes and the package root of p.
// A *readError means p could not be read at all.
func openPackage(p string) ([]byte, fs.FS, error) {
	info, err := os.Stat(p)
	if err != nil {
		return nil, nil, &readError{err}
	}
	if info.IsDir() {
		data, err := readManifestFile(filepath.Join(p, "package.json"))
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, install.ErrMissingDirJSON
		}
		if err == nil {
			err = checkFolderNames(p)
		}
		return data, manifest.DirFS(p), err
	}
	if strings.EqualFold(filepath.Ext(p), ".json") {
		data, err := readManifestFile(p)
		if err == nil {
			err = checkFolderNames(filepath.Dir(p))
		}
		return data, manifest.DirFS(filepath.Dir(p)), err
	}
	a, err := install.ReadArchive(p)
	if err != nil {
		if errors.Is(err, install.ErrCorrupt) || errors.Is(err, install.ErrUnknownFormat) || isOSError(err) {
			return nil, nil, &readError{err}
		}
		return nil, nil, err
	}
	return a.Manifest, a.FS, nil
}

// checkFolderNames applies install's name rules to a package folder, as a
// folder install would: a broken rule is the package's problem, a folder
// that cannot be walked a *readError.
func checkFolderNames(dir string) error {
	err := install.CheckNames(dir)
	if err != nil && !errors.Is(err, install.ErrUnsafe) {
		return &readError{err}
	}
	return err
}

// readManifestFile reads at most one byte more than manifest.MaxSize, so
// the size rule can speak without reading a huge file whole.
func readManifestFile(name string) ([]byte, error) {
	fh, err := os.Open(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, &readError{err}
	}
	defer fh.Close()
	data, err := io.ReadAll(io.LimitReader(fh, manifest.MaxSize+1))
	if err != nil {
		return nil, &readError{err}
	}
	return data, nil
}

func isOSError(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe)
}
