package install

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"

	"github.com/spiritagents/spirit/internal/rmtree"
	"github.com/spiritagents/spirit/npm"
)

// Errors of Resolve.
var (
	// ErrNoSource: the source is no file, directory, URL or package.
	ErrNoSource = errors.New("no such file, directory or package")
	// ErrInvalidSource: the source is malformed (a bad npm spec, a file
	// that is not a ZIP where only a ZIP is accepted); a usage error.
	ErrInvalidSource = errors.New("invalid source")
	// ErrNotZip: a ZIP-only resolver was given another kind of file.
	ErrNotZip = errors.New("not a ZIP file")
	// ErrNoResolver: the source needs a resolver the Resolver was not given.
	ErrNoResolver = errors.New("no resolver for this kind of source")
)

// InvalidSourceError says why a source is malformed. It matches
// ErrInvalidSource and wraps the cause; its message is the cause's.
type InvalidSourceError struct {
	Source string
	Err    error
}

func (e *InvalidSourceError) Error() string { return e.Err.Error() }

// Unwrap returns the cause.
func (e *InvalidSourceError) Unwrap() error { return e.Err }

// Is matches ErrInvalidSource.
func (e *InvalidSourceError) Is(target error) bool { return target == ErrInvalidSource }

// The kinds of source Resolve tells apart.
const (
	KindDir         = "dir"         // a local directory
	KindArchive     = "archive"     // a local .zip or .tgz
	KindURL         = "url"         // an https URL of a .zip or .tgz
	KindNPM         = "npm"         // an npm spec
	KindMarketplace = "marketplace" // marketplace:ID[@VERSION]
)

// MarketplacePrefix starts a marketplace source: marketplace:ID[@VERSION].
const MarketplacePrefix = "marketplace:"

// Artifact is a resolved source: a local directory or archive ready for
// Installer.Install, and what is recorded about where it came from. Close
// removes what resolving downloaded.
type Artifact struct {
	// Kind is one of the Kind constants.
	Kind string
	// Path is the directory or archive to install.
	Path string
	// Source is what was asked for (a path, URL or spec), recorded.
	Source string
	// ArchiveFileName is recorded in extensions.json; "" for a directory.
	ArchiveFileName string
	ResolvedURL     string
	// Integrity, a sha512 SRI, must match the archive's bytes.
	Integrity string
	// InstallSource is SourceArchive or SourceMarketplace.
	InstallSource string
	// MarketplaceIndex, MarketplaceID, Channel and ReviewStatus say which
	// marketplace entry a marketplace artifact is.
	MarketplaceIndex string
	MarketplaceID    string
	Channel          string
	ReviewStatus     string
	// ExpectName and ExpectVersion, when set, must be the package's.
	ExpectName, ExpectVersion string
	// NPMRegistry is the registry an npm artifact came from.
	NPMRegistry string
	// NPMSignature is what the registry signature check of an npm
	// artifact found; nil for other kinds.
	NPMSignature *npm.SignatureCheck
	// Provenance is the npm artifact's provenance as its registry's
	// attestations give it (unverified), or nil.
	Provenance *npm.Provenance

	cleanup []func()
	// evict is a cache file that was not verified before the install; the
	// install removes it when its bytes do not match Integrity.
	evict string
	// body is the tarball still downloading, when the install unpacks it
	// as it arrives (Path is then empty).
	body Body
}

// OnClose registers fn to run at Close (an injected resolver uses it to
// remove its temporary files).
func (a *Artifact) OnClose(fn func()) { a.cleanup = append(a.cleanup, fn) }

// Close removes the temporary files of the artifact. It is safe on nil
// and more than once.
func (a *Artifact) Close() {
	if a == nil {
		return
	}
	for i := len(a.cleanup) - 1; i >= 0; i-- {
		a.cleanup[i]()
	}
	a.cleanup = nil
}

// Request is the install request of the artifact.
func (a *Artifact) Request(replace, allowDowngrade bool) Request {
	src := a.InstallSource
	if src == "" {
		src = SourceArchive
	}
	return Request{
		Path: a.Path, Replace: replace, AllowDowngrade: allowDowngrade,
		Source: a.Source, ResolvedURL: a.ResolvedURL, Integrity: a.Integrity,
		InstallSource: src, ArchiveFileName: a.ArchiveFileName,
		MarketplaceIndex: a.MarketplaceIndex, MarketplaceID: a.MarketplaceID,
		Channel: a.Channel, ReviewStatus: a.ReviewStatus,
		ExpectName: a.ExpectName, ExpectVersion: a.ExpectVersion,
		SourceKind: a.Kind, NPMRegistry: a.NPMRegistry,
		NPMSignature: a.NPMSignature, Provenance: a.Provenance,
		EvictOnMismatch: a.evict, Body: a.body,
	}
}

// NPMClient resolves and fetches npm packages; *npm.Client is one.
type NPMClient interface {
	Resolve(ctx context.Context, spec npm.Spec) (*npm.Resolved, error)
	FetchTarball(ctx context.Context, r *npm.Resolved) (*npm.Tarball, error)
}

