// Package verify is the client side of a signed marketplace index: before
// anything of an index is used, it runs The Update Framework's client
// workflow (go-tuf's trustedmetadata) over the index's tuf/ folder, and
// then checks every catalog.json, detail.json and README read against the
// signed targets. The maintainer side is package registry/sign.
//
// Rules it keeps:
//
//   - Trust is kept per index in a store folder: the pinned root.json (the
//     newest root trusted so far) and the last timestamp.json and
//     snapshot.json seen. An index with no pinned root is trusted on first
//     use: its current tuf/root.json is pinned and Index.FirstUse says so
//     (the caller prints a notice); Pin pins a root given by the user.
//   - The root chain is followed from the pinned version: N+1.root.json
//     must be signed by the keys of N and of N+1. Then timestamp, snapshot
//     and targets are each checked for signatures by the root's keys,
//     expiry, length and hash against the role above, and versions never
//     older than the ones seen before.
//   - Every refusal is an *Error naming the file and the Attack: a changed
//     file (ErrTampered), an older version than one seen (ErrRollback), an
//     expired timestamp, snapshot, targets or root (ErrFreeze), a
//     signature by a key the root does not trust (ErrWrongKey), missing
//     metadata for an index whose root is pinned (ErrStripped), an
//     unsigned index when signatures are required (ErrUnsigned).
//   - Expired metadata is accepted only with AllowExpired (an offline
//     mirror older than the timestamp expiry); Index.Expired then says so.
//   - The trust store is written only after the whole workflow passed.
//   - Every byte fetched is untrusted: documents are size-capped by the
//     fetcher and parsed by go-tuf; nothing panics on hostile input.
package verify

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/theupdateframework/go-tuf/v2/metadata"
	"github.com/theupdateframework/go-tuf/v2/metadata/trustedmetadata"

	"github.com/spiritagents/spirit/internal/atomicfile"
)

// MetaDir is the index folder that holds the metadata (registry/sign.MetaDir).
const MetaDir = "tuf"

// Size caps of the metadata documents.
const (
	MaxRoot      = 512 << 10
	MaxTimestamp = 16 << 10
	MaxSnapshot  = 2 << 20
	MaxTargets   = 16 << 20
	// MaxRootRotations bounds how many root versions one update follows.
	MaxRootRotations = 256
)

// Attacks a refusal names. Each is matched with errors.Is on an *Error.
var (
	ErrTampered = errors.New("the file does not match the signed metadata (tampered or corrupted)")
	ErrRollback = errors.New("older than a version already seen (rollback attack)")
	ErrFreeze   = errors.New("the signed metadata has expired (freeze attack, or a stale copy)")
	ErrWrongKey = errors.New("not signed by the keys the pinned root trusts (wrong key)")
	ErrStripped = errors.New("the index was signed before and its metadata is now missing (signature stripped)")
	ErrUnsigned = errors.New("the index is not signed and signatures are required")
)

// Error is a refusal: File (relative to the index) and the attack.
type Error struct {
	Index string
	File  string
	// Attack is one of the Err* sentinels.
	Attack error
	// Err is the underlying reason (go-tuf's error), may be nil.
	Err error
}

func (e *Error) Error() string {
	msg := fmt.Sprintf("signed index %s: %s: %v", e.Index, e.File, e.Attack)
	if e.Err != nil {
		msg += ": " + e.Err.Error()
	}
	return msg
}

// Is matches the attack sentinel.
func (e *Error) Is(target error) bool { return target == e.Attack }

// Unwrap returns the underlying reason.
func (e *Error) Unwrap() error { return e.Err }

// Fetcher reads a file of the index by its path relative to the index
// base (slashes), capped at limit bytes. A missing file is an error that
// matches fs.ErrNotExist.
type Fetcher func(ctx context.Context, name string, limit int64) ([]byte, error)

// Options configure Open.
type Options struct {
	// Index names the index in messages.
	Index string
	// StoreDir keeps this index's trust (pinned root, versions seen); ""
	// keeps nothing: the index's own root is trusted each time.
	StoreDir string
	// Now is the clock; nil → time.Now.
	Now func() time.Time
	// RequireSigned refuses an unsigned index.
	RequireSigned bool
	// AllowExpired accepts expired metadata (Index.Expired is then set).
	AllowExpired bool
}

// Index is a verified signed index.
type Index struct {
	Signed           bool      `json:"signed"`
	RootVersion      int64     `json:"rootVersion"`
	RootKeyIDs       []string  `json:"rootKeyIds"`
	TimestampVersion int64     `json:"timestampVersion"`
	SnapshotVersion  int64     `json:"snapshotVersion"`
	TargetsVersion   int64     `json:"targetsVersion"`
	Expires          time.Time `json:"expires"`
	// FirstUse: the root was pinned by this call (trust on first use).
	FirstUse bool `json:"firstUse,omitempty"`
	// Expired: the metadata had expired and AllowExpired accepted it.
	Expired bool `json:"expired,omitempty"`
	// Metadata holds the verified metadata documents by name (root.json,
	// timestamp.json, snapshot.json, targets.json), for a mirror to copy.
	Metadata map[string][]byte `json:"-"`

	name    string
	targets map[string]*metadata.TargetFiles
}

