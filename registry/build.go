package registry

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"

	"golang.org/x/sync/errgroup"

	"github.com/spiritagents/spirit/internal/within"
)

// Packuments gives raw full npm packuments. *npm.Client satisfies it.
type Packuments interface {
	FullPackument(ctx context.Context, name string) ([]byte, error)
}

// Progress hears about a build as it goes. Either method may be left
// without effect; a nil Progress is allowed everywhere.
type Progress interface {
	// Fetched is called after each packument, with how many of total are done.
	Fetched(pkg string, done, total int)
}

// BuildOptions tune Build.
type BuildOptions struct {
	// Root is the registry repository (the folder holding registry/).
	Root string
	// NPM fetches packuments.
	NPM Packuments
	// Jobs is how many packuments are fetched at once (0 → 16).
	Jobs int
	// Check builds in memory only and reports a diff against the files.
	Check bool
	// Since, when set, is a git revision: entries whose entry.json is the
	// same as in it reuse their current detail.json when that still agrees
	// with the entry.
	Since string
	// Strict turns schema warnings into errors.
	Strict bool
	// Schemas, when set, checks entries against the official schemas.
	Schemas *Schemas
	// Progress, when set, hears about fetches.
	Progress Progress
}

// BuildResult says what a build did.
type BuildResult struct {
	// Entries is the number of extensions in the catalog.
	Entries int `json:"entries"`
	// Fetched is the number of packuments fetched; Reused the number of
	// details kept through --since.
	Fetched int `json:"fetched"`
	Reused  int `json:"reused"`
	// Written, Deleted and Unchanged are paths relative to the root (with
	// Check: what would be written or deleted).
	Written   []string `json:"written"`
	Deleted   []string `json:"deleted"`
	Unchanged int      `json:"unchanged"`
	// Diff is the unified diff of stale files (Check only); "" when up to date.
	Diff string `json:"diff,omitempty"`
	// Warnings are the schema problems that did not fail the build.
	Warnings []Problem `json:"warnings"`
}

// Stale reports whether a check found files to change.
func (r *BuildResult) Stale() bool { return len(r.Written)+len(r.Deleted) > 0 }

// built is one entry's output.
type built struct {
	entry    *Entry
	versions []*Value
	problems []Problem
	reused   bool
	// detail is the encoded detail.json; old what is on disk (nil if none).
	detail, old []byte
}

// finish encodes the entry's detail and reads the current file, so the
// comparison happens in the workers, alongside the network waits.
func (b *built) finish(root string) {
	if len(b.problems) > 0 {
		return
	}
	b.detail = append(Encode(detailDoc(b.entry, b.versions)), '\n')
	old, err := readIfExists(root, filepath.Join(extensionsDir(root), b.entry.ID(), "detail.json"))
	if err != nil {
		b.problems = append(b.problems, Problem{File: b.entry.File, Message: err.Error(), Severity: SeverityError})
	}
	b.old = old
}

// Build regenerates registry/catalog.json and every
// registry/extensions/<extensionId>/detail.json from the entries and npm,
// byte for byte as the reference builder does. Every problem of every entry
// is collected; when there is any, a *ProblemsError is returned and no
// file is touched. Outputs are written atomically, details first, then
// stale details are removed, then the catalog.
func Build(ctx context.Context, opts BuildOptions) (*BuildResult, error) {
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, err
	}
	entries, ps, err := LoadEntries(root, opts.Schemas)
	if err != nil {
		return nil, err
	}
	ps = strictify(ps, opts.Strict)
	if hasErrors(ps) {
		return nil, &ProblemsError{What: "entry check", Problems: ps}
	}
	res := &BuildResult{Entries: len(entries), Warnings: ps, Written: []string{}, Deleted: []string{}}

	var unchanged func(string, []byte) bool
	if opts.Since != "" {
		if unchanged, err = unchangedSince(root, opts.Since); err != nil {
			return nil, err
		}
	}
	results := make([]*built, len(entries))
	var todo []int
	var readmeProblems []Problem
	for i, e := range entries {
		results[i] = &built{entry: e}
		readme := filepath.Join(extensionsDir(root), e.ID(), "README.md")
		st, err := within.Stat(root, readme)
		if errors.Is(err, within.ErrEscape) {
			readmeProblems = append(readmeProblems, Problem{File: e.File, Severity: SeverityError, Message: err.Error()})
			continue
		}
		if err != nil || !st.Mode().IsRegular() {
			readmeProblems = append(readmeProblems, Problem{File: e.File, Severity: SeverityError,
				Message: fmt.Sprintf("Missing README.md for extensionId '%s' at '%s'.", e.ID(), readme)})
			continue
		}
		if unchanged != nil && unchanged(e.File, e.Data) {
			if vs := reuseDetail(root, e); vs != nil {
				results[i].versions, results[i].reused = vs, true
				results[i].finish(root)
				res.Reused++
				continue
			}
		}
		todo = append(todo, i)
	}
	if len(readmeProblems) > 0 {
		return nil, &ProblemsError{What: "README check", Problems: readmeProblems}
	}
	if len(todo) > 0 && opts.NPM == nil {
		return nil, errors.New("no npm client to fetch package metadata with")
	}
	fetchAll(ctx, root, opts, results, todo)
	res.Fetched = len(todo)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var npmProblems []Problem
	items := make([]*Value, 0, len(entries))
	for _, b := range results {
		npmProblems = append(npmProblems, b.problems...)
		if len(b.problems) > 0 {
			continue
		}
		item, err := catalogItem(b.entry, b.versions)
		if err != nil {
			npmProblems = append(npmProblems, Problem{File: b.entry.File, Message: err.Error(), Severity: SeverityError})
			continue
		}
		items = append(items, item)
	}
	if len(npmProblems) > 0 {
		return nil, &ProblemsError{What: "npm metadata", Problems: npmProblems}
	}
	catalog := append(Encode(catalogDoc(items)), '\n')
	if err := writeOutputs(root, results, catalog, opts.Check, res); err != nil {
		return nil, err
	}
	return res, nil
}

