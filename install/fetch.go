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

	"github.com/spiritagents/spirit/fetch"
)

// ErrInsecureURL is returned for a source URL that is not https.
var ErrInsecureURL = errors.New("only https URLs are accepted")

// Download is DownloadWith through a fetch client on client with the
// default limits of package fetch.
func Download(ctx context.Context, client *http.Client, rawURL, dir string) (file, name string, err error) {
	return DownloadWith(ctx, fetch.New(fetch.Options{HTTP: client}), rawURL, dir)
}

// DownloadWith fetches an https URL of a .tgz or .zip into a new temporary
// file in dir and returns its path and the file name the URL names. The
// fetch client's limits apply (timeouts, overall deadline, retries, at
// most MaxDownload bytes), and its rules: no redirect to plain http, and a
// user:password in the URL is sent only within the URL's own scope. The
// caller removes the file.
func DownloadWith(ctx context.Context, fc *fetch.Client, rawURL, dir string) (file, name string, err error) {
	return DownloadWithProgress(ctx, fc, rawURL, dir, nil)
}

// DownloadWithProgress is DownloadWith reporting to p (nil for none); the
// label is the file name the URL names, else the URL without credentials.
func DownloadWithProgress(ctx context.Context, fc *fetch.Client, rawURL, dir string, p fetch.Progress) (file, name string, err error) {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "", "", fmt.Errorf("%w: %s", fetch.ErrInvalidURL, fetch.Redact(rawURL))
	}
	if u.Scheme != "https" {
		return "", "", fmt.Errorf("%w: %s", ErrInsecureURL, fetch.Redact(rawURL))
	}
	name = path.Base(u.Path)
	if name == "/" || name == "." || strings.ContainsAny(name, `\/`) {
		name = ""
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	d := fetch.Download{URL: rawURL, Dir: dir, Pattern: "download-*" + filepath.Ext(name)}
	if p != nil {
		label := name
		if label == "" {
			label = fetch.Redact(rawURL)
		}
		d.Tee = func(total int64) io.Writer {
			p.Start(label, total)
			return fetch.ProgressWriter(p)
		}
	}
	file, err = fc.DownloadFile(ctx, d)
	if p != nil {
		p.Done(err)
	}
	if err != nil {
		return "", "", fmt.Errorf("downloading %s: %w", fetch.Redact(rawURL), err)
	}
	return file, name, nil
}

// recordedURL is an http(s) URL as it may be recorded or shown: without
// user information, which may hold a password or token and is used only in
// memory for the download. Anything else (a path, an npm spec) is
// returned as it is.
func recordedURL(s string) string {
	if l := strings.ToLower(s); strings.HasPrefix(l, "https://") || strings.HasPrefix(l, "http://") {
		return fetch.Redact(s)
	}
	return s
}
