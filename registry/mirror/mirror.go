package mirror

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/spiritagents/spirit/catalog"
	"github.com/spiritagents/spirit/catalog/verify"
	"github.com/spiritagents/spirit/internal/outputs"
	"github.com/spiritagents/spirit/internal/within"
	"github.com/spiritagents/spirit/npm"
)

// Options configure Mirror.
type Options struct {
	// Source reads the index to copy.
	Source *catalog.Client
	// Out is the mirror folder; it is made if missing.
	Out string
	// Channels, Hosts and IDs select what is mirrored; empty selects all.
	Channels, Hosts, IDs []string
	// KeepRemoved keeps what the source no longer lists.
	KeepRemoved bool
	// AllowSHA1 accepts tarballs that only sha1 verifies.
	AllowSHA1 bool
	// BaseURL, when set, is the URL the mirror will be served from: tarball
	// URLs are then absolute (BaseURL + tarballs/…) rather than relative,
	// for clients that accept only absolute https tarball URLs (the Spirit
	// Agent apps). It must be https (or http to a loopback host).
	BaseURL string
	// Log, when set, hears one line per tarball downloaded.
	Log func(msg string)
}

// Result says what Mirror did. Paths are relative to Out, with slashes.
type Result struct {
	Extensions int               `json:"extensions"`
	Versions   int               `json:"versions"`
	Downloaded []string          `json:"downloaded"`
	Written    []string          `json:"written"`
	Removed    []string          `json:"removed"`
	Refused    []Refusal         `json:"refused,omitempty"`
	Warnings   []catalog.Warning `json:"warnings,omitempty"`
}

// Refusal is a version left out because its tarball could not be fetched
// or verified.
type Refusal struct {
	ExtensionID string `json:"extensionId"`
	Version     string `json:"version"`
	Error       string `json:"error"`
	err         error
}

// ErrRefused is matched by the error Mirror returns when some versions
// were left out; the mirror is complete otherwise.
var ErrRefused = errors.New("versions were left out of the mirror")

// RefusedError lists the versions that were left out.
type RefusedError struct{ Refused []Refusal }

func (e *RefusedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d versions were left out of the mirror:", len(e.Refused))
	for _, r := range e.Refused {
		fmt.Fprintf(&b, "\n  %s@%s: %s", r.ExtensionID, r.Version, r.Error)
	}
	return b.String()
}

// Is matches ErrRefused.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// Unwrap returns the errors of the refusals (npm.ErrIntegrity for a
// tampered tarball).
func (e *RefusedError) Unwrap() []error {
	var errs []error
	for _, r := range e.Refused {
		errs = append(errs, r.err)
	}
	return errs
}

// ErrUnknownID: an id of Options.IDs is not in the source catalog.
var ErrUnknownID = errors.New("extension is not in the source catalog")

