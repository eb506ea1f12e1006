package sandbox

import "fmt"

// Aspect is one thing an extension might reach, and whether the sandbox
// in force keeps it out: Confined is true only where an OS mechanism holds
// it, By names that mechanism and Detail says exactly what holds and what
// does not.
type Aspect struct {
	Confined bool   `json:"confined"`
	By       string `json:"by,omitempty"`
	Detail   string `json:"detail"`
}

// Confinement is what the sandbox holds for one extension, per aspect. Its
// fields are part of the --json contract of `doctor` and `permissions`.
type Confinement struct {
	// Files are the user's files, spirit's data directory and secrets.
	Files Aspect `json:"files"`
	// Processes are the extension's own processes and those of others.
	Processes Aspect `json:"processes"`
	// Network is IP traffic (only confined with --no-network).
	Network Aspect `json:"network"`
	// OtherExtensions are other extensions' packages, settings, secrets
	// and logs.
	OtherExtensions Aspect `json:"otherExtensions"`
	// HostSockets are Unix sockets of the host (by path and abstract: a
	// D-Bus, an X11 server, an agent) and other IPC services.
	HostSockets Aspect `json:"hostSockets"`
}

// Describe says what st holds for an extension with policy pol on the OS
// goos (runtime.GOOS; a parameter so every OS's text is tested anywhere).
func Describe(st Status, pol Policy, goos string) Confinement {
	kind := st.Kind
	if pol.Unsandboxed {
		kind = KindNone
	}
	var c Confinement
	allowedNet := Aspect{Detail: "IPv4 and IPv6 allowed, like any program of yours (cut them with --no-network)"}
	switch kind {
	case KindBwrap:
		c.Files = Aspect{true, "bubblewrap (mount namespace)", "sees only the system, Node's executable, its package, its grants and a private /tmp and HOME; the data directory stays covered even under a grant"}
		c.Processes = Aspect{true, "bubblewrap (PID namespace)", "sees and signals only its own processes, which end with it; no capabilities"}
		c.OtherExtensions = Aspect{true, "bubblewrap (mount namespace)", "their packages, settings, secrets and logs are in the data directory, which it never sees"}
		c.Network = allowedNet
		switch {
		case pol.NoNetwork:
			c.Network = Aspect{true, "bubblewrap (network namespace)", "none: a network namespace of its own with only its own loopback"}
			c.HostSockets = Aspect{true, "bubblewrap (mount and network namespaces)", "no host Unix socket by path (not in its file system) and no abstract one (a network namespace of its own)"}
		case st.Scoper != "":
			c.HostSockets = Aspect{true, fmt.Sprintf("bubblewrap (mount namespace) and Landlock scoping (ABI %d)", st.LandlockABI), "no host Unix socket by path (not in its file system); abstract Unix sockets of processes outside its sandbox are refused"}
		default:
			c.HostSockets = Aspect{false, "bubblewrap (mount namespace)", fmt.Sprintf("no host Unix socket by path, but the host's abstract Unix sockets (an X11 server, a D-Bus, an agent) are reachable: scoping them needs Landlock ABI 6 (this kernel has %d) and a bwrap that is not setuid; --no-network closes them", st.LandlockABI)}
		}
	case KindLandlock:
		scoped := st.LandlockABI >= 6
		c.Files = Aspect{true, "Landlock", "reads only the system, Node's executable, its package and its read grants; writes only its write grants and a private home and temp; a grant that covers the data directory is refused"}
		c.OtherExtensions = Aspect{true, "Landlock", "their packages, settings, secrets and logs are in the data directory, outside its rules"}
		if scoped {
			c.Processes = Aspect{true, "Landlock scoping, no capabilities", "cannot signal or trace processes outside its sandbox, but sees every process's command line in /proc (no PID namespace); a supervisor ends what it starts"}
		} else {
			c.Processes = Aspect{false, "no capabilities", fmt.Sprintf("no PID namespace and no Landlock scoping (needs ABI 6, this kernel has %d): it sees every process's command line and may signal your processes", st.LandlockABI)}
		}
		c.Network = allowedNet
		if pol.NoNetwork {
			c.Network = Aspect{true, "seccomp (and Landlock for TCP)", "no socket but Unix and netlink ones: no TCP, UDP or other IP traffic"}
		}
		unixBy := "seccomp (no Unix socket at all: Landlock below ABI 9 cannot refuse one by path)"
		if st.LandlockABI >= 9 {
			unixBy = "Landlock (ABI 9)"
		}
		if scoped {
			c.HostSockets = Aspect{true, unixBy + " and Landlock scoping", "no host Unix socket by path; abstract Unix sockets of processes outside its sandbox are refused"}
		} else {
			c.HostSockets = Aspect{false, unixBy, "no host Unix socket by path, but abstract Unix sockets of the host are reachable (scoping needs Landlock ABI 6)"}
		}
	case KindSeatbelt:
		c.Files = Aspect{true, "Seatbelt", "reads only the system, Node's files, its package and its read grants; writes only its write grants and a private home and temp; the data directory and ~/Library/Keychains are denied even under a grant"}
		c.Processes = Aspect{false, "Seatbelt", "signals and inspects only processes of its own sandbox, and what it starts runs under the same profile, but nothing ends them with it"}
		c.OtherExtensions = Aspect{true, "Seatbelt", "their packages, settings, secrets and logs are in the data directory, which is denied"}
		c.Network = allowedNet
		if pol.NoNetwork {
			c.Network = Aspect{true, "Seatbelt", "no IP network"}
		}
		c.HostSockets = Aspect{true, "Seatbelt", "no Unix socket but the DNS resolver's, no Mach service (so not the Keychain or any other daemon)"}
	default:
		seatBelt := kind == KindNode
		none := Aspect{Detail: "not confined: it can reach whatever you can"}
		c.Files, c.OtherExtensions, c.HostSockets, c.Network = none, none, none, none
		c.Processes = none
		if seatBelt {
			belt := "Node's permission model limits Node's own fs API to its package, its grants and a private home and temp; a seat belt, not a boundary: a child process, a worker or a native addon is outside it"
			c.Files = Aspect{false, "Node's permission model", belt}
			c.OtherExtensions = Aspect{false, "Node's permission model", belt}
		}
		if pol.NoNetwork {
			c.Network = Aspect{Detail: "not enforced here: --no-network needs an OS sandbox (Node's --allow-net, where a Node has it, is a seat belt only)"}
		}
	}
	if goos == "windows" {
		c.Processes = Aspect{true, "Job Object", "its process tree is in a Job Object: killed as a whole when it stops, times out or spirit exits, no breakaway, a memory limit; it can still see and signal your other processes"}
	}
	return c
}
