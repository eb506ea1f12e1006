//go:build !linux

package install

import "os"

// read returns the contents of file name.
func (r *fileReader) read(name string) ([]byte, error) { return os.ReadFile(name) }
