package sandbox

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// SandboxExec is macOS's Seatbelt front end, which runs a program under a
// profile written in SBPL.
const SandboxExec = "/usr/bin/sandbox-exec"

// seatbeltSystem are the system paths a Node process reads on macOS: the
// programs and libraries (the dyld shared cache lives under /System), the
// /etc files of name resolution, TLS and time zones, and the time zone
// database. /usr/local and /opt (Homebrew) are not among them: Node's own
// files are allowed one by one.
var seatbeltSystem = []string{
	"/System", "/usr/lib", "/usr/libexec", "/usr/share", "/usr/bin", "/usr/sbin", "/bin", "/sbin",
	"/private/etc", "/private/var/db/timezone", "/private/var/db/dyld", "/Library/Apple/System",
}

// seatbeltProfile returns the Seatbelt profile of spec and the -D
// definitions its (param "…") names take. Every path from outside (the
// package, the working directory, grants, Node's files) travels as a
// parameter, never inside the profile's text, so no path can change the
// profile. The profile denies by default and allows, in this order (the last
// matching rule wins):
//
//   - processes: fork and exec (children run under the same profile),
//     signals and process information within this sandbox only, sysctl reads;
//   - files: the system (seatbeltSystem, /dev/null, /dev/zero, /dev/random,
//     /dev/urandom), Node's executable and its libraries, the package and the
//     read grants (the working directory by default), read; the write grants
//     and the private home and temp (home, tmp), read and write; the
//     metadata of each of their ancestors (Node resolves real paths);
//   - network: IPv4 and IPv6 in and out, and the DNS resolver's socket,
//     unless the policy says NoNetwork; no other Unix socket, no Mach
//     service (so neither the Keychain nor any other daemon);
//   - then denies every hidden path (the data directory) and the user's
//     Keychains folder, even under a grant, and allows back the package,
//     Node's files and the private home and temp, which may lie there.
func seatbeltProfile(spec Spec, g grants, nodeFiles []string, home, tmp string) (profile string, defines []string) {
	var b strings.Builder
	seen := map[string]bool{}
	param := func(prefix string, i int, value string) string {
		name := prefix
		if i >= 0 {
			name = fmt.Sprintf("%s_%d", prefix, i)
		}
		if !seen[name] {
			seen[name] = true
			defines = append(defines, name+"="+value)
		}
		return fmt.Sprintf("(param %q)", name)
	}
	line := func(format string, a ...any) { fmt.Fprintf(&b, format+"\n", a...) }
	filters := func(kind, prefix string, paths []string) string {
		var f []string
		for i, p := range paths {
			f = append(f, fmt.Sprintf("(%s %s)", kind, param(prefix, i, p)))
		}
		return strings.Join(f, " ")
	}

	line("(version 1)")
	line("(deny default)")
	line(";; processes: Node and what it starts, under this same profile")
	line("(allow process-fork)")
	line("(allow process-exec)")
	line("(allow signal (target same-sandbox))")
	line("(allow process-info* (target same-sandbox))")
	line("(allow sysctl-read)")
	line(";; the system")
	for _, s := range seatbeltSystem {
		line("(allow file-read* (subpath %q))", s)
	}
	line(`(allow file-read* (literal "/dev/null") (literal "/dev/zero") (literal "/dev/random") (literal "/dev/urandom"))`)
	line(`(allow file-write-data (literal "/dev/null") (literal "/dev/zero"))`)
	line(`(allow file-read-metadata (literal "/etc") (literal "/tmp") (literal "/var"))`)

	line(";; Node, the package, the grants, a private home and temp")
	nodeRule := fmt.Sprintf("(allow file-read* %s)", filters("literal", "NODE", nodeFiles))
	line("%s", nodeRule)
	reads := append([]string{spec.PackageDir}, g.read[1:]...)
	pkgRule := fmt.Sprintf("(allow file-read* (subpath %s))", param("PACKAGE", -1, spec.PackageDir))
	line("%s", pkgRule)
	if len(reads) > 1 {
		line("(allow file-read* %s)", filters("subpath", "READ", reads[1:]))
	}
	privRule := fmt.Sprintf("(allow file-read* file-write* (subpath %s) (subpath %s))", param("HOME_DIR", -1, home), param("TMP_DIR", -1, tmp))
	line("%s", privRule)
	if len(g.write) > 0 {
		line("(allow file-read* file-write* %s)", filters("subpath", "WRITE", g.write))
	}
	var ancestors []string
	for _, p := range slices.Concat(nodeFiles, reads, g.write, []string{home, tmp}) {
		for d := filepath.Dir(p); d != p; p, d = d, filepath.Dir(d) {
			if !slices.Contains(ancestors, d) {
				ancestors = append(ancestors, d)
			}
		}
	}
	slices.Sort(ancestors)
	metaRule := fmt.Sprintf("(allow file-read-metadata %s)", filters("literal", "ANCESTOR", ancestors))

	line(";; network")
	if spec.Policy.NoNetwork {
		line(";; none (--no-network)")
	} else {
		line(`(allow network-outbound (remote ip "*:*"))`)
		line(`(allow network-inbound (local ip "*:*"))`)
		line(`(allow network-bind (local ip "*:*"))`)
		line(`(allow network-outbound (literal "/private/var/run/mDNSResponder"))`)
		line("(allow system-socket)")
	}

	line(";; never the data directory or the Keychains, even under a grant")
	hidden := slices.Clone(g.hidden)
	if filepath.IsAbs(spec.UserHome) {
		hidden = append(hidden, filepath.Join(spec.UserHome, "Library", "Keychains"))
	}
	if len(hidden) > 0 {
		line("(deny file-read* file-write* %s)", filters("subpath", "HIDDEN", hidden))
	}
	line(";; what lies there and is this extension's own")
	line("%s", metaRule)
	line("%s", nodeRule)
	line("%s", pkgRule)
	line("%s", privRule)
	return b.String(), defines
}

// wrapSeatbelt is Wrap for KindSeatbelt: sandbox-exec with the profile of
// spec around Node, HOME and TMPDIR in the extension's private directory.
func (s Status) wrapSeatbelt(ctx context.Context, spec Spec, g grants, node string) (*Command, error) {
	home, tmp, err := privateDirs(spec)
	if err != nil {
		return nil, err
	}
	profile, defines := seatbeltProfile(spec, g, nodeFiles(node), home, tmp)
	path := s.Path
	if path == "" {
		path = SandboxExec
	}
	args := []string{path, "-p", profile}
	for _, d := range defines {
		args = append(args, "-D", d)
	}
	belt := seatBelt(ctx, node, spec.NodeInfoCache, grants{read: g.read, write: append(slices.Clone(g.write), home, tmp)}, false, !spec.Policy.NoNetwork)
	args = append(append(append(args, node), belt...), spec.NodeArgs...)
	return &Command{Path: path, Args: args, Env: sandboxEnvAt(spec.Env, home, tmp), Dir: spec.PackageDir}, nil
}
