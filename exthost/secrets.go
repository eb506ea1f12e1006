package exthost

import (
	"errors"
	"fmt"
	"sync"

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

// Secrets keeps extension secrets in a SecretStore, opened on first use.
// Every method checks the slot against the manifest first. Values are
// trimmed; a blank value is no value. A slot may also be given a value for
// this run only (SetRunValue): it is read from memory and the store is
// neither read nor written for it. It is safe for concurrent use.
type Secrets struct {
	open func() (SecretStore, error)

	mu      sync.Mutex
	store   SecretStore
	stuck   error // an open that timed out: not tried again
	account func(id, key string) string
	run     map[string]map[string]string // id → key → value
}

// NewSecrets returns secrets over the store that open returns; open is
// called at the first operation that needs the store (again after a
// failure).
func NewSecrets(open func() (SecretStore, error)) *Secrets { return &Secrets{open: open} }

// SetAccountFunc sets how the slot key of extension id is named in the
// store; nil (the default) is SecretAccount, the apps' names. spirit gives
// --dev packages a namespace of their own this way.
func (s *Secrets) SetAccountFunc(account func(id, key string) string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.account = account
}

// SetRunValue gives slot key of extension id a value for the life of these
// Secrets only, stored nowhere: Get returns it, and Set and Delete change it
// without touching the store. The caller checks that the slot is declared.
func (s *Secrets) SetRunValue(id, key, value string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.run == nil {
		s.run = map[string]map[string]string{}
	}
	if s.run[id] == nil {
		s.run[id] = map[string]string{}
	}
	s.run[id][key] = manifest.TrimJS(value)
}

// runValue returns the run value of a slot and whether it has one.
func (s *Secrets) runValue(id, key string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.run[id][key]
	return v, ok
}

func (s *Secrets) accountOf(id, key string) string {
	s.mu.Lock()
	account := s.account
	s.mu.Unlock()
	if account != nil {
		return account(id, key)
	}
	return SecretAccount(id, key)
}

// secretStore opens the store on first use; a failed open is tried again
// at the next use, unless it timed out (ErrKeyringTimeout): a keyring that
// did not answer is not waited for again.
func (s *Secrets) secretStore() (SecretStore, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.store != nil {
		return s.store, nil
	}
	if s.stuck != nil {
		return nil, s.stuck
	}
	if s.open == nil {
		return nil, errors.New("no secret store is configured")
	}
	store, err := s.open()
	if errors.Is(err, ErrKeyringTimeout) {
		s.stuck = err
	}
	if err != nil {
		return nil, err
	}
	s.store = store
	return store, nil
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
	if v, ok := s.runValue(m.ID, key); ok {
		return v, v != "", nil
	}
	store, err := s.secretStore()
	if err != nil {
		return "", false, err
	}
	value, err := store.Get(s.accountOf(m.ID, key))
	if errors.Is(err, ErrSecretNotFound) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("reading secret %s of %s: %w", key, m.ID, err)
	}
	v := manifest.TrimJS(value)
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
	if _, ok := s.runValue(m.ID, key); ok {
		s.SetRunValue(m.ID, key, value)
		return nil
	}
	store, err := s.secretStore()
	if err != nil {
		return err
	}
	if err := store.Set(s.accountOf(m.ID, key), value); err != nil {
		return fmt.Errorf("storing secret %s of %s: %w", key, m.ID, err)
	}
	return nil
}

// Delete removes a declared slot's value; a missing one is not an error.
func (s *Secrets) Delete(m *manifest.Manifest, key string) error {
	if err := checkSlot(m, key); err != nil {
		return err
	}
	if _, ok := s.runValue(m.ID, key); ok {
		s.SetRunValue(m.ID, key, "")
		return nil
	}
	return s.remove(m.ID, key)
}

func (s *Secrets) remove(id, key string) error {
	store, err := s.secretStore()
	if err != nil {
		return err
	}
	err = store.Delete(s.accountOf(id, key))
	if err == nil || errors.Is(err, ErrSecretNotFound) {
		return nil
	}
	return fmt.Errorf("deleting secret %s of %s: %w", key, id, err)
}

// Status reports for every declared slot whether a value is stored (or
// given for this run).
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

// DeleteAll removes the stored values of every listed slot of id; `remove
// --purge` calls it with the slots of the manifest being removed. It goes
// on after a failure and returns the errors joined.
func (s *Secrets) DeleteAll(id string, slots []manifest.SecretSlot) error {
	var errs []error
	for _, slot := range slots {
		if err := s.remove(id, slot.Key); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
