package cli

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"runtime"

	"github.com/spf13/cobra"

	"github.com/spiritagents/spirit/exthost"
	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/internal/termtext"
	"github.com/spiritagents/spirit/sandbox"
)

// DoctorOptions are the inputs of `spirit doctor`.
type DoctorOptions struct{ f *Factory }

func newCmdDoctor(f *Factory, runF func(*DoctorOptions) error) *cobra.Command {
	opts := &DoctorOptions{f: f}
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check the sandbox, Node.js, keyring and data directory extensions run with",
		Long: `Report how extensions would run here: which sandbox is in force (bwrap, or
none and why), the Node.js version and whether its permission model is used,
the secret store in use and why (with a real write, read and delete in it),
the permissions of the data directory (a directory that
others can write lets them replace extensions), and every extension granted
--unsandboxed. Problems are listed as warnings; the exit code is 0 unless the
check itself fails.`,
		Example: "  spirit doctor\n  spirit doctor --json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runDoctor(cmd.Context(), opts)
		},
	}
}

// DoctorReport is the --json output of `doctor`. Its fields are a public contract.
type DoctorReport struct {
	Sandbox sandbox.Status `json:"sandbox"`
	// Confinement is what that sandbox holds for an extension with the
	// default policy, on this OS.
	Confinement sandbox.Confinement `json:"confinement"`
	Node        DoctorNode          `json:"node"`
	Keyring     DoctorKeyring       `json:"keyring"`
	DataDir     string              `json:"dataDir"`
	// Unsandboxed are the extensions granted --unsandboxed.
	Unsandboxed []string `json:"unsandboxed"`
	// Warnings are the problems found, one sentence each.
	Warnings []string `json:"warnings"`
}

// DoctorNode is the Node.js extensions run with.
type DoctorNode struct {
	Path    string `json:"path,omitempty"`
	Version string `json:"version,omitempty"`
	// PermissionModel is the flag of Node's permission model used as a
	// seat belt inside the sandbox, "" when this Node has none.
	PermissionModel string `json:"permissionModel,omitempty"`
	// UnderHome says that Node's executable (links resolved) lies in the
	// user's home directory.
	UnderHome bool   `json:"underHome,omitempty"`
	Error     string `json:"error,omitempty"`
}

// DoctorKeyring is where extension secrets are kept, and whether a secret
// went there and back.
type DoctorKeyring struct {
	// Backend is "system" (Secret Service, KWallet, Keychain or Credential
	// Manager) or "file"; when no store could be opened, the
	// SPIRIT_KEYRING_BACKEND value, or "" without one.
	Backend string `json:"backend"`
	// Store names the store in use: "Secret Service", "file /…/secrets.json".
	Store string `json:"store"`
	// System is the system keyring in use: secret-service, kwallet,
	// keychain or wincred.
	System string `json:"system,omitempty"`
	// Dir and File are the file store's folder and file.
	Dir  string `json:"dir,omitempty"`
	File string `json:"file,omitempty"`
	// Encrypted says the file store encrypts with SPIRIT_KEYRING_PASSWORD.
	Encrypted bool `json:"encrypted"`
	// Reason says why this store.
	Reason string `json:"reason"`
	// RoundTrip says a secret was written, read back and deleted.
	RoundTrip bool `json:"roundTrip"`
	// Error is why the store could not be opened or the round trip failed.
	Error string `json:"error,omitempty"`
}

