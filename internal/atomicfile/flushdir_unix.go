//go:build !windows

package atomicfile

// flushDir flushes the folder dir, so a rename in it is on disk.
var flushDir = flushUnixDir
