package exthost

import "github.com/spiritagents/spirit/internal/keyring"

// systemBackends is the Windows Credential Manager.
func systemBackends() []keyring.BackendType {
	return []keyring.BackendType{keyring.WinCredBackend}
}

// noSystemKeyring: the Credential Manager is asked, and a failure falls back.
func noSystemKeyring() string { return "" }
