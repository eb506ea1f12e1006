package exthost

import "github.com/spiritagents/spirit/internal/keyring"

// systemBackends is the macOS Keychain (built with cgo only; a binary
// built without it falls back to the file store).
func systemBackends() []keyring.BackendType {
	return []keyring.BackendType{keyring.KeychainBackend}
}

// noSystemKeyring: the Keychain is asked, and a failure falls back.
func noSystemKeyring() string { return "" }
