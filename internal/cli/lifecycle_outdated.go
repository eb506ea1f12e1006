package cli

import (
	"context"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"

	"github.com/spiritagents/spirit/fetch"
	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/internal/rmtree"
	"github.com/spiritagents/spirit/internal/termtext"
	"github.com/spiritagents/spirit/npm"
)

// The kinds of install that outdated shows besides marketplace ones.
const (
	rowNPM   = "npm"
	rowLocal = "local"
	rowURL   = "url"
	rowOther = "other"
)

// sourceStatus is one install that did not come from a marketplace, in
// `outdated`: npm installs are checked against their registry, the others
// are shown and not checked. Its field names are a public contract.
type sourceStatus struct {
	ID   string `json:"id"`
	Kind string `json:"kind"` // npm | local | url | other
	// Asked is what the install asked for: the npm spec, the path or URL.
	Asked   string `json:"asked,omitempty"`
	Current string `json:"current"`
	// Wanted is the newest version that satisfies what was asked (npm
	// range or dist-tag); Latest the registry's latest dist-tag.
	Wanted   string `json:"wanted,omitempty"`
	Latest   string `json:"latest,omitempty"`
	Outdated bool   `json:"outdated"`
	Checked  bool   `json:"checked"`
	// Warning says why an npm install could not be checked.
	Warning string `json:"warning,omitempty"`
	// CacheAge, offline, is how old the cached registry document was.
	CacheAge string `json:"cacheAge,omitempty"`
	// Changed, for a URL install checked with --check-urls, says the URL
	// now serves other bytes than the ones installed.
	Changed bool `json:"changed,omitempty"`

	in   *install.Installed
	spec npm.Spec
}

// npmClients makes one npm client per registry that installs came from
// (the --npm-registry flag, when given, for all).
type npmClients struct {
	f        *Factory
	cacheDir string
	registry string
	offline  bool
	clients  map[string]*npm.Client
	// checkURLs downloads URL installs again to see whether they changed.
	checkURLs bool
}

func (nc *npmClients) client(recorded string) (*npm.Client, error) {
	reg := nc.registry
	if reg == "" {
		reg = recorded
	}
	if c, ok := nc.clients[reg]; ok {
		return c, nil
	}
	c, err := nc.f.npmClient(npm.Config{Registry: reg, CacheDir: nc.cacheDir, Offline: nc.offline, Progress: nc.f.IO.Progress()})
	if err != nil {
		return nil, err
	}
	if nc.clients == nil {
		nc.clients = map[string]*npm.Client{}
	}
	nc.clients[reg] = c
	return c, nil
}

// sourceStatuses returns a row for every install that is not a marketplace
// install, checking npm installs; an npm registry that cannot be reached is
// a warning on its rows.
func sourceStatuses(ctx context.Context, nc *npmClients, list []install.Installed) []sourceStatus {
	var out []sourceStatus
	for i := range list {
		in := &list[i]
		kind := install.KindOf(in.Record)
		if kind == install.KindMarketplace || kind == "" && in.Entry != nil && in.Entry.InstallSource == install.SourceMarketplace {
			continue
		}
		st := sourceStatus{ID: in.ID, Current: in.Version(), in: in}
		if in.Record != nil {
			st.Asked = in.Record.Source
		}
		switch kind {
		case install.KindDir, install.KindArchive:
			st.Kind = rowLocal
		case install.KindURL:
			st.Kind = rowURL
			if nc.checkURLs {
				checkURL(ctx, nc, &st)
			}
		case install.KindNPM:
			st.Kind = rowNPM
			checkNPM(ctx, nc, &st)
		default:
			st.Kind = rowOther
		}
		out = append(out, st)
	}
	return out
}

func checkNPM(ctx context.Context, nc *npmClients, st *sourceStatus) {
	spec, err := install.NPMSpecOf(st.in.Record)
	if err != nil {
		st.Warning = err.Error()
		return
	}
	st.spec = spec
	c, err := nc.client(st.in.Record.NPMRegistry)
	if err != nil {
		st.Warning = err.Error()
		return
	}
	w, err := c.Resolve(ctx, spec)
	if err != nil {
		st.Warning = err.Error()
		return
	}
	l, err := c.Resolve(ctx, npm.Spec{Name: spec.Name, Range: "latest"})
	if err != nil {
		st.Warning = err.Error()
		return
	}
	st.Wanted, st.Latest, st.Checked = w.Version, l.Version, true
	if nc.offline {
		if age, ok := c.CacheAge(spec.Name); ok {
			st.CacheAge = age.Round(time.Second).String()
		}
	}
	st.Outdated = newer(st.Wanted, st.Current) || newer(st.Latest, st.Current)
}

// checkURL downloads a URL install's URL again (through the fetch layer,
// with its limits) and compares the bytes with the digest recorded at
// install: no validator such as an ETag is recorded, so the bytes are the
// check. The download is removed afterwards.
func checkURL(ctx context.Context, nc *npmClients, st *sourceStatus) {
	rec := st.in.Record
	switch {
	case nc.offline:
		st.Warning = "not checked offline"
		return
	case rec == nil || rec.Integrity == "":
		st.Warning = "no digest was recorded at install"
		return
	}
	lim, err := nc.f.FetchLimits()
	if err != nil {
		st.Warning = err.Error()
		return
	}
	dir, err := os.MkdirTemp("", "spirit-check-")
	if err != nil {
		st.Warning = err.Error()
		return
	}
	defer rmtree.Remove(dir)
	u := rec.ResolvedURL
	if u == "" {
		u = rec.Source
	}
	file, _, err := install.DownloadWith(ctx, fetch.New(fetch.Options{HTTP: nc.f.HTTPClient(), Limits: lim}), u, dir)
	if err != nil {
		st.Warning = err.Error()
		return
	}
	data, err := os.ReadFile(file)
	if err != nil {
		st.Warning = err.Error()
		return
	}
	sum := sha512.Sum512(data)
	st.Checked = true
	st.Changed = !slices.Contains(strings.Fields(rec.Integrity), "sha512-"+base64.StdEncoding.EncodeToString(sum[:]))
	st.Outdated = st.Changed
}

