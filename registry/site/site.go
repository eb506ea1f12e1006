package site

import (
	"bytes"
	"cmp"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spiritagents/spirit/catalog"
	"github.com/spiritagents/spirit/internal/outputs"
	"github.com/spiritagents/spirit/internal/within"
)

//go:embed templates/*.html assets/*
var files embed.FS

// templates are parsed on first use, so that commands other than site build
// do not pay for them at start.
var templates = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("").Funcs(template.FuncMap{
		"join": strings.Join,
	}).ParseFS(files, "templates/*.html"))
})

// Options configure Build.
type Options struct {
	// Source reads the index the site shows.
	Source *catalog.Client
	// Out is the folder the site is written to; it is made if missing.
	Out string
	// Registry is the --registry value the install commands name; "" for
	// the official index (the commands then carry no --registry).
	Registry string
	// Title heads every page; "" → "Spirit Agent extensions".
	Title string
	// RenderTimeout bounds the rendering of one README; 0 → 10 s. A README
	// that takes longer is shown as plain text, with a warning.
	RenderTimeout time.Duration
	// signed is the root key id of a signed index (set by Render).
	signed string
}

// Result says what Build did.
type Result struct {
	// Extensions is the number of extensions on the site.
	Extensions int `json:"extensions"`
	// Written, Unchanged and Removed are site files, relative to Out.
	Written   []string          `json:"written"`
	Unchanged int               `json:"unchanged"`
	Removed   []string          `json:"removed"`
	Warnings  []catalog.Warning `json:"warnings,omitempty"`
	files     map[string][]byte // relative slash path → bytes
	items     []*extension
}

// Extension is one extension of index.json; its JSON field names are a
// public contract for tools that read the site.
type Extension struct {
	ID           string            `json:"id"`
	PackageName  string            `json:"packageName"`
	DisplayName  string            `json:"displayName"`
	Description  string            `json:"description"`
	Author       string            `json:"author,omitempty"`
	Status       string            `json:"status"`
	Featured     bool              `json:"featured"`
	ReviewStatus string            `json:"reviewStatus"`
	Latest       map[string]string `json:"latest"`
	Hosts        []string          `json:"hosts"`
	Capabilities []string          `json:"capabilities"`
	Keywords     []string          `json:"keywords"`
	Page         string            `json:"page"`
}

// Index is index.json.
type Index struct {
	SchemaVersion int         `json:"schemaVersion"`
	Extensions    []Extension `json:"extensions"`
}

// extension is what the templates show of one extension.
type extension struct {
	Extension
	Channels   []channelVersion
	Versions   []versionView
	Homepage   string
	Repository string
	Icon       string
	Readme     template.HTML
	Install    string
	Deprecated bool
	Revoked    bool
}

type channelVersion struct{ Channel, Version string }

type versionView struct {
	catalog.Version
	Revoked bool
}

// page is the data of one template.
type page struct {
	Title    string
	Root     string // relative path to the site root: "" or "../"
	Items    []*extension
	Ext      *extension
	Filters  filters
	Registry string
	// Signed is the root key id of a signed index, "" when unsigned.
	Signed string
}

type filters struct {
	Channels, Hosts, Reviews, Keywords []string
}

