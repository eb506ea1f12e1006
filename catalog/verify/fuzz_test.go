package verify_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/spiritagents/spirit/catalog/verify"
)

// FuzzParseRoot: a root.json given to marketplace trust is untrusted bytes.
func FuzzParseRoot(f *testing.F) {
	index, _ := signedIndexF(f)
	root, _ := os.ReadFile(filepath.Join(index, "tuf", "root.json"))
	f.Add(root)
	f.Add([]byte(`{"signed":{"_type":"root"},"signatures":[]}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		_, _ = verify.ParseRoot(data)
	})
}

// FuzzOpen serves a signed index whose timestamp, snapshot or targets (by
// which) are replaced with the fuzzer's bytes: Open must refuse or accept
// without panicking, and accept only bytes that verify.
func FuzzOpen(f *testing.F) {
	index, _ := signedIndexF(f)
	names := []string{"timestamp.json", "snapshot.json", "targets.json", "2.root.json"}
	orig := map[string][]byte{}
	for _, n := range names[:3] {
		data, err := os.ReadFile(filepath.Join(index, "tuf", n))
		if err != nil {
			f.Fatal(err)
		}
		orig[n] = data
		f.Add(uint8(len(orig)-1), data)
	}
	f.Add(uint8(3), orig["timestamp.json"])
	f.Add(uint8(0), []byte(`{"signed":{"_type":"timestamp","version":99,"meta":{}},"signatures":[]}`))
	at := t0.Add(time.Hour)
	f.Fuzz(func(t *testing.T, which uint8, data []byte) {
		name := names[int(which)%len(names)]
		fetch := func(ctx context.Context, file string, limit int64) ([]byte, error) {
			if file == "tuf/"+name {
				return data, nil
			}
			b, err := os.ReadFile(filepath.Join(index, filepath.FromSlash(file)))
			if err != nil {
				return nil, fs.ErrNotExist
			}
			return b, nil
		}
		ix, err := verify.Open(context.Background(), fetch, verify.Options{Index: "fuzz", Now: func() time.Time { return at }})
		if err == nil && ix == nil {
			t.Fatal("a signed index read as unsigned")
		}
		var ve *verify.Error
		if err != nil && !errors.As(err, &ve) {
			t.Fatalf("not a *verify.Error: %v", err)
		}
	})
}

// signedIndexF is signedIndex for a fuzz target.
func signedIndexF(f *testing.F) (string, string) {
	f.Helper()
	index, keys := f.TempDir(), filepath.Join(f.TempDir(), "keys")
	mk(f, filepath.Join(index, "catalog.json"), `{"schemaVersion":1,"items":[]}`)
	mk(f, filepath.Join(index, "extensions", "a.b", "detail.json"), `{"extensionId":"a.b"}`)
	if _, err := signInit(keys); err != nil {
		f.Fatal(err)
	}
	if _, err := signAtErr(index, keys, t0); err != nil {
		f.Fatal(err)
	}
	return index, keys
}

func mk(f *testing.F, file, text string) {
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		f.Fatal(err)
	}
}
