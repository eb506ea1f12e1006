package cli

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"time"

	"github.com/spiritagents/spirit/exthost"
	"github.com/spiritagents/spirit/internal/termtext"
)

// keyringDir is the folder of spirit's file store of secrets, in the data
// directory, which the sandbox hides from every extension.
func keyringDir(dataDir string) string { return filepath.Join(dataDir, "spirit-keyring") }

// secretStoreConfig is the store configuration of the environment:
// SPIRIT_KEYRING_BACKEND, SPIRIT_KEYRING_PASSWORD, SPIRIT_KEYRING_TIMEOUT.
func secretStoreConfig(getenv func(string) string, dataDir string) (exthost.SecretStoreConfig, error) {
	cfg := exthost.SecretStoreConfig{Getenv: getenv, FileDir: keyringDir(dataDir)}
	if v := strings.TrimSpace(getenv("SPIRIT_KEYRING_TIMEOUT")); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil || d <= 0 {
			return cfg, withHint(fmt.Errorf("SPIRIT_KEYRING_TIMEOUT=%s is not a duration", v), "give one such as 20s or 1m, or unset it for the default of "+exthost.DefaultKeyringTimeout.String())
		}
		cfg.Timeout = d
	}
	return cfg, nil
}

// openSecrets returns the secret store of a command, opened at the first
// secret operation. The first time the file store is used because no system
// keyring answered, one line on errOut says so. prompt, when set, asks for
// the password of an encrypted file store.
func openSecrets(getenv func(string) string, errOut io.Writer, dataDir string, prompt func(string) (string, error)) *exthost.Secrets {
	return exthost.NewSecrets(func() (exthost.SecretStore, error) {
		cfg, err := secretStoreConfig(getenv, dataDir)
		if err != nil {
			return nil, err
		}
		cfg.Prompt = prompt
		store, info, err := exthost.OpenSecretStore(cfg)
		if err != nil {
			return nil, secretStoreError(err)
		}
		if info.FirstFallback {
			termtext.Fprintf(errOut, "notice: %s; extension secrets are kept in %s, protected by its file permissions (choose with SPIRIT_KEYRING_BACKEND=file or system, encrypt with SPIRIT_KEYRING_PASSWORD; see docs/secrets.md)\n", info.Reason, info.Path)
		}
		return store, nil
	})
}

// newSecrets is openSecrets for a command of the Factory: the password of an
// encrypted file store is asked at a terminal.
func newSecrets(f *Factory, dataDir string) *exthost.Secrets {
	var prompt func(string) (string, error)
	if f.IO.CanPrompt() {
		prompt = func(msg string) (string, error) { return f.IO.Prompter().Password("%s", msg) }
	}
	return openSecrets(f.Getenv, f.IO.ErrOut, dataDir, prompt)
}

// secretStoreError adds the remedy to the errors of choosing a store.
func secretStoreError(err error) error {
	var ue *exthost.KeyringUnavailableError
	switch {
	case errors.As(err, &ue):
		return withHint(err, "unset SPIRIT_KEYRING_BACKEND (the system keyring where it answers, else the file store), or set SPIRIT_KEYRING_BACKEND=file; see docs/secrets.md")
	case errors.Is(err, exthost.ErrKeyringTimeout):
		return withHint(err, "unlock the keyring, or use the file store with SPIRIT_KEYRING_BACKEND=file; SPIRIT_KEYRING_TIMEOUT sets the bound; see docs/secrets.md")
	case errors.Is(err, exthost.ErrNoKeyringPassword):
		return withHint(err, "or run at a terminal to be asked for it")
	}
	return err
}

// doctorAccount is written, read and deleted by `doctor`.
const doctorAccount = "spirit::doctor-round-trip"

// secretRoundTrip opens the store as a command would and writes, reads and
// deletes a value in it.
func secretRoundTrip(f *Factory, dataDir string) (DoctorKeyring, error) {
	var k DoctorKeyring
	cfg, err := secretStoreConfig(f.Getenv, dataDir)
	if err != nil {
		return k, err
	}
	if f.IO.CanPrompt() {
		cfg.Prompt = func(msg string) (string, error) { return f.IO.Prompter().Password("%s", msg) }
	}
	store, info, err := exthost.OpenSecretStore(cfg)
	k.Backend, k.System, k.Encrypted, k.Reason = info.Kind, info.Backend, info.Encrypted, info.Reason
	if info.Kind == exthost.StoreFile {
		k.Dir, k.File = filepath.Dir(info.Path), info.Path
	}
	if info.Kind != "" {
		k.Store = info.Name()
	}
	if err != nil {
		return k, secretStoreError(err)
	}
	value := fmt.Sprintf("round-trip-%d", time.Now().UnixNano())
	if err := store.Set(doctorAccount, value); err != nil {
		return k, fmt.Errorf("writing a secret: %w", err)
	}
	got, err := store.Get(doctorAccount)
	if err != nil {
		return k, fmt.Errorf("reading a secret back: %w", err)
	}
	if got != value {
		return k, fmt.Errorf("reading a secret back gave another value")
	}
	if err := store.Delete(doctorAccount); err != nil {
		return k, fmt.Errorf("deleting a secret: %w", err)
	}
	if _, err := store.Get(doctorAccount); !errors.Is(err, exthost.ErrSecretNotFound) {
		return k, fmt.Errorf("a deleted secret is still there (%v)", err)
	}
	k.RoundTrip = true
	return k, nil
}

// parseSecretEnv reads --secret-env KEY=ENVNAME mappings: the value of each
// slot KEY is the environment variable ENVNAME, which must be set.
func parseSecretEnv(getenv func(string) string, mappings []string) (map[string]string, error) {
	if len(mappings) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, m := range mappings {
		i := strings.LastIndexByte(m, '=')
		if i < 0 {
			return nil, usageErrorf("--secret-env %s: give KEY=ENVNAME, the secret slot and the environment variable that holds its value", m)
		}
		key, name := strings.TrimSpace(m[:i]), strings.TrimSpace(m[i+1:])
		if key == "" || name == "" {
			return nil, usageErrorf("--secret-env %s: give KEY=ENVNAME, the secret slot and the environment variable that holds its value", m)
		}
		v := getenv(name)
		if strings.TrimSpace(v) == "" {
			return nil, usageErrorf("--secret-env %s: the environment variable %s is not set or blank", m, name)
		}
		if _, dup := out[key]; dup {
			return nil, usageErrorf("--secret-env names the slot %s twice", key)
		}
		out[key] = v
	}
	return out, nil
}
