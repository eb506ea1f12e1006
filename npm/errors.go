package npm

import (
	"errors"
	"fmt"
	"strings"

	"github.com/spiritagents/spirit/fetch"
)

// Sentinel errors, matched with errors.Is.
var (
	// ErrInvalidSpec: the package spec cannot be parsed.
	ErrInvalidSpec = errors.New("invalid npm package spec")
	// ErrNotFound: the registry has no such package (404).
	ErrNotFound = errors.New("not found in the npm registry")
	// ErrUnauthorized: the registry refused the credentials, or their absence (401, 403).
	ErrUnauthorized = errors.New("not authorized by the npm registry")
	// ErrNoMatchingVersion: no version satisfies the range, or the tag is unknown.
	ErrNoMatchingVersion = errors.New("no matching version")
	// ErrIntegrity: a tarball's bytes do not match its published digest.
	ErrIntegrity = errors.New("integrity check failed")
	// ErrWeakIntegrity: only sha1 (or nothing) verifies the tarball.
	ErrWeakIntegrity = errors.New("tarball has no strong integrity digest")
	// ErrTooLarge: the tarball exceeds the size limit (it is fetch.ErrTooLarge).
	ErrTooLarge = fetch.ErrTooLarge
	// ErrOffline: offline, and the cache lacks what is needed.
	ErrOffline = errors.New("not in the cache (offline)")
	// ErrBadPackument: the registry answered with something that is not a packument.
	ErrBadPackument = errors.New("invalid packument")
)

// HTTPError is an unexpected HTTP status from the registry. Its URL never
// carries credentials.
type HTTPError struct {
	Status int
	URL    string
	err    error // the fetch layer's error, which may say how many tries were made
}

func (e *HTTPError) Error() string {
	if e.err != nil {
		return e.err.Error()
	}
	return fmt.Sprintf("GET %s: HTTP %d", e.URL, e.Status)
}

// Unwrap returns the fetch layer's error.
func (e *HTTPError) Unwrap() error { return e.err }

// Is maps 404 to ErrNotFound and 401/403 to ErrUnauthorized.
func (e *HTTPError) Is(target error) bool {
	switch target {
	case ErrNotFound:
		return e.Status == 404
	case ErrUnauthorized:
		return e.Status == 401 || e.Status == 403
	}
	return false
}

// NoMatchError says that no version of Name satisfies Range, and lists the
// versions and dist-tags that exist.
type NoMatchError struct {
	Name, Range string
	Versions    []string          // sorted by semver, ascending
	Tags        map[string]string // dist-tags
}

func (e *NoMatchError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "no version of %s matches %q", e.Name, e.Range)
	if len(e.Versions) == 0 {
		b.WriteString(" (the package has no versions)")
		return b.String()
	}
	vs := e.Versions
	const max = 30
	prefix := ""
	if len(vs) > max {
		prefix = "…, "
		vs = vs[len(vs)-max:]
	}
	fmt.Fprintf(&b, "; versions: %s%s", prefix, strings.Join(vs, ", "))
	if len(e.Tags) > 0 {
		tags := make([]string, 0, len(e.Tags))
		for _, k := range sortedKeys(e.Tags) {
			tags = append(tags, k+"="+e.Tags[k])
		}
		fmt.Fprintf(&b, "; dist-tags: %s", strings.Join(tags, ", "))
	}
	return b.String()
}

// Is makes a NoMatchError match ErrNoMatchingVersion.
func (e *NoMatchError) Is(target error) bool { return target == ErrNoMatchingVersion }

// IntegrityError says which digest of a tarball did not match.
type IntegrityError struct {
	Name, Version string
	Algorithm     string // sha512, sha384, sha256, sha1
	Want, Got     string // base64 for SRI digests, hex for shasum
}

func (e *IntegrityError) Error() string {
	return fmt.Sprintf("integrity check failed for %s@%s: %s %s, expected %s",
		e.Name, e.Version, e.Algorithm, e.Got, e.Want)
}

// Is makes an IntegrityError match ErrIntegrity.
func (e *IntegrityError) Is(target error) bool { return target == ErrIntegrity }

// OfflineError names what the cache lacks.
type OfflineError struct{ What string }

func (e *OfflineError) Error() string { return "offline: " + e.What + " is not in the cache" }

// Is makes an OfflineError match ErrOffline.
func (e *OfflineError) Is(target error) bool { return target == ErrOffline }
