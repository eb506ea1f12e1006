package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/spiritagents/spirit/internal/termtext"
	"github.com/spiritagents/spirit/manifest"
	"github.com/spiritagents/spirit/pack"
)

// PackOptions are the inputs of `spirit extension pack`.
type PackOptions struct {
	f      *Factory
	Dir    string
	Zip    bool
	Tgz    bool
	Output string
}

func newCmdPack(f *Factory, runF func(*PackOptions) error) *cobra.Command {
	opts := &PackOptions{f: f}
	cmd := &cobra.Command{
		Use:   "pack [DIR]",
		Short: "Make the .tgz and .zip of an extension package",
		Long: `Validate the package in DIR (default: the current directory) and write its
archives: <name>-<version>.tgz (npm layout, package/ root, what npm publish
uploads) and <name>-<version>.zip (package.json at the top, what the Spirit Agent
apps import). Without --zip or --tgz both are written.

The archives hold exactly the files npm would publish: the list comes from
"npm pack --dry-run --json --ignore-scripts", so npm must be installed (or
SPIRIT_NPM set to it); no package script runs. The bytes are reproducible:
packing the same tree twice gives identical files. The sha512 integrity of each
archive is printed.

Validation errors stop it. A ZIP that would hold a second package.json (from a
bundled node_modules, say) is refused, as the apps refuse to import it; a
non-empty "dependencies" is a warning: the apps install no dependencies, so
bundle them into main.

-o PATH names the archive when one format is written, and the directory to
write into when both are (the default is the current directory).`,
		Example: `  spirit extension pack
  spirit extension pack ./my-ext --zip -o dist/my-ext.zip
  spirit extension pack ./my-ext -o dist --json`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Dir = "."
			if len(args) == 1 {
				opts.Dir = args[0]
			}
			if runF != nil {
				return runF(opts)
			}
			return runPack(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Zip, "zip", false, "write the .zip (without --tgz: only the .zip)")
	cmd.Flags().BoolVar(&opts.Tgz, "tgz", false, "write the .tgz (without --zip: only the .tgz)")
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "", "archive path (one format) or directory (both)")
	return cmd
}

// PackReport is the --json output of `pack`. Its fields are a public contract.
type PackReport struct {
	ID        string         `json:"id"`
	Version   string         `json:"version"`
	Files     []string       `json:"files"`
	Artifacts []PackArtifact `json:"artifacts"`
}

// PackArtifact is one archive written by `pack`.
type PackArtifact struct {
	Path      string `json:"path"`
	Format    string `json:"format"` // tgz | zip
	Size      int    `json:"size"`
	Integrity string `json:"integrity"`
}

func runPack(ctx context.Context, opts *PackOptions) error {
	f := opts.f
	if !opts.Zip && !opts.Tgz {
		opts.Zip, opts.Tgz = true, true
	}
	rep := validatePath(opts.Dir, manifest.Options{})
	if rep.Error != "" {
		return fmt.Errorf("cannot read %s: %s", opts.Dir, rep.Error)
	}
	if !rep.Valid {
		printValidation(f.IO.ErrOut, f.IO.ErrOut, []ValidationReport{rep})
		return &problemsError{msg: "the package is invalid; fix the errors above before packing"}
	}
	for _, pr := range rep.Problems {
		termtext.Fprintf(f.IO.ErrOut, "warning: %s: %s%s\n", opts.Dir, pointerPrefix(pr.Pointer), pr.Message)
	}
	if deps := dependencies(filepath.Join(opts.Dir, "package.json")); len(deps) > 0 {
		termtext.Fprintf(f.IO.ErrOut, "warning: package.json has dependencies (%s); the Spirit Agent apps install none: bundle them into main (with esbuild or rollup, say)\n",
			strings.Join(deps, ", "))
	}
	list, err := pack.NPMList(ctx, opts.Dir, f.Getenv("SPIRIT_NPM"))
	if errors.Is(err, pack.ErrNoNPM) {
		return withHint(err, "install Node.js with npm (https://nodejs.org)")
	}
	if err != nil {
		return err
	}
	type job struct {
		format string
		write  func(*bytes.Buffer) error
	}
	var jobs []job
	if opts.Tgz {
		jobs = append(jobs, job{"tgz", func(b *bytes.Buffer) error { return pack.Tgz(b, opts.Dir, list.Files) }})
	}
	if opts.Zip {
		jobs = append(jobs, job{"zip", func(b *bytes.Buffer) error { return pack.Zip(b, opts.Dir, list.Files) }})
	}
	report := PackReport{ID: rep.ID, Version: rep.Version, Files: []string{}}
	for _, fl := range list.Files {
		report.Files = append(report.Files, fl.Path)
	}
	for _, j := range jobs {
		var b bytes.Buffer
		if err := j.write(&b); err != nil {
			if errors.Is(err, pack.ErrSecondManifest) {
				return withHint(err, "leave node_modules out of \"files\" and bundle the dependencies into main, or pack only the npm tarball with --tgz")
			}
			return fmt.Errorf("packing %s: %w", j.format, err)
		}
		out, err := packOutput(opts, list.Stem()+"."+j.format, len(jobs))
		if err != nil {
			return err
		}
		if err := writeFileAtomic(out, b.Bytes()); err != nil {
			return err
		}
		report.Artifacts = append(report.Artifacts, PackArtifact{Path: out, Format: j.format, Size: b.Len(), Integrity: pack.Integrity(b.Bytes())})
	}
	if f.Global.JSON {
		return writeJSON(f.IO.Out, report)
	}
	termtext.Fprintf(f.IO.ErrOut, "Packed %s %s: %s\n", report.ID, report.Version, plural(len(report.Files), "file"))
	for _, name := range report.Files {
		termtext.Fprintf(f.IO.ErrOut, "  %s\n", name)
	}
	for _, a := range report.Artifacts {
		termtext.Fprintf(f.IO.Out, "%s  %s\n", a.Path, a.Integrity)
	}
	return nil
}

// packOutput is where the archive name goes: -o itself when one archive is
// written and -o is not a directory, else inside -o (or the current directory).
func packOutput(opts *PackOptions, name string, n int) (string, error) {
	o := opts.Output
	if o == "" {
		return name, nil
	}
	fi, err := os.Stat(o)
	isDir := err == nil && fi.IsDir()
	if n > 1 || isDir || strings.HasSuffix(o, "/") || strings.HasSuffix(o, string(filepath.Separator)) {
		if err := os.MkdirAll(o, 0o755); err != nil {
			return "", err
		}
		return filepath.Join(o, name), nil
	}
	if err := os.MkdirAll(filepath.Dir(o), 0o755); err != nil {
		return "", err
	}
	return o, nil
}

// writeFileAtomic writes data to name through a temporary file beside it,
// so a failure leaves any previous file in place.
func writeFileAtomic(name string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(name), ".spirit-pack-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), name)
}

// dependencies returns the names in package.json's "dependencies".
func dependencies(manifestPath string) []string {
	data, err := os.ReadFile(manifestPath)
	if err != nil {
		return nil
	}
	var doc struct {
		Dependencies map[string]json.RawMessage `json:"dependencies"`
	}
	if json.Unmarshal(data, &doc) != nil {
		return nil
	}
	var names []string
	for n := range doc.Dependencies {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}
