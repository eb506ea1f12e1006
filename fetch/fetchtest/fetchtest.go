// Package fetchtest holds the hostile servers that tests of downloads
// share.
package fetchtest

import (
	"net/http"
	"strconv"
	"time"
)

// Trickle returns a handler that announces n bytes and sends one every
// interval, stopping when the client goes away: never idle for long, and
// never done in time for a short overall deadline.
func Trickle(interval time.Duration, n int) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(n))
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for range n {
			select {
			case <-r.Context().Done():
				return
			case <-tick.C:
			}
			w.Write([]byte{'x'})
			w.(http.Flusher).Flush()
		}
	}
}
