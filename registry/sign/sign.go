// Package sign is the maintainer side of a signed marketplace index: it
// makes the keys of the four TUF roles, writes The Update Framework
// metadata beside an index (catalog.json, every detail.json and README),
// refreshes it on a schedule, and rotates keys. The client side is package
// catalog/verify.
//
// Rules it keeps:
//
//   - The metadata lives in the tuf/ folder of the index (next to
//     catalog.json): root.json (the newest root), N.root.json for every
//     root version (the chain clients follow), targets.json, snapshot.json
//     and timestamp.json. Nothing else of the index is touched, so the
//     catalog and details stay byte for byte what the unsigned build writes.
//   - targets.json lists catalog.json and every extensions/**/detail.json
//     and extensions/**/README.md with length and sha256, by their path
//     relative to the index (slashes). Symbolic links are not signed.
//   - Keys are ed25519, one per role, threshold 1. A private key is a
//     PKCS #8 PEM file KEYDIR/<role>.key written 0600; KEYDIR/<role>.pub is
//     its public half. Only the keys a run needs are read: signing an index
//     whose content did not change needs only the snapshot and timestamp
//     keys, so the root key (and the targets key) can stay offline.
//   - Every signing writes a new snapshot and timestamp with a higher
//     version; targets get a new version only when the signed files
//     changed or the targets key was rotated. Files are written through a
//     temporary file and a rename: targets, then snapshot, then timestamp.
//   - A key rotation writes root version N+1 signed by the old and the new
//     root keys, as N+1.root.json; the old private key is kept as
//     <role>.key.retired-<keyid>. Clients that pinned version N follow the
//     chain.
package sign

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/theupdateframework/go-tuf/v2/metadata"

	"github.com/spiritagents/spirit/internal/atomicfile"
)

// MetaDir is the folder of the index that holds the TUF metadata.
const MetaDir = "tuf"

// Default expiries.
const (
	DefaultTimestampExpiry = 7 * 24 * time.Hour
	DefaultSnapshotExpiry  = 30 * 24 * time.Hour
	DefaultTargetsExpiry   = 365 * 24 * time.Hour
	DefaultRootExpiry      = 365 * 24 * time.Hour
)

// Errors of signing.
var (
	// ErrKeyNotInRoot: a key of KEYDIR is not the one root.json trusts.
	ErrKeyNotInRoot = errors.New("the key is not the one root.json names for the role")
	// ErrNoIndex: the folder has no catalog.json.
	ErrNoIndex = errors.New("no catalog.json in the index folder")
	// ErrNoRoot: keys rotate needs a signed index.
	ErrNoRoot = errors.New("the index is not signed yet (no tuf/root.json)")
)

// Options configure Sign.
type Options struct {
	// IndexDir holds catalog.json (in a registry repository: registry/).
	IndexDir string
	// KeyDir holds the role keys (see InitKeys).
	KeyDir string
	// TimestampExpiry: 0 → DefaultTimestampExpiry.
	TimestampExpiry time.Duration
	// Now is the clock; nil → time.Now.
	Now func() time.Time
}

// Result says what Sign wrote.
type Result struct {
	RootVersion      int64     `json:"rootVersion"`
	RootKeyIDs       []string  `json:"rootKeyIds"`
	TargetsVersion   int64     `json:"targetsVersion"`
	SnapshotVersion  int64     `json:"snapshotVersion"`
	TimestampVersion int64     `json:"timestampVersion"`
	TimestampExpires time.Time `json:"timestampExpires"`
	Targets          int       `json:"targets"`
	// Written are the metadata files written, relative to the index.
	Written []string `json:"written"`
}

func (o *Options) now() time.Time {
	if o.Now != nil {
		return o.Now().UTC()
	}
	return time.Now().UTC()
}

func metaFile(indexDir, name string) string { return filepath.Join(indexDir, MetaDir, name) }

