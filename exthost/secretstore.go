package exthost

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/spiritagents/spirit/internal/keyring"
)

// SecretStore keeps secret values by account name (SecretAccount). spirit's
// own stores are the system keyring and a file store (OpenSecretStore); an
// embedder may give its own. Implementations must be safe for concurrent use.
type SecretStore interface {
	// Get returns the value stored under account, or an error matching
	// ErrSecretNotFound.
	Get(account string) (string, error)
	// Set stores value under account, replacing any value.
	Set(account, value string) error
	// Delete removes account; a missing one gives an error matching
	// ErrSecretNotFound.
	Delete(account string) error
}

// ErrSecretNotFound says a secret store holds no value under an account.
var ErrSecretNotFound = errors.New("secret not found")

// ErrNoKeyringPassword says the encrypted file store has no password to
// open it with.
var ErrNoKeyringPassword = errors.New("the file store is encrypted and needs its password: set SPIRIT_KEYRING_PASSWORD")

// ErrKeyringTimeout is matched by a *KeyringTimeoutError.
var ErrKeyringTimeout = errors.New("the system keyring did not answer")

// DefaultKeyringTimeout bounds each call to the system keyring (open, read,
// write, delete) when SecretStoreConfig.Timeout is zero.
const DefaultKeyringTimeout = 20 * time.Second

// The kinds of secret store OpenSecretStore opens.
const (
	StoreSystem = "system" // Secret Service, KWallet, Keychain or Credential Manager
	StoreFile   = "file"   // {FileDir}/secrets.json, or encrypted entries beside it
)

// SecretStoreConfig says how OpenSecretStore chooses and opens a store.
type SecretStoreConfig struct {
	// Getenv reads SPIRIT_KEYRING_BACKEND (unset or "auto": the system
	// keyring when it answers, else the file store; "system" or a backend
	// name such as "secret-service": the system keyring or an error;
	// "file": the file store) and SPIRIT_KEYRING_PASSWORD (encrypts the
	// file store); nil means no variable is set.
	Getenv func(string) string
	// FileDir is the folder of the file store; it must be out of every
	// extension's reach (spirit uses {dataDir}/spirit-keyring, which the
	// sandbox hides).
	FileDir string
	// Prompt asks for the password of an encrypted file store when
	// SPIRIT_KEYRING_PASSWORD is unset; nil means it cannot be asked.
	Prompt func(message string) (string, error)
	// Timeout bounds each system keyring call; zero means
	// DefaultKeyringTimeout.
	Timeout time.Duration
}

// SecretStoreInfo says which store OpenSecretStore chose and why.
type SecretStoreInfo struct {
	// Kind is StoreSystem or StoreFile.
	Kind string `json:"kind"`
	// Backend names the system keyring ("secret-service", "kwallet",
	// "keychain", "wincred"); "" for the file store.
	Backend string `json:"backend,omitempty"`
	// Path is the file store's file; "" for the system keyring.
	Path string `json:"path,omitempty"`
	// Encrypted says the file store encrypts its values with
	// SPIRIT_KEYRING_PASSWORD; without it they are protected by the
	// file's permissions (0600 in a 0700 folder) only.
	Encrypted bool `json:"encrypted"`
	// Reason says why this store, in a few words.
	Reason string `json:"reason"`
	// Fallback is set when the file store is used because no system
	// keyring answered and none was chosen explicitly.
	Fallback bool `json:"fallback"`
	// FirstFallback is set when this open made the file store's folder on
	// a fallback: the first time, so the user is told once.
	FirstFallback bool `json:"-"`
}

// Name is the store as a person reads it: "Secret Service", or "file
// /path/secrets.json (encrypted)".
func (i SecretStoreInfo) Name() string {
	if i.Kind == StoreSystem {
		if n, ok := backendNames[i.Backend]; ok {
			return n
		}
		return i.Backend
	}
	if i.Encrypted {
		return "file " + filepath.Dir(i.Path) + " (encrypted)"
	}
	return "file " + i.Path
}