// fetchAll fetches and builds the entries at todo with opts.Jobs workers.
func fetchAll(ctx context.Context, root string, opts BuildOptions, results []*built, todo []int) {
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = 16
	}
	jobs = min(jobs, len(todo))
	var g errgroup.Group
	g.SetLimit(jobs)
	var mu sync.Mutex
	done := 0
	for _, i := range todo {
		if ctx.Err() != nil {
			break
		}
		g.Go(func() error {
			b := results[i]
			b.versions, b.problems = buildEntry(ctx, opts.NPM, b.entry)
			b.finish(root)
			if opts.Progress != nil {
				mu.Lock()
				done++
				opts.Progress.Fetched(b.entry.PackageName(), done, len(todo))
				mu.Unlock()
			}
			return nil
		})
	}
	_ = g.Wait()
}

// buildEntry fetches an entry's packument and builds its detail versions.
func buildEntry(ctx context.Context, npm Packuments, e *Entry) ([]*Value, []Problem) {
	pkg := e.PackageName()
	perr := func(format string, a ...any) []Problem {
		return []Problem{{File: e.File, Message: fmt.Sprintf(format, a...), Severity: SeverityError}}
	}
	data, err := npm.FullPackument(ctx, pkg)
	if err != nil {
		return nil, append(perr("%v", err), perr("Failed to fetch npm metadata for %s.", pkg)...)
	}
	doc, err := parsePackument(data)
	if err != nil {
		return nil, perr("npm metadata for %s: %v", pkg, err)
	}
	var out []*Value
	var ps []Problem
	for _, item := range e.versions() {
		v, err := detailVersion(pkg, item, doc)
		if err != nil {
			ps = append(ps, perr("%s: %v", e.File, err)...)
			continue
		}
		out = append(out, v)
	}
	return out, ps
}

// reuseDetail returns the versions of the entry's current detail.json
// when it agrees with the entry (the checks of spec §5), else nil.
func reuseDetail(root string, e *Entry) []*Value {
	data, err := within.ReadFile(root, filepath.Join(extensionsDir(root), e.ID(), "detail.json"))
	if err != nil {
		return nil
	}
	d, err := ParseValue(data)
	if err != nil || len(checkDetail(e, d, nil)) > 0 {
		return nil
	}
	vs, _ := d.Get("versions")
	// Put them in the entry's order, which is the order a fetch produces.
	out := make([]*Value, 0, len(vs.Elems))
	for _, ev := range e.versions() {
		for _, dv := range vs.Elems {
			if Equal(fieldOf(dv, "version"), fieldOf(ev, "version")) {
				out = append(out, dv)
				break
			}
		}
	}
	return out
}

// writeOutputs writes (or, with check, compares) the details and catalog.
func writeOutputs(root string, results []*built, catalog []byte, check bool, res *BuildResult) error {
	want := map[string]bool{}
	var changed []*built
	for _, b := range results {
		want[filepath.Join(extensionsDir(root), b.entry.ID(), "detail.json")] = true
		if b.old != nil && bytes.Equal(b.old, b.detail) {
			res.Unchanged++
			continue
		}
		changed = append(changed, b)
	}
	existing, err := findFiles(root, "detail.json")
	if err != nil {
		return err
	}
	var stale []string
	for _, f := range existing {
		if !want[f] {
			stale = append(stale, f)
		}
	}
	var diff bytes.Buffer
	for _, b := range changed {
		rel := "registry/extensions/" + b.entry.ID() + "/detail.json"
		res.Written = append(res.Written, rel)
		if check {
			diff.WriteString(UnifiedDiff("a/"+rel, "b/"+rel, b.old, b.detail))
		}
	}
	// Details first, then stale deletions, then the catalog: a reader of
	// catalog.json never sees a detailPath that is not there yet.
	if !check {
		if err := writeDetails(root, changed); err != nil {
			return err
		}
	}
	for _, f := range stale {
		rel, _ := filepath.Rel(root, f)
		rel = filepath.ToSlash(rel)
		res.Deleted = append(res.Deleted, rel)
		if check {
			old, err := within.ReadFile(root, f)
			if err != nil {
				return err
			}
			diff.WriteString(UnifiedDiff("a/"+rel, "/dev/null", old, nil))
			continue
		}
		if err := within.Remove(root, f); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	catalogPath := filepath.Join(root, "registry", "catalog.json")
	old, err := readIfExists(root, catalogPath)
	if err != nil {
		return err
	}
	if old != nil && bytes.Equal(old, catalog) {
		res.Unchanged++
	} else {
		res.Written = append(res.Written, "registry/catalog.json")
		if check {
			diff.WriteString(UnifiedDiff("a/registry/catalog.json", "b/registry/catalog.json", old, catalog))
		} else if err := within.WriteFile(root, catalogPath, catalog, 0o644); err != nil {
			return err
		}
	}
	slices.Sort(res.Deleted)
	res.Diff = diff.String()
	return nil
}

// writeDetails writes the changed details with a few writers at once.
func writeDetails(root string, changed []*built) error {
	const writers = 8
	var g errgroup.Group
	g.SetLimit(writers)
	errs := make([]error, len(changed))
	for i, b := range changed {
		g.Go(func() error {
			errs[i] = within.WriteFile(root, filepath.Join(extensionsDir(root), b.entry.ID(), "detail.json"), b.detail, 0o644)
			return nil
		})
	}
	_ = g.Wait()
	return errors.Join(errs...)
}
