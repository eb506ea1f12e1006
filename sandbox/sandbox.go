// Package sandbox confines an extension's Node.js process to what it has
// been granted.
//
// On Linux the process runs inside bubblewrap (bwrap): new user (where
// possible), PID, IPC, UTS and mount namespaces, no capabilities (also when
// spirit runs as root), --die-with-parent and --new-session. The filesystem it sees is only:
//
//   - the system directories Node needs, read-only: /usr, the /bin, /sbin and
//     /lib* links or directories, and the few /etc files name resolution, TLS
//     and time zones read (resolv.conf, hosts, nsswitch.conf, passwd, group,
//     ssl certificates, localtime…);
//   - Node itself: its executable and the shared libraries it loads from
//     outside the system directories, file by file, read-only (never the
//     directory it was installed in, which may be ~/.local or ~);
//   - the extension's own package directory, read-only (and its working
//     directory);
//   - a private /tmp and a private, empty HOME (/home/extension), both tmpfs;
//   - a new /proc of its own PID namespace and a minimal /dev;
//   - what the policy grants: the current working directory read-only by
//     default, and each --allow-read (read-only) and --allow-write path.
//
// The data directory (the install tree, settings of every extension, the
// file keyring, mcp.token, logs) is never visible, even under a granted
// path: it is covered by an empty tmpfs, and only the package directory is
// bound back. The default grant of the working directory is dropped when the
// working directory is /, the user's home or one of its ancestors, or holds
// the data directory, so running spirit from ~ does not hand out ~.
//
// Network is shared unless the policy says NoNetwork (then --unshare-net).
// The environment of the process is the one the caller passes (bwrap keeps
// its own environment for the child), with HOME and TMPDIR pointed into the
// sandbox. Inherited file descriptors (the runner's fd 3 and 4) pass through.
//
// Where bwrap runs with the network namespace shared and the kernel has
// Landlock ABI 6, spirit execs it under Landlock's scoping (ExecCommand
// --scope), so the host's abstract Unix sockets and signals to processes
// outside stay out of reach. Without bubblewrap, Landlock (KindLandlock)
// keeps the same file rules. On macOS, Seatbelt (KindSeatbelt) runs Node
// under a profile made from the same grants; where no OS sandbox exists
// (Windows), Node's permission model alone (KindNode) applies them, a seat
// belt only. Describe says what each holds.
//
// Node's own permission model (--permission, or --experimental-permission
// on a Node that only knows that one; found by asking node) is added as a
// seat belt with
// the same file rules; child processes, workers and native addons stay
// allowed (they are confined by the OS sandbox), so it guards Node's fs API
// only. Where no OS sandbox can run, extensions run unconfined and the caller
// is told why (Status.Reason).
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Kind names the mechanism that confines extensions.
type Kind string

// The kinds of sandbox.
const (
	// KindBwrap is bubblewrap: namespaces and a filesystem of its own.
	KindBwrap Kind = "bwrap"
	// KindLandlock is Landlock, applied by a re-exec of spirit (ExecCommand)
	// before it execs Node: the same file rules, no namespaces.
	KindLandlock Kind = "landlock"
	// KindSeatbelt is macOS's Seatbelt: sandbox-exec with a profile made
	// from the same policy (see seatbeltProfile).
	KindSeatbelt Kind = "seatbelt"
	// KindNode is Node's permission model alone, with the same file rules
	// (where no OS sandbox exists for it: Windows). A seat belt, not a
	// boundary: a child process is outside it.
	KindNode Kind = "node"
	// KindNone means extensions run unconfined.
	KindNone Kind = "none"
)

// ExecCommand is spirit's hidden command that applies Landlock and execs
// Node (see Exec); the command line must route it to Exec.
const ExecCommand = "__sandbox-exec"

// HomeDir is the private, empty home directory extensions see under bwrap.
const HomeDir = "/home/extension"

// EnvMode is the variable that chooses the sandbox: "auto" or empty (the
// strongest available), "bwrap" or "landlock" (fail when it cannot run), or
// "none" (run unconfined, for debugging).
const EnvMode = "SPIRIT_SANDBOX"

// ErrUnavailable is returned when a sandbox was required but cannot run.
var ErrUnavailable = errors.New("sandbox unavailable")

// ErrBadMode is an EnvMode value that is not auto, bwrap or none.
var ErrBadMode = errors.New("unknown sandbox mode")

