package catalog

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/Masterminds/semver/v3"

	"github.com/spiritagents/spirit/internal/errkind"
	"github.com/spiritagents/spirit/npm"
)

// Errors of version choice and install policy, matched with errors.Is.
var (
	ErrNoVersion       = errors.New("no such version")
	ErrBadChannel      = errors.New("unknown channel")
	ErrBlocked         = errors.New("extension is blocked in the marketplace")
	ErrRevoked         = errors.New("version's review was revoked")
	ErrUnverified      = errors.New("version is not verified")
	ErrHostUnsupported = errors.New("version does not support this host")
	ErrNoTarball       = errors.New("version has no tarballUrl")
	ErrNoIntegrity     = errors.New("version has no integrity or shasum")
)

// PolicyError is a refusal of the install policy. Err is one of the
// sentinels above.
type PolicyError struct {
	Err error
	Msg string
}

func (e *PolicyError) Error() string { return e.Msg }

// Unwrap returns the sentinel.
func (e *PolicyError) Unwrap() error { return e.Err }

// Selector says which version to install: Version exactly, else the
// highest semver of Channel, else the detail's defaultVersion.
type Selector struct {
	Version string
	Channel string
}

// semverOf parses v loosely; nil when it is not semver.
func semverOf(v string) *semver.Version {
	sv, err := semver.NewVersion(v)
	if err != nil {
		return nil
	}
	return sv
}

// Newer reports whether version a is a higher semver than b; when either
// is not semver, they are compared as strings only for inequality and the
// answer is false.
func Newer(a, b string) bool {
	x, y := semverOf(a), semverOf(b)
	return x != nil && y != nil && x.GreaterThan(y)
}

// Highest returns the highest semver version of channel in d whose hosts
// include host (any host when ""), skipping revoked versions unless
// withRevoked; nil when none.
func Highest(d *Detail, channel, host string, withRevoked bool) *Version {
	var best *Version
	var bestSV *semver.Version
	for i := range d.Versions {
		v := &d.Versions[i]
		if v.Channel != channel || host != "" && !v.SupportsHost(host) || !withRevoked && v.ReviewStatus == ReviewRevoked {
			continue
		}
		sv := semverOf(v.Version)
		if sv == nil {
			continue
		}
		if best == nil || sv.GreaterThan(bestSV) {
			best, bestSV = v, sv
		}
	}
	return best
}

// Choose picks the version sel names in d.
func Choose(d *Detail, sel Selector) (*Version, error) {
	if v := strings.TrimSpace(sel.Version); v != "" {
		if found := d.Find(v); found != nil {
			return found, nil
		}
		return nil, errkind.Errorf(ErrNoVersion, "Extension %s has no version: %s (versions: %s)", d.ExtensionID, v, versionList(d))
	}
	if ch := strings.TrimSpace(sel.Channel); ch != "" {
		if !slices.Contains(channels, ch) {
			return nil, fmt.Errorf("%w %q: use stable, preview or experimental", ErrBadChannel, ch)
		}
		if v := Highest(d, ch, "", true); v != nil {
			return v, nil
		}
		return nil, errkind.Errorf(ErrNoVersion, "Extension %s has no %s version (versions: %s)", d.ExtensionID, ch, versionList(d))
	}
	if v := d.Find(d.DefaultVersion); v != nil {
		return v, nil
	}
	return nil, errkind.Errorf(ErrNoVersion, "Extension %s has no version: %s", d.ExtensionID, d.DefaultVersion)
}

func versionList(d *Detail) string {
	vs := make([]string, 0, len(d.Versions))
	for _, v := range d.Versions {
		vs = append(vs, v.Version+" ("+v.Channel+")")
	}
	return strings.Join(vs, ", ")
}

// Prepared is a chosen version, ready for the policy check and download.
type Prepared struct {
	Item    *Item
	Detail  *Detail
	Version *Version
	// Warnings: deprecation, skipped detail parts, a stale cache.
	Warnings []Warning
	// SourceFileName is recorded as the archive file name.
	SourceFileName string
	tarball        location
	tarballErr     error
}

// TarballLocation returns the resolved tarball URL or file ("" when none).
func (p *Prepared) TarballLocation() string {
	if p.tarballErr != nil {
		return ""
	}
	return p.tarball.String()
}

// Prepare loads the detail of id and chooses the version sel names.
func (c *Client) Prepare(ctx context.Context, id string, sel Selector) (*Prepared, error) {
	d, it, err := c.Detail(ctx, id)
	if err != nil {
		return nil, err
	}
	v, err := Choose(d, sel)
	if err != nil {
		return nil, err
	}
	p := &Prepared{Item: it, Detail: d, Version: v, Warnings: slices.Clone(d.Warnings)}
	if it.Status == StatusDeprecated || d.Status == StatusDeprecated {
		p.Warnings = append(p.Warnings, Warning{Message: it.ExtensionID + " is deprecated in the marketplace"})
	}
	if v.TarballURL != "" {
		p.tarball, _, p.tarballErr = c.resolve(ctx, v.TarballURL, "marketplace tarball")
	}
	p.SourceFileName = SourceFileName(v.TarballURL, it.ExtensionID, v.Version)
	return p, nil
}