// TargetFiles returns the files of the index that targets.json covers:
// catalog.json, and every detail.json and README.md under extensions/.
func TargetFiles(indexDir string) (map[string]*metadata.TargetFiles, error) {
	out := map[string]*metadata.TargetFiles{}
	add := func(name string) error {
		data, err := os.ReadFile(filepath.Join(indexDir, filepath.FromSlash(name)))
		if err != nil {
			return err
		}
		tf, err := metadata.TargetFile().FromBytes(name, data, "sha256")
		if err != nil {
			return err
		}
		out[name] = tf
		return nil
	}
	if err := add("catalog.json"); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s", ErrNoIndex, indexDir)
		}
		return nil, err
	}
	ext := filepath.Join(indexDir, "extensions")
	err := filepath.WalkDir(ext, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) && p == ext {
				return nil
			}
			return err
		}
		if !d.Type().IsRegular() || (d.Name() != "detail.json" && d.Name() != "README.md") {
			return nil
		}
		rel, err := filepath.Rel(indexDir, p)
		if err != nil {
			return err
		}
		return add(filepath.ToSlash(rel))
	})
	return out, err
}

// readMeta reads tuf/<name> into a metadata value; ok is false when the
// file does not exist.
func readMeta[T metadata.Roles](m *metadata.Metadata[T], file string) (*metadata.Metadata[T], bool, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	out, err := m.FromBytes(data)
	if err != nil {
		return nil, false, fmt.Errorf("%s: %w", file, err)
	}
	return out, true, nil
}

func writeMeta[T metadata.Roles](m *metadata.Metadata[T], file string) error {
	data, err := m.ToBytes(true)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return atomicfile.Write(file, append(data, '\n'), 0o644)
}

// checkKey says whether k is a key root trusts for its role.
func checkKey(root *metadata.Metadata[metadata.RootType], k *Key) error {
	r := root.Signed.Roles[k.Role]
	if r == nil || !slices.Contains(r.KeyIDs, k.ID) {
		return fmt.Errorf("%w: %s key %s", ErrKeyNotInRoot, k.Role, short(k.ID))
	}
	return nil
}

func short(id string) string {
	if len(id) > 16 {
		return id[:16]
	}
	return id
}

// loadPublic returns the public key of role from dir: the private key's
// when there is one, else the .pub file.
func loadPublic(dir, role string) (*metadata.Key, error) {
	if k, err := LoadKey(dir, role); err == nil {
		return k.TUF, nil
	} else if !errors.Is(err, ErrNoKey) {
		return nil, err
	}
	pub, err := readPub(PubFile(dir, role))
	if err != nil {
		return nil, err
	}
	return metadata.KeyFromPublicKey(pub)
}

// newRoot makes root version 1 from the keys in dir, signed by the root key.
func newRoot(o *Options) (*metadata.Metadata[metadata.RootType], error) {
	rootKey, err := LoadKey(o.KeyDir, metadata.ROOT)
	if err != nil {
		return nil, fmt.Errorf("making root.json: %w", err)
	}
	root := metadata.Root(o.now().Add(DefaultRootExpiry))
	root.Signed.ConsistentSnapshot = false
	for _, role := range Roles {
		k, err := loadPublic(o.KeyDir, role)
		if err != nil {
			return nil, fmt.Errorf("making root.json: %w", err)
		}
		if err := root.Signed.AddKey(k, role); err != nil {
			return nil, err
		}
	}
	if err := signWith(root, rootKey); err != nil {
		return nil, err
	}
	return root, nil
}

func signWith[T metadata.Roles](m *metadata.Metadata[T], keys ...*Key) error {
	for _, k := range keys {
		s, err := k.signer()
		if err != nil {
			return err
		}
		if _, err := m.Sign(s); err != nil {
			return err
		}
	}
	return nil
}

