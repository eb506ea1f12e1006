package npm

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Signature is one entry of a version's dist.signatures: the registry's
// ECDSA P-256 signature (ASN.1 DER, base64) over
// "<name>@<version>:<integrity>".
type Signature struct {
	KeyID string `json:"keyid"`
	Sig   string `json:"sig"`
}

// Attestations is a version's dist.attestations: where the registry
// serves its Sigstore bundles, and the provenance predicate they carry.
type Attestations struct {
	URL        string `json:"url"`
	Provenance struct {
		PredicateType string `json:"predicateType"`
	} `json:"provenance"`
}

// RegistryKey is one public key of a registry's keys endpoint
// (GET <registry>/-/npm/v1/keys).
type RegistryKey struct {
	KeyID   string
	KeyType string
	Scheme  string
	// Expires is when the key stopped signing; the zero time means never.
	// A signature by it verifies only a version published before then.
	Expires time.Time
	pub     *ecdsa.PublicKey
}

// maxKeys bounds how many keys a keys document may hold.
const maxKeys = 64

// ParseRegistryKeys reads the JSON of a registry's keys endpoint:
// {"keys":[{"expires":null|time,"keyid","keytype","scheme","key"}]}, key
// being a base64 SubjectPublicKeyInfo. npm signs with ecdsa-sha2-nistp256
// keys on P-256; a key of another type is kept but verifies nothing (a
// signature by it is refused: ReasonUnsupportedKey). A document with an
// unreadable P-256 key, a repeated key id or an unreadable time is refused
// whole, since a registry that serves it is not one whose keys can be
// trusted.
// An empty list is no keys (the same as a registry without the endpoint).
func ParseRegistryKeys(data []byte) ([]RegistryKey, error) {
	var doc struct {
		Keys *[]struct {
			Expires *string `json:"expires"`
			KeyID   string  `json:"keyid"`
			KeyType string  `json:"keytype"`
			Scheme  string  `json:"scheme"`
			Key     string  `json:"key"`
		} `json:"keys"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadKeys, err)
	}
	if doc.Keys == nil {
		return nil, fmt.Errorf("%w: no \"keys\" list", ErrBadKeys)
	}
	if len(*doc.Keys) > maxKeys {
		return nil, fmt.Errorf("%w: %d keys (at most %d)", ErrBadKeys, len(*doc.Keys), maxKeys)
	}
	var out []RegistryKey
	seen := map[string]bool{}
	for i, k := range *doc.Keys {
		where := fmt.Sprintf("key %d", i)
		if k.KeyID == "" {
			return nil, fmt.Errorf("%w: %s has no keyid", ErrBadKeys, where)
		}
		where = fmt.Sprintf("key %q", truncate(k.KeyID, 80))
		if seen[k.KeyID] {
			return nil, fmt.Errorf("%w: %s is listed twice", ErrBadKeys, where)
		}
		seen[k.KeyID] = true
		if k.KeyType != "ecdsa-sha2-nistp256" || k.Scheme != "ecdsa-sha2-nistp256" {
			// A kind of key spirit cannot use: kept, so that a signature
			// by it is refused as such, while the registry's other keys
			// still verify.
			out = append(out, RegistryKey{KeyID: k.KeyID, KeyType: truncate(k.KeyType, 40), Scheme: truncate(k.Scheme, 40)})
			continue
		}
		der, err := base64.StdEncoding.DecodeString(k.Key)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: key is not base64", ErrBadKeys, where)
		}
		pk, err := x509.ParsePKIXPublicKey(der)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %v", ErrBadKeys, where, err)
		}
		ec, ok := pk.(*ecdsa.PublicKey)
		if !ok || ec.Curve != elliptic.P256() {
			return nil, fmt.Errorf("%w: %s is not a P-256 ECDSA key", ErrBadKeys, where)
		}
		rk := RegistryKey{KeyID: k.KeyID, KeyType: k.KeyType, Scheme: k.Scheme, pub: ec}
		if k.Expires != nil {
			t, err := time.Parse(time.RFC3339Nano, *k.Expires)
			if err != nil {
				return nil, fmt.Errorf("%w: %s: expires %q is not an RFC 3339 time", ErrBadKeys, where, truncate(*k.Expires, 40))
			}
			rk.Expires = t
		}
		out = append(out, rk)
	}
	return out, nil
}

// missingTimeCutoff is the publish time npm assumes for a version whose
// packument has no time for it (some very old packages have none).
var missingTimeCutoff = time.Date(2015, 1, 1, 0, 0, 0, 0, time.UTC)

// VerifySignatures checks a version's registry signatures as npm's
// `audit signatures` does: every entry of sigs must name a key of keys,
// that key must not have expired before the version was published
// (published; the zero time means the packument gives none, and npm's
// cut-off of 2015-01-01 is taken), and its ECDSA P-256 signature over
// "<name>@<version>:<integrity>" must verify. With keys, a version without
// signatures is refused too. It returns the key ids that verified. The
// error is a *SignatureError naming the package, the key and the registry.
func VerifySignatures(registry, name, version, integrity string, published time.Time, sigs []Signature, keys []RegistryKey) ([]string, error) {
	fail := func(reason, keyID string, expires time.Time) error {
		return &SignatureError{Name: name, Version: version, Registry: Redact(registry), KeyID: keyID, Reason: reason, Expires: expires}
	}
	if len(keys) == 0 {
		return nil, nil
	}
	if len(sigs) == 0 {
		return nil, fail(ReasonMissing, "", time.Time{})
	}
	if published.IsZero() {
		published = missingTimeCutoff
	}
	msg := sha256.Sum256([]byte(name + "@" + version + ":" + integrity))
	var ids []string
	for _, s := range sigs {
		var key *RegistryKey
		for i := range keys {
			if keys[i].KeyID == s.KeyID {
				key = &keys[i]
				break
			}
		}
		if key == nil {
			return nil, fail(ReasonUnknownKey, s.KeyID, time.Time{})
		}
		if key.pub == nil {
			return nil, fail(ReasonUnsupportedKey, s.KeyID, time.Time{})
		}
		if !key.Expires.IsZero() && !published.Before(key.Expires) {
			return nil, fail(ReasonExpiredKey, s.KeyID, key.Expires)
		}
		der, err := base64.StdEncoding.DecodeString(s.Sig)
		if err != nil || !ecdsa.VerifyASN1(key.pub, msg[:], der) {
			return nil, fail(ReasonInvalid, s.KeyID, time.Time{})
		}
		ids = append(ids, s.KeyID)
	}
	return ids, nil
}

// Reasons a SignatureError gives.
const (
	ReasonMissing    = "missing"     // keys published, no signature
	ReasonUnknownKey = "unknown key" // a signature by a key the registry does not publish
	ReasonExpiredKey = "expired key" // a signature by a key that expired before the version was published
	ReasonInvalid    = "invalid"     // the signature does not verify
	ReasonKeysGone   = "keys gone"   // the registry published keys before and publishes none now
	// ReasonUnsupportedKey: a signature by a key of a type spirit cannot verify.
	ReasonUnsupportedKey = "unsupported key"
)

// ErrSignature: a registry that publishes signing keys did not sign what
// it served (matched by *SignatureError).
var ErrSignature = errors.New("registry signature check failed")

// ErrBadKeys: a registry's keys endpoint answered with something that is
// not a keys document spirit can use.
var ErrBadKeys = errors.New("invalid registry keys")

// SignatureError says why a version's registry signature did not verify.
type SignatureError struct {
	Name, Version string
	Registry      string // without credentials
	KeyID         string // "" when no signature names one
	Reason        string // one of the Reason constants
	Expires       time.Time
	// Since is when the registry's keys were last seen (ReasonKeysGone).
	Since time.Time
}

func (e *SignatureError) Error() string {
	id := e.Name + "@" + e.Version
	switch e.Reason {
	case ReasonMissing:
		return fmt.Sprintf("%s from %s has no registry signature, though the registry publishes signing keys: refused", id, e.Registry)
	case ReasonUnknownKey:
		return fmt.Sprintf("%s from %s is signed with key %s, which the registry does not publish: refused", id, e.Registry, e.KeyID)
	case ReasonExpiredKey:
		return fmt.Sprintf("%s from %s is signed with key %s, which expired %s, before the version was published: refused",
			id, e.Registry, e.KeyID, e.Expires.UTC().Format(time.RFC3339))
	case ReasonUnsupportedKey:
		return fmt.Sprintf("%s from %s is signed with key %s, of a type spirit cannot verify (only ecdsa-sha2-nistp256): refused", id, e.Registry, e.KeyID)
	case ReasonKeysGone:
		return fmt.Sprintf("%s: registry %s published signing keys (last seen %s) and now publishes none: refused",
			id, e.Registry, e.Since.UTC().Format(time.RFC3339))
	}
	return fmt.Sprintf("%s from %s has an invalid registry signature (key %s): refused", id, e.Registry, e.KeyID)
}

// Hint says what a user can do about it.
func (e *SignatureError) Hint() string {
	if e.Reason == ReasonKeysGone {
		return "if the registry really stopped signing, delete the cached keys (spirit's cache folder, npm/keys) and try again; otherwise the registry or the network between may have been tampered with"
	}
	return "the package may have been tampered with on the registry, a mirror or the way to it; install another version, or ask the registry's operators (npm audit signatures reports the same)"
}

// Is makes a SignatureError match ErrSignature.
func (e *SignatureError) Is(target error) bool { return target == ErrSignature }

// publishTime reads time[version] of a packument: "" or unreadable is the
// zero time.
func publishTime(rawTimes json.RawMessage, version string) time.Time {
	var times map[string]json.RawMessage
	if json.Unmarshal(rawTimes, &times) != nil {
		return time.Time{}
	}
	raw, ok := times[version]
	if !ok {
		return time.Time{}
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return time.Time{}
	}
	t, err := time.Parse(time.RFC3339Nano, strings.TrimSpace(s))
	if err != nil {
		return time.Time{}
	}
	return t
}

// Signature check outcomes (SignatureCheck.Status).
const (
	// SignatureVerified: every registry signature verified.
	SignatureVerified = "verified"
	// SignatureNoKeys: the registry publishes no signing keys, so nothing
	// was verified beyond the integrity the packument gives.
	SignatureNoKeys = "no-keys"
	// SignatureUnknown: offline, and the registry's keys are not cached.
	SignatureUnknown = "unknown"
)

// SignatureCheck is what the registry signature check of a resolved
// version found.
type SignatureCheck struct {
	// Status is SignatureVerified, SignatureNoKeys or SignatureUnknown;
	// "" when no check was made (a Resolved made by hand).
	Status string `json:"status,omitempty"`
	// KeyIDs are the keys whose signatures verified.
	KeyIDs []string `json:"keyIds,omitempty"`
}

// errNeedFull: the document at hand is abbreviated and lacks what the
// check needs: the version's publish time (a signature's key expires), or
// its signatures (a registry could leave them out of the abbreviated form).
var errNeedFull = errors.New("full packument needed")

// checkSignatures verifies d's signatures of r against rk and records the
// outcome in r. Without the version's publish time, a signature by a key
// that expires needs the full document (errNeedFull), and so do missing
// signatures, unless full says this is it.
func checkSignatures(r *Resolved, rk *registryKeys, times json.RawMessage, d Dist, full bool) error {
	r.Attestations = d.Attestations
	switch {
	case rk.unknown:
		r.Signature = SignatureCheck{Status: SignatureUnknown}
		return nil
	case rk.none:
		r.Signature = SignatureCheck{Status: SignatureNoKeys}
		return nil
	}
	if len(d.Signatures) == 0 && !full {
		return errNeedFull
	}
	published := publishTime(times, r.Version)
	if published.IsZero() && !full {
		for _, s := range d.Signatures {
			for _, k := range rk.keys {
				if k.KeyID == s.KeyID && !k.Expires.IsZero() {
					return errNeedFull
				}
			}
		}
	}
	integrity := strings.TrimSpace(d.Integrity)
	if integrity == "" && d.Shasum != "" {
		// What npm signs for a package published before SRI: the shasum as sha1 SRI.
		if sum, err := hex.DecodeString(strings.ToLower(d.Shasum)); err == nil {
			integrity = Hash{Algorithm: "sha1", Digest: sum}.String()
		}
	}
	ids, err := VerifySignatures(r.Registry, r.Name, r.Version, integrity, published, d.Signatures, rk.keys)
	if err != nil {
		return err
	}
	r.Signature = SignatureCheck{Status: SignatureVerified, KeyIDs: ids}
	return nil
}