// Consent is what the user agreed to.
type Consent struct {
	// ReviewAcknowledged accepts an unverified version.
	ReviewAcknowledged bool
	// AllowRevoked accepts a revoked version.
	AllowRevoked bool
}

// Check applies the install policy, in order: listing status, host
// support, review status, then the presence of a tarball and of a digest.
// It makes no request.
func (p *Prepared) Check(host string, consent Consent) error {
	id, ver := p.Item.ExtensionID, p.Version.Version
	ref := id + "@" + ver
	if p.Item.Status == StatusBlocked || p.Detail.Status == StatusBlocked {
		return &PolicyError{ErrBlocked, fmt.Sprintf("Extension %s is blocked in the marketplace and cannot be installed.", id)}
	}
	if !p.Version.SupportsHost(host) {
		return &PolicyError{ErrHostUnsupported, fmt.Sprintf("This extension version does not support installation on the current host: %s (it supports %s)",
			ref, strings.Join(p.Version.SupportedHosts, ", "))}
	}
	switch p.Version.ReviewStatus {
	case ReviewRevoked:
		if !consent.AllowRevoked {
			return &PolicyError{ErrRevoked, fmt.Sprintf("Extension %s has had its review revoked.", ref)}
		}
	case ReviewVerified:
	default:
		if !consent.ReviewAcknowledged && !consent.AllowRevoked {
			return &PolicyError{ErrUnverified, fmt.Sprintf("Extension %s is not verified; explicit confirmation is required before installation.", ref)}
		}
	}
	if p.Version.TarballURL == "" {
		return &PolicyError{ErrNoTarball, fmt.Sprintf("Extension %s is missing tarballUrl and cannot be installed.", ref)}
	}
	if p.tarballErr != nil {
		return p.tarballErr
	}
	if p.Version.Integrity == "" && p.Version.Shasum == "" {
		return &PolicyError{ErrNoIntegrity, fmt.Sprintf("Extension %s is missing integrity/shasum; downloaded content cannot be verified.", ref)}
	}
	return nil
}

// Tarball downloads (or takes from the cache) the tarball of p and
// verifies it: the strongest SRI algorithm listed must match, and the
// shasum too when given; a tarball verified only by sha1 is refused
// unless allowSHA1. When Temporary is set the caller removes Path.
func (c *Client) Tarball(ctx context.Context, p *Prepared, allowSHA1 bool) (*npm.Tarball, error) {
	if p.tarballErr != nil {
		return nil, p.tarballErr
	}
	if p.Version.TarballURL == "" {
		return nil, &PolicyError{ErrNoTarball, "Extension " + p.Item.ExtensionID + "@" + p.Version.Version + " is missing tarballUrl and cannot be installed."}
	}
	hc, rawURL, closeFn, err := c.tarballTransport(p.tarball)
	if err != nil {
		return nil, err
	}
	defer closeFn()
	nc, err := npm.NewClient(npm.Config{
		Getenv:     func(string) string { return "" },
		CacheDir:   c.opts.CacheDir,
		HTTPClient: hc,
		Offline:    c.opts.Offline,
		Limits:     c.opts.Fetch,
		AllowSHA1:  allowSHA1,
		Progress:   c.opts.Progress,
	})
	if err != nil {
		return nil, err
	}
	return nc.FetchTarball(ctx, &npm.Resolved{
		Name: p.Item.PackageName, Version: p.Version.Version, TarballURL: rawURL,
		Integrity: p.Version.Integrity, Shasum: p.Version.Shasum,
	})
}

// tarballTransport returns the client and URL that fetch loc: the
// Client's own for a URL; for a file in the registry folder, a client
// serving file:// from an os.Root on that folder, so that no link leads
// out of it.
func (c *Client) tarballTransport(loc location) (*http.Client, string, func(), error) {
	if loc.url != nil {
		return c.hc, loc.url.String(), func() {}, nil
	}
	rel, err := filepath.Rel(c.dir, loc.file)
	if err != nil || !filepath.IsLocal(rel) {
		return nil, "", nil, fmt.Errorf("%w: %s", ErrOutsideRegistry, loc.file)
	}
	root, err := os.OpenRoot(c.dir)
	if err != nil {
		return nil, "", nil, err
	}
	hc := &http.Client{Transport: http.NewFileTransportFS(root.FS())}
	u := &url.URL{Scheme: "file", Path: "/" + filepath.ToSlash(rel)}
	return hc, u.String(), func() { root.Close() }, nil
}
