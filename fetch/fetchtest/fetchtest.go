// Package fetchtest holds the hostile servers that tests of downloads
// share.
package fetchtest

import (
	"bytes"
	"net/http"
	"strconv"
	"time"
)

// Trickle returns a handler that announces n bytes and sends one every
// interval, stopping when the client goes away: never idle for long, and
// never done in time for a short overall deadline.
func Trickle(interval time.Duration, n int) http.HandlerFunc {
	return TrickleBody(interval, bytes.Repeat([]byte{'x'}, n))
}

// TrickleBody is Trickle sending the bytes of body, so a client that
// checks them as they come (a gzip reader) sees nothing wrong.
func TrickleBody(interval time.Duration, body []byte) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for _, b := range body {
			select {
			case <-r.Context().Done():
				return
			case <-tick.C:
			}
			w.Write([]byte{b})
			w.(http.Flusher).Flush()
		}
	}
}