// Policy is what one extension may reach beyond its own package. The zero
// value is the default policy: network allowed, the working directory
// read-only, nothing else of the user's files.
type Policy struct {
	// Read are extra paths the extension may read.
	Read []string `json:"read,omitempty"`
	// Write are paths the extension may read and write.
	Write []string `json:"write,omitempty"`
	// Env are names of variables of spirit's environment passed to the
	// extension as they are.
	Env []string `json:"env,omitempty"`
	// NoNetwork cuts the extension off the network (a new network namespace).
	NoNetwork bool `json:"noNetwork,omitempty"`
	// NoWorkDir withholds the default read-only grant of the working directory.
	NoWorkDir bool `json:"noWorkDir,omitempty"`
	// Unsandboxed runs the extension without any sandbox.
	Unsandboxed bool `json:"unsandboxed,omitempty"`
}

// IsDefault reports whether p grants nothing beyond the default policy.
func (p Policy) IsDefault() bool {
	return len(p.Read) == 0 && len(p.Write) == 0 && len(p.Env) == 0 && !p.NoNetwork && !p.NoWorkDir && !p.Unsandboxed
}

// Summary is a one-line description of p, as list and info show it.
func (p Policy) Summary() string {
	if p.Unsandboxed {
		return "unsandboxed"
	}
	var parts []string
	if p.NoNetwork {
		parts = append(parts, "no network")
	} else {
		parts = append(parts, "network")
	}
	if !p.NoWorkDir {
		parts = append(parts, "read cwd")
	}
	for _, r := range p.Read {
		parts = append(parts, "read "+r)
	}
	for _, w := range p.Write {
		parts = append(parts, "write "+w)
	}
	for _, e := range p.Env {
		parts = append(parts, "env "+e)
	}
	return strings.Join(parts, ", ")
}

// Clean checks p's paths and names: paths must be absolute (they are
// cleaned), names must be variable names. Duplicates are dropped.
func (p Policy) Clean() (Policy, error) {
	out := p
	var err error
	if out.Read, err = cleanPaths(p.Read); err != nil {
		return Policy{}, err
	}
	if out.Write, err = cleanPaths(p.Write); err != nil {
		return Policy{}, err
	}
	out.Env = nil
	for _, n := range p.Env {
		if !validEnvName(n) {
			return Policy{}, &PolicyError{Field: "env", Value: n, Message: "not a variable name (letters, digits and _, not starting with a digit)"}
		}
		if !slices.Contains(out.Env, n) {
			out.Env = append(out.Env, n)
		}
	}
	return out, nil
}

func cleanPaths(in []string) ([]string, error) {
	var out []string
	for _, p := range in {
		if p == "" || !filepath.IsAbs(p) || strings.ContainsRune(p, 0) {
			return nil, &PolicyError{Field: "path", Value: p, Message: "must be an absolute path"}
		}
		p = filepath.Clean(p)
		if !slices.Contains(out, p) {
			out = append(out, p)
		}
	}
	return out, nil
}

