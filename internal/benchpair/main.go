// Command benchpair times commands side by side, in alternating rounds,
// and prints min/median/max of each and the ratio of the first command to
// every other one. It is the timer of the scripts/bench-*.sh scripts.
//
//	benchpair [-runs N] [-dir WORK] [-title T] NAME=CMD [NAME=CMD...]
//
// Each round runs every command once, in the order given. In CMD, {dir}
// is replaced by a fresh, empty directory WORK/NAME-ROUND, made before the
// clock starts; nothing is ever deleted while timing (the caller removes
// WORK at the end), because on many file systems creating files right
// after deleting thousands is several times slower, and that would
// penalise whichever command runs next. A CMD of the form "setup ;; cmd"
// runs setup (untimed) before cmd, in the same fresh directory.
//
// A CMD without shell syntax is executed directly, so that the time of a
// fast command is not the time of a shell; others run under bash -c.
// Output goes to stdout and errors of a command end the run.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

type command struct {
	name, setup, run string
	times, cpu       []time.Duration
}

func main() {
	runs := flag.Int("runs", 7, "rounds")
	work := flag.String("dir", "", "where the fresh directories are made (default: a new temp dir)")
	title := flag.String("title", "", "a line printed before the table")
	warm := flag.Int("warmup", 1, "untimed rounds before the timed ones")
	flag.Parse()
	if flag.NArg() == 0 || *runs < 1 {
		fmt.Fprintln(os.Stderr, "usage: benchpair [-runs N] [-dir WORK] NAME=CMD...")
		os.Exit(2)
	}
	if *work == "" {
		d, err := os.MkdirTemp("", "benchpair-")
		if err != nil {
			fail(err)
		}
		defer os.RemoveAll(d)
		*work = d
	}
	var cmds []*command
	for _, a := range flag.Args() {
		name, cmd, ok := strings.Cut(a, "=")
		if !ok || name == "" {
			fail(fmt.Errorf("argument %q is not NAME=CMD", a))
		}
		c := &command{name: name, run: cmd}
		if s, r, ok := strings.Cut(cmd, ";;"); ok {
			c.setup, c.run = strings.TrimSpace(s), strings.TrimSpace(r)
		}
		cmds = append(cmds, c)
	}
	for round := -*warm; round < *runs; round++ {
		for _, c := range cmds {
			dir := filepath.Join(*work, fmt.Sprintf("%s-%d", c.name, round+*warm))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				fail(err)
			}
			if c.setup != "" {
				if _, _, err := runOnce(c.setup, dir); err != nil {
					fail(fmt.Errorf("%s setup: %w", c.name, err))
				}
			}
			d, cpu, err := runOnce(c.run, dir)
			if err != nil {
				fail(fmt.Errorf("%s: %w", c.name, err))
			}
			if round >= 0 {
				c.times = append(c.times, d)
				c.cpu = append(c.cpu, cpu)
			}
		}
	}
	if *title != "" {
		fmt.Println(*title)
	}
	fmt.Printf("  %-22s %9s %9s %9s %9s   %s\n", "command", "min", "median", "max", "cpu", "(ms, "+fmt.Sprint(*runs)+" alternating runs; cpu: median user+sys)")
	for _, c := range cmds {
		slices.Sort(c.times)
		slices.Sort(c.cpu)
		fmt.Printf("  %-22s %9s %9s %9s %9s\n", c.name, ms(c.times[0]), ms(median(c.times)), ms(c.times[len(c.times)-1]), ms(median(c.cpu)))
	}
	for _, o := range cmds[1:] {
		first := cmds[0]
		fmt.Printf("  ratio %s/%s: median %.2fx (min %.2fx)\n", first.name, o.name,
			float64(median(first.times))/float64(median(o.times)), float64(first.times[0])/float64(o.times[0]))
	}
}

func median(t []time.Duration) time.Duration {
	n := len(t)
	if n%2 == 1 {
		return t[n/2]
	}
	return (t[n/2-1] + t[n/2]) / 2
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d)/float64(time.Millisecond)) }

// runOnce runs cmd with {dir} replaced and returns its wall time and the
// CPU time (user and system) of it and the children it waited for.
func runOnce(cmd, dir string) (time.Duration, time.Duration, error) {
	cmd = strings.ReplaceAll(cmd, "{dir}", dir)
	var c *exec.Cmd
	if strings.ContainsAny(cmd, "|&;<>()$`\\\"'*?[]#~=%") {
		c = exec.Command("bash", "-c", cmd)
	} else {
		f := strings.Fields(cmd)
		c = exec.Command(f[0], f[1:]...)
	}
	c.Dir = dir
	c.Stdout = nil
	var stderr strings.Builder
	c.Stderr = &stderr
	if c.Path != "" && !filepath.IsAbs(c.Path) {
		if p, err := exec.LookPath(c.Path); err == nil {
			c.Path = p
		}
	}
	start := time.Now()
	err := c.Run()
	d := time.Since(start)
	if err != nil {
		return 0, 0, fmt.Errorf("%s: %w: %s", cmd, err, strings.TrimSpace(stderr.String()))
	}
	return d, c.ProcessState.UserTime() + c.ProcessState.SystemTime(), nil
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchpair:", err)
	os.Exit(1)
}
