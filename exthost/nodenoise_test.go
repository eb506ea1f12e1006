package exthost

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/spiritagents/spirit/sandbox"
)

// The warnings Node prints about how it was started are dropped, and
// nothing else: the input is what a real Node prints with the permission
// flags spirit passes, loading an ES module from a package without
// "type": "module" that says a line and a warning of its own.
func TestNodeNoiseRealNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not on PATH")
	}
	info, err := sandbox.ProbeNode(t.Context(), node, "")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	pkg := filepath.Join(dir, "pkg")
	if err := os.CopyFS(pkg, os.DirFS(filepath.Join("..", "testdata", "runtime", "esm-typeless"))); err != nil {
		t.Fatal(err)
	}
	script := `const m = await import(` + "`file://${process.argv[1]}/index.js`" + `); m.activate();`
	args := []string{}
	if info.PermissionFlag != "" {
		args = append(args, info.PermissionFlag, "--allow-fs-read="+dir, "--allow-child-process")
	}
	args = append(args, "--input-type=module", "--eval", script, pkg)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	raw := stderr.String()
	if info.PermissionFlag != "" && !strings.Contains(raw, "SecurityWarning") {
		t.Fatalf("this Node printed no SecurityWarning; the test needs one:\n%s", raw)
	}
	if !strings.Contains(raw, "MODULE_TYPELESS_PACKAGE_JSON") {
		t.Skipf("Node %s does not detect module syntax (it warns from 20.19 and 22.7); stderr:\n%s", info.Version, raw)
	}
	var log bytes.Buffer
	w := &maskWriter{m: &masker{}, w: &nodeNoise{w: &log}}
	w.Write([]byte(raw))
	w.flush()
	got := regexpPID.ReplaceAllString(log.String(), "(node:PID)")
	want := "esm-typeless: activated\n(node:PID) Warning: esm-typeless: a warning of its own\n"
	if got != want {
		t.Errorf("log:\n%s\nwant:\n%s\nNode printed:\n%s", got, want, raw)
	}
}

// Lines like Node's that are not exactly Node's pass.
func TestNodeNoiseKeepsTheExtensionsLines(t *testing.T) {
	in := "(node:1) SecurityWarning: something the extension says\n" +
		"Reparsing as ES module because module syntax was detected. This incurs a performance overhead.\n" +
		"(Use `node --trace-warnings ...` to show where the warning was created)\n" +
		"To eliminate this warning, add \"type\": \"module\" to /x/package.json.\n"
	var log bytes.Buffer
	n := &nodeNoise{w: &log}
	for _, line := range strings.SplitAfter(in, "\n") {
		if line != "" {
			n.Write([]byte(line))
		}
	}
	if log.String() != in {
		t.Errorf("log:\n%s\nwant:\n%s", log.String(), in)
	}
}

var regexpPID = regexp.MustCompile(`\(node:\d+\)`)

// Whatever an extension prints, nodeNoise passes every line but Node's
// own warnings, in order.
func FuzzNodeNoise(f *testing.F) {
	f.Add("(node:7) SecurityWarning: The flag --allow-worker must be used with extreme caution. It could invalidate the permission model.\n(Use `node --trace-warnings ...` to show where the warning was created)\nhello\n")
	f.Add("(node:7) [MODULE_TYPELESS_PACKAGE_JSON] Warning: x\nReparsing as ES module because module syntax was detected. This incurs a performance overhead.\nTo eliminate this warning, add \"type\": \"module\" to /p/package.json.\nmine\n")
	f.Add("no newline at the end")
	f.Fuzz(func(t *testing.T, in string) {
		var log bytes.Buffer
		n := &nodeNoise{w: &log}
		var kept []string
		for _, line := range strings.SplitAfter(in, "\n") {
			if line == "" {
				continue
			}
			n.Write([]byte(line))
			if !noiseLine(line) {
				kept = append(kept, line)
			}
		}
		out := log.String()
		for _, line := range kept {
			i := strings.Index(out, line)
			if i < 0 {
				t.Fatalf("line %q was dropped; in %q, out %q", line, in, log.String())
			}
			out = out[i+len(line):]
		}
	})
}