func validEnvName(n string) bool {
	if n == "" || len(n) > 256 || (n[0] >= '0' && n[0] <= '9') {
		return false
	}
	for _, c := range n {
		if c != '_' && (c < 'A' || c > 'Z') && (c < 'a' || c > 'z') && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// PolicyError is a grant that cannot be kept.
type PolicyError struct {
	Field, Value, Message string
}

func (e *PolicyError) Error() string {
	return fmt.Sprintf("invalid %s grant %q: %s", e.Field, e.Value, e.Message)
}

// Spec is one process to confine.
type Spec struct {
	// ID names the extension in messages.
	ID string
	// Node is the Node.js executable and NodeArgs its arguments.
	Node     string
	NodeArgs []string
	// Env is the environment the process gets (HOME and TMPDIR are replaced).
	Env []string
	// PackageDir is the extension's own directory, read-only and the
	// working directory of the process.
	PackageDir string
	// WorkDir is spirit's working directory, granted read-only by default.
	WorkDir string
	// UserHome is the user's home directory; the default grant never
	// covers it.
	UserHome string
	// Hidden are paths never visible inside the sandbox, even under a
	// granted path (the data directory).
	Hidden []string
	// Policy is the extension's grants.
	Policy Policy
	// PrivateDir is a directory of this extension's own where Landlock
	// keeps its HOME and TMPDIR (bwrap uses tmpfs instead).
	PrivateDir string
	// NodeInfoCache is a file where what Node supports is kept between
	// runs ("" asks Node every time).
	NodeInfoCache string
}

// Command is a confined command: run Path with Args (Args[0] included),
// Env and Dir, keeping the caller's extra files.
type Command struct {
	Path string
	Args []string
	Env  []string
	Dir  string
}

// Wrap returns the command that runs spec inside the sandbox of s. With
// KindNone (or an Unsandboxed policy) it is Node itself, unchanged.
func (s Status) Wrap(ctx context.Context, spec Spec) (*Command, error) {
	if s.Kind == KindNone || spec.Policy.Unsandboxed {
		return &Command{Path: spec.Node, Args: append([]string{spec.Node}, spec.NodeArgs...), Env: spec.Env, Dir: spec.PackageDir}, nil
	}
	node, err := filepath.EvalSymlinks(spec.Node)
	if err != nil {
		return nil, fmt.Errorf("sandbox for %s: resolving node %s: %w", spec.ID, spec.Node, err)
	}
	g := grantsOf(spec)
	if err := g.checkHidden(); err != nil {
		return nil, err
	}
	switch s.Kind {
	case KindLandlock:
		return s.wrapLandlock(ctx, spec, g, node)
	case KindSeatbelt:
		return s.wrapSeatbelt(ctx, spec, g, node)
	case KindNode:
		return wrapNode(ctx, spec, g, node)
	}
	path, args := s.Path, []string{s.Path}
	// With the network namespace shared, the host's abstract Unix sockets
	// (an X11 server, a D-Bus, an agent) would be one connect away:
	// Landlock's scoping, applied by spirit before it execs bwrap, keeps
	// them (and signals to processes outside) out of reach.
	if s.Scoper != "" && !spec.Policy.NoNetwork {
		path, args = s.Scoper, []string{"spirit", ExecCommand, "--scope", "--", s.Path}
	}
	args = append(args, bwrapArgs(spec, g, node)...)
	args = append(args, "--", node)
	args = append(args, seatBelt(ctx, node, spec.NodeInfoCache, g, true, !spec.Policy.NoNetwork)...)
	args = append(args, spec.NodeArgs...)
	return &Command{Path: path, Args: args, Env: sandboxEnv(spec.Env), Dir: spec.PackageDir}, nil
}

// grants are the resolved file rules of one process.
type grants struct {
	read, write []string // as granted (read includes the package dir and cwd)
	hidden      []string
}

func grantsOf(spec Spec) grants {
	g := grants{read: []string{spec.PackageDir}}
	if !spec.Policy.NoWorkDir && defaultWorkDirOK(spec.WorkDir, spec.UserHome, spec.Hidden) {
		g.read = append(g.read, filepath.Clean(spec.WorkDir))
	}
	g.read = append(g.read, spec.Policy.Read...)
	g.write = append(g.write, spec.Policy.Write...)
	for _, h := range spec.Hidden {
		if h != "" {
			g.hidden = append(g.hidden, filepath.Clean(h))
		}
	}
	return g
}

// CheckHidden returns a *PolicyError when a path p grants lies inside one
// of hidden (which Wrap refuses too).
func (p Policy) CheckHidden(hidden []string) error {
	return grants{read: append([]string{""}, p.Read...), write: p.Write, hidden: hidden}.checkHidden()
}

// checkHidden refuses a grant inside a hidden path: the data directory
// stays out of reach whatever is granted.
func (g grants) checkHidden() error {
	for _, p := range append(slices.Clone(g.read[1:]), g.write...) {
		for _, h := range g.hidden {
			if within(p, h) {
				return &PolicyError{Field: "path", Value: p, Message: "lies in " + h + ", which extensions never see"}
			}
		}
	}
	return nil
}

// defaultWorkDirOK says whether the working directory may be granted by
// default: not /, not the home directory or above it, not holding or inside
// a hidden path.
func defaultWorkDirOK(wd, home string, hidden []string) bool {
	if wd == "" || !filepath.IsAbs(wd) {
		return false
	}
	wd = filepath.Clean(wd)
	if wd == "/" || (home != "" && within(filepath.Clean(home), wd)) {
		return false
	}
	for _, h := range hidden {
		if h != "" && (within(h, wd) || within(wd, h)) {
			return false
		}
	}
	return true
}

// within reports whether p is dir or below it.
func within(p, dir string) bool {
	if dir == "/" {
		return true
	}
	return p == dir || strings.HasPrefix(p, dir+string(filepath.Separator))
}

// EffectiveReads returns the paths a process of spec may read, in order: its
// package, the working directory when granted by default, then grants.
func EffectiveReads(spec Spec) []string { return grantsOf(spec).read }

// systemEtc are the /etc entries Node and the C library read for name
// resolution, TLS and time.
var systemEtc = []string{
	"/etc/resolv.conf", "/etc/hosts", "/etc/host.conf", "/etc/gai.conf", "/etc/nsswitch.conf",
	"/etc/passwd", "/etc/group", "/etc/localtime", "/etc/timezone", "/etc/ssl", "/etc/ca-certificates",
	"/etc/pki", "/etc/crypto-policies", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
	"/etc/alternatives", "/etc/os-release", "/etc/mime.types",
}

// systemTop are the top-level links or directories of the system's programs
// and libraries.
var systemTop = []string{"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}

func bwrapArgs(spec Spec, g grants, node string) []string {
	a := []string{
		"--unshare-user-try", "--unshare-ipc", "--unshare-pid", "--unshare-uts", "--unshare-cgroup-try",
		"--die-with-parent", "--new-session", "--cap-drop", "ALL",
	}
	if spec.Policy.NoNetwork {
		a = append(a, "--unshare-net")
	}
	a = append(a, "--ro-bind", "/usr", "/usr")
	for _, top := range systemTop {
		fi, err := os.Lstat(top)
		switch {
		case err != nil:
		case fi.Mode()&os.ModeSymlink != 0:
			if target, err := os.Readlink(top); err == nil {
				a = append(a, "--symlink", target, top)
			}
		case fi.IsDir():
			a = append(a, "--ro-bind", top, top)
		}
	}
	for _, e := range systemEtc {
		a = append(a, "--ro-bind-try", e, e)
	}
	a = append(a, "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", HomeDir)
	for _, r := range g.read[1:] {
		a = append(a, "--ro-bind-try", r, r)
	}
	for _, w := range g.write {
		a = append(a, "--bind-try", w, w)
	}
	// Cover the hidden paths that a grant exposed, then bind Node's files
	// and the package back (the package lives in the data directory).
	for _, h := range g.hidden {
		if exposed(h, g) {
			a = append(a, "--tmpfs", h)
		}
	}
	for _, f := range nodeFiles(node) {
		if !isSystemPath(f) {
			a = append(a, "--ro-bind", f, f)
		}
	}
	a = append(a, "--ro-bind", spec.PackageDir, spec.PackageDir, "--chdir", spec.PackageDir)
	return a
}

// exposed reports whether a grant (other than the package) reaches into h.
func exposed(h string, g grants) bool {
	for _, p := range append(slices.Clone(g.read[1:]), g.write...) {
		if within(h, p) {
			return true
		}
	}
	return false
}

func (s Status) wrapLandlock(ctx context.Context, spec Spec, g grants, node string) (*Command, error) {
	home, tmp, err := privateDirs(spec)
	if err != nil {
		return nil, err
	}
	opts, err := landlockArgs(spec, g, node, home, tmp)
	if err != nil {
		return nil, err
	}
	belt := seatBelt(ctx, node, spec.NodeInfoCache, grants{read: g.read, write: append(slices.Clone(g.write), home, tmp)}, false, !spec.Policy.NoNetwork)
	args := append([]string{"spirit", ExecCommand}, opts...)
	args = append(append(append(args, "--", node), belt...), spec.NodeArgs...)
	return &Command{Path: s.Path, Args: args, Env: sandboxEnvAt(spec.Env, home, tmp), Dir: spec.PackageDir}, nil
}

// wrapNode is Wrap for KindNode: Node with its permission model over the
// same file rules, HOME and TMPDIR in the extension's private directory.
// A Node without the model runs as it is.
func wrapNode(ctx context.Context, spec Spec, g grants, node string) (*Command, error) {
	home, tmp, err := privateDirs(spec)
	if err != nil {
		return nil, err
	}
	belt := seatBelt(ctx, node, spec.NodeInfoCache, grants{read: g.read, write: append(slices.Clone(g.write), home, tmp)}, false, !spec.Policy.NoNetwork)
	args := append(append([]string{node}, belt...), spec.NodeArgs...)
	return &Command{Path: node, Args: args, Env: sandboxEnvAt(spec.Env, home, tmp), Dir: spec.PackageDir}, nil
}

// privateDirs makes the extension's own HOME and TMPDIR in spec.PrivateDir
// (Landlock, Seatbelt and Node's model; bwrap uses tmpfs instead).
func privateDirs(spec Spec) (home, tmp string, err error) {
	if !filepath.IsAbs(spec.PrivateDir) {
		return "", "", fmt.Errorf("sandbox for %s: a private directory is needed", spec.ID)
	}
	home, tmp = filepath.Join(spec.PrivateDir, "home"), filepath.Join(spec.PrivateDir, "tmp")
	for _, d := range []string{home, tmp} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return "", "", fmt.Errorf("sandbox for %s: %w", spec.ID, err)
		}
	}
	return home, tmp, nil
}

// sandboxEnv is env with HOME and TMPDIR pointed into the sandbox.
func sandboxEnv(env []string) []string { return sandboxEnvAt(env, HomeDir, "/tmp") }

// sandboxEnvAt is env with HOME and TMPDIR replaced.
func sandboxEnvAt(env []string, home, tmp string) []string {
	out := make([]string, 0, len(env)+2)
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if name == "HOME" || name == "TMPDIR" {
			continue
		}
		out = append(out, kv)
	}
	return append(out, "HOME="+home, "TMPDIR="+tmp)
}