func runDoctor(ctx context.Context, opts *DoctorOptions) error {
	f := opts.f
	p, err := f.Paths()
	if err != nil {
		return err
	}
	rep := DoctorReport{DataDir: p.DataDir, Unsandboxed: []string{}, Warnings: []string{}}
	warn := func(format string, a ...any) { rep.Warnings = append(rep.Warnings, fmt.Sprintf(format, a...)) }

	rep.Sandbox, err = sandboxStatus(ctx, f)
	if err != nil {
		warn("%v", err)
	} else if rep.Sandbox.Kind == sandbox.KindNone {
		warn("extensions run without a sandbox (%s): they can read your files, spirit's data directory and secrets; install bubblewrap", rep.Sandbox.Reason)
	} else if rep.Sandbox.Kind == sandbox.KindLandlock {
		why := ""
		if rep.Sandbox.Reason != "" {
			why = " (" + rep.Sandbox.Reason + ")"
		}
		warn("extensions run under Landlock only%s: no private /proc or process namespace, and they see every process's command line; install bubblewrap for the full sandbox", why)
	} else if rep.Sandbox.Kind == sandbox.KindNode {
		warn("no OS sandbox confines extensions' files here: Node's permission model is a seat belt, not a boundary (a child process is outside it); grant --unsandboxed to nothing you would not run yourself")
	}
	rep.Confinement = sandbox.Describe(rep.Sandbox, sandbox.Policy{}, runtime.GOOS)
	if rep.Sandbox.Kind == sandbox.KindBwrap && !rep.Confinement.HostSockets.Confined {
		warn("host sockets: %s", rep.Confinement.HostSockets.Detail)
	}

	rep.Node = doctorNode(ctx, f)
	if rep.Node.Error != "" {
		warn("Node.js: %s", rep.Node.Error)
	}
	if rep.Node.UnderHome {
		warn("Node.js %s lives in your home directory: the sandbox shows extensions only its executable and libraries, never the folder around it, but an extension granted write access there could replace the Node every extension runs with; install Node.js outside your home, or point SPIRIT_NODE at one", rep.Node.Path)
	}

	rep.Keyring, err = secretRoundTrip(f, p.DataDir)
	if err != nil {
		rep.Keyring.Error = err.Error()
		if rep.Keyring.Backend == "" {
			rep.Keyring.Backend = strings.TrimSpace(f.Getenv("SPIRIT_KEYRING_BACKEND"))
		}
		warn("secrets cannot be kept: %v", err)
	}
	if rep.Keyring.Backend == exthost.StoreFile {
		if rep.Keyring.Encrypted && f.Getenv("SPIRIT_KEYRING_PASSWORD") != "" {
			warn("the file store's password is in spirit's environment (SPIRIT_KEYRING_PASSWORD); any process of yours that can read spirit's environment can open the store")
		}
		if fi, err := os.Stat(rep.Keyring.File); err == nil && fi.Mode().Perm()&0o077 != 0 {
			warn("%s is readable or writable by group or others (mode %04o); run chmod 600 %s", rep.Keyring.File, fi.Mode().Perm(), rep.Keyring.File)
		}
	}

	for _, d := range []string{p.DataDir, p.ExtensionsDir(), p.SpiritDir(), p.StateDir(), keyringDir(p.DataDir)} {
		fi, err := os.Stat(d)
		if err != nil {
			continue
		}
		if fi.Mode().Perm()&0o022 != 0 {
			warn("%s is writable by group or others (mode %04o): they can change installed extensions or their settings; run chmod go-w %s", d, fi.Mode().Perm(), d)
		}
	}
	for _, file := range []string{p.MCPTokenFile(), install.PermissionsFile(p)} {
		if fi, err := os.Stat(file); err == nil && fi.Mode().Perm()&0o077 != 0 {
			warn("%s is readable or writable by group or others (mode %04o); run chmod 600 %s", file, fi.Mode().Perm(), file)
		}
	}

	all, err := install.AllPermissions(p)
	if err != nil {
		warn("%v", err)
	}
	for id, pol := range all {
		if pol.Unsandboxed {
			rep.Unsandboxed = append(rep.Unsandboxed, id)
		}
	}
	slices.Sort(rep.Unsandboxed)
	for _, id := range rep.Unsandboxed {
		warn("%s runs without a sandbox (granted --unsandboxed); undo with: spirit extension permissions %s --reset", id, id)
	}

	if f.Global.JSON {
		return writeJSON(f.IO.Out, rep)
	}
	w := f.IO.Out
	switch rep.Sandbox.Kind {
	case sandbox.KindBwrap:
		fmt.Fprintf(w, "sandbox: bwrap (%s, %s)\n", rep.Sandbox.Path, rep.Sandbox.Version)
	case sandbox.KindLandlock, sandbox.KindSeatbelt:
		if rep.Sandbox.Reason != "" {
			fmt.Fprintf(w, "sandbox: %s (%s; %s)\n", rep.Sandbox.Kind, rep.Sandbox.Version, rep.Sandbox.Reason)
		} else {
			fmt.Fprintf(w, "sandbox: %s (%s)\n", rep.Sandbox.Kind, rep.Sandbox.Version)
		}
	default:
		fmt.Fprintf(w, "sandbox: %s (%s)\n", rep.Sandbox.Kind, rep.Sandbox.Reason)
	}
	printConfinement(w, "with the default policy, extensions' ", rep.Confinement)
	switch {
	case rep.Node.Error != "":
		fmt.Fprintf(w, "node: %s\n", rep.Node.Error)
	case rep.Node.PermissionModel != "":
		fmt.Fprintf(w, "node: %s %s (permission model %s)\n", rep.Node.Path, rep.Node.Version, rep.Node.PermissionModel)
	default:
		fmt.Fprintf(w, "node: %s %s (no permission model)\n", rep.Node.Path, rep.Node.Version)
	}
	switch {
	case rep.Keyring.Error != "" && rep.Keyring.Store == "":
		termtext.Fprintf(w, "keyring: none (%s)\n", rep.Keyring.Error)
	case rep.Keyring.Error != "" && rep.Keyring.Reason == "":
		termtext.Fprintf(w, "keyring: %s; round trip failed: %s\n", rep.Keyring.Store, rep.Keyring.Error)
	case rep.Keyring.Error != "":
		termtext.Fprintf(w, "keyring: %s (%s); round trip failed: %s\n", rep.Keyring.Store, rep.Keyring.Reason, rep.Keyring.Error)
	default:
		termtext.Fprintf(w, "keyring: %s (%s); round trip ok\n", rep.Keyring.Store, rep.Keyring.Reason)
	}
	fmt.Fprintf(w, "data directory: %s\n", rep.DataDir)
	fmt.Fprintf(w, "unsandboxed extensions: %s\n", listOrNone(rep.Unsandboxed))
	for _, m := range rep.Warnings {
		fmt.Fprintf(f.IO.ErrOut, "warning: %s\n", m)
	}
	return nil
}

