package npm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"

	"github.com/spiritagents/spirit/fetch"
	"github.com/spiritagents/spirit/internal/atomicfile"
)

// Packument is the part of a package document (abbreviated or full) that
// version choice needs.
type Packument struct {
	Name     string                      `json:"name"`
	DistTags map[string]string           `json:"dist-tags"`
	Versions map[string]PackumentVersion `json:"versions"`
	// Time is the publish time of each version (and "created",
	// "modified"); the abbreviated document usually lacks it.
	// It is kept raw: a registry's odd "time" never breaks version choice.
	Time json.RawMessage `json:"time,omitempty"`
}

// PackumentVersion is one entry of a packument's versions.
type PackumentVersion struct {
	Name       string          `json:"name"`
	Version    string          `json:"version"`
	Deprecated json.RawMessage `json:"deprecated,omitempty"`
	Dist       Dist            `json:"dist"`
}

// Dist locates and verifies a version's tarball.
type Dist struct {
	Tarball   string `json:"tarball"`
	Integrity string `json:"integrity"`
	Shasum    string `json:"shasum"`
	// Signatures are the registry's signatures of "<name>@<version>:<integrity>".
	Signatures []Signature `json:"signatures,omitempty"`
	// Attestations, when present, says where the registry serves the
	// version's Sigstore provenance.
	Attestations *Attestations `json:"attestations,omitempty"`
}

// deprecated reports whether the entry carries a non-empty deprecation.
func (v PackumentVersion) deprecated() bool {
	d := strings.TrimSpace(string(v.Deprecated))
	return d != "" && d != "null" && d != `""` && d != "false"
}

// ParsePackument decodes a packument and checks that it is an object with
// a versions map; entries whose key is not strict semver are dropped.
func ParsePackument(data []byte) (*Packument, error) {
	var p Packument
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadPackument, err)
	}
	if p.Versions == nil && p.DistTags == nil {
		return nil, fmt.Errorf("%w: no versions and no dist-tags", ErrBadPackument)
	}
	for k := range p.Versions {
		if _, err := semver.StrictNewVersion(k); err != nil {
			delete(p.Versions, k)
		}
	}
	return &p, nil
}

// Resolved is the version a spec resolved to.
type Resolved struct {
	Name, Version string
	TarballURL    string // never with credentials
	Integrity     string // dist.integrity as published (may be empty)
	Shasum        string // dist.shasum as published (may be empty)
	Registry      string // the registry it came from, without credentials
	// Signature says what the registry signature check found (Resolve
	// sets it; a Resolved made by hand has the zero value: not checked).
	Signature SignatureCheck
	// Attestations is dist.attestations as published, or nil.
	Attestations *Attestations
}

const (
	acceptAbbreviated = "application/vnd.npm.install-v1+json; q=1.0, application/json; q=0.8, */*"
	acceptFull        = "application/json"
)

// packumentURL returns the document URL of name: scoped names are
// encoded as npm encodes them (@scope%2fname).
func packumentURL(registry, name string) string {
	return registry + strings.Replace(name, "/", "%2f", 1)
}

// Resolve chooses the version spec names, as npm would.
func (c *Client) Resolve(ctx context.Context, spec Spec) (*Resolved, error) {
	if !ValidName(spec.Name) {
		return nil, fmt.Errorf("%w: %q is not a valid package name", ErrInvalidSpec, spec.Name)
	}
	if spec.Range != "" && !validRange(spec.Range) {
		return nil, fmt.Errorf("%w: %q is neither a semver range nor a dist-tag", ErrInvalidSpec, spec.Range)
	}
	reg := c.set.registryFor(spec.Name)
	u := packumentURL(reg, spec.Name)
	if r := c.cachedExact(spec, reg, u); r != nil {
		return r, nil
	}
	// The keys endpoint is asked while the packument downloads.
	ahead := c.prefetchKeys(ctx, reg)
	defer ahead.stop()
	data, err := c.document(ctx, u, acceptAbbreviated, spec.Name)
	full := false
	var he *HTTPError
	if errors.As(err, &he) && (he.Status == http.StatusNotAcceptable || he.Status == http.StatusUnsupportedMediaType) {
		data, err = c.document(ctx, u, acceptFull, spec.Name)
		full = true
	}
	if err != nil {
		return nil, c.describe(err, spec.Name, reg)
	}
	for {
		p, err := ParsePackument(data)
		if err != nil {
			return nil, fmt.Errorf("package %s from %s: %w", spec.Name, reg, err)
		}
		if p.Name != "" && p.Name != spec.Name {
			return nil, fmt.Errorf("%w: asked for %s, the registry sent %s", ErrBadPackument, spec.Name, p.Name)
		}
		v, err := Pick(p, spec.Name, spec.Range)
		if err != nil {
			return nil, err
		}
		d := p.Versions[v].Dist
		if (d.Tarball == "" || (d.Integrity == "" && d.Shasum == "")) && !full {
			// An abbreviated document without dist: ask for the full one.
			if data, err = c.document(ctx, u, acceptFull, spec.Name); err != nil {
				return nil, c.describe(err, spec.Name, reg)
			}
			full = true
			continue
		}
		r, err := resolved(reg, spec.Name, v, d)
		if err != nil {
			return nil, err
		}
		rk, err := c.keysFor(ctx, reg, spec.Name, v, ahead)
		ahead = nil // used: a second round asks again, as it did without it
		if err != nil {
			return nil, err
		}
		err = checkSignatures(r, rk, p.Time, d, full)
		if errors.Is(err, errNeedFull) {
			// The abbreviated document lacks the publish time a signing
			// key's expiry needs, or the signatures: the full one has them.
			if data, err = c.document(ctx, u, acceptFull, spec.Name); err != nil {
				return nil, c.describe(err, spec.Name, reg)
			}
			full = true
			continue
		}
		if err != nil {
			return nil, err
		}
		return r, nil
	}
}

