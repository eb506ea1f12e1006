package mcp

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gofrs/flock"

	"github.com/spiritagents/spirit/paths"
)

// nodeClientPackage is the independent client the end-to-end test uses.
const nodeClientPackage = "@modelcontextprotocol/sdk@^1"

// nodeClientDir installs the TypeScript MCP SDK into $REPO/.cache/mcp-client
// once (npm install --no-save), and reuses it afterwards.
func nodeClientDir(t *testing.T) string {
	t.Helper()
	repo, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(repo, ".cache", "mcp-client")
	marker := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")
	if _, err := os.Stat(marker); err == nil {
		return dir
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	lock := flock.New(filepath.Join(dir, ".lock"))
	if err := lock.Lock(); err != nil {
		t.Fatal(err)
	}
	defer lock.Unlock()
	if _, err := os.Stat(marker); err == nil {
		return dir
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Fatalf("the end-to-end MCP test needs npm to install %s: %v", nodeClientPackage, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, npm, "install", "--no-save", "--no-audit", "--no-fund", "--no-package-lock", nodeClientPackage)
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("npm install %s in %s: %v\n%s", nodeClientPackage, dir, err, out)
	}
	return dir
}

// TestE2ENodeClient runs the TypeScript SDK's client, in Node, against the
// real `spirit mcp serve` over stdio.
func TestE2ENodeClient(t *testing.T) {
	t.Parallel()
	clientDir := nodeClientDir(t)
	bin := spiritBinary(t)
	p := paths.New(t.TempDir(), paths.HostCLI)
	installFixture(t, p, "tools-ext")

	script, err := filepath.Abs(filepath.Join("..", "testdata", "mcp", "node-client.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", script)
	cmd.Env = append(os.Environ(), "MCP_CLIENT_DIR="+clientDir, "SPIRIT_BIN="+bin,
		"SPIRIT_AGENT_DATA_DIR="+p.DataDir, "SPIRIT_HOST=cli")
	var stderr lockedBuffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node client: %v\nstdout: %s\nstderr: %s", err, out, stderr.String())
	}
	var got struct {
		Server       struct{ Name string }
		Instructions string
		Tools        []string
		Echo, Fail   struct {
			IsError bool
			Text    string
		}
		Questions struct {
			IsError bool
			Text    string
		}
		Structured map[string]any
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	if got.Server.Name != "spirit" {
		t.Errorf("server name %q", got.Server.Name)
	}
	if !strings.Contains(got.Instructions, "Use the echo tool to repeat text.") {
		t.Errorf("instructions %q", got.Instructions)
	}
	if len(got.Tools) != 8 {
		t.Errorf("tools %v, want 8", got.Tools)
	}
	if got.Echo.IsError || got.Echo.Text != "hello from node" {
		t.Errorf("echo = %+v", got.Echo)
	}
	if !got.Fail.IsError || got.Fail.Text != "the fail tool failed" {
		t.Errorf("fail = %+v", got.Fail)
	}
	if got.Questions.IsError || !strings.Contains(got.Questions.Text, `"execution_note": "answered: Additional execution info for extension tool: questions"`) {
		t.Errorf("questions = %+v", got.Questions)
	}
	if n, _ := got.Structured["n"].(float64); n != 7 {
		t.Errorf("structured = %v", got.Structured)
	}
}