// doctorNode finds Node.js as the runtime does (SPIRIT_NODE, else node on
// PATH) and asks it for its version.
func doctorNode(ctx context.Context, f *Factory) DoctorNode {
	name := strings.TrimSpace(f.Getenv("SPIRIT_NODE"))
	if name == "" {
		name = "node"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return DoctorNode{Error: fmt.Sprintf("%s not found; install Node.js 18 or later, or set SPIRIT_NODE", name)}
	}
	info, err := sandbox.ProbeNode(ctx, path, "")
	if err != nil {
		return DoctorNode{Path: path, Error: err.Error()}
	}
	n := DoctorNode{Path: path, Version: info.Version, PermissionModel: info.PermissionFlag}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		n.Path = real
		home := strings.TrimSpace(f.Getenv("HOME"))
		if realHome, err := filepath.EvalSymlinks(home); err == nil {
			home = realHome
		}
		n.UnderHome = filepath.IsAbs(home) && home != "/" && strings.HasPrefix(real, home+string(filepath.Separator))
	}
	if info.Major < 18 {
		n.Error = fmt.Sprintf("%s is Node.js %s; 18 or later is needed", path, info.Version)
	}
	return n
}

// printConfinement writes c, one aspect a line, after a heading.
func printConfinement(w io.Writer, heading string, c sandbox.Confinement) {
	fmt.Fprintf(w, "%sconfinement:\n", heading)
	for _, a := range []struct {
		name string
		a    sandbox.Aspect
	}{{"files", c.Files}, {"processes", c.Processes}, {"network", c.Network}, {"other extensions", c.OtherExtensions}, {"host sockets", c.HostSockets}} {
		switch {
		case a.a.Confined:
			fmt.Fprintf(w, "  %s: confined by %s: %s\n", a.name, a.a.By, a.a.Detail)
		case a.a.By != "":
			fmt.Fprintf(w, "  %s: not confined (%s): %s\n", a.name, a.a.By, a.a.Detail)
		default:
			fmt.Fprintf(w, "  %s: not confined: %s\n", a.name, a.a.Detail)
		}
	}
}
