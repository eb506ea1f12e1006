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
//
// With -record FILE (default $BENCHPAIR_RECORD), the figures are also
// appended to FILE as one JSON line, with $BENCH_SOURCE (the script that
// ran benchpair) as its source; internal/benchreport turns those lines into
// the README's performance table.
//
// With -samples UNIT, nothing is run: each argument is NAME=V1,V2,... (the
// samples a script measured itself, e.g. peak RSS in MB), and benchpair
// only summarises, prints and records them like timed commands.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spiritagents/spirit/internal/benchstat"
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
	record := flag.String("record", os.Getenv("BENCHPAIR_RECORD"), "append the figures as a JSON line to this file")
	samples := flag.String("samples", "", "summarise NAME=V1,V2,... samples in this unit instead of timing commands")
	ratios := flag.Bool("ratios", true, "print the ratio of the first command to each other (false for different measures side by side)")
	headline := flag.Bool("headline", false, "mark the record as one of the goals of the README's summary table")
	flag.Parse()
	if flag.NArg() == 0 || *runs < 1 {
		fmt.Fprintln(os.Stderr, "usage: benchpair [-runs N] [-dir WORK] [-title T] NAME=CMD...\n       benchpair -samples UNIT [-title T] NAME=V1,V2,...")
		os.Exit(2)
	}
	r := benchstat.Record{Title: *title, Source: os.Getenv("BENCH_SOURCE"), Runs: *runs, Unit: "ms", NoRatio: !*ratios, Headline: *headline}
	var err error
	if *samples != "" {
		r.Unit = *samples
		r.Commands, r.Runs, err = summarise(flag.Args())
	} else {
		r.Commands, err = timeCommands(flag.Args(), *work, *runs, *warm)
	}
	if err != nil {
		fail(err)
	}
	printRecord(r)
	if *record != "" {
		if err := r.Append(*record); err != nil {
			fail(err)
		}
	}
}

func timeCommands(args []string, work string, runs, warm int) ([]benchstat.Figure, error) {
	if work == "" {
		d, err := os.MkdirTemp("", "benchpair-")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(d)
		work = d
	}
	var cmds []*command
	for _, a := range args {
		name, cmd, ok := strings.Cut(a, "=")
		if !ok || name == "" {
			return nil, fmt.Errorf("argument %q is not NAME=CMD", a)
		}
		c := &command{name: name, run: cmd}
		if s, r, ok := strings.Cut(cmd, ";;"); ok {
			c.setup, c.run = strings.TrimSpace(s), strings.TrimSpace(r)
		}
		cmds = append(cmds, c)
	}
	for round := -warm; round < runs; round++ {
		for _, c := range cmds {
			dir := filepath.Join(work, fmt.Sprintf("%s-%d", c.name, round+warm))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return nil, err
			}
			if c.setup != "" {
				if _, _, err := runOnce(c.setup, dir); err != nil {
					return nil, fmt.Errorf("%s setup: %w", c.name, err)
				}
			}
			d, cpu, err := runOnce(c.run, dir)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", c.name, err)
			}
			if round >= 0 {
				c.times = append(c.times, d)
				c.cpu = append(c.cpu, cpu)
			}
		}
	}
	figs := make([]benchstat.Figure, 0, len(cmds))
	for _, c := range cmds {
		slices.Sort(c.times)
		slices.Sort(c.cpu)
		cpu := msf(benchstat.Median(c.cpu))
		figs = append(figs, benchstat.Figure{Name: c.name, Min: msf(c.times[0]), Median: msf(benchstat.Median(c.times)),
			Max: msf(c.times[len(c.times)-1]), CPU: &cpu})
	}
	return figs, nil
}

// summarise reads NAME=V1,V2,... arguments; every name must have the same
// number of samples, which it returns as the run count.
func summarise(args []string) ([]benchstat.Figure, int, error) {
	var figs []benchstat.Figure
	runs := 0
	for _, a := range args {
		name, list, ok := strings.Cut(a, "=")
		if !ok || name == "" || list == "" {
			return nil, 0, fmt.Errorf("argument %q is not NAME=V1,V2,...", a)
		}
		var vs []float64
		for _, f := range strings.Split(list, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
			if err != nil {
				return nil, 0, fmt.Errorf("%s: sample %q is not a number", name, f)
			}
			vs = append(vs, v)
		}
		if runs != 0 && len(vs) != runs {
			return nil, 0, fmt.Errorf("%s has %d samples, the first had %d", name, len(vs), runs)
		}
		runs = len(vs)
		slices.Sort(vs)
		figs = append(figs, benchstat.Figure{Name: name, Min: vs[0], Median: benchstat.Median(vs), Max: vs[len(vs)-1]})
	}
	return figs, runs, nil
}

func printRecord(r benchstat.Record) {
	if r.Title != "" {
		fmt.Println(r.Title)
	}
	timed := r.Commands[0].CPU != nil
	legend := fmt.Sprintf("(%s, %d alternating runs; cpu: median user+sys)", r.Unit, r.Runs)
	if !timed {
		legend = fmt.Sprintf("(%s, %d runs)", r.Unit, r.Runs)
	}
	fmt.Printf("  %-22s %9s %9s %9s %9s   %s\n", "command", "min", "median", "max", map[bool]string{true: "cpu"}[timed], legend)
	for _, c := range r.Commands {
		cpu := ""
		if c.CPU != nil {
			cpu = num(*c.CPU)
		}
		fmt.Printf("  %-22s %9s %9s %9s %9s\n", c.Name, num(c.Min), num(c.Median), num(c.Max), cpu)
	}
	if r.NoRatio {
		return
	}
	first := r.Commands[0]
	for _, o := range r.Commands[1:] {
		fmt.Printf("  ratio %s/%s: median %.2fx (min %.2fx)\n", first.Name, o.Name, first.Median/o.Median, first.Min/o.Min)
	}
}

func msf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func num(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }

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
