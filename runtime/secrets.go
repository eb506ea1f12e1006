package runtime

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"sync"

	"github.com/spiritagents/spirit/internal/keyring"
	"github.com/spiritagents/spirit/manifest"
)

// KeyringService is the keyring service name the Spirit Agent apps use.
const KeyringService = "SpiritAgent"

// SecretAccount is the keyring account of one secret, as the desktop app
// names it: extension::<id>::secret::<key>.
func SecretAccount(id, key string) string { return "extension::" + id + "::secret::" + key }

// UndeclaredSecretError says the extension has no secret slot with the key.
type UndeclaredSecretError struct{ Key string }

func (e *UndeclaredSecretError) Error() string {
	return "The extension does not declare the secret slot: " + e.Key
}

// Secrets keeps extension secrets in a keyring, opened on first use. Every
// method checks the slot against the manifest first. Values are trimmed;
// a blank value is no value. It is safe for concurrent use.
type Secrets struct {
	open func() (keyring.Keyring, error)

	mu   sync.Mutex
	ring keyring.Keyring
}

// NewSecrets returns a store over the keyring that open returns; open is
// called at the first secret operation (again after a failure).
func NewSecrets(open func() (keyring.Keyring, error)) *Secrets { return &Secrets{open: open} }

// keyring opens the keyring on first use; a failed open is tried again
// at the next use.
func (s *Secrets) keyring() (keyring.Keyring, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ring != nil {
		return s.ring, nil
	}
	if s.open == nil {
		return nil, errors.New("no keyring is configured")
	}
	ring, err := s.open()
	if err != nil {
		return nil, err
	}
	s.ring = ring
	return ring, nil
}

func checkSlot(m *manifest.Manifest, key string) error {
	if _, ok := m.SecretSlot(key); !ok {
		return &UndeclaredSecretError{Key: key}
	}
	return nil
}

// Get returns the trimmed value of a declared slot, and whether a non-blank
// one is stored.
func (s *Secrets) Get(m *manifest.Manifest, key string) (string, bool, error) {
	if err := checkSlot(m, key); err != nil {
		return "", false, err
	}
	ring, err := s.keyring()
	if err != nil {
		return "", false, err
	}
	item, err := ring.Get(SecretAccount(m.ID, key))
	if errors.Is(err, keyring.ErrKeyNotFound) || errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("reading secret %s of %s: %w", key, m.ID, err)
	}
	v := manifest.TrimJS(string(item.Data))
	return v, v != "", nil
}

// Set stores the trimmed value of a declared slot; a blank value deletes it.
func (s *Secrets) Set(m *manifest.Manifest, key, value string) error {
	if err := checkSlot(m, key); err != nil {
		return err
	}
	value = manifest.TrimJS(value)
	if value == "" {
		return s.Delete(m, key)
	}
	ring, err := s.keyring()
	if err != nil {
		return err
	}
	err = ring.Set(keyring.Item{
		Key:   SecretAccount(m.ID, key),
		Data:  []byte(value),
		Label: SecretAccount(m.ID, key),
	})
	if err != nil {
		return fmt.Errorf("storing secret %s of %s: %w", key, m.ID, err)
	}
	return nil
}

// Delete removes a declared slot's value; a missing one is not an error.
func (s *Secrets) Delete(m *manifest.Manifest, key string) error {
	if err := checkSlot(m, key); err != nil {
		return err
	}
	return s.remove(m.ID, key)
}

func (s *Secrets) remove(id, key string) error {
	ring, err := s.keyring()
	if err != nil {
		return err
	}
	err = ring.Remove(SecretAccount(id, key))
	if err == nil || errors.Is(err, keyring.ErrKeyNotFound) || errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return fmt.Errorf("deleting secret %s of %s: %w", key, id, err)
}

// Status reports for every declared slot whether a value is stored.
func (s *Secrets) Status(m *manifest.Manifest) (map[string]bool, error) {
	out := map[string]bool{}
	for _, slot := range m.SecretSlots {
		_, ok, err := s.Get(m, slot.Key)
		if err != nil {
			return nil, err
		}
		out[slot.Key] = ok
	}
	return out, nil
}

// DeleteAll removes the values of every listed slot of id; `remove --purge`
// calls it with the slots of the manifest being removed. It goes on after a
// failure and returns the errors joined.
func (s *Secrets) DeleteAll(id string, slots []manifest.SecretSlot) error {
	var errs []error
	for _, slot := range slots {
		if err := s.remove(id, slot.Key); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// KeyringConfig says which keyring OpenKeyring opens.
type KeyringConfig struct {
	// Getenv reads SPIRIT_KEYRING_BACKEND ("file" chooses the encrypted file
	// backend) and SPIRIT_KEYRING_PASSWORD (its password).
	Getenv func(string) string
	// FileDir is where the file backend keeps its files.
	FileDir string
	// Prompt asks for the file backend's password when
	// SPIRIT_KEYRING_PASSWORD is unset; nil means it cannot be asked.
	Prompt func(message string) (string, error)
}

// ErrNoKeyringPassword says the file keyring has no password to open it with.
var ErrNoKeyringPassword = errors.New("the file keyring needs a password: set SPIRIT_KEYRING_PASSWORD")

// OpenKeyring opens the OS keyring (Secret Service, KWallet, macOS Keychain,
// Windows Credential Manager), or the encrypted file backend when
// SPIRIT_KEYRING_BACKEND=file.
func OpenKeyring(cfg KeyringConfig) (keyring.Keyring, error) {
	getenv := cfg.Getenv
	kc := keyring.Config{
		ServiceName:             KeyringService,
		KeychainName:            "login",
		LibSecretCollectionName: "login",
		KWalletAppID:            KeyringService,
		KWalletFolder:           KeyringService,
		WinCredPrefix:           KeyringService,
		AllowedBackends: []keyring.BackendType{
			keyring.SecretServiceBackend, keyring.KWalletBackend, keyring.KeychainBackend, keyring.WinCredBackend,
		},
	}
	switch b := strings.TrimSpace(getenv("SPIRIT_KEYRING_BACKEND")); b {
	case "":
	case "file":
		kc.AllowedBackends = []keyring.BackendType{keyring.FileBackend}
		kc.FileDir = filepath.Clean(cfg.FileDir)
		kc.FilePasswordFunc = func(msg string) (string, error) {
			if p := getenv("SPIRIT_KEYRING_PASSWORD"); p != "" {
				return p, nil
			}
			if cfg.Prompt == nil {
				return "", ErrNoKeyringPassword
			}
			return cfg.Prompt("Password for the spirit file keyring: ")
		}
	default:
		kc.AllowedBackends = []keyring.BackendType{keyring.BackendType(b)}
	}
	ring, err := keyring.Open(kc)
	if err != nil {
		return nil, fmt.Errorf("opening the keyring: %w (set SPIRIT_KEYRING_BACKEND=file where no keyring runs)", err)
	}
	return ring, nil
}
