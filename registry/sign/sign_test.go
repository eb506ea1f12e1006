package sign

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func index(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{
		"catalog.json":                    `{"schemaVersion":1,"items":[]}`,
		"extensions/a.b/detail.json":      `{}`,
		"extensions/a.b/README.md":        "# a\n",
		"extensions/a.b/entry.json":       `{}`,
		"extensions/a.b/notes.txt":        "not served",
		"tuf/unrelated.json":              `{}`,
		"extensions/c.d/nested/README.md": "# nested\n",
	} {
		file := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestTargetFiles(t *testing.T) {
	files, err := TargetFiles(index(t))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	want := []string{"catalog.json", "extensions/a.b/README.md", "extensions/a.b/detail.json", "extensions/c.d/nested/README.md"}
	if !slices.Equal(names, want) {
		t.Fatalf("targets %v, want %v", names, want)
	}
	if _, err := TargetFiles(t.TempDir()); !errors.Is(err, ErrNoIndex) {
		t.Fatalf("no catalog: %v", err)
	}
}

// A scheduled refresh of an unchanged index reads only the snapshot and
// timestamp keys, and bumps only their versions.
func TestSignRefreshNeedsOnlyOnlineKeys(t *testing.T) {
	dir, keys := index(t), filepath.Join(t.TempDir(), "keys")
	if _, err := InitKeys(keys); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	first, err := Sign(Options{IndexDir: dir, KeyDir: keys, Now: func() time.Time { return now }})
	if err != nil {
		t.Fatal(err)
	}
	for _, role := range []string{"root", "targets"} {
		if err := os.Rename(KeyFile(keys, role), KeyFile(keys, role)+".offline"); err != nil {
			t.Fatal(err)
		}
	}
	second, err := Sign(Options{IndexDir: dir, KeyDir: keys, Now: func() time.Time { return now.Add(time.Hour) }})
	if err != nil {
		t.Fatal(err)
	}
	if second.TargetsVersion != first.TargetsVersion || second.SnapshotVersion != first.SnapshotVersion+1 ||
		second.TimestampVersion != first.TimestampVersion+1 || slices.Contains(second.Written, "tuf/targets.json") {
		t.Fatalf("refresh: %+v after %+v", second, first)
	}
	if !second.TimestampExpires.Equal(now.Add(time.Hour + DefaultTimestampExpiry)) {
		t.Fatalf("timestamp expires %v", second.TimestampExpires)
	}
	// a changed file needs the targets key.
	if err := os.WriteFile(filepath.Join(dir, "catalog.json"), []byte(`{"schemaVersion":1,"items":[ ]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Sign(Options{IndexDir: dir, KeyDir: keys}); !errors.Is(err, ErrNoKey) {
		t.Fatalf("changed index without the targets key: %v", err)
	}
	if err := os.Rename(KeyFile(keys, "targets")+".offline", KeyFile(keys, "targets")); err != nil {
		t.Fatal(err)
	}
	third, err := Sign(Options{IndexDir: dir, KeyDir: keys})
	if err != nil || third.TargetsVersion != first.TargetsVersion+1 {
		t.Fatalf("changed index: %+v %v", third, err)
	}
}

func TestSignRefusesAKeyTheRootDoesNotName(t *testing.T) {
	dir, keys := index(t), filepath.Join(t.TempDir(), "keys")
	if _, err := InitKeys(keys); err != nil {
		t.Fatal(err)
	}
	if _, err := Sign(Options{IndexDir: dir, KeyDir: keys}); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "other")
	if _, err := InitKeys(other); err != nil {
		t.Fatal(err)
	}
	if _, err := Sign(Options{IndexDir: dir, KeyDir: other}); !errors.Is(err, ErrKeyNotInRoot) {
		t.Fatalf("other keys: %v", err)
	}
	if _, err := InitKeys(keys); !errors.Is(err, ErrKeysExist) {
		t.Fatalf("keys init over keys: %v", err)
	}
	if _, err := RotateKey(Options{IndexDir: t.TempDir(), KeyDir: keys}, "timestamp"); !errors.Is(err, ErrNoRoot) {
		t.Fatalf("rotate unsigned: %v", err)
	}
	if _, err := RotateKey(Options{IndexDir: dir, KeyDir: keys}, "nobody"); err == nil {
		t.Fatal("unknown role accepted")
	}
}