// resolved is version v of name as dist describes it.
func resolved(reg, name, v string, d Dist) (*Resolved, error) {
	if d.Tarball == "" {
		return nil, fmt.Errorf("%w: %s@%s has no dist.tarball", ErrBadPackument, name, v)
	}
	tu, err := url.Parse(reg)
	if err == nil {
		tu, err = tu.Parse(d.Tarball)
	}
	if err != nil || (tu.Scheme != "http" && tu.Scheme != "https") {
		return nil, fmt.Errorf("%w: %s@%s: tarball URL %q is not http(s)", ErrBadPackument, name, v, Redact(d.Tarball))
	}
	tu.User = nil
	return &Resolved{Name: name, Version: v, TarballURL: tu.String(),
		Integrity: d.Integrity, Shasum: d.Shasum, Registry: reg}, nil
}

// cachedExact resolves an exact version without a request when a cached
// packument of the same registry lists it and its tarball is in the cache:
// a published version's tarball never changes (npm refuses to publish a
// version twice), and the tarball is checked against its digest when it
// is used. It returns nil whenever anything is missing.
func (c *Client) cachedExact(spec Spec, reg, u string) *Resolved {
	if c.cfg.CacheDir == "" {
		return nil
	}
	if _, err := semver.StrictNewVersion(spec.Range); err != nil {
		return nil
	}
	for _, accept := range []string{acceptAbbreviated, acceptFull} {
		body, _ := c.docPaths(u, accept)
		data, err := os.ReadFile(body)
		if err != nil {
			continue
		}
		p, err := ParsePackument(data)
		if err != nil || (p.Name != "" && p.Name != spec.Name) {
			continue
		}
		pv, ok := p.Versions[spec.Range]
		if !ok || pv.Dist.Tarball == "" || (pv.Dist.Integrity == "" && pv.Dist.Shasum == "") {
			continue
		}
		r, err := resolved(reg, spec.Name, spec.Range, pv.Dist)
		if err != nil {
			continue
		}
		// The registry's keys as last fetched, while they are fresh: the
		// signatures are checked as on the network path, or the network
		// path is taken.
		rec, ok := c.cachedKeys(reg)
		if !ok || (!c.cfg.Offline && time.Since(rec.Fetched) >= KeysLifetime) {
			return nil
		}
		rk, err := fromRecord(rec)
		if err != nil || checkSignatures(r, rk, p.Time, pv.Dist, accept == acceptFull) != nil {
			continue
		}
		e, err := expect(r, c.cfg.AllowSHA1)
		if err != nil {
			continue
		}
		var key Hash
		switch {
		case len(e.sri) > 0:
			key = e.sri[0]
		case e.shasum != nil:
			key = Hash{Algorithm: "sha1", Digest: e.shasum}
		}
		if fi, err := os.Stat(c.cachePath(key)); err == nil && fi.Mode().IsRegular() {
			return r
		}
	}
	return nil
}

// describe wraps a fetch error with the package and a remedy-minded text.
func (c *Client) describe(err error, name, reg string) error {
	switch {
	case errors.Is(err, ErrNotFound):
		return fmt.Errorf("package %s not found in %s: %w", name, reg, err)
	case errors.Is(err, ErrUnauthorized):
		return fmt.Errorf("package %s in %s: %w (check the _authToken for this registry in .npmrc): %w", name, reg, ErrUnauthorized, err)
	}
	return fmt.Errorf("package %s from %s: %w", name, reg, err)
}

// FullPackument returns the raw full packument of name (plain Accept,
// never the abbreviated form), revalidated with its ETag. name may be a
// legacy one (ValidOldName), as npm still serves those.
func (c *Client) FullPackument(ctx context.Context, name string) ([]byte, error) {
	if !ValidOldName(name) {
		return nil, fmt.Errorf("%w: %q is not a valid package name", ErrInvalidSpec, name)
	}
	reg := c.set.registryFor(name)
	data, err := c.document(ctx, packumentURL(reg, name), acceptFull, name)
	if err != nil {
		return nil, c.describe(err, name, reg)
	}
	if !json.Valid(data) {
		return nil, fmt.Errorf("package %s from %s: %w: not JSON", name, reg, ErrBadPackument)
	}
	return data, nil
}

// docMeta is the cache record beside a cached document.
type docMeta struct {
	URL  string `json:"url"`
	ETag string `json:"etag,omitempty"`
}

