package errkind

import (
	"errors"
	"io/fs"
	"testing"
)

func TestErrorf(t *testing.T) {
	kind := errors.New("URL must use https")
	err := Errorf(kind, "registry URL must use https: %s (%w)", "http://x", fs.ErrNotExist)
	if err.Error() != "registry URL must use https: http://x (file does not exist)" {
		t.Errorf("text %q", err)
	}
	if !errors.Is(err, kind) || !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("does not match both: %v", err)
	}
	if errors.Is(Errorf(kind, "plain"), fs.ErrNotExist) {
		t.Error("matches what it does not wrap")
	}
}
