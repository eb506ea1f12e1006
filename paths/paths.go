// Package paths knows every location under the Spirit Agent data directory.
//
// The data directory is resolved as the Spirit Agent apps resolve it, so an
// extension installed by spirit is seen by the apps and the other way round:
// --data-dir, SPIRIT_AGENT_DATA_DIR, APPDATA/SpiritAgent (on any OS), then per
// OS (Linux $XDG_DATA_HOME/SpiritAgent or ~/.local/share/SpiritAgent, macOS
// ~/Library/Application Support/SpiritAgent, others ~/.spirit-agent), then
// USERPROFILE/.spirit-agent. Every environment value is trimmed and ignored
// when blank.
package paths

import (
	"encoding/base64"
	"errors"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
)

// AppDirName is the folder name the Spirit Agent apps use.
const AppDirName = "SpiritAgent"

// Host is one of the two Spirit Agent hosts; each has its own install tree.
type Host string

// The hosts.
const (
	HostCLI     Host = "cli"
	HostDesktop Host = "desktop"
)

// Hosts lists every host.
var Hosts = []Host{HostCLI, HostDesktop}

// ParseHost accepts exactly "cli" or "desktop".
func ParseHost(s string) (Host, error) {
	switch h := Host(strings.TrimSpace(s)); h {
	case HostCLI, HostDesktop:
		return h, nil
	}
	return "", fmt.Errorf("unknown host %q: use cli or desktop", s)
}

// Label is the host's name as the reference prints it in messages ("CLI", "Desktop").
func (h Host) Label() string {
	if h == HostDesktop {
		return "Desktop"
	}
	return "CLI"
}

// ResolveDataDir returns the Spirit Agent data directory. flag is the value
// of --data-dir (may be empty); getenv reads the environment.
func ResolveDataDir(flag string, getenv func(string) string) (string, error) {
	return resolveDataDir(flag, getenv, runtime.GOOS)
}

func resolveDataDir(flag string, getenv func(string) string, goos string) (string, error) {
	env := func(k string) string { return strings.TrimSpace(getenv(k)) }
	if v := strings.TrimSpace(flag); v != "" {
		return filepath.Abs(v)
	}
	if v := env("SPIRIT_AGENT_DATA_DIR"); v != "" {
		return v, nil
	}
	if v := env("APPDATA"); v != "" {
		return filepath.Join(v, AppDirName), nil
	}
	if home := env("HOME"); home != "" {
		switch goos {
		case "darwin":
			return filepath.Join(home, "Library", "Application Support", AppDirName), nil
		case "linux":
			if x := env("XDG_DATA_HOME"); x != "" {
				return filepath.Join(x, AppDirName), nil
			}
			return filepath.Join(home, ".local", "share", AppDirName), nil
		default:
			return filepath.Join(home, ".spirit-agent"), nil
		}
	}
	if v := env("USERPROFILE"); v != "" {
		return filepath.Join(v, ".spirit-agent"), nil
	}
	return "", errors.New("cannot find the Spirit Agent data directory: set SPIRIT_AGENT_DATA_DIR or pass --data-dir")
}

// EncodeID is base64url without padding of the UTF-8 id, as the reference
// names install and state files.
func EncodeID(id string) string { return base64.RawURLEncoding.EncodeToString([]byte(id)) }

// Paths are the locations of one host's install tree.
type Paths struct {
	DataDir string
	Host    Host
}

// New returns the paths of host under dataDir.
func New(dataDir string, host Host) *Paths { return &Paths{DataDir: dataDir, Host: host} }

// ExtensionsDir is {dataDir}/extensions/<host>.
func (p *Paths) ExtensionsDir() string { return filepath.Join(p.DataDir, "extensions", string(p.Host)) }

// RegistryFile is the reference's install registry, extensions.json.
func (p *Paths) RegistryFile() string { return filepath.Join(p.ExtensionsDir(), "extensions.json") }

// StateDir holds the settings value files.
func (p *Paths) StateDir() string { return filepath.Join(p.ExtensionsDir(), "extension-state") }

// SettingsFile is the settings values file of id.
func (p *Paths) SettingsFile(id string) string {
	return filepath.Join(p.StateDir(), "ext-"+EncodeID(id)+".json")
}

// PackageDirName is "pkg-<base64url(id)>".
func PackageDirName(id string) string { return "pkg-" + EncodeID(id) }

// PackageDir is where id is installed.
func (p *Paths) PackageDir(id string) string {
	return filepath.Join(p.ExtensionsDir(), PackageDirName(id))
}

// SpiritDir is spirit's own state: {extensionsDir}/.spirit. It holds no
// package.json, so the apps skip it.
func (p *Paths) SpiritDir() string { return filepath.Join(p.ExtensionsDir(), ".spirit") }

// LockFile is the advisory lock every mutating command holds.
func (p *Paths) LockFile() string { return filepath.Join(p.SpiritDir(), "lock") }

// InstalledFile is spirit's richer install record.
func (p *Paths) InstalledFile() string { return filepath.Join(p.SpiritDir(), "installed.json") }

// GenerationsDir holds previous installs kept for rollback.
func (p *Paths) GenerationsDir(id string) string {
	return filepath.Join(p.SpiritDir(), "generations", EncodeID(id))
}

// DisabledDir holds the packages of disabled extensions, out of the apps' view.
func (p *Paths) DisabledDir() string { return filepath.Join(p.SpiritDir(), "disabled") }

// DisabledPackageDir is where id is kept while it is disabled.
func (p *Paths) DisabledPackageDir(id string) string {
	return filepath.Join(p.DisabledDir(), PackageDirName(id))
}

// StagingDir is where installs are staged, on the same filesystem as the target.
func (p *Paths) StagingDir() string { return filepath.Join(p.SpiritDir(), "staging") }

// TrustDir holds, per marketplace index, the pinned TUF root and the
// metadata versions seen of signed indexes (package catalog/verify).
func (p *Paths) TrustDir() string { return filepath.Join(p.SpiritDir(), "trust") }

// CacheDir holds the catalog and tarball caches.
func (p *Paths) CacheDir() string { return filepath.Join(p.SpiritDir(), "cache") }

// LogFile is the log of id's extension process.
func (p *Paths) LogFile(id string) string {
	return filepath.Join(p.SpiritDir(), "logs", EncodeID(id)+".log")
}

// MCPTokenFile is the bearer token of the MCP HTTP transport.
func (p *Paths) MCPTokenFile() string { return filepath.Join(p.DataDir, "mcp.token") }