// RootKeyID is the first root key id, shortened for display.
func (ix *Index) RootKeyID() string {
	if ix == nil || len(ix.RootKeyIDs) == 0 {
		return ""
	}
	return Short(ix.RootKeyIDs[0])
}

// Short shortens a key id for display.
func Short(id string) string {
	if len(id) > 16 {
		return id[:16]
	}
	return id
}

// Targets returns the signed target names, sorted.
func (ix *Index) Targets() []string {
	names := make([]string, 0, len(ix.targets))
	for n := range ix.targets {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Check verifies data as the index's file name (relative, slashes).
func (ix *Index) Check(name string, data []byte) error {
	tf := ix.targets[name]
	if tf == nil {
		return &Error{Index: ix.name, File: name, Attack: ErrTampered, Err: errors.New("the file is not listed in targets.json")}
	}
	if err := tf.VerifyLengthHashes(data); err != nil {
		return &Error{Index: ix.name, File: name, Attack: ErrTampered, Err: err}
	}
	return nil
}

// Listed reports whether name is a signed target.
func (ix *Index) Listed(name string) bool { return ix.targets[name] != nil }

func (o *Options) now() time.Time {
	if o.Now != nil {
		return o.Now().UTC()
	}
	return time.Now().UTC()
}

func (o *Options) store(name string) string { return filepath.Join(o.StoreDir, name) }

func (o *Options) readStore(name string) []byte {
	if o.StoreDir == "" {
		return nil
	}
	data, err := os.ReadFile(o.store(name))
	if err != nil {
		return nil
	}
	return data
}

// Pinned returns the pinned root.json of the store, nil when none.
func Pinned(storeDir string) []byte {
	return (&Options{StoreDir: storeDir}).readStore("root.json")
}

// classify turns a go-tuf error about file into an *Error.
func classify(index, file string, err error) error {
	var attack error
	var exp *metadata.ErrExpiredMetadata
	switch {
	case errors.As(err, &exp):
		attack = ErrFreeze
		// the expired document, which may be one checked before file.
		for _, name := range []string{"root.json", "timestamp.json", "snapshot.json", "targets.json"} {
			if strings.Contains(exp.Msg, name) {
				file = MetaDir + "/" + name
				break
			}
		}
	case errors.As(err, new(*metadata.ErrBadVersionNumber)):
		attack = ErrRollback
	case errors.As(err, new(*metadata.ErrUnsignedMetadata)):
		attack = ErrWrongKey
	default:
		attack = ErrTampered
	}
	return &Error{Index: index, File: file, Attack: attack, Err: err}
}

// ParseRoot parses and checks a root.json: it must be a root signed by
// its own root keys (the check every pinned root passes).
func ParseRoot(data []byte) (*metadata.Metadata[metadata.RootType], error) {
	root, err := metadata.Root().FromBytes(data)
	if err != nil {
		return nil, err
	}
	if root.Signed.Type != metadata.ROOT {
		return nil, fmt.Errorf("not a root document (type %q)", root.Signed.Type)
	}
	for _, role := range metadata.TOP_LEVEL_ROLE_NAMES {
		if root.Signed.Roles[role] == nil {
			return nil, fmt.Errorf("root names no %s role", role)
		}
	}
	if err := root.VerifyDelegate(metadata.ROOT, root); err != nil {
		return nil, err
	}
	return root, nil
}

// Pin makes rootJSON the trusted root of the store, replacing any other:
// the versions seen are forgotten with it.
func Pin(storeDir string, rootJSON []byte) (*metadata.Metadata[metadata.RootType], error) {
	root, err := ParseRoot(rootJSON)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(storeDir, 0o700); err != nil {
		return nil, err
	}
	for _, name := range []string{"timestamp.json", "snapshot.json"} {
		if err := os.Remove(filepath.Join(storeDir, name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
	}
	if err := atomicfile.WriteDurable(filepath.Join(storeDir, "root.json"), rootJSON, 0o600); err != nil {
		return nil, err
	}
	return root, nil
}

// Open verifies the signed index that fetch reads. It returns nil and no
// error for an unsigned index with nothing pinned (unless RequireSigned).
func Open(ctx context.Context, fetch Fetcher, opts Options) (*Index, error) {
	ix, err := open(ctx, fetch, opts, time.Time{})
	var e *Error
	if err != nil && opts.AllowExpired && errors.As(err, &e) && e.Attack == ErrFreeze {
		// judge the metadata at the moment the timestamp expired.
		var at time.Time
		if ts, terr := fetch(ctx, MetaDir+"/timestamp.json", MaxTimestamp); terr == nil {
			if m, perr := metadata.Timestamp().FromBytes(ts); perr == nil {
				at = m.Signed.Expires.Add(-time.Second)
			}
		}
		if !at.IsZero() {
			if ix, err = open(ctx, fetch, opts, at); err == nil {
				ix.Expired = true
			}
		}
	}
	return ix, err
}

func open(ctx context.Context, fetch Fetcher, opts Options, refTime time.Time) (*Index, error) {
	name := opts.Index
	fail := func(file string, err error) error { return classify(name, MetaDir+"/"+file, err) }
	get := func(file string, limit int64) ([]byte, bool, error) {
		data, err := fetch(ctx, MetaDir+"/"+file, limit)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, false, nil
		}
		if err != nil {
			return nil, false, err
		}
		return data, true, nil
	}

	pinned := opts.readStore("root.json")
	ix := &Index{Signed: true, name: name, Metadata: map[string][]byte{}}
	if pinned == nil {
		data, ok, err := get("root.json", MaxRoot)
		if err != nil {
			return nil, err
		}
		if !ok {
			if opts.RequireSigned {
				return nil, &Error{Index: name, File: MetaDir + "/root.json", Attack: ErrUnsigned}
			}
			return nil, nil
		}
		if _, err := ParseRoot(data); err != nil {
			return nil, fail("root.json", err)
		}
		pinned, ix.FirstUse = data, true
	}
	trusted, err := trustedmetadata.New(pinned)
	if err != nil {
		return nil, fail("root.json", err)
	}
	if refTime.IsZero() {
		refTime = opts.now()
	}
	trusted.RefTime = refTime

	// the root chain.
	rootBytes := pinned
	for i := 0; i < MaxRootRotations; i++ {
		file := strconv.FormatInt(trusted.Root.Signed.Version+1, 10) + ".root.json"
		data, ok, err := get(file, MaxRoot)
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		if _, err := trusted.UpdateRoot(data); err != nil {
			return nil, fail(file, err)
		}
		rootBytes = data
	}

	// what this index showed before: its timestamp and snapshot.
	if local := opts.readStore("timestamp.json"); local != nil {
		if _, err := trusted.UpdateTimestamp(local); err != nil && !errors.As(err, new(*metadata.ErrExpiredMetadata)) {
			// a timestamp key rotation makes the old one unverifiable: start over.
			trusted.Timestamp = nil
		}
	}
	tsBytes, ok, err := get("timestamp.json", MaxTimestamp)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, &Error{Index: name, File: MetaDir + "/timestamp.json", Attack: ErrStripped}
	}
	if _, err := trusted.UpdateTimestamp(tsBytes); err != nil {
		if !errors.As(err, new(*metadata.ErrEqualVersionNumber)) {
			return nil, fail("timestamp.json", err)
		}
		// the same version as before: keep the one stored.
	}
	if local := opts.readStore("snapshot.json"); local != nil && trusted.Timestamp != nil {
		if _, err := trusted.UpdateSnapshot(local, true); err != nil {
			var exp *metadata.ErrExpiredMetadata
			var ver *metadata.ErrBadVersionNumber
			if !errors.As(err, &exp) && !errors.As(err, &ver) {
				trusted.Snapshot = nil
			}
		}
	}
	snapBytes, ok, err := get("snapshot.json", MaxSnapshot)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, &Error{Index: name, File: MetaDir + "/snapshot.json", Attack: ErrStripped}
	}
	if _, err := trusted.UpdateSnapshot(snapBytes, false); err != nil {
		return nil, fail("snapshot.json", err)
	}
	targetsBytes, ok, err := get("targets.json", MaxTargets)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, &Error{Index: name, File: MetaDir + "/targets.json", Attack: ErrStripped}
	}
	targets, err := trusted.UpdateTargets(targetsBytes)
	if err != nil {
		return nil, fail("targets.json", err)
	}

	ix.RootVersion = trusted.Root.Signed.Version
	ix.RootKeyIDs = slices.Clone(trusted.Root.Signed.Roles[metadata.ROOT].KeyIDs)
	ix.TimestampVersion = trusted.Timestamp.Signed.Version
	ix.SnapshotVersion = trusted.Snapshot.Signed.Version
	ix.TargetsVersion = targets.Signed.Version
	ix.Expires = trusted.Timestamp.Signed.Expires
	ix.targets = targets.Signed.Targets
	ix.Metadata["root.json"] = rootBytes
	ix.Metadata["timestamp.json"] = tsBytes
	ix.Metadata["snapshot.json"] = snapBytes
	ix.Metadata["targets.json"] = targetsBytes

	if opts.StoreDir != "" {
		if err := os.MkdirAll(opts.StoreDir, 0o700); err != nil {
			return nil, err
		}
		for file, data := range map[string][]byte{"root.json": rootBytes, "timestamp.json": tsBytes, "snapshot.json": snapBytes} {
			if err := atomicfile.Write(opts.store(file), data, 0o600); err != nil {
				return nil, fmt.Errorf("saving the trust of %s: %w", name, err)
			}
		}
	}
	return ix, nil
}
