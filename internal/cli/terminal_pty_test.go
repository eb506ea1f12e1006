package cli

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spiritagents/spirit/internal/testutil/ptytest"
)

// openPTY opens a pseudo-terminal of cols columns, or skips where the
// test has none.
func openPTY(t *testing.T, cols int) *ptytest.PTY {
	t.Helper()
	p, err := ptytest.Open(cols, 24)
	if errors.Is(err, ptytest.ErrUnsupported) {
		t.Skip("no pseudo-terminal helper on this system (ptytest opens one on Linux only)")
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// runOnPTY runs the real spirit with args on a terminal of cols columns
// and returns the rows it left on the screen and what it drew.
func runOnPTY(t *testing.T, cols int, env []string, args ...string) ([]string, string) {
	t.Helper()
	p := openPTY(t, cols)
	cmd := exec.Command(spiritCommand(t), args...)
	cmd.Env = append(os.Environ(), env...)
	if err := p.Start(cmd); err != nil {
		t.Fatal(err)
	}
	drawn, err := p.Wait(30 * time.Second)
	screen := ptytest.NewScreen(cols)
	screen.Write(drawn)
	if err != nil {
		t.Fatalf("%s: %v; drawn:\n%q", args, err, drawn)
	}
	return screen.Rows(), string(drawn)
}

// bigNPMRegistry serves big-ext@1.0.0, a tarball of about 4.2 MiB, as an
// npm registry does, in chunks over about 1.5 s when slow is set.
func bigNPMRegistry(t *testing.T, slow bool) *httptest.Server {
	body := npmTgz(t, "big-ext", "1.0.0", 4_200_000)
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	mux.HandleFunc("/big-ext", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(packument("big-ext", "1.0.0", srv.URL+"/big-ext/-/big-ext-1.0.0.tgz", body))
	})
	mux.HandleFunc("/big-ext/-/big-ext-1.0.0.tgz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		for b := body; len(b) > 0; {
			n := min(len(b), 96<<10)
			w.Write(b[:n])
			w.(http.Flusher).Flush()
			b = b[n:]
			if slow {
				time.Sleep(30 * time.Millisecond)
			}
		}
	})
	return srv
}

// The case: `install npm:…` of a 4.2 MiB tarball that takes a
// while, on a real terminal. The download is unpacked as it streams, and
// the progress stays on one row that is redrawn (it used to take a new row
// at each turn of download and unpacking), never wider than the terminal,
// whatever its width; it is ended before the result, on a row of its own.
func TestProgressOneLineOnTerminal(t *testing.T) {
	srv := bigNPMRegistry(t, true)
	for _, cols := range []int{100, 40} {
		t.Run(strconv.Itoa(cols)+" columns", func(t *testing.T) {
			work := t.TempDir()
			env := []string{"HOME=" + work, "SPIRIT_AGENT_DATA_DIR=" + filepath.Join(work, "data"), "SPIRIT_HOST=",
				"npm_config_registry=", "NPM_CONFIG_REGISTRY=", "NO_COLOR=1", "TERM=xterm", "COLUMNS="}
			rows, drawn := runOnPTY(t, cols, env, "extension", "install", "npm:big-ext@1.0.0", "--npm-registry", srv.URL)
			if n := strings.Count(drawn, "\r\x1b[K"); n < 3 {
				t.Fatalf("the bar was drawn %d times, the test needs a few redraws:\n%q", n, drawn)
			}
			if len(rows) < 3 || !strings.HasPrefix(rows[0], "Downloading big-ext@1") || !strings.Contains(rows[0], "100% 4.0/4.0 MiB") ||
				rows[1] != "Installed extension: E2E" || rows[2] != "id: big-ext" {
				t.Fatalf("want the progress on one row, ended at 100%%, then the result; got %d rows:\n%s", len(rows), strings.Join(rows, "\n"))
			}
		})
	}
}

// Off a terminal (stderr a pipe), nothing is drawn.
func TestProgressNothingOnPipe(t *testing.T) {
	srv := bigNPMRegistry(t, false)
	work := t.TempDir()
	env := []string{"HOME=" + work, "SPIRIT_AGENT_DATA_DIR=" + filepath.Join(work, "data"), "SPIRIT_HOST=",
		"npm_config_registry=", "NPM_CONFIG_REGISTRY="}
	_, stderr, _, err := runSpirit(t, time.Minute, work, env, "", "extension", "install", "npm:big-ext@1.0.0", "--npm-registry", srv.URL)
	if err != nil || stderr != "" {
		t.Fatalf("install: %v; stderr %q", err, stderr)
	}
}

// On a dumb terminal (TERM=dumb: Emacs shells, some CI consoles) less
// stops at "terminal is not fully functional — Press RETURN", so no pager
// starts there: the list is printed as it is. A pager named in
// SPIRIT_PAGER is still used. The real less runs where it is installed.
func TestNoPagerOnDumbTerminal(t *testing.T) {
	if _, err := exec.LookPath("less"); err != nil {
		t.Skip("less is not installed: the default pager cannot be tried")
	}
	data, _ := listFixture(t)
	work := t.TempDir()
	env := []string{"HOME=" + work, "SPIRIT_AGENT_DATA_DIR=" + data, "SPIRIT_HOST=", "NO_COLOR=1",
		"TERM=dumb", "PAGER=", "SPIRIT_PAGER=", "LESS=", "COLUMNS="}
	rows, drawn := runOnPTY(t, 100, env, "extension", "list")
	if strings.Contains(drawn, "not fully functional") || len(rows) < 4 || !strings.Contains(strings.Join(rows, "\n"), "alpha-weather") {
		t.Fatalf("want the list without a pager, got:\n%q", drawn)
	}
	script, copied := fakePager(t)
	runOnPTY(t, 100, append(env, "SPIRIT_PAGER="+script), "extension", "list")
	if b, err := os.ReadFile(copied); err != nil || !strings.Contains(string(b), "alpha-weather") {
		t.Fatalf("SPIRIT_PAGER not used on a dumb terminal: %v %q", err, b)
	}
}
