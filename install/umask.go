package install

import (
	"bufio"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"sync"
)

// processUmask is the umask of this process, read once from
// /proc/self/status (Linux 4.7 and later); 0o777 when it cannot be read,
// which makes every file's mode be set explicitly. Reading it does not
// change it, unlike syscall.Umask, which other goroutines could race.
var processUmask = sync.OnceValue(func() fs.FileMode {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0o777
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Umask:"); ok {
			m, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32)
			if err != nil {
				return 0o777
			}
			return fs.FileMode(m) & 0o777
		}
	}
	return 0o777
})
