package npm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/spiritagents/spirit/internal/atomicfile"
)

// KeysLifetime is how long a registry's keys (or its answer that it has
// none) are used from the cache before the endpoint is asked again.
const KeysLifetime = 24 * time.Hour

// maxKeysSize caps the keys document.
const maxKeysSize = 1 << 20

// registryKeys is what the client knows of a registry's signing keys.
type registryKeys struct {
	keys []RegistryKey
	// none: the registry publishes no keys (its endpoint answered 4xx, or
	// an empty list); nothing of it can be verified.
	none bool
	// unknown: offline, and the cache has no answer; nothing is verified.
	unknown bool
}

// keysRecord is the cache file of one registry's keys.
type keysRecord struct {
	Registry string    `json:"registry"`
	Fetched  time.Time `json:"fetched"`
	// Body is the keys document; empty when the registry has none.
	Body json.RawMessage `json:"body,omitempty"`
	// KeysSeen is when this registry last published keys, kept when it
	// stops, so that a registry (or whoever answers for it) cannot turn
	// verification off by no longer publishing them.
	KeysSeen time.Time `json:"keysSeen,omitzero"`
}

// keysPath returns the cache file of a registry's keys, or "".
func (c *Client) keysPath(reg string) string {
	if c.cfg.CacheDir == "" {
		return ""
	}
	sum := sha256.Sum256([]byte(Redact(reg)))
	return filepath.Join(c.cfg.CacheDir, "npm", "keys", hex.EncodeToString(sum[:16])+".json")
}

// cachedKeys reads the cache record of reg; ok is false without one.
func (c *Client) cachedKeys(reg string) (keysRecord, bool) {
	var rec keysRecord
	p := c.keysPath(reg)
	if p == "" {
		return rec, false
	}
	data, err := os.ReadFile(p)
	if err != nil || json.Unmarshal(data, &rec) != nil || rec.Registry != Redact(reg) {
		return keysRecord{}, false
	}
	return rec, true
}

// fromRecord turns a cache record into keys.
func fromRecord(rec keysRecord) (*registryKeys, error) {
	if len(rec.Body) == 0 {
		return &registryKeys{none: true}, nil
	}
	keys, err := ParseRegistryKeys(rec.Body)
	if err != nil {
		return nil, err
	}
	return &registryKeys{keys: keys, none: len(keys) == 0}, nil
}

// keysFor returns the signing keys of registry reg, as npm's `audit
// signatures` finds them at GET <registry>/-/npm/v1/keys: a 4xx answer
// (Verdaccio and most private registries have no such endpoint) or an
// empty list means the registry signs nothing. The answer is cached for
// KeysLifetime; a stale copy is used when the registry cannot be reached,
// and offline any copy is. A registry seen with keys that now has none is
// a *SignatureError (ReasonKeysGone) for the package being resolved:
// turning verification off takes deleting the cached record.
//
// ahead, when not nil, is the request of the endpoint that prefetchKeys
// started: its answer is used instead of asking again.
func (c *Client) keysFor(ctx context.Context, reg, name, version string, ahead *keysFetch) (*registryKeys, error) {
	rec, cached := c.cachedKeys(reg)
	if cached && c.keysUsable(rec) {
		if rk, err := fromRecord(rec); err == nil {
			return c.keysGone(rk, rec, reg, name, version)
		}
	}
	if c.cfg.Offline {
		return &registryKeys{unknown: true}, nil
	}
	fresh := keysRecord{Registry: Redact(reg), Fetched: time.Now().UTC(), KeysSeen: rec.KeysSeen}
	var rk *registryKeys
	var body json.RawMessage
	var err error
	if ahead != nil {
		fresh.Fetched = ahead.started
		rk, body, err = ahead.result()
	} else {
		rk, body, err = c.fetchKeys(ctx, reg)
	}
	if err != nil {
		var he *HTTPError
		if cached && !(errors.As(err, &he) && he.Status < 500) && !errors.Is(err, ErrBadKeys) {
			// The registry cannot be reached: keys change seldom.
			if old, perr := fromRecord(rec); perr == nil {
				return c.keysGone(old, rec, reg, name, version)
			}
		}
		return nil, err
	}
	fresh.Body = body
	if !rk.none {
		fresh.KeysSeen = fresh.Fetched
	}
	if p := c.keysPath(reg); p != "" {
		if data, err := json.Marshal(fresh); err == nil {
			_ = atomicfile.Write(p, data, 0o600) // the cache is an optimisation
		}
	}
	return c.keysGone(rk, fresh, reg, name, version)
}

