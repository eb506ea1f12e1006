package exthost

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/gofrs/flock"

	"github.com/spiritagents/spirit/internal/atomicfile"
	"github.com/spiritagents/spirit/internal/keyring"
)

// The file store's names inside its folder. Every other regular file there
// whose name does not start with a dot is an entry of the encrypted store
// (the keyring library's file backend: one JOSE-encrypted file per account).
const (
	plainStoreFile = "secrets.json"
	plainStoreLock = "secrets.lock"
)

// fileLockWait bounds how long a write waits for another spirit's write.
const fileLockWait = 10 * time.Second

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// openFileStore opens the file store in cfg.FileDir: encrypted when
// SPIRIT_KEYRING_PASSWORD is set or the folder already holds encrypted
// entries (then the password is asked, or ErrNoKeyringPassword), else the
// plain file secrets.json, mode 0600 in a 0700 folder.
func openFileStore(cfg SecretStoreConfig, getenv func(string) string, info SecretStoreInfo) (SecretStore, SecretStoreInfo, error) {
	info.Kind = StoreFile
	if cfg.FileDir == "" {
		return nil, info, errors.New("the file store has no folder")
	}
	dir := filepath.Clean(cfg.FileDir)
	info.Path = filepath.Join(dir, plainStoreFile)
	_, statErr := os.Stat(dir)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, info, fmt.Errorf("making the file store's folder: %w", err)
	}
	info.FirstFallback = info.Fallback && isNotExist(statErr)

	password := getenv("SPIRIT_KEYRING_PASSWORD")
	if password == "" && !hasEncryptedEntries(dir) {
		return &plainFileStore{dir: dir}, info, nil
	}
	info.Encrypted = true
	ring, err := keyring.Open(keyring.Config{
		ServiceName:     KeyringService,
		AllowedBackends: []keyring.BackendType{keyring.FileBackend},
		FileDir:         dir,
		FilePasswordFunc: func(string) (string, error) {
			if password != "" {
				return password, nil
			}
			if cfg.Prompt == nil {
				return "", ErrNoKeyringPassword
			}
			return cfg.Prompt("Password for spirit's encrypted file store: ")
		},
	})
	if err != nil {
		return nil, info, fmt.Errorf("opening the file store %s: %w", dir, err)
	}
	return encryptedFileStore{ring: ring}, info, nil
}

// hasEncryptedEntries says whether dir holds an entry of the encrypted store.
func hasEncryptedEntries(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		n := e.Name()
		if e.Type().IsRegular() && n != plainStoreFile && n != plainStoreLock && n[0] != '.' {
			return true
		}
	}
	return false
}

// encryptedFileStore is the keyring library's file backend.
type encryptedFileStore struct{ ring keyring.Keyring }

func (s encryptedFileStore) Get(account string) (string, error) {
	item, err := s.ring.Get(account)
	if err != nil {
		return "", notFound(err)
	}
	return string(item.Data), nil
}

func (s encryptedFileStore) Set(account, value string) error {
	return s.ring.Set(keyring.Item{Key: account, Data: []byte(value), Label: account})
}

func (s encryptedFileStore) Delete(account string) error { return notFound(s.ring.Remove(account)) }

// plainFileStore keeps every account in one JSON file, replaced atomically
// with mode 0600 under an advisory lock. The values are protected by the
// file's permissions only.
type plainFileStore struct{ dir string }

type plainFile struct {
	Secrets map[string]string `json:"secrets"`
}

func (s *plainFileStore) path() string { return filepath.Join(s.dir, plainStoreFile) }

func (s *plainFileStore) read() (map[string]string, error) {
	data, err := os.ReadFile(s.path())
	if isNotExist(err) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	var f plainFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("the file store %s is damaged: %w", s.path(), err)
	}
	if f.Secrets == nil {
		f.Secrets = map[string]string{}
	}
	return f.Secrets, nil
}

func (s *plainFileStore) Get(account string) (string, error) {
	all, err := s.read()
	if err != nil {
		return "", err
	}
	v, ok := all[account]
	if !ok {
		return "", ErrSecretNotFound
	}
	return v, nil
}

// update changes the file under the lock; change reports whether it
// changed anything.
func (s *plainFileStore) update(change func(map[string]string) bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), fileLockWait)
	defer cancel()
	lock := flock.New(filepath.Join(s.dir, plainStoreLock), flock.SetPermissions(0o600))
	ok, err := lock.TryLockContext(ctx, 20*time.Millisecond)
	if err != nil || !ok {
		return fmt.Errorf("the file store %s is busy (another spirit is writing it): %w", s.path(), errors.Join(err, ctx.Err()))
	}
	defer lock.Unlock()
	all, err := s.read()
	if err != nil {
		return err
	}
	if !change(all) {
		return nil
	}
	data, err := json.MarshalIndent(plainFile{Secrets: all}, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteDurable(s.path(), append(data, '\n'), 0o600)
}

func (s *plainFileStore) Set(account, value string) error {
	return s.update(func(all map[string]string) bool {
		all[account] = value
		return true
	})
}

func (s *plainFileStore) Delete(account string) error {
	found := false
	err := s.update(func(all map[string]string) bool {
		_, found = all[account]
		delete(all, account)
		return found
	})
	if err == nil && !found {
		return ErrSecretNotFound
	}
	return err
}
