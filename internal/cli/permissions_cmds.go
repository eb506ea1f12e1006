package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/spf13/cobra"

	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/sandbox"
)

// PermissionsOptions are the inputs of `spirit extension permissions`.
type PermissionsOptions struct {
	f           *Factory
	ID          string
	AllowRead   []string
	AllowWrite  []string
	Env         []string
	NoNetwork   bool
	NoCwd       bool
	Unsandboxed bool
	Reset       bool
	changed     bool
}

func newCmdPermissions(f *Factory, runF func(*PermissionsOptions) error) *cobra.Command {
	opts := &PermissionsOptions{f: f}
	cmd := &cobra.Command{
		Use:   "permissions ID",
		Short: "Show or grant what an extension may reach outside its sandbox",
		Long: `Show an extension's effective sandbox policy, or grant it more.

By default an extension runs in the OS sandbox (see 'spirit doctor') with the
network, read-only access to the current working directory, and nothing else
of your files: not your home, not the data directory, not other extensions'
settings, not the keyring. Flags add grants to the ones stored; --reset first
goes back to the default. Paths are made absolute. Grants are kept in spirit's
records (.spirit/permissions.json of the host) and shown by 'info' and 'list'.

--env passes a variable of spirit's environment to the extension as it is
(only the name is stored). --unsandboxed runs the extension with no sandbox
at all; use it only for an extension you trust with everything you can read.`,
		Example: `  spirit extension permissions my-ext
  spirit extension permissions my-ext --allow-read ~/notes --allow-write ~/notes/out
  spirit extension permissions my-ext --env GITHUB_TOKEN --no-network
  spirit extension permissions my-ext --reset --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = strings.TrimSpace(args[0])
			opts.changed = (opts.Reset || opts.NoNetwork || opts.NoCwd || opts.Unsandboxed ||
				len(opts.AllowRead)+len(opts.AllowWrite)+len(opts.Env) > 0)
			if runF != nil {
				return runF(opts)
			}
			return runPermissions(cmd.Context(), opts)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&opts.AllowRead, "allow-read", nil, "let the extension read PATH (repeatable)")
	fl.StringArrayVar(&opts.AllowWrite, "allow-write", nil, "let the extension read and write PATH (repeatable)")
	fl.StringArrayVar(&opts.Env, "env", nil, "pass the variable NAME of spirit's environment (repeatable)")
	fl.BoolVar(&opts.NoNetwork, "no-network", false, "cut the extension off the network")
	fl.BoolVar(&opts.NoCwd, "no-cwd", false, "withhold the default read access to the working directory")
	fl.BoolVar(&opts.Unsandboxed, "unsandboxed", false, "run the extension without any sandbox")
	fl.BoolVar(&opts.Reset, "reset", false, "drop every grant (back to the default policy) before adding these")
	return cmd
}

// PermissionsReport is the --json output of `permissions`. Its fields are a public contract.
type PermissionsReport struct {
	ID string `json:"id"`
	// Sandbox is the sandbox this extension runs in from here: bwrap or none.
	Sandbox string `json:"sandbox"`
	// Reason says why it runs unconfined.
	Reason string `json:"reason,omitempty"`
	// Policy is the stored grants (empty for the default policy).
	Policy sandbox.Policy `json:"policy"`
	// Network says whether it reaches the network.
	Network bool `json:"network"`
	// Read and Write are the paths it may read, and read and write, when
	// run from the current directory; its own package comes first.
	Read  []string `json:"read"`
	Write []string `json:"write"`
	// Env are the variables passed besides the default ones.
	Env []string `json:"env"`
	// Confinement is what the sandbox holds for this extension, on this OS.
	Confinement sandbox.Confinement `json:"confinement"`
}

func runPermissions(ctx context.Context, opts *PermissionsOptions) error {
	f := opts.f
	p, err := f.Paths()
	if err != nil {
		return err
	}
	ext, err := lookupInstalled(ctx, f, opts.ID)
	if err != nil {
		return err
	}
	pol, err := install.Permissions(p, ext.ID)
	if err != nil {
		return withHint(err, "fix or delete the file, then set the grants again")
	}
	if opts.changed {
		if opts.Reset {
			pol = sandbox.Policy{}
		}
		for _, r := range opts.AllowRead {
			abs, err := absPath(r)
			if err != nil {
				return err
			}
			pol.Read = append(pol.Read, abs)
		}
		for _, w := range opts.AllowWrite {
			abs, err := absPath(w)
			if err != nil {
				return err
			}
			pol.Write = append(pol.Write, abs)
		}
		pol.Env = append(pol.Env, opts.Env...)
		pol.NoNetwork = pol.NoNetwork || opts.NoNetwork
		pol.NoWorkDir = pol.NoWorkDir || opts.NoCwd
		pol.Unsandboxed = pol.Unsandboxed || opts.Unsandboxed
		clean, err := pol.Clean()
		if err == nil {
			err = clean.CheckHidden(hiddenPaths(f, p))
		}
		if err != nil {
			return usageErrorf("%v", err)
		}
		in := &install.Installer{Paths: p}
		if pol, err = in.SetPermissions(ctx, ext.ID, pol); err != nil {
			return err
		}
	}
	st, err := sandboxStatus(ctx, f)
	if err != nil {
		return err
	}
	rep := permissionsReport(f, ext, pol, st)
	if f.Global.JSON {
		return writeJSON(f.IO.Out, rep)
	}
	w := f.IO.Out
	fmt.Fprintf(w, "id: %s\n", rep.ID)
	if rep.Reason != "" {
		fmt.Fprintf(w, "sandbox: %s (%s)\n", rep.Sandbox, rep.Reason)
	} else {
		fmt.Fprintf(w, "sandbox: %s\n", rep.Sandbox)
	}
	switch {
	case !rep.Network:
		fmt.Fprintf(w, "network: denied\n")
	case rep.Policy.NoNetwork:
		fmt.Fprintf(w, "network: allowed (%s)\n", rep.Confinement.Network.Detail)
	default:
		fmt.Fprintf(w, "network: allowed\n")
	}
	fmt.Fprintf(w, "read: %s\n", listOrNone(rep.Read))
	fmt.Fprintf(w, "write: %s\n", listOrNone(rep.Write))
	fmt.Fprintf(w, "env: %s\n", listOrNone(rep.Env))
	printConfinement(w, "", rep.Confinement)
	return nil
}

func permissionsReport(f *Factory, ext *install.Installed, pol sandbox.Policy, st sandbox.Status) PermissionsReport {
	conf := sandbox.Describe(st, pol, runtime.GOOS)
	rep := PermissionsReport{ID: ext.ID, Sandbox: string(st.Kind), Reason: st.Reason, Policy: pol,
		Network: !conf.Network.Confined, Write: []string{}, Env: []string{}, Confinement: conf}
	if pol.Unsandboxed && st.Kind != sandbox.KindNone {
		rep.Sandbox, rep.Reason = string(sandbox.KindNone), "granted --unsandboxed"
	}
	if rep.Sandbox == string(sandbox.KindNone) {
		rep.Read, rep.Write = []string{"(everything you can read)"}, []string{"(everything you can write)"}
	} else {
		p, _ := f.Paths()
		wd, _ := os.Getwd()
		rep.Read = sandbox.EffectiveReads(sandbox.Spec{PackageDir: ext.Dir, WorkDir: wd, UserHome: f.Getenv("HOME"),
			Hidden: hiddenPaths(f, p), Policy: pol})
		rep.Write = append(rep.Write, pol.Write...)
	}
	rep.Env = append(rep.Env, pol.Env...)
	return rep
}

func absPath(s string) (string, error) {
	if strings.TrimSpace(s) == "" {
		return "", usageErrorf("an empty path cannot be granted")
	}
	abs, err := filepath.Abs(s)
	if err != nil {
		return "", usageErrorf("cannot make %q absolute: %v", s, err)
	}
	return abs, nil
}

func listOrNone(l []string) string {
	if len(l) == 0 {
		return "(none)"
	}
	return strings.Join(l, ", ")
}
