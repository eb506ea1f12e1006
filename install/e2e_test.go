package install_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/install/internal/corpus"
	"github.com/spiritagents/spirit/internal/testutil/tempdir"
	"github.com/spiritagents/spirit/paths"
)

// buildSpirit builds the real binary once into a temporary directory.
func buildSpirit(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(tempdir.New(t), "spirit")
	cmd := exec.Command("go", "build", "-o", bin, "github.com/spiritagents/spirit/cmd/spirit")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

type listed struct {
	Extensions []struct {
		ID        string `json:"id"`
		Version   string `json:"version"`
		Directory string `json:"directory"`
		Broken    string `json:"broken"`
	} `json:"extensions"`
}

func spiritCmd(bin, data string, args ...string) *exec.Cmd {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "SPIRIT_AGENT_DATA_DIR="+data, "SPIRIT_HOST=cli")
	return cmd
}

// killDuring starts cmd and sends it SIGKILL after a random delay below
// *window, and reports whether the kill landed. A run that finished first
// narrows *window to its delay, so kill tests count kills, not time, on a
// machine of any speed; a run that fails on its own fails the test.
func killDuring(t *testing.T, rng *rand.Rand, window *time.Duration, cmd *exec.Cmd, what string) (killed bool) {
	t.Helper()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	delay := time.Duration(rng.Int64N(int64(*window)))
	time.Sleep(delay)
	_ = cmd.Process.Signal(syscall.SIGKILL)
	err := cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return true
	}
	if err != nil {
		t.Fatalf("%s failed on its own: %v", what, err)
	}
	*window = max(delay, time.Millisecond)
	return false
}

func listJSON(t *testing.T, bin, data string) listed {
	t.Helper()
	var out bytes.Buffer
	cmd := spiritCmd(bin, data, "extension", "list", "--json")
	cmd.Stdout = &out
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("list --json: %v", err)
	}
	var l listed
	if err := json.Unmarshal(out.Bytes(), &l); err != nil {
		t.Fatalf("list --json: %v\n%s", err, out.Bytes())
	}
	return l
}

// expectedFiles maps version → (file → content) of the package an archive holds.
func expectedFiles(t *testing.T, srcs ...string) map[string]map[string]string {
	t.Helper()
	out := map[string]map[string]string{}
	for _, src := range srcs {
		a, err := install.ReadArchive(src)
		if err != nil {
			t.Fatal(err)
		}
		files := map[string]string{}
		_ = fs.WalkDir(a.FS, ".", func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() {
				b, _ := fs.ReadFile(a.FS, p)
				files[p] = string(b)
			}
			return nil
		})
		var m struct{ Version string }
		_ = json.Unmarshal(a.Manifest, &m)
		out[m.Version] = files
	}
	return out
}