// safeID is an extension id that can be a file name on every system. It is
// compiled on first use, not at every spirit start (the {0,199} repetition
// makes a large program).
var safeID = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9@_][A-Za-z0-9._@+-]{0,199}$`)
})

// ErrOut: the output folder cannot be used.
var ErrOut = errors.New("site output folder is unusable")

// Build reads the index of opts.Source and writes the site into opts.Out.
func Build(ctx context.Context, opts Options) (*Result, error) {
	res, err := Render(ctx, opts)
	if err != nil {
		return nil, err
	}
	if err := res.write(opts.Out); err != nil {
		return nil, err
	}
	return res, nil
}

// Render builds the site in memory; Build writes it.
func Render(ctx context.Context, opts Options) (*Result, error) {
	if opts.Title == "" {
		opts.Title = "Spirit Agent extensions"
	}
	cat, err := opts.Source.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	if sig, err := opts.Source.Signature(ctx); err != nil {
		return nil, err
	} else if sig != nil {
		opts.signed = sig.RootKeyID()
	}
	res := &Result{files: map[string][]byte{}, Written: []string{}, Removed: []string{}, Warnings: slices.Clone(cat.Warnings)}
	md := NewRenderer()
	seen := map[string]bool{}
	var items []*extension
	for i := range cat.Items {
		it := &cat.Items[i]
		if !it.Listed() {
			continue
		}
		if !safeID().MatchString(it.ExtensionID) || seen[strings.ToLower(it.ExtensionID)] {
			res.Warnings = append(res.Warnings, catalog.Warning{Pointer: fmt.Sprintf("catalog.items[%d]", i),
				Message: fmt.Sprintf("left out: extension id %q cannot be a page name (or differs from another only by case)", it.ExtensionID)})
			continue
		}
		seen[strings.ToLower(it.ExtensionID)] = true
		e, warns := load(ctx, opts, md, it)
		res.Warnings = append(res.Warnings, warns...)
		if e != nil {
			items = append(items, e)
		}
	}
	slices.SortStableFunc(items, func(a, b *extension) int {
		if a.Featured != b.Featured {
			if a.Featured {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(strings.ToLower(a.DisplayName), strings.ToLower(b.DisplayName)), cmp.Compare(a.ID, b.ID))
	})
	res.items, res.Extensions = items, len(items)
	if err := res.render(opts); err != nil {
		return nil, err
	}
	return res, nil
}

// load gathers one catalog item with its detail and README.
func load(ctx context.Context, opts Options, md *Renderer, it *catalog.Item) (*extension, []catalog.Warning) {
	e := &extension{Extension: Extension{
		ID: it.ExtensionID, PackageName: it.PackageName, DisplayName: it.DisplayName, Description: it.Description,
		Author: it.Author, Status: it.Status, Featured: it.Featured, ReviewStatus: it.DefaultReviewStatus,
		Latest: map[string]string{}, Hosts: nonNil(it.SupportedHosts), Capabilities: nonNil(it.RequestedCapabilities),
		Keywords: nonNil(it.Keywords), Page: "x/" + it.ExtensionID + ".html",
	}}
	e.Homepage, e.Repository, e.Icon = webURL(it.HomepageURL), webURL(it.RepositoryURL), httpsURL(it.IconURL)
	e.Deprecated = it.Status == catalog.StatusDeprecated
	e.Revoked = it.DefaultReviewStatus == catalog.ReviewRevoked
	e.Install = "spirit extension marketplace install " + it.ExtensionID
	if opts.Registry != "" {
		e.Install = "spirit --registry " + shellQuote(opts.Registry) + " extension marketplace install " + it.ExtensionID
	}
	var warns []catalog.Warning
	ptr := "extension " + it.ExtensionID
	d, _, err := opts.Source.Detail(ctx, it.ExtensionID)
	if err != nil {
		warns = append(warns, catalog.Warning{Pointer: ptr, Message: "detail left out: " + err.Error()})
		e.Latest[it.DefaultChannel] = it.DefaultVersion
		e.Channels = []channelVersion{{it.DefaultChannel, it.DefaultVersion}}
		return e, warns
	}
	if d.Status == catalog.StatusBlocked || d.Status == catalog.StatusHidden {
		return nil, nil
	}
	e.Deprecated = e.Deprecated || d.Status == catalog.StatusDeprecated
	for _, ch := range []string{catalog.ChannelStable, catalog.ChannelPreview, catalog.ChannelExperimental} {
		v := catalog.Highest(d, ch, "", false)
		if v == nil {
			v = catalog.Highest(d, ch, "", true) // only revoked versions: show the latest, marked
		}
		if v != nil {
			e.Latest[ch] = v.Version
			e.Channels = append(e.Channels, channelVersion{ch, v.Version})
		}
	}
	vs := slices.Clone(d.Versions)
	slices.SortStableFunc(vs, func(a, b catalog.Version) int {
		switch {
		case catalog.Newer(a.Version, b.Version):
			return -1
		case catalog.Newer(b.Version, a.Version):
			return 1
		}
		return cmp.Compare(a.Version, b.Version)
	})
	for _, v := range vs {
		v.HomepageURL, v.RepositoryURL, v.IconURL = webURL(v.HomepageURL), webURL(v.RepositoryURL), ""
		e.Versions = append(e.Versions, versionView{Version: v, Revoked: v.ReviewStatus == catalog.ReviewRevoked})
	}
	if d.ReadmePath == "" {
		return e, warns
	}
	src, rw, err := opts.Source.Readme(ctx, it.ExtensionID)
	warns = append(warns, rw...)
	if err != nil {
		return e, append(warns, catalog.Warning{Pointer: ptr, Message: "README left out: " + err.Error()})
	}
	html, err := md.RenderBounded([]byte(src), opts.RenderTimeout)
	var tooComplex *ComplexityError
	switch {
	case errors.As(err, &tooComplex):
		warns = append(warns, catalog.Warning{Pointer: ptr, Message: "README shown as plain text: " + err.Error()})
		e.Readme = plainText(src)
	case err != nil:
		return e, append(warns, catalog.Warning{Pointer: ptr, Message: "README left out: " + err.Error()})
	default:
		e.Readme = template.HTML(html) // sanitized by md.Render
	}
	return e, warns
}

// plainText is a README shown as escaped preformatted text.
func plainText(src string) template.HTML {
	return template.HTML(`<pre class="readme-plain">` + template.HTMLEscapeString(src) + "</pre>")
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// webURL returns s when it is an absolute http or https URL, else "".
func webURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
		return ""
	}
	return u.String()
}

func httpsURL(s string) string {
	if u := webURL(s); strings.HasPrefix(u, "https://") {
		return u
	}
	return ""
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:@=+,%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// render fills res.files.
func (res *Result) render(opts Options) error {
	idx := Index{SchemaVersion: 1, Extensions: make([]Extension, 0, len(res.items))}
	var f filters
	for _, e := range res.items {
		idx.Extensions = append(idx.Extensions, e.Extension)
		for _, c := range e.Channels {
			f.Channels = appendNew(f.Channels, c.Channel)
		}
		for _, h := range e.Hosts {
			f.Hosts = appendNew(f.Hosts, h)
		}
		f.Reviews = appendNew(f.Reviews, e.ReviewStatus)
		for _, k := range e.Keywords {
			f.Keywords = appendNew(f.Keywords, strings.ToLower(k))
		}
	}
	for _, s := range [][]string{f.Channels, f.Hosts, f.Reviews, f.Keywords} {
		slices.Sort(s)
	}
	data, err := json.MarshalIndent(idx, "", "  ")
	if err != nil {
		return err
	}
	res.files["index.json"] = append(data, '\n')
	compact, err := json.Marshal(idx)
	if err != nil {
		return err
	}
	// json.Marshal escapes <, > and &, and U+2028/9: the JSON is safe in a
	// script file.
	res.files["assets/index-data.js"] = []byte("window.spiritSiteIndex = " + string(compact) + ";\n")
	for _, name := range []string{"assets/site.css", "assets/site.js"} {
		b, err := files.ReadFile(name)
		if err != nil {
			return err
		}
		res.files[name] = b
	}
	if err := res.exec("index.html", "index.html", page{Title: opts.Title, Items: res.items, Filters: f, Registry: opts.Registry, Signed: opts.signed}); err != nil {
		return err
	}
	for _, e := range res.items {
		if err := res.exec(e.Page, "extension.html", page{Title: opts.Title, Root: "../", Ext: e, Registry: opts.Registry, Signed: opts.signed}); err != nil {
			return err
		}
	}
	return nil
}

func appendNew(s []string, v string) []string {
	if v == "" || slices.Contains(s, v) {
		return s
	}
	return append(s, v)
}

func (res *Result) exec(name, tmpl string, p page) error {
	var buf bytes.Buffer
	if err := templates().ExecuteTemplate(&buf, tmpl, p); err != nil {
		return fmt.Errorf("site page %s: %w", name, err)
	}
	res.files[name] = buf.Bytes()
	return nil
}

// Files returns the site's files (relative slash paths), sorted.
func (res *Result) Files() []string {
	names := make([]string, 0, len(res.files))
	for n := range res.files {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// File returns the bytes of one site file.
func (res *Result) File(name string) []byte { return res.files[name] }

// write writes the files that changed, then removes the site files that
// an earlier run wrote and this one no longer produces (as the folder's
// record of outputs names them; no other file is touched).
func (res *Result) write(out string) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return fmt.Errorf("%w: %w", ErrOut, err)
	}
	rec, err := outputs.Open(out, Writer, isSiteFile)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrOut, err)
	}
	names := res.Files()
	if err := rec.Claim(names...); err != nil {
		return err
	}
	for _, name := range names {
		old, err := within.ReadFile(out, filepath.FromSlash(name))
		if err == nil && bytes.Equal(old, res.files[name]) {
			res.Unchanged++
			continue
		}
		if err := within.WriteFile(out, filepath.FromSlash(name), res.files[name], 0o644); err != nil {
			return fmt.Errorf("writing site file %s: %w", name, err)
		}
		res.Written = append(res.Written, name)
	}
	removed, err := rec.Finish(names)
	res.Removed = append(res.Removed, removed...)
	if err != nil {
		return fmt.Errorf("removing stale site files: %w", err)
	}
	return nil
}

// Writer names the site's writer in the output folder's record.
const Writer = "registry site"

// isSiteFile says whether name is a file a site can hold: index.html,
// index.json, x/<extensionId>.html, or a style sheet or script under
// assets/.
func isSiteFile(name string) bool {
	if name == "index.html" || name == "index.json" {
		return true
	}
	dir, base := path.Split(name)
	switch dir {
	case "x/":
		id, ok := strings.CutSuffix(base, ".html")
		return ok && safeID().MatchString(id)
	case "assets/":
		return safeID().MatchString(base) && (path.Ext(base) == ".css" || path.Ext(base) == ".js")
	}
	return false
}
