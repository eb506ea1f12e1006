package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spiritagents/spirit/internal/atomicfile"
)

// Status is the sandbox in force and why.
type Status struct {
	Kind Kind `json:"kind"`
	// Path is the bwrap executable (KindBwrap).
	Path string `json:"path,omitempty"`
	// Version is what the sandbox tool says of itself.
	Version string `json:"version,omitempty"`
	// Reason says why a stronger sandbox is not in force ("" for bwrap).
	Reason string `json:"reason,omitempty"`
	// LandlockABI is the kernel's Landlock ABI version (0 without Landlock).
	LandlockABI int `json:"landlockABI,omitempty"`
	// Scoper is spirit's own executable when bubblewrap runs under
	// Landlock's scoping (ExecCommand --scope, ABI 6): abstract Unix
	// sockets and signals of processes outside stay out of reach while the
	// network namespace is shared. "" without it.
	Scoper string `json:"-"`
}

// Probe finds the sandbox to use on this OS (see probeOS): on Linux
// bubblewrap when it is on PATH and can start a confined process here (user
// namespaces may be disabled), else Landlock when the kernel has it, else
// none with the reason; on macOS Seatbelt; elsewhere Node's permission
// model. getenv reads EnvMode.
func Probe(ctx context.Context, getenv func(string) string) (Status, error) {
	mode := strings.TrimSpace(getenv(EnvMode))
	switch {
	case mode == "none" || mode == "off":
		return Status{Kind: KindNone, Reason: "disabled by " + EnvMode + "=" + mode}, nil
	case mode == "" || mode == "auto" || slices.Contains(osModes, mode):
	default:
		return Status{}, fmt.Errorf("%w %s=%q: use auto, %s or none", ErrBadMode, EnvMode, mode, strings.Join(osModes, ", "))
	}
	return probeOS(ctx, mode)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// NodeInfo is what a Node.js executable supports.
type NodeInfo struct {
	Version string `json:"version"`
	Major   int    `json:"major"`
	// PermissionFlag is --permission or --experimental-permission, "" when
	// this Node has no permission model.
	PermissionFlag string `json:"permissionFlag,omitempty"`
	// Allow are the --allow-… flags this Node knows.
	Allow []string `json:"allow,omitempty"`
}

// ProbeNode asks node for its version and permission flags. With a
// cacheFile, the answer is kept there per executable (path, size and
// modification time), so a command line run does not start Node twice.
func ProbeNode(ctx context.Context, node, cacheFile string) (NodeInfo, error) {
	key := ""
	if fi, err := os.Stat(node); err == nil {
		key = fmt.Sprintf("%s\x00%d\x00%d", node, fi.Size(), fi.ModTime().UnixNano())
	}
	cache := readNodeCache(cacheFile)
	if info, ok := cache[key]; ok && key != "" {
		return info, nil
	}
	info, err := askNode(ctx, node)
	if err != nil {
		return NodeInfo{}, err
	}
	if cacheFile != "" && key != "" {
		cache = map[string]NodeInfo{key: info} // one Node at a time is the common case
		if data, err := json.Marshal(cache); err == nil {
			_ = os.MkdirAll(filepath.Dir(cacheFile), 0o700)
			_ = atomicfile.Write(cacheFile, data, 0o600)
		}
	}
	return info, nil
}

// readNodeCache reads cacheFile; anything unreadable is an empty cache.
func readNodeCache(cacheFile string) map[string]NodeInfo {
	out := map[string]NodeInfo{}
	if cacheFile == "" {
		return out
	}
	data, err := os.ReadFile(cacheFile)
	if err != nil || len(data) > 64<<10 || json.Unmarshal(data, &out) != nil {
		return map[string]NodeInfo{}
	}
	return out
}

func askNode(ctx context.Context, node string) (NodeInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	script := `process.stdout.write(JSON.stringify({v: process.versions.node, f: [...process.allowedNodeEnvironmentFlags].filter((f) => f.startsWith('--allow-') || f.endsWith('permission'))}))`
	out, err := exec.CommandContext(ctx, node, "-e", script).Output()
	if err != nil {
		return NodeInfo{}, fmt.Errorf("asking %s for its version: %w", node, err)
	}
	var raw struct {
		V string   `json:"v"`
		F []string `json:"f"`
	}
	if err := json.Unmarshal(out, &raw); err != nil {
		return NodeInfo{}, fmt.Errorf("asking %s for its version: unexpected answer %.80q", node, out)
	}
	info := NodeInfo{Version: raw.V}
	info.Major, _ = strconv.Atoi(strings.SplitN(raw.V, ".", 2)[0])
	switch {
	case slices.Contains(raw.F, "--permission"):
		info.PermissionFlag = "--permission"
	case slices.Contains(raw.F, "--experimental-permission"):
		info.PermissionFlag = "--experimental-permission"
	}
	for _, f := range raw.F {
		if strings.HasPrefix(f, "--allow-") {
			info.Allow = append(info.Allow, f)
		}
	}
	// The model came with Node 20; without --allow-fs-read it is unusable.
	if info.Major < 20 || !slices.Contains(info.Allow, "--allow-fs-read") {
		info.PermissionFlag = ""
	}
	return info, nil
}

// seatBelt returns Node's permission-model flags for g, or none when node
// lacks the model or cannot be asked. private adds bwrap's /tmp and HOME;
// network adds --allow-net where this Node's model covers the network.
func seatBelt(ctx context.Context, node, cacheFile string, g grants, private, network bool) []string {
	info, err := ProbeNode(ctx, node, cacheFile)
	if err != nil || info.PermissionFlag == "" {
		return nil
	}
	a := []string{info.PermissionFlag}
	writes := slices.Clone(g.write)
	if private {
		writes = append(writes, "/tmp", HomeDir)
	}
	writes = outermost(writes)
	for _, r := range outermost(append(slices.Clone(g.read), writes...)) {
		a = append(a, "--allow-fs-read="+r)
	}
	for _, w := range writes {
		a = append(a, "--allow-fs-write="+w)
	}
	extra := []string{"--allow-child-process", "--allow-worker", "--allow-addons"}
	if network {
		extra = append(extra, "--allow-net")
	}
	for _, f := range extra {
		if slices.Contains(info.Allow, f) {
			a = append(a, f)
		}
	}
	return a
}

// outermost returns the paths of l that are not within another (sorted,
// without duplicates): Node 20 aborts on a repeated --allow-fs-read path.
func outermost(l []string) []string {
	sorted := slices.Clone(l)
	slices.Sort(sorted)
	var out []string
	for _, p := range slices.Compact(sorted) {
		if !slices.ContainsFunc(out, func(o string) bool { return within(p, o) }) {
			out = append(out, p)
		}
	}
	return out
}

// LandlockABI is the Landlock ABI version of the running kernel, 0 when
// Landlock is missing or disabled (and on every other OS).
func LandlockABI() int { return landlockABI() }