// keysUsable says whether a cached record is used without asking the
// registry: offline, any is; otherwise one younger than KeysLifetime
// (and not from the future).
func (c *Client) keysUsable(rec keysRecord) bool {
	return c.cfg.Offline || time.Since(rec.Fetched) < KeysLifetime && !rec.Fetched.After(time.Now().Add(time.Minute))
}

// keysFetch is a request of a registry's keys endpoint made ahead, while
// the packument downloads, so that on a cold cache the two round trips
// overlap instead of following each other.
type keysFetch struct {
	started time.Time
	cancel  context.CancelFunc
	done    chan struct{}
	rk      *registryKeys
	body    json.RawMessage
	err     error
}

// prefetchKeys starts the request that keysFor would make for reg (there
// is no usable copy in the cache, and the client is online); nil when
// keysFor would make none. Its answer is only used, and cached, by
// keysFor; the caller stops it when it returns.
func (c *Client) prefetchKeys(ctx context.Context, reg string) *keysFetch {
	if c.cfg.Offline {
		return nil
	}
	if rec, cached := c.cachedKeys(reg); cached && c.keysUsable(rec) {
		if _, err := fromRecord(rec); err == nil {
			return nil
		}
	}
	ctx, cancel := context.WithCancel(ctx)
	k := &keysFetch{started: time.Now().UTC(), cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(k.done)
		k.rk, k.body, k.err = c.fetchKeys(ctx, reg)
	}()
	return k
}

// result waits for the answer.
func (k *keysFetch) result() (*registryKeys, json.RawMessage, error) {
	<-k.done
	return k.rk, k.body, k.err
}

// stop ends the request, when it still runs, and waits for it; on a nil
// keysFetch it does nothing.
func (k *keysFetch) stop() {
	if k != nil {
		k.cancel()
		<-k.done
	}
}

// keysGone refuses "no keys" from a registry that published keys before.
func (c *Client) keysGone(rk *registryKeys, rec keysRecord, reg, name, version string) (*registryKeys, error) {
	if rk.none && !rec.KeysSeen.IsZero() {
		return nil, &SignatureError{Name: name, Version: version, Registry: Redact(reg), Reason: ReasonKeysGone, Since: rec.KeysSeen}
	}
	return rk, nil
}

// fetchKeys GETs the keys endpoint of reg. A 4xx answer is "no keys";
// anything else that fails is an error.
func (c *Client) fetchKeys(ctx context.Context, reg string) (*registryKeys, json.RawMessage, error) {
	resp, err := c.get(ctx, reg+"-/npm/v1/keys", http.Header{"Accept": {"application/json"}})
	var he *HTTPError
	if errors.As(err, &he) && he.Status >= 400 && he.Status < 500 {
		return &registryKeys{none: true}, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("signing keys of %s: %w", Redact(reg), err)
	}
	defer resp.Body.Close()
	data, err := resp.ReadAll(maxKeysSize)
	if err != nil {
		return nil, nil, fmt.Errorf("signing keys of %s: %w", Redact(reg), err)
	}
	keys, err := ParseRegistryKeys(data)
	if err != nil {
		return nil, nil, &KeysError{Registry: Redact(reg), Err: err}
	}
	if len(keys) == 0 {
		return &registryKeys{none: true}, nil, nil
	}
	return &registryKeys{keys: keys}, json.RawMessage(data), nil
}

// KeysError is a keys endpoint that answered with something unusable.
type KeysError struct {
	Registry string
	Err      error
}

func (e *KeysError) Error() string {
	return "signing keys of " + e.Registry + " (" + e.Registry + "-/npm/v1/keys): " + e.Err.Error()
}

// Unwrap returns the parse error (it matches ErrBadKeys).
func (e *KeysError) Unwrap() error { return e.Err }

// Hint says what to do.
func (e *KeysError) Hint() string {
	return "the registry's keys endpoint must answer {\"keys\":[…]} as the npm registry does, or 404 when it signs nothing; nothing was installed"
}
