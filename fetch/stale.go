package fetch

import (
	"os"
	"path/filepath"
	"strings"
	"time"
)

// StaleAfter is how old a leftover partial download must be before the
// next download into the same folder removes it. A live download writes
// at least every Limits.IdleTimeout, so it never looks this old; one that
// a killed process left behind does.
const StaleAfter = time.Hour

// sweepOnce sweeps dir for stale partial files of pattern the first time
// c downloads into it: a folder such as the tarball cache holds many
// files, and a client that downloads many tarballs (registry mirror) need
// not list it again for each.
func (c *Client) sweepOnce(dir, pattern string) {
	if _, done := c.swept.LoadOrStore(dir+"\x00"+pattern, struct{}{}); !done {
		sweepStale(dir, pattern, time.Now())
	}
}

// sweepStale removes the files in dir that match pattern (a CreateTemp
// pattern with a "*") and were last written more than StaleAfter before
// now: partial downloads of a process that was killed before it could
// remove them. The shared temporary folder (dir "") is never swept.
func sweepStale(dir, pattern string, now time.Time) {
	if dir == "" || !strings.Contains(pattern, "*") {
		return
	}
	names, err := filepath.Glob(filepath.Join(dir, pattern))
	if err != nil {
		return
	}
	for _, name := range names {
		if fi, err := os.Lstat(name); err == nil && fi.Mode().IsRegular() && now.Sub(fi.ModTime()) > StaleAfter {
			os.Remove(name)
		}
	}
}

// SweepStale removes, once per Client and folder, the files of pattern in
// dir that a killed process left more than StaleAfter ago, as DownloadFile
// does before it downloads; for a caller that writes its own partial files
// there (a copy teed from a Stream).
func (c *Client) SweepStale(dir, pattern string) { c.sweepOnce(dir, pattern) }
