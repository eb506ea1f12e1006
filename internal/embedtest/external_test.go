// Package embedtest holds the tests that spirit's Go API works from another
// module: a module outside this one, with a replace directive pointing here,
// compiles and runs the embedding example of docs/mcp.md and compiles a use of
// every public package; and no exported identifier of a public package
// names an internal type.
package embedtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestExternalModuleRunsReadmeExample(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a second module")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Fatalf("node is required: %v", err)
	}
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	mod := t.TempDir()
	src, err := os.ReadFile("testdata/embed.go.txt")
	if err != nil {
		t.Fatal(err)
	}
	public, err := os.ReadFile("testdata/public.go.txt")
	if err != nil {
		t.Fatal(err)
	}
	sum, err := os.ReadFile(filepath.Join(repo, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	gomod := "module example.com/embed\n\ngo 1.26\n\n" +
		"require github.com/spiritagents/spirit v0.0.0\n\n" +
		"replace github.com/spiritagents/spirit => " + repo + "\n"
	for name, data := range map[string][]byte{"go.mod": []byte(gomod), "go.sum": sum, "main.go": src, "public.go": public} {
		if err := os.WriteFile(filepath.Join(mod, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	env := append(os.Environ(), "GOWORK=off", "GOFLAGS=-mod=mod",
		"SPIRIT_KEYRING_BACKEND=file", "SPIRIT_KEYRING_PASSWORD=test")

	tidy := exec.Command("go", "mod", "tidy")
	tidy.Dir, tidy.Env = mod, env
	if out, err := tidy.CombinedOutput(); err != nil {
		t.Fatalf("go mod tidy in the external module: %v\n%s", err, out)
	}
	run := exec.Command("go", "run", ".", t.TempDir(), filepath.Join(repo, "testdata/examples/hello-tools"))
	run.Dir, run.Env = mod, env
	out, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("go run of the docs/mcp.md example in an external module: %v\n%s", err, out)
	}
	got := string(out)
	for _, want := range []string{"tool extension__hello_tools__greet", "embedder", "prompt true", "failures 0"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}