// checkIntact fails unless dir holds exactly the files of want.
func checkIntact(t *testing.T, dir string, want map[string]string) {
	t.Helper()
	got := map[string]string{}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			b, _ := os.ReadFile(p)
			got[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	if len(got) != len(want) {
		t.Fatalf("%s has %d files, want %d", dir, len(got), len(want))
	}
	for name, body := range want {
		if got[name] != body {
			t.Fatalf("%s/%s differs or is missing", dir, name)
		}
	}
}

// TestE2EKillDuringInstall SIGKILLs `spirit extension install --replace`
// at random moments, over and over; after every kill, list shows the old
// or the new version, complete.
func TestE2EKillDuringInstall(t *testing.T) {
	bin := buildSpirit(t)
	data := tempdir.New(t)
	// Small packages keep each run short on slow filesystems.
	dir := tempdir.New(t)
	v1, v2 := filepath.Join(dir, "v1.zip"), filepath.Join(dir, "v2.tgz")
	if err := os.WriteFile(v1, corpus.Zip(corpus.Package("", corpus.ID, "1.0.0", 4)), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(v2, corpus.Tgz(corpus.Package("package/", corpus.ID, "2.0.0", 4)), 0o644); err != nil {
		t.Fatal(err)
	}
	want := expectedFiles(t, v1, v2)
	source := map[string]string{"1.0.0": v2, "2.0.0": v1} // installed → the other one

	if out, err := spiritCmd(bin, data, "extension", "install", v1).CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	// Calibrate: how long does one replace take? (the fastest of three)
	full := time.Hour
	for _, src := range []string{v2, v1, v2} {
		start := time.Now()
		if out, err := spiritCmd(bin, data, "extension", "install", src, "--replace", "--yes").CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		full = min(full, time.Since(start))
	}
	current := "2.0.0"
	rng := rand.New(rand.NewPCG(1, uint64(time.Now().UnixNano())))
	// The test counts kills, not time: a run that finished before its kill
	// narrows the window the next kill is drawn from, so a machine that is
	// faster (or slower) than at calibration still reaches 100 kills.
	killed, finished := 0, 0
	window := full
	for i := 0; killed < 100 && i < 400; i++ {
		cmd := spiritCmd(bin, data, "extension", "install", source[current], "--replace", "--yes")
		if killDuring(t, rng, &window, cmd, fmt.Sprintf("install %d", i)) {
			killed++
		} else {
			finished++
		}
		l := listJSON(t, bin, data)
		if len(l.Extensions) != 1 {
			t.Fatalf("after kill %d: list shows %d extensions: %+v", i, len(l.Extensions), l.Extensions)
		}
		e := l.Extensions[0]
		if e.Broken != "" || want[e.Version] == nil {
			t.Fatalf("after kill %d: %+v", i, e)
		}
		checkIntact(t, e.Directory, want[e.Version])
		current = e.Version
	}
	t.Logf("%d runs killed, %d finished before the kill (one install takes %v)", killed, finished, full)
	if killed < 100 {
		t.Errorf("only %d kills; want at least 100", killed)
	}
	// The next mutating command cleans what the killed ones left.
	if out, err := spiritCmd(bin, data, "extension", "install", source[current], "--replace", "--yes").CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	p := paths.New(data, paths.HostCLI)
	for _, d := range []string{p.StagingDir(), filepath.Join(p.SpiritDir(), "trash")} {
		if ents, _ := os.ReadDir(d); len(ents) != 0 {
			t.Errorf("%s not cleaned: %d leftovers", d, len(ents))
		}
	}
}

// TestE2EConcurrentInstallRemove runs two processes that install and
// remove the same id at once; each succeeds or fails with a clear message,
// and the final state is consistent.
func TestE2EConcurrentInstallRemove(t *testing.T) {
	bin := buildSpirit(t)
	data := tempdir.New(t)
	v2 := goodPath("corpus-ext-2.0.0.tgz")
	want := expectedFiles(t, v2)["2.0.0"]
	p := paths.New(data, paths.HostCLI)
	for round := range 6 {
		var wg sync.WaitGroup
		results := make([]string, 2)
		errs := make([]error, 2)
		for j, args := range [][]string{
			{"extension", "install", v2, "--replace"},
			{"extension", "remove", "corpus-ext"},
		} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				out, err := spiritCmd(bin, data, args...).CombinedOutput()
				results[j], errs[j] = string(out), err
			}()
		}
		wg.Wait()
		if errs[0] != nil {
			t.Fatalf("round %d: install failed: %v\n%s", round, errs[0], results[0])
		}
		if errs[1] != nil && !strings.Contains(results[1], "Error: Extension not found: corpus-ext") {
			t.Fatalf("round %d: remove failed without a clear message: %v\n%s", round, errs[1], results[1])
		}
		l := listJSON(t, bin, data)
		reg, _ := os.ReadFile(p.RegistryFile())
		inReg := strings.Contains(string(reg), `"id": "corpus-ext"`)
		switch len(l.Extensions) {
		case 0:
			if inReg {
				t.Fatalf("round %d: removed, but extensions.json still lists it", round)
			}
		case 1:
			if !inReg {
				t.Fatalf("round %d: installed, but extensions.json lacks it", round)
			}
			checkIntact(t, l.Extensions[0].Directory, want)
		default:
			t.Fatalf("round %d: %+v", round, l.Extensions)
		}
	}

	// A command that cannot get the lock says it waits, then gives up cleanly.
	fl := flock.New(p.LockFile())
	if err := fl.Lock(); err != nil {
		t.Fatal(err)
	}
	defer fl.Unlock()
	out, err := spiritCmd(bin, data, "extension", "install", v2, "--replace", "--lock-timeout", "300ms").CombinedOutput()
	if err == nil {
		t.Fatal("install succeeded while the lock was held")
	}
	for _, s := range []string{"Waiting for another spirit command to finish", "Error: timed out waiting for another spirit command after 300ms"} {
		if !strings.Contains(string(out), s) {
			t.Errorf("output lacks %q:\n%s", s, out)
		}
	}
}
