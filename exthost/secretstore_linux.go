package exthost

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/spiritagents/spirit/internal/keyring"
)

// systemBackends are the system keyrings of Linux, in the order tried.
func systemBackends() []keyring.BackendType {
	return []keyring.BackendType{keyring.SecretServiceBackend, keyring.KWalletBackend}
}

// noSystemKeyring says why no system keyring can answer here, "" when one
// may. Both Linux keyrings live on the D-Bus session bus; the bus library
// finds it from DBUS_SESSION_BUS_ADDRESS or /run/user/<uid>/bus and
// otherwise runs dbus-launch, which starts a bus (with no keyring on it)
// that outlives spirit. So without either, the keyring is not tried.
func noSystemKeyring() string {
	if strings.TrimSpace(os.Getenv("DBUS_SESSION_BUS_ADDRESS")) != "" {
		return ""
	}
	bus := filepath.Join("/run/user", strconv.Itoa(os.Getuid()), "bus")
	if _, err := os.Stat(bus); err == nil {
		return ""
	}
	return "no D-Bus session bus (DBUS_SESSION_BUS_ADDRESS is unset and " + bus + " does not exist)"
}
