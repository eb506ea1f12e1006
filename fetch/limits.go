package fetch

import (
	"fmt"
	"strings"
	"time"
)

// Limits bound every download spirit makes: npm packuments and tarballs,
// marketplace catalogs, details, READMEs and tarballs, and URL installs.
// A zero field takes its default:
//
//   - HeaderTimeout, 30 s (DefaultHeaderTimeout): the wait for the response
//     headers of one try.
//   - IdleTimeout, 30 s (DefaultIdleTimeout): the longest pause between two
//     bytes of a body.
//   - Timeout, 10 min (DefaultTimeout): the overall deadline of one download,
//     all tries, headers and body together. A server trickling a byte now
//     and then beats the idle timeout, never this one. The CLI reads it from
//     SPIRIT_DOWNLOAD_TIMEOUT.
//   - MaxDownload, 100 MiB (DefaultMaxDownload): the size of an artifact (a
//     tarball or a ZIP); documents have their own caps, given per call.
//   - Tries, 3 (DefaultTries): how often a request is made when the
//     connection fails, the server answers 5xx or a body breaks off.
//   - RetryDelay, 500 ms (DefaultRetryDelay): the pause before the second
//     try, doubled before each further one.
type Limits struct {
	HeaderTimeout time.Duration
	IdleTimeout   time.Duration
	Timeout       time.Duration
	MaxDownload   int64
	Tries         int
	RetryDelay    time.Duration
}

// The defaults of Limits.
const (
	DefaultHeaderTimeout = 30 * time.Second
	DefaultIdleTimeout   = 30 * time.Second
	DefaultTimeout       = 10 * time.Minute
	DefaultMaxDownload   = 100 << 20
	DefaultTries         = 3
	DefaultRetryDelay    = 500 * time.Millisecond
)

// TimeoutEnv is the environment variable the CLI reads Limits.Timeout from.
const TimeoutEnv = "SPIRIT_DOWNLOAD_TIMEOUT"

// WithDefaults returns l with every zero (or negative) field set to its default.
func (l Limits) WithDefaults() Limits {
	if l.HeaderTimeout <= 0 {
		l.HeaderTimeout = DefaultHeaderTimeout
	}
	if l.IdleTimeout <= 0 {
		l.IdleTimeout = DefaultIdleTimeout
	}
	if l.Timeout <= 0 {
		l.Timeout = DefaultTimeout
	}
	if l.MaxDownload <= 0 {
		l.MaxDownload = DefaultMaxDownload
	}
	if l.Tries <= 0 {
		l.Tries = DefaultTries
	}
	if l.RetryDelay <= 0 {
		l.RetryDelay = DefaultRetryDelay
	}
	return l
}

// ParseTimeout reads a download deadline such as "90s" or "15m" (a Go
// duration; a bare number is seconds). "" is 0, the default.
func ParseTimeout(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		d, err = time.ParseDuration(s + "s")
	}
	if err != nil || d <= 0 {
		return 0, fmt.Errorf("invalid download timeout %q: want a positive duration such as 90s or 15m", s)
	}
	return d, nil
}