var backendNames = map[string]string{
	string(keyring.SecretServiceBackend): "Secret Service",
	string(keyring.KWalletBackend):       "KWallet",
	string(keyring.KeychainBackend):      "macOS Keychain",
	string(keyring.WinCredBackend):       "Windows Credential Manager",
}

// KeyringUnavailableError says the store SPIRIT_KEYRING_BACKEND names cannot
// be used here.
type KeyringUnavailableError struct {
	Backend string // the SPIRIT_KEYRING_BACKEND value
	Reason  string
}

func (e *KeyringUnavailableError) Error() string {
	return fmt.Sprintf("SPIRIT_KEYRING_BACKEND=%s cannot be used: %s", e.Backend, e.Reason)
}

// KeyringTimeoutError says a system keyring call did not answer in time: a
// locked collection waiting for a prompt nobody sees, or a D-Bus peer that
// never replies. The store refuses every later call of the run at once.
type KeyringTimeoutError struct {
	Backend string
	Op      string // "opening", "reading a secret", …
	After   time.Duration
}

func (e *KeyringTimeoutError) Error() string {
	name := backendNames[e.Backend]
	if name == "" {
		name = e.Backend
	}
	return fmt.Sprintf("the system keyring (%s) did not answer within %s while %s (a locked keyring waiting for an unlock prompt, or a D-Bus service that does not reply)", name, e.After, e.Op)
}

// Is makes a *KeyringTimeoutError match ErrKeyringTimeout.
func (e *KeyringTimeoutError) Is(target error) bool { return target == ErrKeyringTimeout }

// OpenSecretStore chooses the secret store as SPIRIT_KEYRING_BACKEND says
// (see SecretStoreConfig.Getenv) and opens it. Without a choice the system
// keyring is used when it answers a real round trip (a read); where none
// runs (on Linux: no D-Bus session bus is known, so dbus-launch is never
// run) or it answers with an error, the file store is used and Info says
// Fallback. A system keyring that does not answer within the timeout is an
// error, not a fallback: its secrets exist, it is only locked. An explicit
// choice that cannot work is a *KeyringUnavailableError.
func OpenSecretStore(cfg SecretStoreConfig) (SecretStore, SecretStoreInfo, error) {
	getenv := cfg.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	timeout := cfg.Timeout
	if timeout <= 0 {
		timeout = DefaultKeyringTimeout
	}
	choice := strings.TrimSpace(getenv("SPIRIT_KEYRING_BACKEND"))
	switch choice {
	case "file":
		return openFileStore(cfg, getenv, SecretStoreInfo{Reason: "chosen by SPIRIT_KEYRING_BACKEND=file"})
	case "", "auto":
		if why := noSystemKeyring(); why != "" {
			return openFileStore(cfg, getenv, SecretStoreInfo{Reason: "no system keyring: " + why, Fallback: true})
		}
		store, info, err := openSystem(systemBackends(), timeout)
		if errors.Is(err, ErrKeyringTimeout) {
			return nil, info, err
		}
		if err != nil {
			return openFileStore(cfg, getenv, SecretStoreInfo{Reason: "no system keyring answered: " + err.Error(), Fallback: true})
		}
		info.Reason = "the system keyring answered"
		return store, info, nil
	}
	backends := systemBackends()
	if choice != StoreSystem {
		if !hasBackend(backends, keyring.BackendType(choice)) {
			return nil, SecretStoreInfo{}, &KeyringUnavailableError{Backend: choice,
				Reason: "not a secret store here; use " + choices(backends)}
		}
		backends = []keyring.BackendType{keyring.BackendType(choice)}
	}
	if len(backends) == 0 {
		return nil, SecretStoreInfo{}, &KeyringUnavailableError{Backend: choice, Reason: "this system has no keyring spirit can use"}
	}
	if why := noSystemKeyring(); why != "" {
		return nil, SecretStoreInfo{}, &KeyringUnavailableError{Backend: choice, Reason: why}
	}
	store, info, err := openSystem(backends, timeout)
	if err != nil {
		if errors.Is(err, ErrKeyringTimeout) {
			return nil, info, err
		}
		return nil, info, &KeyringUnavailableError{Backend: choice, Reason: err.Error()}
	}
	info.Reason = "chosen by SPIRIT_KEYRING_BACKEND=" + choice
	return store, info, nil
}