// safeSegment is a name that can be a path segment on every system. It is
// compiled on first use: the {0,199} repetition makes a large program, which
// every spirit process would otherwise build at start.
var safeSegment = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9@_][A-Za-z0-9._@+-]{0,199}$`)
})

// mirrored is one extension as the mirror will hold it.
type mirrored struct {
	item   catalog.Item
	detail catalog.Detail
	readme []byte
}

// Mirror copies the index of opts.Source into opts.Out.
func Mirror(ctx context.Context, opts Options) (*Result, error) {
	cat, err := opts.Source.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	base, err := baseURL(opts.BaseURL)
	if err != nil {
		return nil, err
	}
	opts.BaseURL = base
	for _, id := range opts.IDs {
		if cat.Find(id) == nil {
			return nil, fmt.Errorf("%w: %s", ErrUnknownID, id)
		}
	}
	if err := os.MkdirAll(opts.Out, 0o755); err != nil {
		return nil, err
	}
	rec, err := outputs.Open(opts.Out, Writer, isMirrorFile)
	if err != nil {
		return nil, err
	}
	res := &Result{Downloaded: []string{}, Written: []string{}, Removed: []string{}, Warnings: slices.Clone(cat.Warnings)}
	var exts []*mirrored
	for i := range cat.Items {
		it := cat.Items[i]
		if len(opts.IDs) > 0 && !slices.Contains(opts.IDs, it.ExtensionID) && !slices.Contains(opts.IDs, it.PackageName) {
			continue
		}
		if !safeSegment().MatchString(it.ExtensionID) {
			res.Warnings = append(res.Warnings, catalog.Warning{Pointer: fmt.Sprintf("catalog.items[%d]", i),
				Message: fmt.Sprintf("left out: extension id %q cannot be a folder name", it.ExtensionID)})
			continue
		}
		m, err := mirrorOne(ctx, opts, rec, res, &it)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			res.Warnings = append(res.Warnings, catalog.Warning{Pointer: "extension " + it.ExtensionID, Message: "left out: " + err.Error()})
			continue
		}
		if m != nil {
			exts = append(exts, m)
		}
	}
	if opts.KeepRemoved {
		exts = keepRemoved(opts.Out, exts)
	}
	signed, err := signedFiles(ctx, opts.Source, exts)
	if err != nil {
		return nil, err
	}
	if err := write(opts.Out, rec, exts, res, signed); err != nil {
		return nil, err
	}
	if signed != nil {
		if err := verifyMirror(ctx, opts.Source, opts.Out); err != nil {
			return nil, err
		}
	}
	for _, m := range exts {
		res.Extensions++
		res.Versions += len(m.detail.Versions)
	}
	if len(res.Refused) > 0 {
		return res, &RefusedError{res.Refused}
	}
	return res, nil
}

// ErrBaseURL: Options.BaseURL is not a usable URL.
var ErrBaseURL = errors.New("mirror base URL is invalid")

// baseURL checks a base URL and gives it a trailing slash; "" stays "".
func baseURL(s string) (string, error) {
	if s == "" {
		return "", nil
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", fmt.Errorf("%w: %q (want https://host/path/)", ErrBaseURL, s)
	}
	if err := catalog.CheckURL(u, "mirror base"); err != nil {
		return "", fmt.Errorf("%w: %w", ErrBaseURL, err)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	return u.String(), nil
}

// tarballPath is where a version's tarball lives in the mirror.
func tarballPath(id string, v *catalog.Version) (string, error) {
	name := catalog.SourceFileName(v.TarballURL, id, v.Version)
	if !safeSegment().MatchString(name) {
		return "", fmt.Errorf("tarball file name %q of %s@%s is not a safe file name", name, id, v.Version)
	}
	return "tarballs/" + id + "/" + name, nil
}

// mirrorOne selects the versions of one item and puts their tarballs in
// the mirror; nil when no version is left.
func mirrorOne(ctx context.Context, opts Options, rec *outputs.Record, res *Result, it *catalog.Item) (*mirrored, error) {
	d, _, err := opts.Source.Detail(ctx, it.ExtensionID)
	if err != nil {
		return nil, err
	}
	m := &mirrored{item: *it, detail: *d}
	m.detail.Warnings, m.detail.Origin, m.detail.Signature = nil, nil, nil
	m.detail.Versions = nil
	blocked := it.Status == catalog.StatusBlocked || d.Status == catalog.StatusBlocked
	for _, v := range d.Versions {
		if len(opts.Channels) > 0 && !slices.Contains(opts.Channels, v.Channel) {
			continue
		}
		if len(opts.Hosts) > 0 && !slices.ContainsFunc(opts.Hosts, v.SupportsHost) {
			continue
		}
		if blocked || v.TarballURL == "" {
			v.TarballURL = ""
			m.detail.Versions = append(m.detail.Versions, v)
			continue
		}
		rel, err := tarballPath(it.ExtensionID, &v)
		if err == nil {
			err = fetchTarball(ctx, opts, rec, res, it, &v, rel)
		}
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			res.Refused = append(res.Refused, Refusal{ExtensionID: it.ExtensionID, Version: v.Version, Error: err.Error(), err: err})
			continue
		}
		v.TarballURL = opts.BaseURL + rel
		m.detail.Versions = append(m.detail.Versions, v)
	}
	if len(m.detail.Versions) == 0 {
		return nil, nil
	}
	m.fixDefault()
	m.item.DetailPath = "extensions/" + it.ExtensionID + "/detail.json"
	if d.ReadmePath != "" {
		src, _, err := opts.Source.Readme(ctx, it.ExtensionID)
		if err != nil {
			res.Warnings = append(res.Warnings, catalog.Warning{Pointer: "extension " + it.ExtensionID, Message: "README left out: " + err.Error()})
			m.detail.ReadmePath = ""
		} else {
			m.readme = []byte(src)
			m.detail.ReadmePath = "extensions/" + it.ExtensionID + "/README.md"
		}
	}
	return m, nil
}

// fixDefault points the default version at a mirrored one when the
// selection left the source's default out.
func (m *mirrored) fixDefault() {
	if m.detail.Find(m.detail.DefaultVersion) != nil {
		return
	}
	v := catalog.Highest(&m.detail, m.item.DefaultChannel, "", false)
	for _, ch := range []string{catalog.ChannelStable, catalog.ChannelPreview, catalog.ChannelExperimental} {
		if v == nil {
			v = catalog.Highest(&m.detail, ch, "", true)
		}
	}
	if v == nil {
		v = &m.detail.Versions[0]
	}
	m.detail.DefaultVersion, m.detail.DefaultReviewStatus = v.Version, v.ReviewStatus
	m.item.DefaultVersion, m.item.DefaultChannel, m.item.DefaultReviewStatus = v.Version, v.Channel, v.ReviewStatus
}

// fetchTarball makes sure the mirror holds the verified tarball of v at
// rel: kept when the file there verifies, else downloaded and verified.
func fetchTarball(ctx context.Context, opts Options, rec *outputs.Record, res *Result, it *catalog.Item, v *catalog.Version, rel string) error {
	if verifyLocal(ctx, opts, it, v, rel) == nil {
		return nil
	}
	p, err := opts.Source.Prepare(ctx, it.ExtensionID, catalog.Selector{Version: v.Version})
	if err != nil {
		return err
	}
	tb, err := opts.Source.Tarball(ctx, p, opts.AllowSHA1)
	if err != nil {
		return err
	}
	if tb.Temporary {
		defer os.Remove(tb.Path)
	}
	if err := rec.Claim(rel); err != nil {
		return err
	}
	if err := copyIn(opts.Out, rel, tb.Path); err != nil {
		return err
	}
	res.Downloaded = append(res.Downloaded, rel)
	if opts.Log != nil {
		opts.Log("downloaded " + rel)
	}
	return nil
}

// verifyLocal checks the tarball already at rel in the mirror against v's
// integrity, with the npm client's own verification over an os.Root.
func verifyLocal(ctx context.Context, opts Options, it *catalog.Item, v *catalog.Version, rel string) error {
	if _, err := within.Stat(opts.Out, filepath.FromSlash(rel)); err != nil {
		return err
	}
	root, err := os.OpenRoot(opts.Out)
	if err != nil {
		return err
	}
	defer root.Close()
	nc, err := npm.NewClient(npm.Config{
		Getenv:     func(string) string { return "" },
		HTTPClient: &http.Client{Transport: http.NewFileTransportFS(root.FS())},
		AllowSHA1:  opts.AllowSHA1,
	})
	if err != nil {
		return err
	}
	u := &url.URL{Scheme: "file", Path: "/" + rel}
	tb, err := nc.FetchTarball(ctx, &npm.Resolved{Name: it.PackageName, Version: v.Version, TarballURL: u.String(),
		Integrity: v.Integrity, Shasum: v.Shasum})
	if err != nil {
		return err
	}
	if tb.Temporary {
		os.Remove(tb.Path)
	}
	return nil
}

// copyIn copies the file src to rel in out through a temporary file and a
// rename, under an os.Root on out.
func copyIn(out, rel, src string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	root, err := os.OpenRoot(out)
	if err != nil {
		return err
	}
	defer root.Close()
	name := filepath.FromSlash(rel)
	if err := root.MkdirAll(filepath.Dir(name), 0o755); err != nil {
		return err
	}
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(filepath.Dir(name), "."+filepath.Base(name)+".tmp-"+hex.EncodeToString(rnd[:]))
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return err
	}
	_, err = io.Copy(f, in)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = root.Rename(tmp, name)
	}
	if err != nil {
		_ = root.Remove(tmp)
	}
	return err
}

// keepRemoved adds to exts the items and versions of the mirror already
// in out that the new selection lacks.
func keepRemoved(out string, exts []*mirrored) []*mirrored {
	data, err := within.ReadFile(out, "catalog.json")
	if err != nil {
		return exts
	}
	old, err := catalog.ParseCatalog(data)
	if err != nil {
		return exts
	}
	byID := map[string]*mirrored{}
	for _, m := range exts {
		byID[m.item.ExtensionID] = m
	}
	for _, it := range old.Items {
		if !safeSegment().MatchString(it.ExtensionID) {
			continue
		}
		b, err := within.ReadFile(out, filepath.FromSlash("extensions/"+it.ExtensionID+"/detail.json"))
		if err != nil {
			continue
		}
		d, err := catalog.ParseDetail(b)
		if err != nil {
			continue
		}
		m := byID[it.ExtensionID]
		if m == nil {
			m = &mirrored{item: it, detail: *d}
			m.detail.Warnings = nil
			if d.ReadmePath != "" {
				m.readme, _ = within.ReadFile(out, filepath.FromSlash(d.ReadmePath))
			}
			exts = append(exts, m)
			byID[it.ExtensionID] = m
			continue
		}
		for _, v := range d.Versions {
			if m.detail.Find(v.Version) == nil {
				m.detail.Versions = append(m.detail.Versions, v)
			}
		}
	}
	return exts
}

// write writes READMEs, details and the catalog, in that order, then
// removes what an earlier run wrote that no longer belongs to the mirror.
func write(out string, rec *outputs.Record, exts []*mirrored, res *Result, signed []namedFile) error {
	keep := map[string]bool{"catalog.json": true}
	for _, f := range signed {
		keep[f.name] = true
	}
	cat := catalog.Catalog{SchemaVersion: 1, Items: []catalog.Item{}}
	var details []string
	put := func(name string, data []byte) error {
		keep[name] = true
		old, err := within.ReadFile(out, filepath.FromSlash(name))
		if err == nil && bytes.Equal(old, data) {
			return nil
		}
		if err := within.WriteFile(out, filepath.FromSlash(name), data, 0o644); err != nil {
			return fmt.Errorf("writing mirror file %s: %w", name, err)
		}
		res.Written = append(res.Written, name)
		return nil
	}
	for _, m := range exts {
		for _, v := range m.detail.Versions {
			if rel, err := tarballPath(m.item.ExtensionID, &v); err == nil && v.TarballURL != "" {
				keep[rel] = true
			}
		}
		if m.readme != nil {
			keep[m.detail.ReadmePath] = true
		}
		keep[m.item.DetailPath] = true
		cat.Items = append(cat.Items, m.item)
		details = append(details, m.item.DetailPath)
	}
	names := slices.Sorted(maps.Keys(keep))
	if err := rec.Claim(names...); err != nil {
		return err
	}
	for _, f := range signed {
		if err := put(f.name, f.data); err != nil {
			return err
		}
	}
	for _, m := range exts {
		if m.readme != nil {
			if err := put(m.detail.ReadmePath, m.readme); err != nil {
				return err
			}
		}
	}
	for i, m := range exts {
		data, err := encode(m.detail)
		if err != nil {
			return err
		}
		if err := put(details[i], data); err != nil {
			return err
		}
	}
	data, err := encode(cat)
	if err != nil {
		return err
	}
	if err := put("catalog.json", data); err != nil {
		return err
	}
	removed, err := rec.Finish(names)
	res.Removed = append(res.Removed, removed...)
	return err
}

func encode(v any) ([]byte, error) {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// Writer names the mirror's writer in the output folder's record.
const Writer = "registry mirror"

// isMirrorFile says whether name is a file a mirror can hold:
// catalog.json, extensions/<id>/detail.json or README.md, and
// tarballs/<id>/<file>.tgz.
func isMirrorFile(name string) bool {
	if name == "catalog.json" {
		return true
	}
	if rest, ok := strings.CutPrefix(name, verify.MetaDir+"/"); ok {
		if t, ok := strings.CutPrefix(rest, "targets/"); ok {
			return t != "tarballs" && !strings.HasPrefix(t, "tarballs/") && !strings.HasPrefix(t, verify.MetaDir+"/") && isMirrorFile(t)
		}
		return metaName().MatchString(rest)
	}
	parts := strings.Split(name, "/")
	if len(parts) != 3 || !safeSegment().MatchString(parts[1]) {
		return false
	}
	switch parts[0] {
	case "extensions":
		return parts[2] == "detail.json" || parts[2] == "README.md"
	case "tarballs":
		return safeSegment().MatchString(parts[2])
	}
	return false
}
