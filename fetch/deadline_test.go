package fetch

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/spiritagents/spirit/fetch/fetchtest"
	"github.com/spiritagents/spirit/internal/testutil/tempdir"
)

// A server that trickles a byte now and then beats the idle timeout but
// not the overall deadline, for Get and for DownloadFile, and the deadline
// is not retried.
func TestDeadlineStopsATrickle(t *testing.T) {
	srv := newRecorder(t, fetchtest.Trickle(20*time.Millisecond, 500))
	l := fast
	l.IdleTimeout, l.Timeout = 2*time.Second, 300*time.Millisecond
	c := New(Options{Limits: l})
	check := func(what string, start time.Time, err error) {
		t.Helper()
		if !errors.Is(err, ErrDeadline) || !strings.Contains(err.Error(), TimeoutEnv) {
			t.Errorf("%s: err = %v", what, err)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%s: gave up after %s", what, d)
		}
	}

	start := time.Now()
	resp, err := c.Get(context.Background(), srv.URL+"/slow", nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = resp.ReadAll(1000)
	resp.Body.Close()
	check("Get", start, err)

	start = time.Now()
	n := len(srv.requests())
	dir := tempdir.New(t)
	_, err = c.DownloadFile(context.Background(), Download{URL: srv.URL + "/slow.tgz", Dir: dir})
	check("DownloadFile", start, err)
	if got := len(srv.requests()) - n; got != 1 {
		t.Errorf("DownloadFile made %d requests", got)
	}
}

// The deadline also bounds the wait for headers and the pauses between
// tries, and the caller's own cancellation is reported as it is.
func TestDeadlineAcrossTries(t *testing.T) {
	srv := newRecorder(t, func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "busy", http.StatusServiceUnavailable)
	})
	l := fast
	l.RetryDelay, l.Timeout = time.Second, 200*time.Millisecond
	_, err := New(Options{Limits: l}).Get(context.Background(), srv.URL+"/x", nil)
	if !errors.Is(err, ErrDeadline) {
		t.Errorf("err = %v", err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err = New(Options{Limits: fast}).DownloadFile(ctx, Download{URL: srv.URL + "/x", Dir: tempdir.New(t)})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v", err)
	}
}
