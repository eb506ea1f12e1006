package install_test

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/install/internal/corpus"
	"github.com/spiritagents/spirit/internal/testutil/tempdir"
	"github.com/spiritagents/spirit/paths"
)

func lockSchema(t testing.TB) *jsonschema.Schema {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "schemas", "spirit-lock.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("spirit-lock.schema.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("spirit-lock.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestLockMatchesSchema: a lock that BuildLock writes is valid under the
// schema file and ParseLock reads it back; locks that ParseLock refuses,
// the schema refuses too.
func TestLockMatchesSchema(t *testing.T) {
	schema := lockSchema(t)
	data := tempdir.New(t)
	p := paths.New(data, paths.HostCLI)
	in := &install.Installer{Paths: p}
	dir := tempdir.New(t)
	tgz := filepath.Join(dir, "a.tgz")
	if err := os.WriteFile(tgz, corpus.Tgz(corpus.Package("package/", corpus.ID, "1.0.0", 2)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Install(t.Context(), install.Request{Path: tgz, Source: tgz, SourceKind: install.KindArchive}); err != nil {
		t.Fatal(err)
	}
	lock, skipped, err := install.BuildLock(p)
	if err != nil || len(skipped) != 0 || len(lock.Extensions) != 1 {
		t.Fatalf("BuildLock: %+v %v %v", lock, skipped, err)
	}
	good := lock.Encode()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	if err := schema.Validate(v); err != nil {
		t.Errorf("the schema refuses a written lock: %v\n%s", err, good)
	}
	back, err := install.ParseLock(good)
	if err != nil || !bytes.Equal(back.Encode(), good) {
		t.Fatalf("ParseLock round trip: %v\n%s", err, back.Encode())
	}
	bad := []struct{ name, doc string }{
		{"version 2", `{"lockfileVersion": 2, "host": "cli", "extensions": {}}`},
		{"unknown host", `{"lockfileVersion": 1, "host": "web", "extensions": {}}`},
		{"unknown field", `{"lockfileVersion": 1, "host": "cli", "extensions": {}, "x": 1}`},
		{"npm without integrity", `{"lockfileVersion": 1, "host": "cli", "extensions": {"a": {"version": "1.0.0", "source": "a@1", "kind": "npm", "manifestDigest": "sha512-AA==", "enabled": true}}}`},
		{"weak digest", `{"lockfileVersion": 1, "host": "cli", "extensions": {"a": {"version": "1.0.0", "source": "/a", "kind": "dir", "manifestDigest": "sha1-AA==", "enabled": true}}}`},
		{"unknown kind", `{"lockfileVersion": 1, "host": "cli", "extensions": {"a": {"version": "1.0.0", "source": "/a", "kind": "git", "manifestDigest": "sha512-AA==", "enabled": true}}}`},
		{"marketplace without id", `{"lockfileVersion": 1, "host": "cli", "extensions": {"a": {"version": "1.0.0", "source": "m", "kind": "marketplace", "integrity": "sha512-AA==", "manifestDigest": "sha512-AA==", "enabled": true}}}`},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := install.ParseLock([]byte(tt.doc)); !errors.Is(err, install.ErrBadLock) {
				t.Errorf("ParseLock accepted it: %v", err)
			}
			v, err := jsonschema.UnmarshalJSON(bytes.NewReader([]byte(tt.doc)))
			if err != nil {
				t.Fatal(err)
			}
			if schema.Validate(v) == nil {
				t.Errorf("the schema accepts it")
			}
		})
	}
}

// FuzzParseLock: hostile lock files give an error or a lock that encodes
// and parses again to the same bytes; never a panic.
func FuzzParseLock(f *testing.F) {
	f.Add([]byte(`{"lockfileVersion": 1, "host": "cli", "extensions": {"a": {"version": "1.0.0", "source": "/a", "kind": "dir", "manifestDigest": "sha512-AA==", "enabled": true}}}`))
	f.Add([]byte(`{"lockfileVersion": 1, "host": "desktop", "extensions": {}}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := install.ParseLock(data)
		if err != nil {
			if !errors.Is(err, install.ErrBadLock) {
				t.Fatalf("error does not match ErrBadLock: %v", err)
			}
			return
		}
		enc := l.Encode()
		l2, err := install.ParseLock(enc)
		if err != nil {
			t.Fatalf("a parsed lock does not parse again: %v\n%s", err, enc)
		}
		if !bytes.Equal(l2.Encode(), enc) {
			t.Fatalf("encoding is not stable:\n%s\n%s", enc, l2.Encode())
		}
	})
}

// TestE2EKillDuringSync SIGKILLs `spirit extension sync` at random moments
// while it installs a lock into an empty data directory; the next sync
// always completes, and then the installs match the lock.
func TestE2EKillDuringSync(t *testing.T) {
	t.Parallel() // its own data folders; it waits on the processes it kills
	bin := buildSpirit(t)
	src := tempdir.New(t)
	data1 := tempdir.New(t)
	var srcs []string
	for i, id := range []string{corpus.ID, "other-ext", "third-ext"} {
		tgz := filepath.Join(src, id[:5]+".tgz")
		if err := os.WriteFile(tgz, corpus.Tgz(corpus.Package("package/", id, "1.0."+string(rune('0'+i)), 4)), 0o644); err != nil {
			t.Fatal(err)
		}
		srcs = append(srcs, tgz)
	}
	if out, err := spiritCmd(bin, data1, append([]string{"extension", "install"}, srcs...)...).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if out, err := spiritCmd(bin, data1, "extension", "disable", "other-ext").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	lockFile := filepath.Join(src, "spirit-lock.json")
	if out, err := spiritCmd(bin, data1, "extension", "lock", "-o", lockFile).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	full := time.Hour
	for range 2 {
		data := tempdir.New(t)
		start := time.Now()
		if out, err := spiritCmd(bin, data, "extension", "sync", lockFile).CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		full = min(full, time.Since(start))
	}
	rng := rand.New(rand.NewPCG(3, uint64(time.Now().UnixNano())))
	killed, window := 0, full
	for i := 0; killed < 40 && i < 200; i++ {
		data := tempdir.New(t)
		if killDuring(t, rng, &window, spiritCmd(bin, data, "extension", "sync", lockFile), fmt.Sprintf("sync %d", i)) {
			killed++
		}
		if out, err := spiritCmd(bin, data, "extension", "sync", lockFile).CombinedOutput(); err != nil {
			t.Fatalf("after kill %d: sync: %v\n%s", i, err, out)
		}
		if out, err := spiritCmd(bin, data, "extension", "sync", "--check", "--prune", lockFile).CombinedOutput(); err != nil {
			t.Fatalf("after kill %d: sync --check: %v\n%s", i, err, out)
		}
	}
	t.Logf("%d runs killed (one sync takes %v)", killed, full)
	if killed < 40 {
		t.Errorf("only %d kills; want at least 40", killed)
	}
}