// target is the version update installs: wanted, or latest with --latest.
func (st *sourceStatus) target(latest bool) string {
	if latest {
		return st.Latest
	}
	return st.Wanted
}

// newer reports whether a is a higher semver than b.
func newer(a, b string) bool {
	va, err1 := semver.NewVersion(a)
	vb, err2 := semver.NewVersion(b)
	return err1 == nil && err2 == nil && va.GreaterThan(vb)
}

// printSourceStatuses writes the npm rows that are outdated or could not
// be checked, and names the installs that are not checked.
func printSourceStatuses(f *Factory, rows []sourceStatus, offline bool) error {
	w := f.IO.Out
	var shown []sourceStatus
	npmRows := 0
	var unchecked []string
	for _, st := range rows {
		switch {
		case st.Kind == rowNPM:
			npmRows++
			if st.Outdated || st.Warning != "" {
				shown = append(shown, st)
			}
		case st.Kind == rowURL && (st.Checked || st.Warning != ""):
			if st.Changed || st.Warning != "" {
				shown = append(shown, st)
			}
		default:
			unchecked = append(unchecked, st.ID+" ("+st.Kind+")")
		}
	}
	if len(shown) > 0 {
		t := newTablePrinter(f.IO, -1, "ID", "SOURCE", "CURRENT", "WANTED", "LATEST", "ASKED")
		for _, st := range shown {
			latest := dash(st.Latest)
			if st.Changed {
				latest = "changed"
			}
			t.addRow(st.ID, st.Kind, st.Current, dash(st.Wanted), latest, st.Asked)
			t.colorCell(0, f.IO.ColorScheme().Bold)
		}
		if err := t.render(); err != nil {
			return err
		}
		for _, st := range shown {
			if st.Warning != "" {
				termtext.Fprintf(f.IO.ErrOut, "Warning: %s: not checked: %s\n", st.ID, st.Warning)
			}
		}
	} else if npmRows > 0 {
		fmt.Fprintln(w, upToDate(npmRows, "npm extension"))
	}
	if offline {
		for _, st := range rows {
			if st.Kind == rowNPM && st.CacheAge != "" {
				termtext.Fprintf(f.IO.ErrOut, "Offline: %s is checked against the cached registry document, %s old.\n", st.ID, st.CacheAge)
			}
		}
	}
	if len(unchecked) > 0 {
		termtext.Fprintf(w, "Not checked: %s.\n", strings.Join(unchecked, ", "))
	}
	return nil
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// updateNPM installs st's target version over the npm install st.in,
// through the same atomic install and consent as a marketplace update:
// what the new version adds needs --yes or a yes at the prompt. The record
// keeps what was asked.
func updateNPM(ctx context.Context, opts *UpdateOptions, nc *npmClients, in *install.Installer, st *sourceStatus) (*install.Result, error) {
	f := opts.f
	to := st.target(opts.Latest)
	c, err := nc.client(st.in.Record.NPMRegistry)
	if err != nil {
		return nil, err
	}
	res, err := c.Resolve(ctx, npm.Spec{Name: st.spec.Name, Range: to})
	if err != nil {
		return nil, err
	}
	if opts.Latest && major(to) != major(st.Current) && !opts.Yes && f.IO.CanPrompt() {
		if ok, _ := f.IO.Prompter().Confirm("Updating %s %s → %s crosses a major version. Continue?", st.ID, st.Current, to); !ok {
			return nil, fmt.Errorf("%w: %s crosses a major version", errNotConsented, to)
		}
	}
	tb, err := c.FetchTarball(ctx, res)
	if err != nil {
		return nil, err
	}
	if tb.Temporary {
		defer os.Remove(tb.Path)
	}
	adds, err := additionsOf(st.in, tb.Path)
	if err != nil {
		return nil, err
	}
	if err := consentTo(f, opts.Yes, st.ID, st.Current, to, adds); err != nil {
		return nil, err
	}
	asked := st.in.Record.Source
	if opts.Latest {
		asked = st.spec.Name + "@^" + to // past the range: the new range follows the new major
	}
	req := install.Request{
		Path: tb.Path, Replace: true, Source: asked, SourceKind: install.KindNPM, NPMRegistry: res.Registry,
		ResolvedURL: res.TarballURL, Integrity: tb.Integrity, InstallSource: install.SourceArchive,
		ArchiveFileName: tarballName(res.TarballURL), ExpectName: res.Name, ExpectVersion: res.Version,
	}
	out, err := in.Install(ctx, req)
	if errors.Is(err, install.ErrIdentity) {
		return nil, withHint(err, "the registry's tarball is not the package it names; do not install it")
	}
	return out, err
}

func tarballName(u string) string {
	if i := strings.LastIndex(u, "/"); i >= 0 {
		return u[i+1:]
	}
	return u
}

func major(v string) uint64 {
	sv, err := semver.NewVersion(v)
	if err != nil {
		return 0
	}
	return sv.Major()
}
