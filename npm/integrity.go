package npm

import (
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"hash"
	"strings"
)

// Hash is one digest of a Subresource Integrity string.
type Hash struct {
	Algorithm string // sha512, sha384, sha256 or sha1
	Digest    []byte
}

// String returns the SRI form "alg-base64".
func (h Hash) String() string { return h.Algorithm + "-" + base64.StdEncoding.EncodeToString(h.Digest) }

// algorithms by strength, strongest first, with their digest sizes.
var algorithms = []struct {
	name string
	size int
	new  func() hash.Hash
}{
	{"sha512", sha512.Size, sha512.New},
	{"sha384", sha512.Size384, sha512.New384},
	{"sha256", sha256.Size, sha256.New},
	{"sha1", sha1.Size, sha1.New},
}

func strength(alg string) int {
	for i, a := range algorithms {
		if a.name == alg {
			return len(algorithms) - i
		}
	}
	return 0
}

// ParseSRI parses a Subresource Integrity string: whitespace-separated
// "alg-base64[?options]" items. Items with an unknown algorithm are
// ignored, as the SRI spec says; an item with a known algorithm but a bad
// digest is an error.
func ParseSRI(s string) ([]Hash, error) {
	var out []Hash
	for _, item := range strings.Fields(s) {
		alg, b64, ok := strings.Cut(item, "-")
		if !ok {
			continue
		}
		st := strength(alg)
		if st == 0 {
			continue
		}
		b64, _, _ = strings.Cut(b64, "?")
		d, err := base64.StdEncoding.DecodeString(b64)
		if err != nil || len(d) != algorithms[len(algorithms)-st].size {
			return nil, fmt.Errorf("%w: bad %s digest in integrity %q", ErrBadPackument, alg, truncate(item, 120))
		}
		out = append(out, Hash{Algorithm: alg, Digest: d})
	}
	return out, nil
}

// Strongest returns the hashes of the strongest algorithm in hs.
func Strongest(hs []Hash) []Hash {
	best := 0
	for _, h := range hs {
		best = max(best, strength(h.Algorithm))
	}
	var out []Hash
	for _, h := range hs {
		if strength(h.Algorithm) == best {
			out = append(out, h)
		}
	}
	return out
}

// expectation is what a tarball's bytes must hash to.
type expectation struct {
	sri    []Hash // the strongest algorithm's digests (any one must match)
	shasum []byte // dist.shasum, when given
}

// expect builds the expectation of a resolved version, refusing one that
// only sha1 verifies unless allowSHA1.
func expect(r *Resolved, allowSHA1 bool) (*expectation, error) {
	hs, err := ParseSRI(r.Integrity)
	if err != nil {
		return nil, err
	}
	e := &expectation{sri: Strongest(hs)}
	if r.Shasum != "" {
		d, err := hex.DecodeString(strings.ToLower(r.Shasum))
		if err != nil || len(d) != sha1.Size {
			return nil, fmt.Errorf("%w: bad shasum %q for %s@%s", ErrBadPackument, truncate(r.Shasum, 60), r.Name, r.Version)
		}
		e.shasum = d
	}
	strong := len(e.sri) > 0 && e.sri[0].Algorithm != "sha1"
	switch {
	case strong:
	case (len(e.sri) > 0 || e.shasum != nil) && allowSHA1:
	case len(e.sri) > 0 || e.shasum != nil:
		return nil, fmt.Errorf("%w: %s@%s is verified only by sha1 (pass --allow-sha1 to accept it)", ErrWeakIntegrity, r.Name, r.Version)
	default:
		return nil, fmt.Errorf("%w: %s@%s has neither dist.integrity nor dist.shasum", ErrWeakIntegrity, r.Name, r.Version)
	}
	return e, nil
}

// hashers computes, in one pass, sha512 (always: the cache key and the
// recorded integrity), the expected SRI algorithm and sha1 for the shasum.
type hashers struct {
	sha512 hash.Hash
	sri    hash.Hash // nil when the SRI algorithm is sha512 or absent
	sha1   hash.Hash // nil without shasum nor sha1 SRI
	e      *expectation
}

func newHashers(e *expectation) *hashers {
	h := &hashers{sha512: sha512.New(), e: e}
	if len(e.sri) > 0 {
		switch alg := e.sri[0].Algorithm; alg {
		case "sha512":
		case "sha1":
			h.sha1 = sha1.New()
		default:
			for _, a := range algorithms {
				if a.name == alg {
					h.sri = a.new()
				}
			}
		}
	}
	if e.shasum != nil && h.sha1 == nil {
		h.sha1 = sha1.New()
	}
	return h
}

func (h *hashers) Write(p []byte) (int, error) {
	h.sha512.Write(p)
	if h.sri != nil {
		h.sri.Write(p)
	}
	if h.sha1 != nil {
		h.sha1.Write(p)
	}
	return len(p), nil
}

// check compares the digests with the expectation and returns the sha512
// SRI of the bytes.
func (h *hashers) check(name, version string) (string, error) {
	sum512 := h.sha512.Sum(nil)
	if len(h.e.sri) > 0 {
		var got []byte
		switch h.e.sri[0].Algorithm {
		case "sha512":
			got = sum512
		case "sha1":
			got = h.sha1.Sum(nil)
		default:
			got = h.sri.Sum(nil)
		}
		ok := false
		for _, want := range h.e.sri {
			ok = ok || string(want.Digest) == string(got)
		}
		if !ok {
			return "", &IntegrityError{Name: name, Version: version, Algorithm: h.e.sri[0].Algorithm,
				Want: base64.StdEncoding.EncodeToString(h.e.sri[0].Digest), Got: base64.StdEncoding.EncodeToString(got)}
		}
	}
	if h.e.shasum != nil {
		if got := h.sha1.Sum(nil); string(got) != string(h.e.shasum) {
			return "", &IntegrityError{Name: name, Version: version, Algorithm: "sha1 (shasum)",
				Want: hex.EncodeToString(h.e.shasum), Got: hex.EncodeToString(got)}
		}
	}
	return Hash{"sha512", sum512}.String(), nil
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
