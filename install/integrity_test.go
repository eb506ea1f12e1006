package install_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/gofrs/flock"

	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/install/internal/corpus"
)

// swapOnWait rewrites an artifact while the installer waits for the lock,
// then lets it go on: the moment between a separate hash pass and the
// extraction.
type swapOnWait struct {
	t    *testing.T
	src  string
	evil []byte
	lock *flock.Flock
}

func (s *swapOnWait) Waiting(string) {
	if err := os.WriteFile(s.src, s.evil, 0o644); err != nil {
		s.t.Error(err)
	}
	if err := s.lock.Unlock(); err != nil {
		s.t.Error(err)
	}
}

func (s *swapOnWait) Extracting(int64, int64) {}

// TestIntegrityCoversInstalledBytes changes the artifact after the caller
// computed its integrity and before it is unpacked: the install must either
// fail the integrity check or install the checked bytes, never the others.
func TestIntegrityCoversInstalledBytes(t *testing.T) {
	for _, c := range []struct {
		name      string
		good, bad []byte
	}{
		{"pkg.tgz", corpus.Tgz(corpus.Package("package/", corpus.ID, "1.0.0", 2)), corpus.Tgz(corpus.Package("package/", corpus.ID, "6.6.6", 2))},
		{"pkg.zip", corpus.Zip(corpus.Package("", corpus.ID, "1.0.0", 2)), corpus.Zip(corpus.Package("", corpus.ID, "6.6.6", 2))},
	} {
		t.Run(c.name, func(t *testing.T) {
			in, root := newInstaller(t)
			src := filepath.Join(root, c.name)
			if err := os.WriteFile(src, c.good, 0o644); err != nil {
				t.Fatal(err)
			}
			res, err := in.Install(context.Background(), install.Request{Path: src})
			if err != nil {
				t.Fatal(err)
			}
			sri := res.Record.Integrity
			if _, err := in.Remove(context.Background(), corpus.ID, install.RemoveOptions{}); err != nil {
				t.Fatal(err)
			}

			if err := os.MkdirAll(in.Paths.SpiritDir(), 0o755); err != nil {
				t.Fatal(err)
			}
			lock := flock.New(in.Paths.LockFile())
			if err := lock.Lock(); err != nil {
				t.Fatal(err)
			}
			defer lock.Unlock()
			in.Progress = &swapOnWait{t: t, src: src, evil: c.bad, lock: lock}
			res, err = in.Install(context.Background(), install.Request{Path: src, Integrity: sri})
			switch {
			case errors.Is(err, install.ErrIntegrity):
			case err != nil:
				t.Fatalf("want an integrity error or the checked package, got %v", err)
			case res.Manifest.Version != "1.0.0" || res.Record.Integrity != sri:
				t.Fatalf("installed version %s (integrity %s) though %s was checked", res.Manifest.Version, res.Record.Integrity, sri)
			}
		})
	}
}

// TestHugeZipRefusedBeforeCopy: a .zip larger than any package within the
// limits is refused at once, not copied into the transaction first.
func TestHugeZipRefusedBeforeCopy(t *testing.T) {
	in, root := newInstaller(t)
	src := filepath.Join(root, "huge.zip")
	if err := os.WriteFile(src, []byte("PK\x03\x04"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(src, 1<<30); err != nil { // sparse: no disk used
		t.Fatal(err)
	}
	_, err := in.Install(context.Background(), install.Request{Path: src})
	if !errors.Is(err, install.ErrTotalTooLarge) {
		t.Fatalf("want ErrTotalTooLarge, got %v", err)
	}
	if ents, _ := os.ReadDir(in.Paths.StagingDir()); len(ents) != 0 {
		t.Errorf("staging keeps %d entries", len(ents))
	}
}
