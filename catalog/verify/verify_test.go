package verify_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spiritagents/spirit/catalog/verify"
	"github.com/spiritagents/spirit/registry/sign"
)

// signedIndex writes a small index, makes keys and signs it.
func signedIndex(t *testing.T, now time.Time) (index, keys string) {
	t.Helper()
	index, keys = t.TempDir(), filepath.Join(t.TempDir(), "keys")
	write(t, filepath.Join(index, "catalog.json"), `{"schemaVersion":1,"items":[]}`)
	write(t, filepath.Join(index, "extensions", "a.b", "detail.json"), `{"extensionId":"a.b"}`)
	write(t, filepath.Join(index, "extensions", "a.b", "README.md"), "# a.b\n")
	if _, err := sign.InitKeys(keys); err != nil {
		t.Fatal(err)
	}
	signAt(t, index, keys, now)
	return index, keys
}

func signAt(t *testing.T, index, keys string, now time.Time) *sign.Result {
	t.Helper()
	res, err := sign.Sign(sign.Options{IndexDir: index, KeyDir: keys, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func write(t *testing.T, file, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func dirFetcher(dir string) verify.Fetcher {
	return func(_ context.Context, name string, limit int64) ([]byte, error) {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			return nil, err
		}
		if int64(len(data)) > limit {
			return nil, errors.New("too large")
		}
		return data, nil
	}
}

func open(t *testing.T, index, store string, now time.Time) (*verify.Index, error) {
	t.Helper()
	return verify.Open(context.Background(), dirFetcher(index), verify.Options{Index: "test", StoreDir: store, Now: func() time.Time { return now }})
}

var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

func TestOpenVerifiesAndPinsOnFirstUse(t *testing.T) {
	index, _ := signedIndex(t, t0)
	store := t.TempDir()
	ix, err := open(t, index, store, t0.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if !ix.FirstUse || ix.RootVersion != 1 || len(ix.RootKeyIDs) != 1 {
		t.Fatalf("index %+v", ix)
	}
	if got := strings.Join(ix.Targets(), " "); got != "catalog.json extensions/a.b/README.md extensions/a.b/detail.json" {
		t.Fatalf("targets %s", got)
	}
	data, _ := os.ReadFile(filepath.Join(index, "extensions", "a.b", "detail.json"))
	if err := ix.Check("extensions/a.b/detail.json", data); err != nil {
		t.Fatal(err)
	}
	if err := ix.Check("extensions/a.b/detail.json", append(data, ' ')); !errors.Is(err, verify.ErrTampered) {
		t.Fatalf("changed detail: %v", err)
	}
	if err := ix.Check("extensions/x/detail.json", data); !errors.Is(err, verify.ErrTampered) {
		t.Fatalf("unlisted file: %v", err)
	}
	ix, err = open(t, index, store, t0.Add(time.Hour))
	if err != nil || ix.FirstUse {
		t.Fatalf("second open: %v %+v", err, ix)
	}
}

func TestOpenUnsigned(t *testing.T) {
	index := t.TempDir()
	ix, err := open(t, index, t.TempDir(), t0)
	if ix != nil || err != nil {
		t.Fatalf("unsigned: %v %v", ix, err)
	}
	_, err = verify.Open(context.Background(), dirFetcher(index), verify.Options{RequireSigned: true})
	if !errors.Is(err, verify.ErrUnsigned) {
		t.Fatalf("required: %v", err)
	}
}

func TestAttacks(t *testing.T) {
	tests := []struct {
		name   string
		attack func(t *testing.T, index, keys, store string) time.Time
		want   error
		file   string
	}{
		{"freeze", func(t *testing.T, index, keys, store string) time.Time {
			return t0.Add(8 * 24 * time.Hour)
		}, verify.ErrFreeze, "tuf/timestamp.json"},
		{"rollback", func(t *testing.T, index, keys, store string) time.Time {
			old := snapshotFiles(t, index)
			signAt(t, index, keys, t0.Add(time.Hour))
			if _, err := open(t, index, store, t0.Add(2*time.Hour)); err != nil {
				t.Fatal(err)
			}
			restore(t, index, old)
			return t0.Add(2 * time.Hour)
		}, verify.ErrRollback, "tuf/timestamp.json"},
		{"wrong key", func(t *testing.T, index, keys, store string) time.Time {
			other := filepath.Join(t.TempDir(), "k")
			if _, err := sign.InitKeys(other); err != nil {
				t.Fatal(err)
			}
			// registry/sign refuses a key root does not name; forge with the
			// forged root in place, then put the real root back.
			realRoot, _ := os.ReadFile(filepath.Join(index, "tuf", "root.json"))
			os.RemoveAll(filepath.Join(index, "tuf", "root.json"))
			forged := t.TempDir()
			copyFile(t, sign.KeyFile(keys, "root"), sign.KeyFile(forged, "root"))
			for _, role := range []string{"targets", "snapshot"} {
				copyFile(t, sign.KeyFile(keys, role), sign.KeyFile(forged, role))
			}
			copyFile(t, sign.KeyFile(other, "timestamp"), sign.KeyFile(forged, "timestamp"))
			signAt(t, index, forged, t0.Add(time.Hour))
			write(t, filepath.Join(index, "tuf", "root.json"), string(realRoot))
			return t0.Add(2 * time.Hour)
		}, verify.ErrWrongKey, "tuf/timestamp.json"},
		{"tampered snapshot", func(t *testing.T, index, keys, store string) time.Time {
			f := filepath.Join(index, "tuf", "snapshot.json")
			data, _ := os.ReadFile(f)
			write(t, f, strings.Replace(string(data), `"version"`, ` "version"`, 1))
			return t0.Add(time.Hour)
		}, verify.ErrTampered, "tuf/snapshot.json"},
		{"stripped", func(t *testing.T, index, keys, store string) time.Time {
			if _, err := open(t, index, store, t0.Add(time.Hour)); err != nil {
				t.Fatal(err)
			}
			os.RemoveAll(filepath.Join(index, "tuf", "timestamp.json"))
			os.RemoveAll(filepath.Join(index, "tuf", "root.json"))
			return t0.Add(time.Hour)
		}, verify.ErrStripped, "tuf/timestamp.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			index, keys := signedIndex(t, t0)
			store := t.TempDir()
			at := tt.attack(t, index, keys, store)
			_, err := open(t, index, store, at)
			var ve *verify.Error
			if !errors.Is(err, tt.want) || !errors.As(err, &ve) || ve.File != tt.file {
				t.Fatalf("got %v, want %v on %s", err, tt.want, tt.file)
			}
		})
	}
}

func TestAllowExpired(t *testing.T) {
	index, _ := signedIndex(t, t0)
	late := t0.Add(30 * 24 * time.Hour)
	ix, err := verify.Open(context.Background(), dirFetcher(index), verify.Options{Index: "x", StoreDir: t.TempDir(), AllowExpired: true,
		Now: func() time.Time { return late }})
	if err != nil || !ix.Expired {
		t.Fatalf("%v %+v", err, ix)
	}
}

func TestRotationFollowsTheRootChain(t *testing.T) {
	for _, role := range sign.Roles {
		t.Run(role, func(t *testing.T) {
			index, keys := signedIndex(t, t0)
			store := t.TempDir()
			first, err := open(t, index, store, t0.Add(time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			res, err := sign.RotateKey(sign.Options{IndexDir: index, KeyDir: keys, Now: func() time.Time { return t0.Add(2 * time.Hour) }}, role)
			if err != nil {
				t.Fatal(err)
			}
			if res.RootVersion != 2 || res.Signed == nil {
				t.Fatalf("rotate: %+v", res)
			}
			ix, err := open(t, index, store, t0.Add(3*time.Hour))
			if err != nil {
				t.Fatal(err)
			}
			if ix.RootVersion != 2 {
				t.Fatalf("root version %d", ix.RootVersion)
			}
			if (role == "root") == (ix.RootKeyIDs[0] == first.RootKeyIDs[0]) {
				t.Fatalf("root key ids %v → %v", first.RootKeyIDs, ix.RootKeyIDs)
			}
			if _, err := os.Stat(sign.KeyFile(keys, role) + ".retired-" + verify.Short(res.OldKeyID)); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func TestPinRefusesAnUnsignedRoot(t *testing.T) {
	index, _ := signedIndex(t, t0)
	data, _ := os.ReadFile(filepath.Join(index, "tuf", "root.json"))
	store := filepath.Join(t.TempDir(), "s")
	if _, err := verify.Pin(store, data); err != nil {
		t.Fatal(err)
	}
	bad := strings.Replace(string(data), `"version": 1`, `"version": 7`, 1)
	if _, err := verify.Pin(store, []byte(bad)); err == nil {
		t.Fatal("a root whose signature does not match was pinned")
	}
	// a pinned root from another key set refuses the index.
	other, _ := signedIndex(t, t0)
	otherRoot, _ := os.ReadFile(filepath.Join(other, "tuf", "root.json"))
	if _, err := verify.Pin(store, otherRoot); err != nil {
		t.Fatal(err)
	}
	if _, err := open(t, index, store, t0.Add(time.Hour)); !errors.Is(err, verify.ErrWrongKey) {
		t.Fatalf("index signed by other keys: %v", err)
	}
}

func snapshotFiles(t *testing.T, index string) map[string][]byte {
	out := map[string][]byte{}
	for _, n := range []string{"timestamp.json", "snapshot.json", "targets.json"} {
		data, err := os.ReadFile(filepath.Join(index, "tuf", n))
		if err != nil {
			t.Fatal(err)
		}
		out[n] = data
	}
	return out
}

func restore(t *testing.T, index string, files map[string][]byte) {
	for n, data := range files {
		write(t, filepath.Join(index, "tuf", n), string(data))
	}
}

func copyFile(t *testing.T, from, to string) {
	data, err := os.ReadFile(from)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	write(t, to, string(data))
}

func signInit(keys string) ([]*sign.Key, error) { return sign.InitKeys(keys) }

func signAtErr(index, keys string, now time.Time) (*sign.Result, error) {
	return sign.Sign(sign.Options{IndexDir: index, KeyDir: keys, Now: func() time.Time { return now }})
}
