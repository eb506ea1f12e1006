package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// TestStartupCompilesNoSchema runs the real binary: the JSON Schema
// library's package init must not compile the meta-schemas of every draft
// (about 21,000 allocations and 5 ms on every command, even --version);
// they are compiled the first time a schema is loaded.
func TestStartupCompilesNoSchema(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "spirit")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	cmd := exec.Command(bin, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("spirit --version: %v\n%s", err, out)
	}
	re := regexp.MustCompile(`(?m)^init github\.com/santhosh-tekuri/jsonschema/v6 @.* (\d+) allocs$`)
	m := re.FindSubmatch(out)
	if m == nil {
		t.Fatalf("no init line of the JSON Schema library in:\n%s", out)
	}
	if n, _ := strconv.Atoi(string(m[1])); n > 1000 {
		t.Errorf("the JSON Schema library's init made %d allocations; the meta-schemas are compiled at startup", n)
	}
}

// TestMetaSchemaStillChecked: compiled lazily, the meta-schemas still
// reject an invalid schema, from the first compile on.
func TestMetaSchemaStillChecked(t *testing.T) {
	c := jsonschema.NewCompiler()
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(`{"type": 5}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := c.AddResource("embedded:///bad.json", doc); err == nil {
		if _, err := c.Compile("embedded:///bad.json"); err == nil {
			t.Fatal(`a schema {"type": 5} was accepted`)
		}
	}
}
