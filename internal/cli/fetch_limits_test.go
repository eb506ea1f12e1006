package cli

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/spiritagents/spirit/fetch"
	"github.com/spiritagents/spirit/internal/iostreams"
)

// SPIRIT_DOWNLOAD_TIMEOUT sets the overall deadline of a download: an
// https URL install from a server that trickles a byte every 20 ms ends
// when it passes. A value that is not a duration is a usage error.
func TestDownloadTimeoutEnv(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		tick := time.NewTicker(20 * time.Millisecond)
		defer tick.Stop()
		for range 500 {
			select {
			case <-r.Context().Done():
				return
			case <-tick.C:
			}
			w.Write([]byte{'x'})
			w.(http.Flusher).Flush()
		}
	}))
	defer srv.Close()
	run := func(timeout string) error {
		ios, _, _, _ := iostreams.Test()
		env := map[string]string{fetch.TimeoutEnv: timeout}
		f := &Factory{IO: ios, Getenv: func(k string) string { return env[k] }, Now: time.Now,
			HTTPClient: srv.Client, Global: GlobalOptions{DataDir: t.TempDir()}}
		return runInstall(context.Background(), &InstallOptions{f: f, Source: srv.URL + "/x.tgz", LockTimeout: 5 * time.Second})
	}
	start := time.Now()
	if err := run("300ms"); !errors.Is(err, fetch.ErrDeadline) || time.Since(start) > 5*time.Second {
		t.Fatalf("err = %v after %s", err, time.Since(start))
	}
	var ue *usageError
	if err := run("soon"); !errors.As(err, &ue) || !strings.Contains(err.Error(), fetch.TimeoutEnv) {
		t.Fatalf("bad value: err = %v", err)
	}
}
