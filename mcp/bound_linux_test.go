package mcp

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/spiritagents/spirit/exthost"
	"github.com/spiritagents/spirit/internal/testutil/fixture"
	"github.com/spiritagents/spirit/paths"
)

// nodesBelow counts the node processes below pid (through bubblewrap and
// the supervisor, whatever the sandbox), from the parent of every process
// in /proc.
func nodesBelow(pid int) int {
	ents, _ := os.ReadDir("/proc")
	parent := map[int]int{}
	var nodes []int
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		open, end := bytes.IndexByte(stat, '('), bytes.LastIndexByte(stat, ')')
		if open < 0 || end < open {
			continue
		}
		f := strings.Fields(string(stat[end+1:]))
		if len(f) < 2 {
			continue
		}
		parent[n], _ = strconv.Atoi(f[1])
		if string(stat[open+1:end]) == "node" {
			nodes = append(nodes, n)
		}
	}
	count := 0
	for _, n := range nodes {
		for q, i := parent[n], 0; q > 1 && i < 64; q, i = parent[q], i+1 {
			if q == pid {
				count++
				break
			}
		}
	}
	return count
}

// TestColdServeBoundsNodeProcesses serves twice as many extensions as
// exthost.DefaultMaxProcesses with no prompt cache, through the real
// `spirit mcp serve` (its sandbox, real Node), and samples how many Node
// processes it has while the initialize answer collects every system
// prompt: never more than the bound, and every prompt is in the answer.
func TestColdServeBoundsNodeProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts dozens of Node processes")
	}
	bin := spiritBinary(t)
	p := paths.New(t.TempDir(), paths.HostCLI)
	bound := exthost.DefaultMaxProcesses()
	n := 2 * bound
	for i := range n {
		src := filepath.Join(t.TempDir(), "ext")
		if err := os.MkdirAll(src, 0o755); err != nil {
			t.Fatal(err)
		}
		pkg := fmt.Sprintf(`{"name":"cold-%d","version":"1.0.0","main":"index.mjs","spiritExtension":{"displayName":"Cold %d","supportedHosts":["cli","desktop"],"requestedCapabilities":["system-prompt"],"activationEvents":["onSessionReset"]}}`, i, i)
		main := fmt.Sprintf(`export function activate() { return { systemPrompt: 'Extension %d says hello.' }; }`, i)
		if err := os.WriteFile(filepath.Join(src, "package.json"), []byte(pkg), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(src, "index.mjs"), []byte(main), 0o644); err != nil {
			t.Fatal(err)
		}
		fixture.Install(t, p, src)
	}
	cmd := exec.Command(bin, "mcp", "serve")
	cmd.Env = append(os.Environ(), "SPIRIT_AGENT_DATA_DIR="+p.DataDir, "SPIRIT_HOST=cli")
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	stdin, stdout := startPiped(t, cmd)
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	pid := cmd.Process.Pid // read here, before the sampler starts: no race on cmd

	peak, samples := 0, 0
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			if k := nodesBelow(pid); k > peak {
				peak = k
			}
			samples++
			select {
			case <-stop:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	cs, err := testClient(nil).Connect(ctx, &sdk.IOTransport{Reader: stdout, Writer: stdin}, nil)
	if err != nil {
		close(stop)
		wg.Wait()
		t.Fatalf("%v\nstderr: %s", err, stderr)
	}
	// The session events (every extension listens to onSessionReset) are
	// delivered after initialize: sample through them too.
	time.Sleep(2 * time.Second)
	close(stop)
	wg.Wait()
	instructions := cs.InitializeResult().Instructions
	_ = cs.Close()
	for i := range n {
		if want := fmt.Sprintf("Extension %d says hello.", i); !strings.Contains(instructions, want) {
			t.Fatalf("the instructions lack %q:\n%s\nstderr: %s", want, instructions, stderr)
		}
	}
	t.Logf("%d extensions: at most %d Node processes at once (%d samples)", n, peak, samples)
	if peak == 0 {
		t.Fatalf("no Node process seen in %d samples: the count is broken", samples)
	}
	if peak > bound {
		t.Fatalf("%d Node processes at once while serving %d extensions cold, more than %d", peak, n, bound)
	}
}
