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

	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/install/internal/corpus"
	"github.com/spiritagents/spirit/internal/testutil/tempdir"
	"github.com/spiritagents/spirit/paths"
)

// TestE2EKillDuringDisableEnable SIGKILLs `spirit extension disable` and
// `enable` at random moments; the next command completes or undoes what
// the killed one left, so after it the extension is wholly enabled
// (folder in the host tree, extensions.json byte-identical to before) or
// wholly disabled (folder in .spirit/disabled, no entry), never half.
func TestE2EKillDuringDisableEnable(t *testing.T) {
	t.Parallel() // its own data folders; it waits on the processes it kills
	bin := buildSpirit(t)
	data := tempdir.New(t)
	dir := tempdir.New(t)
	pkg, other := filepath.Join(dir, "a.tgz"), filepath.Join(dir, "b.tgz")
	if err := os.WriteFile(pkg, corpus.Tgz(corpus.Package("package/", corpus.ID, "1.0.0", 4)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(other, corpus.Tgz(corpus.Package("package/", "other-ext", "1.0.0", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	want := expectedFiles(t, pkg)["1.0.0"]
	for _, src := range []string{pkg, other} {
		if out, err := spiritCmd(bin, data, "extension", "install", src).CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
	}
	p := paths.New(data, paths.HostCLI)
	before, err := os.ReadFile(p.RegistryFile())
	if err != nil {
		t.Fatal(err)
	}
	check := func(i int, disabled bool) {
		t.Helper()
		reg, err := os.ReadFile(p.RegistryFile())
		if err != nil {
			t.Fatal(err)
		}
		_, metaErr := os.Stat(p.DisabledPackageDir(corpus.ID) + ".json")
		if disabled {
			if _, err := os.Stat(p.PackageDir(corpus.ID)); err == nil {
				t.Fatalf("after kill %d: disabled, but the folder is in the host tree", i)
			}
			if bytes.Contains(reg, []byte(`"`+corpus.ID+`"`)) || !bytes.Contains(reg, []byte(`"other-ext"`)) {
				t.Fatalf("after kill %d: disabled, extensions.json:\n%s", i, reg)
			}
			if metaErr != nil {
				t.Fatalf("after kill %d: disabled without its saved entry", i)
			}
			checkIntact(t, p.DisabledPackageDir(corpus.ID), want)
			return
		}
		if !bytes.Equal(reg, before) {
			t.Fatalf("after kill %d: enabled, extensions.json differs:\n%s\nwant\n%s", i, reg, before)
		}
		if metaErr == nil {
			t.Fatalf("after kill %d: enabled, the saved entry is left", i)
		}
		checkIntact(t, p.PackageDir(corpus.ID), want)
	}

	full := time.Hour
	for _, verb := range []string{"disable", "enable", "disable", "enable"} {
		start := time.Now()
		if out, err := spiritCmd(bin, data, "extension", verb, corpus.ID).CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		full = min(full, time.Since(start))
	}
	rng := rand.New(rand.NewPCG(2, uint64(time.Now().UnixNano())))
	killed, window := 0, full
	for i := 0; killed < 60 && i < 300; i++ {
		verb, settle := "disable", "enable"
		if i%2 == 1 {
			verb, settle = "enable", "disable"
			if out, err := spiritCmd(bin, data, "extension", "disable", corpus.ID).CombinedOutput(); err != nil {
				t.Fatalf("%v\n%s", err, out)
			}
		}
		if killDuring(t, rng, &window, spiritCmd(bin, data, "extension", verb, corpus.ID), fmt.Sprintf("%s %d", verb, i)) {
			killed++
		}
		// The next command tidies first, then settles in the other state.
		if out, err := spiritCmd(bin, data, "extension", settle, corpus.ID).CombinedOutput(); err != nil {
			t.Fatalf("after kill %d: %s: %v\n%s", i, settle, err, out)
		}
		check(i, settle == "disable")
	}
	t.Logf("%d runs killed (one toggle takes %v)", killed, full)
	if killed < 60 {
		t.Errorf("only %d kills; want at least 60", killed)
	}
}

// TestDisableEnableRoundTrip: enable puts back the entry and the folder
// exactly; an install over a disabled id is refused.
func TestDisableEnableRoundTrip(t *testing.T) {
	data := tempdir.New(t)
	p := paths.New(data, paths.HostCLI)
	in := &install.Installer{Paths: p}
	src := filepath.Join(tempdir.New(t), "a.tgz")
	if err := os.WriteFile(src, corpus.Tgz(corpus.Package("package/", corpus.ID, "1.0.0", 2)), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := in.Install(t.Context(), install.Request{Path: src}); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(p.RegistryFile())
	got, err := in.Disable(t.Context(), corpus.ID)
	if err != nil || !got.Disabled {
		t.Fatalf("Disable: %+v %v", got, err)
	}
	if list, _ := install.List(p); len(list) != 0 {
		t.Errorf("List shows a disabled extension: %+v", list)
	}
	if _, err := in.Install(t.Context(), install.Request{Path: src, Replace: true}); !errors.Is(err, install.ErrDisabled) {
		t.Errorf("install over a disabled id: %v", err)
	}
	if _, err := in.Enable(t.Context(), corpus.ID); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(p.RegistryFile())
	if !bytes.Equal(before, after) {
		t.Errorf("extensions.json differs after the round trip:\n%s\nwant\n%s", after, before)
	}
}