// Sign writes (or refreshes) the TUF metadata of the index in
// opts.IndexDir. root.json is made from KEYDIR when the index has none.
func Sign(opts Options) (*Result, error) {
	if opts.TimestampExpiry <= 0 {
		opts.TimestampExpiry = DefaultTimestampExpiry
	}
	now := opts.now()
	res := &Result{Written: []string{}}
	files, err := TargetFiles(opts.IndexDir)
	if err != nil {
		return nil, err
	}
	res.Targets = len(files)

	rootFile := metaFile(opts.IndexDir, "root.json")
	root, ok, err := readMeta(metadata.Root(), rootFile)
	if err != nil {
		return nil, err
	}
	if !ok {
		if root, err = newRoot(&opts); err != nil {
			return nil, err
		}
		for _, name := range []string{"1.root.json", "root.json"} {
			if err := writeMeta(root, metaFile(opts.IndexDir, name)); err != nil {
				return nil, err
			}
			res.Written = append(res.Written, MetaDir+"/"+name)
		}
	}
	res.RootVersion = root.Signed.Version
	res.RootKeyIDs = slices.Clone(root.Signed.Roles[metadata.ROOT].KeyIDs)

	// targets: kept when the files and the key did not change.
	targets, ok, err := readMeta(metadata.Targets(), metaFile(opts.IndexDir, "targets.json"))
	if err != nil {
		return nil, err
	}
	if !ok || !sameTargets(targets.Signed.Targets, files) || root.VerifyDelegate(metadata.TARGETS, targets) != nil ||
		targets.Signed.Expires.Before(now.Add(opts.TimestampExpiry)) {
		k, err := roleKey(&opts, root, metadata.TARGETS)
		if err != nil {
			return nil, err
		}
		version := int64(1)
		if ok {
			version = targets.Signed.Version + 1
		}
		targets = metadata.Targets(now.Add(DefaultTargetsExpiry))
		targets.Signed.Version = version
		targets.Signed.Targets = files
		if err := signWith(targets, k); err != nil {
			return nil, err
		}
		if err := writeMeta(targets, metaFile(opts.IndexDir, "targets.json")); err != nil {
			return nil, err
		}
		res.Written = append(res.Written, MetaDir+"/targets.json")
	}
	res.TargetsVersion = targets.Signed.Version

	// snapshot and timestamp: always a new version.
	snapKey, err := roleKey(&opts, root, metadata.SNAPSHOT)
	if err != nil {
		return nil, err
	}
	tsKey, err := roleKey(&opts, root, metadata.TIMESTAMP)
	if err != nil {
		return nil, err
	}
	snapshot := metadata.Snapshot(now.Add(max(DefaultSnapshotExpiry, opts.TimestampExpiry)))
	snapshot.Signed.Version = nextVersion(metadata.Snapshot(), metaFile(opts.IndexDir, "snapshot.json"))
	snapshot.Signed.Meta["targets.json"] = metadata.MetaFile(targets.Signed.Version)
	if err := signWith(snapshot, snapKey); err != nil {
		return nil, err
	}
	snapBytes, err := snapshot.ToBytes(true)
	if err != nil {
		return nil, err
	}
	snapBytes = append(snapBytes, '\n')

	timestamp := metadata.Timestamp(now.Add(opts.TimestampExpiry))
	timestamp.Signed.Version = nextVersion(metadata.Timestamp(), metaFile(opts.IndexDir, "timestamp.json"))
	mf, err := metadata.TargetFile().FromBytes("snapshot.json", snapBytes, "sha256")
	if err != nil {
		return nil, err
	}
	timestamp.Signed.Meta["snapshot.json"] = &metadata.MetaFiles{Version: snapshot.Signed.Version, Length: mf.Length, Hashes: mf.Hashes}
	if err := signWith(timestamp, tsKey); err != nil {
		return nil, err
	}
	if err := atomicfile.Write(metaFile(opts.IndexDir, "snapshot.json"), snapBytes, 0o644); err != nil {
		return nil, err
	}
	if err := writeMeta(timestamp, metaFile(opts.IndexDir, "timestamp.json")); err != nil {
		return nil, err
	}
	res.Written = append(res.Written, MetaDir+"/snapshot.json", MetaDir+"/timestamp.json")
	res.SnapshotVersion, res.TimestampVersion = snapshot.Signed.Version, timestamp.Signed.Version
	res.TimestampExpires = timestamp.Signed.Expires
	return res, nil
}

// nextVersion is one more than the version in file (1 when there is none
// or it cannot be read).
func nextVersion[T metadata.Roles](m *metadata.Metadata[T], file string) int64 {
	old, ok, err := readMeta(m, file)
	if err != nil || !ok {
		return 1
	}
	var v int64
	switch s := any(&old.Signed).(type) {
	case *metadata.SnapshotType:
		v = s.Version
	case *metadata.TimestampType:
		v = s.Version
	}
	return v + 1
}

// roleKey loads the key of role from KEYDIR and checks root trusts it.
func roleKey(o *Options, root *metadata.Metadata[metadata.RootType], role string) (*Key, error) {
	k, err := LoadKey(o.KeyDir, role)
	if err != nil {
		return nil, err
	}
	if err := checkKey(root, k); err != nil {
		return nil, err
	}
	return k, nil
}

