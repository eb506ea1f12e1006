package install

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"
)

// ErrInsecureURL is returned for a source URL that is not https.
var ErrInsecureURL = errors.New("only https URLs are accepted")

// Download fetches an https URL of a .tgz or .zip into a new temporary file
// in dir and returns its path and the file name the URL names. At most
// MaxTotalSize bytes are read. The caller removes the file.
func Download(ctx context.Context, client *http.Client, rawURL, dir string) (file, name string, err error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", "", fmt.Errorf("invalid URL %q: %w", rawURL, err)
	}
	if u.Scheme != "https" {
		return "", "", fmt.Errorf("%w: %s", ErrInsecureURL, rawURL)
	}
	name = path.Base(u.Path)
	if name == "/" || name == "." || strings.ContainsAny(name, `\/`) {
		name = ""
	}
	// The body must keep coming: a server that stalls longer than
	// idleTimeout between reads ends the download.
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return "", "", err
	}
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", "", fmt.Errorf("downloading %s: %w", u.Redacted(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return "", "", fmt.Errorf("downloading %s: %s", u.Redacted(), resp.Status)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	f, err := os.CreateTemp(dir, "download-*"+filepath.Ext(name))
	if err != nil {
		return "", "", err
	}
	body := &idleReader{r: resp.Body, timer: time.AfterFunc(idleTimeout, func() { cancel(errIdle) })}
	n, err := io.Copy(f, io.LimitReader(body, MaxTotalSize+1))
	body.timer.Stop()
	if errors.Is(context.Cause(ctx), errIdle) {
		err = fmt.Errorf("downloading %s: %w", u.Redacted(), errIdle)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > MaxTotalSize {
		err = fmt.Errorf("downloading %s: %w", u.Redacted(), ErrTotalTooLarge)
	}
	if err != nil {
		os.Remove(f.Name())
		return "", "", err
	}
	return f.Name(), name, nil
}

// idleTimeout is how long a download may wait for the next bytes.
var idleTimeout = 30 * time.Second

var errIdle = errors.New("no data received for too long")

// idleReader restarts its timer at every read that returns bytes.
type idleReader struct {
	r     io.Reader
	timer *time.Timer
}

func (ir *idleReader) Read(p []byte) (int, error) {
	n, err := ir.r.Read(p)
	if n > 0 {
		ir.timer.Reset(idleTimeout)
	}
	return n, err
}
