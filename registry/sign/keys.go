package sign

import (
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sigstore/sigstore/pkg/signature"
	"github.com/theupdateframework/go-tuf/v2/metadata"

	"github.com/spiritagents/spirit/internal/atomicfile"
)

// Roles are the four top-level TUF roles, in the order keys are made.
var Roles = []string{metadata.ROOT, metadata.TARGETS, metadata.SNAPSHOT, metadata.TIMESTAMP}

// ErrNoKey: the key folder has no private key for a role.
var ErrNoKey = errors.New("no private key for the role")

// Key is one role's ed25519 key pair.
type Key struct {
	Role    string
	Private ed25519.PrivateKey
	// TUF is the public key as TUF metadata writes it.
	TUF *metadata.Key
	// ID is the TUF key id (sha256 of the canonical public key).
	ID string
}

// KeyFile is KEYDIR/<role>.key, the private key (PKCS #8 PEM, mode 0600).
func KeyFile(dir, role string) string { return filepath.Join(dir, role+".key") }

// PubFile is KEYDIR/<role>.pub, the public key (PKIX PEM).
func PubFile(dir, role string) string { return filepath.Join(dir, role+".pub") }

func newKey(role string, priv ed25519.PrivateKey) (*Key, error) {
	k, err := metadata.KeyFromPublicKey(priv.Public())
	if err != nil {
		return nil, err
	}
	id, err := k.ID()
	if err != nil {
		return nil, err
	}
	return &Key{Role: role, Private: priv, TUF: k, ID: id}, nil
}

func (k *Key) signer() (signature.Signer, error) { return signature.LoadED25519Signer(k.Private) }

// generate makes a new key for role.
func generate(role string) (*Key, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	return newKey(role, priv)
}

// write stores k in dir: the private key 0600, the public key 0644.
func (k *Key) write(dir string) error {
	der, err := x509.MarshalPKCS8PrivateKey(k.Private)
	if err != nil {
		return err
	}
	pub, err := x509.MarshalPKIXPublicKey(k.Private.Public())
	if err != nil {
		return err
	}
	if err := atomicfile.WriteDurable(KeyFile(dir, k.Role), pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), 0o600); err != nil {
		return err
	}
	return atomicfile.WriteDurable(PubFile(dir, k.Role), pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pub}), 0o644)
}

// LoadKey reads the private key of role from dir.
func LoadKey(dir, role string) (*Key, error) {
	return loadKeyFile(KeyFile(dir, role), role)
}

func loadKeyFile(file, role string) (*Key, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: %s: %s", ErrNoKey, role, file)
	}
	if err != nil {
		return nil, err
	}
	b, _ := pem.Decode(data)
	if b == nil || b.Type != "PRIVATE KEY" {
		return nil, fmt.Errorf("%s is not a PEM private key", file)
	}
	pk, err := x509.ParsePKCS8PrivateKey(b.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	priv, ok := pk.(ed25519.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("%s is not an ed25519 key", file)
	}
	return newKey(role, priv)
}

// ErrKeysExist: keys init would overwrite keys.
var ErrKeysExist = errors.New("the key folder already holds keys")

// InitKeys makes an ed25519 key for each role in dir (made 0700 if
// missing). It refuses to overwrite an existing key. It returns the keys
// in the order of Roles.
func InitKeys(dir string) ([]*Key, error) {
	for _, role := range Roles {
		if _, err := os.Lstat(KeyFile(dir, role)); err == nil {
			return nil, fmt.Errorf("%w: %s", ErrKeysExist, KeyFile(dir, role))
		}
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	var keys []*Key
	for _, role := range Roles {
		k, err := generate(role)
		if err != nil {
			return nil, err
		}
		if err := k.write(dir); err != nil {
			return nil, err
		}
		keys = append(keys, k)
	}
	return keys, nil
}

// readPub reads a PKIX PEM ed25519 public key.
func readPub(file string) (ed25519.PublicKey, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%w: no %s", ErrNoKey, file)
	}
	if err != nil {
		return nil, err
	}
	b, _ := pem.Decode(data)
	if b == nil || b.Type != "PUBLIC KEY" {
		return nil, fmt.Errorf("%s is not a PEM public key", file)
	}
	pk, err := x509.ParsePKIXPublicKey(b.Bytes)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	pub, ok := pk.(ed25519.PublicKey)
	if !ok {
		return nil, fmt.Errorf("%s is not an ed25519 key", file)
	}
	return pub, nil
}