func sameTargets(a, b map[string]*metadata.TargetFiles) bool {
	if len(a) != len(b) {
		return false
	}
	for name, x := range a {
		y := b[name]
		if y == nil || x.Length != y.Length || !x.Hashes.Equal(y.Hashes) {
			return false
		}
	}
	return true
}

// RotateResult says what RotateKey did.
type RotateResult struct {
	Role        string   `json:"role"`
	OldKeyID    string   `json:"oldKeyId"`
	NewKeyID    string   `json:"newKeyId"`
	RootVersion int64    `json:"rootVersion"`
	RootKeyIDs  []string `json:"rootKeyIds"`
	Written     []string `json:"written"`
	// Signed is the result of re-signing the index with the new key, nil
	// when KEYDIR lacks the keys for it (sign later with registry sign).
	Signed *Result `json:"signed,omitempty"`
}

// RotateKey replaces the key of role: a new key in KEYDIR (the old one
// kept as <role>.key.retired-<keyid>), and root version N+1 that names it,
// signed by the old root key and (for the root role) the new one. Then the
// index is signed again when KEYDIR holds the other keys.
func RotateKey(opts Options, role string) (*RotateResult, error) {
	if !slices.Contains(Roles, role) {
		return nil, fmt.Errorf("unknown role %q (one of %s)", role, strings.Join(Roles, ", "))
	}
	root, ok, err := readMeta(metadata.Root(), metaFile(opts.IndexDir, "root.json"))
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, fmt.Errorf("%w: %s", ErrNoRoot, opts.IndexDir)
	}
	oldRootKey, err := roleKey(&opts, root, metadata.ROOT)
	if err != nil {
		return nil, err
	}
	oldKey, err := LoadKey(opts.KeyDir, role)
	if err != nil {
		return nil, err
	}
	newKey, err := generate(role)
	if err != nil {
		return nil, err
	}
	next := *root
	next.Signatures = nil
	next.Signed.Version = root.Signed.Version + 1
	next.Signed.Expires = opts.now().Add(DefaultRootExpiry)
	// a fresh copy of keys and roles: the old root stays as it was.
	next.Signed.Keys = map[string]*metadata.Key{}
	next.Signed.Roles = map[string]*metadata.Role{}
	for id, k := range root.Signed.Keys {
		next.Signed.Keys[id] = k
	}
	for name, r := range root.Signed.Roles {
		next.Signed.Roles[name] = &metadata.Role{KeyIDs: slices.Clone(r.KeyIDs), Threshold: r.Threshold}
	}
	for _, id := range slices.Clone(next.Signed.Roles[role].KeyIDs) {
		if err := next.Signed.RevokeKey(id, role); err != nil {
			return nil, err
		}
	}
	if err := next.Signed.AddKey(newKey.TUF, role); err != nil {
		return nil, err
	}
	signers := []*Key{oldRootKey}
	if role == metadata.ROOT {
		signers = append(signers, newKey)
	}
	if err := signWith(&next, signers...); err != nil {
		return nil, err
	}
	// the new key is in place before the new root names it.
	retired := KeyFile(opts.KeyDir, role) + ".retired-" + short(oldKey.ID)
	if err := os.Rename(KeyFile(opts.KeyDir, role), retired); err != nil {
		return nil, err
	}
	_ = os.Rename(PubFile(opts.KeyDir, role), PubFile(opts.KeyDir, role)+".retired-"+short(oldKey.ID))
	if err := newKey.write(opts.KeyDir); err != nil {
		return nil, err
	}
	res := &RotateResult{Role: role, OldKeyID: oldKey.ID, NewKeyID: newKey.ID, RootVersion: next.Signed.Version,
		RootKeyIDs: slices.Clone(next.Signed.Roles[metadata.ROOT].KeyIDs)}
	versioned := fmt.Sprintf("%d.root.json", next.Signed.Version)
	for _, name := range []string{versioned, "root.json"} {
		if err := writeMeta(&next, metaFile(opts.IndexDir, name)); err != nil {
			return nil, err
		}
		res.Written = append(res.Written, path.Join(MetaDir, name))
	}
	signed, err := Sign(opts)
	if err == nil {
		res.Signed = signed
	} else if !errors.Is(err, ErrNoKey) {
		return res, fmt.Errorf("root version %d written; signing the index again failed: %w", next.Signed.Version, err)
	}
	return res, nil
}