func hasBackend(list []keyring.BackendType, b keyring.BackendType) bool {
	for _, x := range list {
		if x == b {
			return true
		}
	}
	return false
}

// choices lists the SPIRIT_KEYRING_BACKEND values that work on this OS.
func choices(backends []keyring.BackendType) string {
	out := []string{"system", "file"}
	for _, b := range backends {
		out = append(out, string(b))
	}
	return strings.Join(out, ", ") + ", or leave it unset"
}

// probeAccount is read to see whether a system keyring answers.
const probeAccount = "spirit::probe"

// keyringConfig is where the Spirit Agent apps keep their secrets.
func keyringConfig(b keyring.BackendType) keyring.Config {
	return keyring.Config{
		ServiceName:             KeyringService,
		KeychainName:            "login",
		LibSecretCollectionName: "login",
		KWalletAppID:            KeyringService,
		KWalletFolder:           KeyringService,
		WinCredPrefix:           KeyringService,
		AllowedBackends:         []keyring.BackendType{b},
	}
}

// openSystem opens the first of backends that opens and answers a read
// within timeout.
func openSystem(backends []keyring.BackendType, timeout time.Duration) (SecretStore, SecretStoreInfo, error) {
	var errs []string
	for _, b := range backends {
		s := &systemStore{backend: string(b), timeout: timeout}
		info := SecretStoreInfo{Kind: StoreSystem, Backend: string(b)}
		err := s.do("opening it", func() error {
			ring, err := keyring.Open(keyringConfig(b))
			if err != nil {
				return err
			}
			if _, err := ring.Get(probeAccount); err != nil && !errors.Is(err, keyring.ErrKeyNotFound) {
				return err
			}
			s.ring = ring
			return nil
		})
		if errors.Is(err, ErrKeyringTimeout) {
			return nil, info, err
		}
		if errors.Is(err, keyring.ErrNoAvailImpl) {
			// The library's opener made the first round trip and keeps
			// its error to itself.
			err = errors.New("nothing answered for it")
		}
		if err != nil {
			errs = append(errs, fmt.Sprintf("%s: %s", b, strings.Join(strings.Fields(err.Error()), " ")))
			continue
		}
		return s, info, nil
	}
	if len(errs) == 0 {
		return nil, SecretStoreInfo{}, errors.New("this system has no keyring spirit can use")
	}
	// One line: the reason goes into a notice and doctor's report.
	return nil, SecretStoreInfo{}, errors.New(strings.Join(errs, "; "))
}

// systemStore is a system keyring whose every call is bounded in time. The
// keyring library cannot be cancelled, so a call that does not return is
// left behind and the store refuses every later call at once.
type systemStore struct {
	backend string
	timeout time.Duration

	mu    sync.Mutex
	ring  keyring.Keyring
	stuck error
}

func (s *systemStore) do(op string, fn func() error) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stuck != nil {
		return s.stuck
	}
	done := make(chan error, 1)
	go func() { done <- fn() }()
	t := time.NewTimer(s.timeout)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		s.stuck = &KeyringTimeoutError{Backend: s.backend, Op: op, After: s.timeout}
		return s.stuck
	}
}

func (s *systemStore) Get(account string) (string, error) {
	var v string
	err := s.do("reading a secret", func() error {
		item, err := s.ring.Get(account)
		if err != nil {
			return err
		}
		v = string(item.Data)
		return nil
	})
	return v, notFound(err)
}

func (s *systemStore) Set(account, value string) error {
	return s.do("storing a secret", func() error {
		return s.ring.Set(keyring.Item{Key: account, Data: []byte(value), Label: account})
	})
}

func (s *systemStore) Delete(account string) error {
	return notFound(s.do("deleting a secret", func() error { return s.ring.Remove(account) }))
}

// notFound turns the keyring library's not-found errors into ErrSecretNotFound.
func notFound(err error) error {
	if errors.Is(err, keyring.ErrKeyNotFound) || isNotExist(err) {
		return ErrSecretNotFound
	}
	return err
}
