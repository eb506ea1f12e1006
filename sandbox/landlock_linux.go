//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"syscall"

	seccomp "github.com/elastic/go-seccomp-bpf"
	"github.com/landlock-lsm/go-landlock/landlock"
	"golang.org/x/sys/unix"
)

// landlockABI returns the Landlock ABI version of the running kernel, 0
// when Landlock is missing or disabled.
func landlockABI() int {
	const createRulesetVersion = 1 // LANDLOCK_CREATE_RULESET_VERSION
	v, _, errno := unix.Syscall(unix.SYS_LANDLOCK_CREATE_RULESET, 0, 0, createRulesetVersion)
	if errno != 0 {
		return 0
	}
	return int(v)
}

// Exec is the entry of spirit's re-exec under Landlock (the hidden command
// ExecCommand): it restricts this process to the paths in args, then
// replaces itself with the program after "--". args are the options
// ExecArgs wrote:
//
//	--ro PATH     read (and execute) PATH
//	--rw PATH     read and write PATH
//	--scope       only scope abstract Unix sockets and signals to this
//	              domain (ABI 6), nothing else: bubblewrap runs under it
//	--no-network  refuse every socket but Unix and netlink ones (seccomp;
//	              TCP also by Landlock from ABI 4)
//	-- PROGRAM ARGS…
//
// Missing paths are skipped. It returns only on failure.
func Exec(args []string) error {
	var ro, rw []string
	noNet, scopeOnly := false, false
	i := 0
	for ; i < len(args) && args[i] != "--"; i++ {
		switch args[i] {
		case "--ro", "--rw":
			if i+1 >= len(args) || !filepath.IsAbs(args[i+1]) {
				return fmt.Errorf("sandbox exec: %s needs an absolute path", args[i])
			}
			if args[i] == "--ro" {
				ro = append(ro, args[i+1])
			} else {
				rw = append(rw, args[i+1])
			}
			i++
		case "--no-network":
			noNet = true
		case "--scope":
			scopeOnly = true
		default:
			return fmt.Errorf("sandbox exec: unknown option %q", args[i])
		}
	}
	if i+1 >= len(args) {
		return errors.New("sandbox exec: no program after --")
	}
	prog := args[i+1:]
	// Capabilities are per thread, and this thread is the one that execs.
	runtime.LockOSThread()
	abi := landlockABI()
	if abi < 1 {
		return fmt.Errorf("%w: Landlock is not enabled in this kernel", ErrUnavailable)
	}
	if scopeOnly {
		return execScoped(abi, prog)
	}
	var rules []landlock.Rule
	for _, p := range ro {
		rules = append(rules, pathRule(p, false))
	}
	for _, p := range rw {
		rules = append(rules, pathRule(p, true))
	}
	// V9 adds connecting to Unix sockets by path (the D-Bus session bus);
	// older kernels get what they support.
	cfg := landlock.V9.BestEffort()
	if err := cfg.RestrictPaths(rules...); err != nil {
		return fmt.Errorf("sandbox exec: Landlock paths: %w", err)
	}
	// Signals and abstract Unix sockets towards processes outside (ABI 6).
	if err := cfg.RestrictScoped(); err != nil {
		return fmt.Errorf("sandbox exec: Landlock scopes: %w", err)
	}
	if noNet && abi >= 4 {
		if err := landlock.V4.RestrictNet(); err != nil {
			return fmt.Errorf("sandbox exec: Landlock network: %w", err)
		}
	}
	// Landlock's network rules (ABI 4) cover TCP only, and before ABI 9
	// its path rules do not cover connecting to a Unix socket: seccomp
	// refuses the sockets themselves.
	if err := refuseSockets(abi < 9, noNet); err != nil {
		return fmt.Errorf("sandbox exec: refusing sockets: %w", err)
	}
	// Landlock does not stop a process with CAP_SYS_PTRACE (root) from
	// reading /proc/PID/environ of processes outside its domain: drop
	// every capability for the program.
	if err := dropCapabilities(); err != nil {
		return fmt.Errorf("sandbox exec: dropping capabilities: %w", err)
	}
	return syscall.Exec(prog[0], prog, os.Environ())
}

// execScoped applies Landlock's scoping alone (no file or network rule, no
// seccomp, capabilities kept: bubblewrap needs them to set up its
// namespaces and drops them itself), then execs prog. Abstract Unix sockets
// and signals of processes outside the domain are then out of reach of
// prog and everything it starts.
func execScoped(abi int, prog []string) error {
	if abi < 6 {
		return fmt.Errorf("%w: scoping abstract Unix sockets needs Landlock ABI 6 (this kernel has %d)", ErrUnavailable, abi)
	}
	if err := landlock.V9.BestEffort().RestrictScoped(); err != nil {
		return fmt.Errorf("sandbox exec: Landlock scopes: %w", err)
	}
	return syscall.Exec(prog[0], prog, os.Environ())
}

