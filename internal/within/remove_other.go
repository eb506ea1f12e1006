//go:build !windows

package within

import "os"

// removeAt removes rel in r.
func removeAt(r *os.Root, rel string) error { return r.Remove(rel) }
