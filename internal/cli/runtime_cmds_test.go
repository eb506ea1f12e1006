package cli

import (
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spiritagents/spirit/internal/iostreams"
	"github.com/spiritagents/spirit/paths"
)

// runtimeFactory returns a Factory over a temp data dir holding the named
// testdata/runtime fixtures, with test streams.
func runtimeFactory(t *testing.T, fixtures map[string]string) (*Factory, *iostreamsBufs) {
	t.Helper()
	dir := t.TempDir()
	p := paths.New(dir, paths.HostCLI)
	// In id order, so the folders' install times are the same on every run
	// (invocation-name suffixes follow the apps' list order).
	for _, id := range slices.Sorted(maps.Keys(fixtures)) {
		name := fixtures[id]
		if err := os.CopyFS(p.PackageDir(id), os.DirFS(filepath.Join("..", "..", "testdata", "runtime", name))); err != nil {
			t.Fatal(err)
		}
	}
	ios, in, out, errOut := iostreams.Test()
	f := &Factory{IO: ios, Getenv: func(string) string { return "" }, Now: time.Now}
	f.Global.DataDir = dir
	return f, &iostreamsBufs{in: in, out: out, err: errOut}
}

func TestRunToolsJSONGolden(t *testing.T) {
	f, bufs := runtimeFactory(t, map[string]string{
		"@example/spirit-extension": "collide-one", "@example/spirit-extension-two": "collide-two",
		"caps-all": "caps-all", "caps-definitions": "caps-definitions",
	})
	f.Global.JSON = true
	if err := runTools(t.Context(), &ToolsOptions{f: f}); err != nil {
		t.Fatal(err)
	}
	golden(t, "testdata/runtime_tools.golden.json", bufs.out.Bytes())
}

func TestRunPromptJSONGolden(t *testing.T) {
	f, bufs := runtimeFactory(t, map[string]string{"caps-all": "caps-all", "caps-prompt-no-main": "caps-prompt-no-main"})
	f.Global.JSON = true
	if err := runPrompt(t.Context(), &PromptOptions{f: f}); err != nil {
		t.Fatal(err)
	}
	golden(t, "testdata/runtime_prompt.golden.json", bufs.out.Bytes())
}

func TestRunCallApproval(t *testing.T) {
	tests := []struct {
		name    string
		tty     bool
		input   string
		yes     bool
		wantOut string
		wantErr string
	}{
		{name: "no terminal, no --yes", wantErr: "needs approval before it runs"},
		{name: "--yes", yes: true, wantOut: "approved\n"},
		{name: "terminal, yes", tty: true, input: "y\n", wantOut: "approved\n"},
		{name: "terminal, no", tty: true, input: "n\n", wantErr: "not approved"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, bufs := runtimeFactory(t, map[string]string{"@fixture/kitchen": "kitchen"})
			f.IO.SetTTY(tt.tty)
			bufs.in.WriteString(tt.input)
			err := runCall(t.Context(), &CallOptions{f: f, Name: "@fixture/kitchen/approve", Args: "{}", Timeout: 5 * time.Second, Yes: tt.yes})
			if tt.wantErr != "" {
				if err == nil || !contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || bufs.out.String() != tt.wantOut {
				t.Fatalf("out = %q, err = %v", bufs.out.String(), err)
			}
			if tt.tty && !contains(bufs.err.String(), "Extension tool requires confirmation\nExtension: @fixture/kitchen\nTool: approve") {
				t.Errorf("prompt not shown: %q", bufs.err.String())
			}
		})
	}
}

// tools prints a table with a header on a terminal, and tab-separated
// rows without one in a pipe, as list does.
func TestRunToolsTerminalAndPipe(t *testing.T) {
	for _, tty := range []bool{true, false} {
		f, bufs := runtimeFactory(t, map[string]string{"caps-all": "caps-all"})
		f.IO.SetTTY(tty)
		f.IO.SetTerminalWidth(200)
		if err := runTools(t.Context(), &ToolsOptions{f: f}); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(bufs.out.String(), "\n"), "\n")
		header := strings.HasPrefix(lines[0], "NAME ")
		tabs := strings.Contains(bufs.out.String(), "\t")
		if header != tty || tabs == tty || len(lines) < 1 {
			t.Errorf("tty %v: header %v, tabs %v:\n%s", tty, header, tabs, bufs.out)
		}
		if !tty && len(strings.Split(lines[0], "\t")) != 5 {
			t.Errorf("pipe: want 5 tab-separated cells, got %q", lines[0])
		}
	}
}
