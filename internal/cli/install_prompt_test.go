package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/internal/iostreams"
	"github.com/spiritagents/spirit/paths"
)

func writeExt(t *testing.T, version string) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "ext")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	pkg := fmt.Sprintf(`{"name":"down-ext","version":%q,"spiritExtension":{"displayName":"Down","supportedHosts":["cli"]}}`, version)
	if err := os.WriteFile(filepath.Join(dir, "package.json"), []byte(pkg), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// A downgrade asks at a terminal; the answer decides. Without a terminal
// it needs --yes, and the hint says so.
func TestInstallDowngradePrompt(t *testing.T) {
	data := t.TempDir()
	newV, oldV := writeExt(t, "2.0.0"), writeExt(t, "1.0.0")
	run := func(tty bool, answer, src string, yes bool) (string, error) {
		ios, in, _, errOut := iostreams.Test()
		ios.SetTTY(tty)
		in.WriteString(answer)
		f := &Factory{IO: ios, Getenv: func(string) string { return "" }, Now: time.Now, HTTPClient: newHTTPClient,
			Global: GlobalOptions{DataDir: data}}
		err := runInstall(t.Context(), &InstallOptions{f: f, Source: src, Replace: true, Yes: yes, LockTimeout: 5 * time.Second})
		return errOut.String(), err
	}
	version := func() string {
		got, err := install.Find(paths.New(data, paths.HostCLI), "down-ext")
		if err != nil {
			t.Fatal(err)
		}
		return got.Version()
	}
	if _, err := run(false, "", newV, false); err != nil {
		t.Fatal(err)
	}

	stderr, err := run(true, "n\n", oldV, false)
	if err == nil || !strings.Contains(stderr, "down-ext 2.0.0 is installed. Replace it with the older 1.0.0? [y/N]") {
		t.Fatalf("answer no: err %v, stderr %q", err, stderr)
	}
	if v := version(); v != "2.0.0" {
		t.Fatalf("after no: %s installed", v)
	}

	if _, err := run(false, "", oldV, false); err == nil || hintOf(err) != "pass --yes to install the older version" {
		t.Fatalf("no terminal: err %v, hint %q", err, hintOf(err))
	}

	if _, err := run(true, "y\n", oldV, false); err != nil {
		t.Fatal(err)
	}
	if v := version(); v != "1.0.0" {
		t.Fatalf("after yes: %s installed", v)
	}

	if _, err := run(false, "", newV, false); err != nil { // an upgrade asks nothing
		t.Fatal(err)
	}
	if _, err := run(false, "", oldV, true); err != nil || version() != "1.0.0" {
		t.Fatalf("--yes: err %v, %s installed", err, version())
	}
}