// lazyNPMClient is an NPMClient that can hand over a cached tarball
// without reading it (*npm.Client is one), for the install to hash.
type lazyNPMClient interface {
	FetchTarballLazy(ctx context.Context, r *npm.Resolved) (*npm.Tarball, error)
}

// streamNPMClient is an NPMClient that can hand over a tarball still to
// be downloaded (*npm.Client is one), for the install to unpack as it
// arrives.
type streamNPMClient interface {
	FetchTarballStream(ctx context.Context, r *npm.Resolved) (*npm.Tarball, error)
}

// provenanceNPMClient is an NPMClient that can read a version's
// provenance from its registry's attestations (*npm.Client is one).
type provenanceNPMClient interface {
	Provenance(ctx context.Context, r *npm.Resolved) *npm.Provenance
}

// MarketplaceRef is what a marketplace source names.
type MarketplaceRef struct {
	// ID is the extension id or package name; Version "" means the
	// resolver's choice (channel, default version).
	ID, Version string
}

// Resolver turns a source into an Artifact, the same way for every front
// end (command line, MCP server, embedding program). What reaches the
// network is injected, so a front end chooses its clients and a test its
// fakes; a nil resolver refuses its kind of source with ErrNoResolver.
type Resolver struct {
	// NPM makes the npm client, when a source is an npm spec.
	NPM func() (NPMClient, error)
	// Download fetches an https URL into dir and returns the file and the
	// file name the URL names; nil means Download with HTTPClient.
	Download func(ctx context.Context, rawURL, dir string) (file, name string, err error)
	// HTTPClient is used by the default Download; nil means http.DefaultClient.
	HTTPClient *http.Client
	// Marketplace fetches and verifies a marketplace extension's tarball;
	// nil means marketplace: sources are not recognised.
	Marketplace func(ctx context.Context, ref MarketplaceRef) (*Artifact, error)
	// IsMarketplaceID, when set with Marketplace, says whether a bare
	// argument (no path, URL or prefix) is an extension id of the
	// configured marketplace index; such an argument is a marketplace
	// source, any other an npm spec.
	IsMarketplaceID func(ctx context.Context, id string) bool
	// ZipOnly accepts only a local ZIP file (the reference's import).
	ZipOnly bool
	// TempDir is where downloads go; "" means os.TempDir.
	TempDir string
}

// Resolve finds what source names: with ZipOnly a local ZIP; else, in
// this order (Classify), an existing directory or archive, an https URL,
// npm:SPEC, marketplace:ID[@VERSION], a bare extension id of the
// marketplace index (IsMarketplaceID), else an npm spec. The caller closes
// the Artifact when the install is done.
func (r *Resolver) Resolve(ctx context.Context, source string) (*Artifact, error) {
	src := strings.TrimSpace(source)
	a := &Artifact{Path: src, Source: src, InstallSource: SourceArchive}
	if r.ZipOnly {
		if _, err := os.Stat(src); err != nil {
			return nil, fmt.Errorf("Failed to read extension ZIP: %s: %w", src, err)
		}
		if format, _ := DetectFormat(src); format != FormatZip {
			return nil, &InvalidSourceError{Source: src, Err: fmt.Errorf("%s is %w", src, ErrNotZip)}
		}
		a.Kind, a.ArchiveFileName = KindArchive, filepath.Base(src)
		return a, nil
	}
	switch r.Classify(ctx, src) {
	case KindDir:
		a.Kind = KindDir
		a.Source = absPath(src)
		return a, nil
	case KindArchive:
		a.Kind, a.ArchiveFileName = KindArchive, filepath.Base(src)
		a.Source = absPath(src)
		return a, nil
	case KindURL:
		return r.resolveURL(ctx, a)
	case KindMarketplace:
		if strings.HasPrefix(src, MarketplacePrefix) {
			return r.resolveMarketplace(ctx, src)
		}
		return r.ResolveMarketplace(ctx, MarketplaceRef{ID: src})
	case KindNPM:
		return r.resolveNPM(ctx, a)
	}
	return nil, fmt.Errorf("%w: %s", ErrNoSource, src)
}

// Classify says which kind of source Resolve takes source for, without
// fetching it: KindDir or KindArchive for an existing path, KindURL for an
// http(s) URL, KindNPM for npm:SPEC, KindMarketplace for
// marketplace:ID[@VERSION] (with a Marketplace resolver) or a bare
// argument that IsMarketplaceID accepts, KindNPM for any other npm spec,
// and "" for none.
func (r *Resolver) Classify(ctx context.Context, source string) string {
	src := strings.TrimSpace(source)
	switch {
	case fileExists(src):
		if fi, _ := os.Stat(src); fi.IsDir() {
			return KindDir
		}
		return KindArchive
	case strings.HasPrefix(src, "https://") || strings.HasPrefix(src, "http://"):
		return KindURL
	case strings.HasPrefix(src, "npm:"):
		return KindNPM
	case r.Marketplace != nil && strings.HasPrefix(src, MarketplacePrefix):
		return KindMarketplace
	case r.Marketplace != nil && r.IsMarketplaceID != nil && IsBare(src) && r.IsMarketplaceID(ctx, src):
		return KindMarketplace
	case npm.IsSpec(src), IsBare(src) && npm.IsSpec("npm:"+src):
		return KindNPM
	}
	return ""
}

