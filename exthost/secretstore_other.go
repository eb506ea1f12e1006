//go:build !linux && !darwin && !windows

package exthost

import "github.com/spiritagents/spirit/internal/keyring"

// systemBackends: spirit knows no system keyring on this OS.
func systemBackends() []keyring.BackendType { return nil }

// noSystemKeyring says the file store is the only store here.
func noSystemKeyring() string { return "spirit knows no system keyring on this OS" }
