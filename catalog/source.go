package catalog

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/spiritagents/spirit/internal/errkind"
	"github.com/spiritagents/spirit/internal/within"
)

// DefaultRegistry is the official marketplace index.
const DefaultRegistry = "https://raw.githubusercontent.com/SpiritAgents/registry/refs/heads/main/registry/"

// Kinds of registry source.
const (
	KindURL = "url"
	KindDir = "dir"
	KindGit = "git"
)

// Errors about where things are fetched from.
var (
	// ErrInsecureURL: a URL is not https (and not http to a loopback host).
	ErrInsecureURL = errors.New("URL must use https")
	// ErrOutsideRegistry: a relative reference leaves the registry base.
	ErrOutsideRegistry = errors.New("reference leaves the registry")
)

// Source is a parsed --registry value.
type Source struct {
	Kind string
	// URL is the base URL (with a trailing slash) of a KindURL source.
	URL *url.URL
	// Dir is the folder of a KindDir source.
	Dir string
	// Repo and Ref are the clone URL and optional ref (branch or tag) of a
	// KindGit source: git+URL[#REF].
	Repo, Ref string
}

// String returns the source as a user would write it.
func (s *Source) String() string {
	switch s.Kind {
	case KindURL:
		return s.URL.String()
	case KindGit:
		if s.Ref != "" {
			return "git+" + s.Repo + "#" + s.Ref
		}
		return "git+" + s.Repo
	}
	return s.Dir
}

// ParseSource parses a registry source: "" (the default index), an https
// base URL, http://localhost…, a folder path or file:// URL, or
// git+https://…[#REF] (git+file:// and git+http to loopback also work).
func ParseSource(s string) (*Source, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		s = DefaultRegistry
	}
	if rest, ok := strings.CutPrefix(s, "git+"); ok {
		repo, ref, _ := strings.Cut(rest, "#")
		u, err := url.Parse(repo)
		if err != nil || u.Host == "" && u.Scheme != "file" {
			return nil, fmt.Errorf("registry git URL is invalid: %s", s)
		}
		if u.Scheme != "file" {
			if err := CheckURL(u, "registry git URL"); err != nil {
				return nil, err
			}
		}
		return &Source{Kind: KindGit, Repo: repo, Ref: ref}, nil
	}
	if strings.HasPrefix(s, "file://") {
		u, err := url.Parse(s)
		if err != nil || u.Path == "" {
			return nil, fmt.Errorf("registry file URL is invalid: %s", s)
		}
		return &Source{Kind: KindDir, Dir: filepath.FromSlash(u.Path)}, nil
	}
	if strings.Contains(s, "://") {
		u, err := url.Parse(s)
		if err != nil || u.Host == "" {
			return nil, fmt.Errorf("registry URL is invalid: %s", s)
		}
		if err := CheckURL(u, "registry"); err != nil {
			return nil, err
		}
		if !strings.HasSuffix(u.Path, "/") {
			u.Path += "/"
		}
		u.RawQuery, u.Fragment = "", ""
		return &Source{Kind: KindURL, URL: u}, nil
	}
	dir, err := filepath.Abs(s)
	if err != nil {
		return nil, err
	}
	return &Source{Kind: KindDir, Dir: dir}, nil
}

// IsLoopback reports whether host (without port) is localhost or a
// loopback IP address.
func IsLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// CheckURL accepts https URLs, and http URLs whose host is loopback.
func CheckURL(u *url.URL, label string) error {
	switch {
	case u.Scheme == "https" && u.Host != "":
		return nil
	case u.Scheme == "http" && IsLoopback(u.Hostname()):
		return nil
	}
	return errkind.Errorf(ErrInsecureURL, "%s URL must use https: %s", label, u.Redacted())
}

// location is a resolved reference: a URL or a file inside a folder.
type location struct {
	url  *url.URL
	file string
	dir  string // the registry folder holding file
}

// open opens a file location through an os.Root on its registry folder:
// a symbolic link that leads out of the folder is refused with
// ErrOutsideRegistry, naming the entry, and never followed.
func (l location) open() (*os.File, error) {
	f, err := within.Open(l.dir, l.file)
	if errors.Is(err, within.ErrEscape) {
		return nil, fmt.Errorf("%w: %w", ErrOutsideRegistry, err)
	}
	return f, err
}

func (l location) String() string {
	if l.url != nil {
		return l.url.Redacted()
	}
	return l.file
}

// resolveRef resolves ref (detailPath, readmePath, tarballUrl) against the
// base: dir for a folder or clone, base for a URL source.
func resolveRef(ref string, base *url.URL, dir, label string) (location, error) {
	ref = strings.TrimSpace(ref)
	if ref == "" {
		return location{}, fmt.Errorf("%s URL is empty", label)
	}
	if strings.Contains(ref, "://") {
		u, err := url.Parse(ref)
		if err != nil {
			return location{}, fmt.Errorf("%s URL is invalid: %s", label, ref)
		}
		if err := CheckURL(u, label); err != nil {
			return location{}, err
		}
		return location{url: u}, nil
	}
	rel := strings.TrimPrefix(ref, "./")
	if strings.HasPrefix(rel, "/") || strings.Contains(rel, `\`) || !filepath.IsLocal(filepath.FromSlash(rel)) {
		return location{}, fmt.Errorf("%w: %s %q", ErrOutsideRegistry, label, ref)
	}
	if base != nil {
		r, err := url.Parse(rel)
		if err != nil || r.Scheme != "" || r.Host != "" {
			return location{}, fmt.Errorf("%s URL is invalid: %s", label, ref)
		}
		u := base.ResolveReference(r)
		if !strings.HasPrefix(path.Clean(u.Path)+"/", base.Path) {
			return location{}, fmt.Errorf("%w: %s %q", ErrOutsideRegistry, label, ref)
		}
		return location{url: u}, nil
	}
	return location{file: filepath.Join(dir, filepath.FromSlash(rel)), dir: dir}, nil
}

// SourceFileName returns the archive file name a tarball is recorded
// under: the basename of the tarball URL's path, else
// "<extensionId>-<version>.tgz" with unsafe characters replaced by "-".
// Unlike the reference, the name is always a single safe path segment.
func SourceFileName(tarballURL, extensionID, version string) string {
	if u, err := url.Parse(tarballURL); err == nil {
		name := strings.TrimSpace(path.Base(u.Path))
		if name != "" && name != "." && name != "/" && name != ".." && filepath.IsLocal(name) &&
			!strings.ContainsAny(name, `/\`) {
			return name
		}
	}
	var b strings.Builder
	dash := false
	for _, r := range extensionID {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-'
		if ok {
			b.WriteRune(r)
			dash = false
		} else if !dash {
			b.WriteByte('-')
			dash = true
		}
	}
	return b.String() + "-" + safeSegment(version) + ".tgz"
}

func safeSegment(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r < 0x20 {
			return '-'
		}
		return r
	}, s)
}