// dropCapabilities empties the bounding and ambient sets of this thread
// (which then execs), so the program has no capability even as root.
// Without CAP_SETPCAP there is nothing to drop.
func dropCapabilities() error {
	_ = unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	for c := 0; c <= unix.CAP_LAST_CAP; c++ {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		if err != nil && err != unix.EINVAL && err != unix.EPERM {
			return err
		}
	}
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capget(&hdr, &data[0]); err != nil {
		return err
	}
	data[0].Inheritable, data[1].Inheritable = 0, 0
	return unix.Capset(&hdr, &data[0])
}

// refuseSockets loads a seccomp filter (github.com/elastic/go-seccomp-bpf)
// that makes socket(2) fail with EPERM:
//
//   - unixSockets: for AF_UNIX (before Landlock ABI 9 a confined process
//     could still connect to Unix sockets by path, such as the D-Bus
//     session bus and the Secret Service behind it);
//   - network: for every family but AF_UNIX and AF_NETLINK (the kernel's
//     own), so no IPv4 or IPv6 socket (TCP, UDP, ICMP) and no other
//     network family (vsock, Bluetooth…): Landlock's network rules hold for
//     TCP only. io_uring_setup fails too, as io_uring can make a socket
//     without socket(2) (libuv then does without it).
//
// socketpair, which Node uses for its children's pipes, stays allowed.
func refuseSockets(unixSockets, network bool) error {
	var denied []seccomp.NameWithConditions
	if unixSockets {
		denied = append(denied, seccomp.NameWithConditions{Name: "socket",
			Conditions: []seccomp.Condition{{Argument: 0, Operation: seccomp.Equal, Value: unix.AF_UNIX}}})
	}
	if network {
		denied = append(denied, seccomp.NameWithConditions{Name: "socket", Conditions: []seccomp.Condition{
			{Argument: 0, Operation: seccomp.NotEqual, Value: unix.AF_UNIX},
			{Argument: 0, Operation: seccomp.NotEqual, Value: unix.AF_NETLINK},
		}})
	}
	if len(denied) == 0 {
		return nil
	}
	group := seccomp.SyscallGroup{Action: seccomp.ActionErrno, NamesWithCondtions: denied}
	if network {
		group.Names = []string{"io_uring_setup"}
	}
	return seccomp.LoadFilter(seccomp.Filter{
		NoNewPrivs: true,
		Flag:       seccomp.FilterFlagTSync,
		Policy:     seccomp.Policy{DefaultAction: seccomp.ActionAllow, Syscalls: []seccomp.SyscallGroup{group}},
	})
}

// pathRule is the Landlock rule of one path: directory rights for a
// directory, file rights for anything else.
func pathRule(p string, write bool) landlock.Rule {
	fi, err := os.Stat(p)
	dir := err == nil && fi.IsDir()
	switch {
	case dir && write:
		return landlock.RWDirs(p).IgnoreIfMissing()
	case dir:
		return landlock.RODirs(p).IgnoreIfMissing()
	case write:
		return landlock.RWFiles(p).IgnoreIfMissing()
	}
	return landlock.ROFiles(p).IgnoreIfMissing()
}

// landlockArgs are the Exec options for spec: the system paths Node needs,
// node, the package, the private home and tmp, and the grants. Landlock
// only adds what is allowed, so a grant that covers a hidden path would
// expose it; such a grant is refused.
func landlockArgs(spec Spec, g grants, node, home, tmp string) ([]string, error) {
	for _, p := range append(append([]string{}, g.read[1:]...), g.write...) {
		for _, h := range g.hidden {
			if within(h, p) {
				return nil, &PolicyError{Field: "path", Value: p,
					Message: "covers " + h + ", which Landlock cannot hide (install bubblewrap, or grant a narrower path)"}
			}
		}
	}
	var a []string
	ro := func(paths ...string) {
		for _, p := range paths {
			a = append(a, "--ro", p)
		}
	}
	ro("/usr")
	ro(systemTop...)
	ro(systemEtc...)
	ro("/dev/urandom", "/dev/random", "/proc")
	for _, f := range nodeFiles(node) {
		if !isSystemPath(f) {
			ro(f)
		}
	}
	ro(g.read...)
	for _, w := range append([]string{"/dev/null", "/dev/zero", home, tmp}, g.write...) {
		a = append(a, "--rw", w)
	}
	if spec.Policy.NoNetwork {
		a = append(a, "--no-network")
	}
	return a, nil
}