// docPaths returns the cache files of a document, or "" without a cache.
func (c *Client) docPaths(u, accept string) (body, meta string) {
	if c.cfg.CacheDir == "" {
		return "", ""
	}
	sum := sha256.Sum256([]byte(accept + "\n" + Redact(u)))
	base := filepath.Join(c.cfg.CacheDir, "npm", "packuments", hex.EncodeToString(sum[:16]))
	return base + ".json", base + ".meta"
}

// document GETs a packument, revalidating a cached copy with If-None-Match.
func (c *Client) document(ctx context.Context, u, accept, name string) ([]byte, error) {
	bodyPath, metaPath := c.docPaths(u, accept)
	var cached []byte
	var meta docMeta
	if bodyPath != "" {
		if b, err := os.ReadFile(bodyPath); err == nil {
			if m, err := os.ReadFile(metaPath); err == nil && json.Unmarshal(m, &meta) == nil {
				cached = b
			}
		}
	}
	if c.cfg.Offline {
		if cached == nil {
			return nil, &OfflineError{What: "the packument of " + name}
		}
		return cached, nil
	}
	h := http.Header{"Accept": {accept}}
	if cached != nil && meta.ETag != "" {
		h.Set("If-None-Match", meta.ETag)
	}
	resp, err := c.get(ctx, u, h)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.Status == http.StatusNotModified {
		if cached == nil {
			return nil, fmt.Errorf("GET %s: %w: 304 without a cached copy", resp.URL, ErrBadPackument)
		}
		return cached, nil
	}
	data, err := resp.ReadAll(maxPackumentSize)
	if errors.Is(err, fetch.ErrTooLarge) {
		return nil, fmt.Errorf("%w: %w", ErrBadPackument, err)
	}
	if err != nil {
		return nil, err
	}
	if bodyPath != "" {
		m, _ := json.Marshal(docMeta{URL: Redact(u), ETag: resp.Header.Get("ETag")})
		// The cache is an optimisation: failing to write it is not an error.
		if atomicfile.Write(bodyPath, data, 0o600) == nil {
			_ = atomicfile.Write(metaPath, m, 0o600)
		}
	}
	return data, nil
}

// Pick chooses the version of p that rng names, as npm does: a dist-tag
// names its version; for a range (read by npm's grammar, ParseRange),
// "latest" when it satisfies the range (or the range is "*" or empty), else
// the highest satisfying version that is not deprecated, else the highest
// deprecated one. Prereleases satisfy a range only when one of its
// comparators names a prerelease of the same major.minor.patch.
func Pick(p *Packument, name, rng string) (string, error) {
	noMatch := func() error {
		vs := make([]*semver.Version, 0, len(p.Versions))
		for k := range p.Versions {
			vs = append(vs, semver.MustParse(k))
		}
		slices.SortFunc(vs, func(a, b *semver.Version) int { return a.Compare(b) })
		list := make([]string, len(vs))
		for i, v := range vs {
			list[i] = v.Original()
		}
		shown := rng
		if shown == "" {
			shown = "latest"
		}
		return &NoMatchError{Name: name, Range: shown, Versions: list, Tags: p.DistTags}
	}
	if rng == "" {
		rng = "latest"
	}
	if isTag(rng) {
		v, ok := p.DistTags[rng]
		if _, exists := p.Versions[v]; !ok || !exists {
			return "", noMatch()
		}
		return v, nil
	}
	r, err := parseRange(rng)
	if err != nil {
		return "", fmt.Errorf("%w: range %q: %v", ErrInvalidSpec, rng, err)
	}
	if latest, ok := p.DistTags["latest"]; ok {
		if _, exists := p.Versions[latest]; exists {
			if _, err := semver.StrictNewVersion(latest); err == nil && (strings.TrimSpace(rng) == "*" || r.Test(latest)) {
				return latest, nil
			}
		}
	}
	var live, deprecated []string
	for k, pv := range p.Versions {
		if _, err := semver.StrictNewVersion(k); err != nil {
			continue
		}
		if pv.deprecated() {
			deprecated = append(deprecated, k)
		} else {
			live = append(live, k)
		}
	}
	slices.Sort(live) // equal versions (build metadata) are picked alike on every run
	slices.Sort(deprecated)
	best := r.MaxSatisfying(live)
	if best == "" {
		best = r.MaxSatisfying(deprecated)
	}
	if best == "" {
		return "", noMatch()
	}
	return best, nil
}

// CacheAge returns how old the cached packument of name is (the newer of
// its abbreviated and full forms), and false when none is cached.
func (c *Client) CacheAge(name string) (time.Duration, bool) {
	u := packumentURL(c.set.registryFor(name), name)
	var newest time.Time
	for _, accept := range []string{acceptAbbreviated, acceptFull} {
		body, _ := c.docPaths(u, accept)
		if body == "" {
			continue
		}
		if fi, err := os.Stat(body); err == nil && fi.ModTime().After(newest) {
			newest = fi.ModTime()
		}
	}
	if newest.IsZero() {
		return 0, false
	}
	return time.Since(newest), true
}