// IsBare reports whether source could be a bare marketplace extension id:
// no path, URL, prefix, scope or version.
func IsBare(source string) bool {
	return source != "" && !strings.ContainsAny(source, `@/\: `) && !strings.HasPrefix(source, ".") && !strings.HasPrefix(source, "~")
}

// absPath is p made absolute, so that the record (and a lock made from it)
// names the same file from any working directory.
func absPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		return abs
	}
	return p
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func (r *Resolver) resolveURL(ctx context.Context, a *Artifact) (*Artifact, error) {
	tmp, err := os.MkdirTemp(r.TempDir, "spirit-download-")
	if err != nil {
		return nil, err
	}
	a.OnClose(func() { rmtree.Remove(tmp) })
	download := r.Download
	if download == nil {
		download = func(ctx context.Context, rawURL, dir string) (string, string, error) {
			return Download(ctx, r.HTTPClient, rawURL, dir)
		}
	}
	file, name, err := download(ctx, a.Source, tmp)
	if err != nil {
		a.Close()
		return nil, err
	}
	a.Kind, a.Path, a.ArchiveFileName, a.ResolvedURL = KindURL, file, name, a.Source
	return a, nil
}

func (r *Resolver) resolveNPM(ctx context.Context, a *Artifact) (*Artifact, error) {
	spec, err := npm.ParseSpec(a.Source)
	if err != nil && IsBare(a.Source) {
		// A bare name that is no marketplace id is an npm package.
		spec, err = npm.ParseSpec("npm:" + a.Source)
	}
	if err != nil {
		return nil, &InvalidSourceError{Source: a.Source, Err: err}
	}
	if r.NPM == nil {
		return nil, fmt.Errorf("%w: %s (npm)", ErrNoResolver, a.Source)
	}
	client, err := r.NPM()
	if err != nil {
		return nil, err
	}
	res, err := client.Resolve(ctx, spec)
	if err != nil {
		return nil, err
	}
	var tb *npm.Tarball
	if sc, ok := client.(streamNPMClient); ok {
		tb, err = sc.FetchTarballStream(ctx, res)
	} else if lc, ok := client.(lazyNPMClient); ok {
		tb, err = lc.FetchTarballLazy(ctx, res)
	} else {
		tb, err = client.FetchTarball(ctx, res)
	}
	if err != nil {
		return nil, err
	}
	if tb.Unverified {
		a.evict = tb.Path // hashed once, by the install; removed if it does not match
	}
	if tb.Temporary {
		a.OnClose(func() { os.Remove(tb.Path) })
	}
	if tb.Stream != nil {
		a.body = tb.Stream
		a.OnClose(func() { tb.Stream.Close() })
	}
	a.Kind, a.Path = KindNPM, tb.Path
	a.ExpectName, a.ExpectVersion = res.Name, res.Version
	a.ResolvedURL, a.Integrity, a.NPMRegistry = res.TarballURL, tb.Integrity, res.Registry
	a.ArchiveFileName = filepath.Base(res.TarballURL)
	if res.Signature.Status != "" {
		sig := res.Signature
		a.NPMSignature = &sig
	}
	if pc, ok := client.(provenanceNPMClient); ok && res.Attestations != nil {
		a.Provenance = pc.Provenance(ctx, res)
	}
	return a, nil
}

// ParseMarketplaceRef parses the part of a marketplace source after its
// prefix: ID or ID@VERSION (a package name "@scope/name" keeps its @).
func ParseMarketplaceRef(s string) (MarketplaceRef, error) {
	s = strings.TrimSpace(s)
	ref := MarketplaceRef{ID: s}
	if i := strings.LastIndex(s, "@"); i > 0 {
		ref.ID, ref.Version = s[:i], s[i+1:]
		if ref.Version == "" {
			return ref, &InvalidSourceError{Source: s, Err: fmt.Errorf("marketplace source %q: empty version after @", s)}
		}
	}
	if ref.ID == "" {
		return ref, &InvalidSourceError{Source: s, Err: errors.New("marketplace source: empty extension id")}
	}
	return ref, nil
}

func (r *Resolver) resolveMarketplace(ctx context.Context, src string) (*Artifact, error) {
	ref, err := ParseMarketplaceRef(strings.TrimPrefix(src, MarketplacePrefix))
	if err != nil {
		return nil, err
	}
	return r.ResolveMarketplace(ctx, ref)
}

// ResolveMarketplace resolves a marketplace reference through the
// Marketplace resolver; the artifact is a SourceMarketplace one.
func (r *Resolver) ResolveMarketplace(ctx context.Context, ref MarketplaceRef) (*Artifact, error) {
	if r.Marketplace == nil {
		return nil, fmt.Errorf("%w: %s%s (marketplace)", ErrNoResolver, MarketplacePrefix, ref.ID)
	}
	a, err := r.Marketplace(ctx, ref)
	if err != nil {
		return nil, err
	}
	a.Kind, a.InstallSource = KindMarketplace, SourceMarketplace
	return a, nil
}
