// Command mcpload drives MCP servers over stdio with tools/call and prints
// their rates side by side. It is the load generator of scripts/bench-mcp.sh.
//
//	mcpload [-rounds N] [-calls N] [-inflight N] [-warmup N] NAME=CMD [NAME=CMD...]
//
// Each round starts every server once, in the order given and in reverse
// order in every other round (the first server of a round ran slower in
// trials, whichever it was), and for each: initialize, notifications/initialized, tools/list (the
// server must offer exactly one tool, which takes {"text": string} and
// returns it as its text content), warm-up calls, then two timed phases of
// -calls calls each on the same session: sequential (one request in flight)
// and concurrent (-inflight requests in flight on the one stdio session,
// each answer releasing the next request, as a client with that many
// concurrent callers sends them). Every answer is checked: its id, no
// error, and the text of its own request. Starting the server is not
// timed. It prints min/median/max calls/s of each phase and server, the
// median p50 latency of the sequential phase, the median CPU time of the
// server and its children per call, and the ratios of the first server to
// each other one (of the medians, the slowest rounds and the fastest).
//
// The client side is one goroutine that writes pre-encoded lines and
// decodes only the fields it checks, the same work for every server.
//
// With -ts-client FILE (testdata/mcp/bench/ts-client.mjs), the client is
// instead the TypeScript SDK's own Client over its StdioClientTransport,
// run by node, which starts the server itself and runs the same phases;
// -label names that client in the recorded titles.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spiritagents/spirit/internal/benchstat"
)

type server struct {
	name, cmd string
	seq, par  []float64 // calls/s, one a round
	cpu       []float64 // µs of CPU a call, the server and its children
	p50       []time.Duration
}

func main() {
	rounds := flag.Int("rounds", 5, "rounds; each starts every server once")
	calls := flag.Int("calls", 4000, "calls in each timed phase")
	inflight := flag.Int("inflight", 8, "requests in flight in the concurrent phase")
	warmup := flag.Int("warmup", 500, "untimed calls before the timed phases")
	limit := flag.Duration("timeout", time.Minute, "time limit of one server's round")
	title := flag.String("title", "", "a line printed before the table")
	record := flag.String("record", os.Getenv("BENCHPAIR_RECORD"), "append each phase's figures as a JSON line to this file (internal/benchstat)")
	seqGoal := flag.String("seq-goal", "", "the sequential phase's goal, for -record")
	parGoal := flag.String("par-goal", "", "the concurrent phase's goal, for -record")
	tsClient := flag.String("ts-client", "", "drive the servers with this node script (the TypeScript SDK's client) instead of mcpload's own")
	label := flag.String("label", "", "appended to each recorded title (which client drove the servers)")
	flag.Parse()
	if flag.NArg() == 0 || *rounds < 1 || *calls < 1 || *inflight < 1 || *warmup < 0 {
		fmt.Fprintln(os.Stderr, "usage: mcpload [-rounds N] [-calls N] [-inflight N] [-warmup N] NAME=CMD...")
		os.Exit(2)
	}
	var servers []*server
	for _, a := range flag.Args() {
		name, cmd, ok := strings.Cut(a, "=")
		if !ok || name == "" || strings.TrimSpace(cmd) == "" {
			fail(fmt.Errorf("argument %q is not NAME=CMD", a))
		}
		servers = append(servers, &server{name: name, cmd: cmd})
	}
	for round := range *rounds {
		order := slices.Clone(servers)
		if round%2 == 1 {
			slices.Reverse(order) // no server always runs first, or always after the same one
		}
		for _, s := range order {
			ctx, cancel := context.WithTimeout(context.Background(), *limit)
			run := runRound
			if *tsClient != "" {
				run = func(ctx context.Context, cmd string, warmup, calls, inflight int) (result, error) {
					return runTSRound(ctx, *tsClient, cmd, warmup, calls, inflight)
				}
			}
			r, err := run(ctx, s.cmd, *warmup, *calls, *inflight)
			cancel()
			if err != nil {
				fail(fmt.Errorf("%s: %w", s.name, err))
			}
			s.seq = append(s.seq, r.seq)
			s.par = append(s.par, r.par)
			s.p50 = append(s.p50, r.p50)
			s.cpu = append(s.cpu, r.cpu)
		}
	}
	if *title != "" {
		fmt.Println(*title)
	}
	fmt.Printf("  %-10s %-14s %8s %8s %8s   (calls/s, %d rounds of %d calls a phase)\n", "server", "phase", "min", "median", "max", *rounds, *calls)
	par := fmt.Sprintf("%d in flight", *inflight)
	for _, s := range servers {
		slices.Sort(s.seq)
		slices.Sort(s.par)
		slices.Sort(s.p50)
		slices.Sort(s.cpu)
		fmt.Printf("  %-10s %-14s %8.0f %8.0f %8.0f   p50 %d µs\n", s.name, "sequential", s.seq[0], benchstat.Median(s.seq), s.seq[len(s.seq)-1], benchstat.Median(s.p50).Microseconds())
		fmt.Printf("  %-10s %-14s %8.0f %8.0f %8.0f   server CPU %.0f µs a call (median, both phases)\n", s.name, par, s.par[0], benchstat.Median(s.par), s.par[len(s.par)-1], benchstat.Median(s.cpu))
	}
	first := servers[0]
	for _, o := range servers[1:] {
		ratio := func(phase string, a, b []float64) {
			fmt.Printf("  ratio %s/%s %-14s median %.2fx, min %.2fx, max %.2fx\n", first.name, o.name, phase+":",
				benchstat.Median(a)/benchstat.Median(b), a[0]/b[0], a[len(a)-1]/b[len(b)-1])
		}
		ratio("sequential", first.seq, o.seq)
		ratio(par, first.par, o.par)
		fmt.Printf("  ratio %s/%s CPU a call:    %.2fx (under 1: %s uses less)\n", first.name, o.name, benchstat.Median(first.cpu)/benchstat.Median(o.cpu), first.name)
	}
	if *record != "" {
		phases := []struct {
			what, unit, goal string
			values           func(*server) []float64
		}{
			{"MCP tools/call over stdio, sequential", "calls/s", *seqGoal, func(s *server) []float64 { return s.seq }},
			{"MCP tools/call over stdio, " + par, "calls/s", *parGoal, func(s *server) []float64 { return s.par }},
			{"MCP tools/call over stdio, CPU of the server and its children a call", "µs", "", func(s *server) []float64 { return s.cpu }},
		}
		for _, ph := range phases {
			r := benchstat.Record{Title: ph.what + *label, Source: os.Getenv("BENCH_SOURCE"), Runs: *rounds, Unit: ph.unit}
			if ph.goal != "" {
				r.Title += " (goal " + ph.goal + ")"
				r.Headline = true
			}
			for _, s := range servers {
				v := ph.values(s)
				r.Commands = append(r.Commands, benchstat.Figure{Name: s.name, Min: v[0], Median: benchstat.Median(v), Max: v[len(v)-1]})
			}
			if err := r.Append(*record); err != nil {
				fail(err)
			}
		}
	}
}

type result struct {
	seq, par, cpu float64
	p50           time.Duration
}

// runRound starts cmd, runs the phases and stops it.
func runRound(ctx context.Context, cmdline string, warmup, calls, inflight int) (result, error) {
	cmd := command(ctx, cmdline)
	stdin, stdout, stderr, err := start(cmd)
	if err != nil {
		return result{}, err
	}
	c := &client{w: bufio.NewWriter(stdin), r: bufio.NewReaderSize(stdout, 1<<20), pid: cmd.Process.Pid}
	res, err := c.run(warmup, calls, inflight)
	stdin.Close()
	werr := cmd.Wait()
	switch {
	case err != nil && ctx.Err() != nil:
		return res, fmt.Errorf("%w (time limit reached); stderr: %s", err, stderr.String())
	case err != nil:
		return res, fmt.Errorf("%w; stderr: %s", err, stderr.String())
	case werr != nil:
		return res, fmt.Errorf("stopping the server: %w; stderr: %s", werr, stderr.String())
	}
	return res, nil
}

// runTSRound runs one round through the TypeScript SDK's client script,
// which starts the server cmdline itself.
func runTSRound(ctx context.Context, script, cmdline string, warmup, calls, inflight int) (result, error) {
	server, err := json.Marshal(command(ctx, cmdline).Args)
	if err != nil {
		return result{}, err
	}
	cmd := exec.CommandContext(ctx, "node", script)
	cmd.Env = append(os.Environ(), "MCP_SERVER="+string(server), "CALLS="+strconv.Itoa(calls),
		"WARMUP="+strconv.Itoa(warmup), "INFLIGHT="+strconv.Itoa(inflight))
	stdin, stdout, stderr, err := start(cmd)
	if err != nil {
		return result{}, err
	}
	lines := bufio.NewScanner(stdout)
	expect := func(word string, v any) error {
		if !lines.Scan() {
			return fmt.Errorf("the client ended before %q; stderr: %s", word, stderr.String())
		}
		rest, ok := strings.CutPrefix(lines.Text(), word+" ")
		if !ok {
			return fmt.Errorf("the client said %.200q, want %q", lines.Text(), word)
		}
		return json.Unmarshal([]byte(rest), v)
	}
	var res result
	var ready struct{ PID int }
	var done struct {
		Seq, Par, P50us float64
	}
	err = expect("ready", &ready)
	var cpu0 time.Duration
	if err == nil {
		cpu0 = treeCPU(ready.PID)
		_, err = io.WriteString(stdin, "go\n")
	}
	if err == nil {
		err = expect("done", &done)
	}
	if err == nil {
		res = result{seq: done.Seq, par: done.Par, p50: time.Duration(done.P50us * float64(time.Microsecond)),
			cpu: float64((treeCPU(ready.PID) - cpu0).Microseconds()) / float64(2*calls)}
		_, err = io.WriteString(stdin, "end\n")
	}
	stdin.Close()
	werr := cmd.Wait()
	switch {
	case err != nil:
		return res, fmt.Errorf("%w; stderr: %s", err, stderr.String())
	case werr != nil:
		return res, fmt.Errorf("the client: %w; stderr: %s", werr, stderr.String())
	}
	return res, nil
}

// start starts cmd with pipes to its stdin and stdout, and its stderr
// kept for error messages.
func start(cmd *exec.Cmd) (io.WriteCloser, io.ReadCloser, *strings.Builder, error) {
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, nil, nil, err
	}
	stderr := new(strings.Builder)
	cmd.Stderr = stderr
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, nil, nil, err
	}
	return stdin, stdout, stderr, nil
}

// command is cmdline run directly, or under bash -c when it has shell syntax.
func command(ctx context.Context, cmdline string) *exec.Cmd {
	if strings.ContainsAny(cmdline, "|&;<>()$`\\\"'*?[]#~=%") {
		return exec.CommandContext(ctx, "bash", "-c", cmdline)
	}
	f := strings.Fields(cmdline)
	return exec.CommandContext(ctx, f[0], f[1:]...)
}

type client struct {
	w    *bufio.Writer
	r    *bufio.Reader
	next int64
	tool []byte // the tool's name as a JSON string
	pid  int    // the server's process
}

func (c *client) run(warmup, calls, inflight int) (result, error) {
	if _, err := c.request(`"initialize"`, `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"mcpload","version":"1"}}`); err != nil {
		return result{}, fmt.Errorf("initialize: %w", err)
	}
	if _, err := c.w.WriteString(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n"); err != nil {
		return result{}, err
	}
	raw, err := c.request(`"tools/list"`, `{}`)
	if err != nil {
		return result{}, fmt.Errorf("tools/list: %w", err)
	}
	var list struct {
		Tools []struct{ Name string }
	}
	if err := json.Unmarshal(raw, &list); err != nil {
		return result{}, fmt.Errorf("tools/list: %w", err)
	}
	if len(list.Tools) != 1 {
		return result{}, fmt.Errorf("the server offers %d tools, want exactly one", len(list.Tools))
	}
	c.tool, _ = json.Marshal(list.Tools[0].Name)
	if _, err := c.calls(warmup, inflight, nil); err != nil {
		return result{}, fmt.Errorf("warm-up: %w", err)
	}
	lat := make([]time.Duration, calls)
	cpu0 := treeCPU(c.pid)
	seq, err := c.calls(calls, 1, lat)
	if err != nil {
		return result{}, err
	}
	par, err := c.calls(calls, inflight, nil)
	if err != nil {
		return result{}, err
	}
	cpu := treeCPU(c.pid) - cpu0
	slices.Sort(lat)
	return result{seq: float64(calls) / seq.Seconds(), par: float64(calls) / par.Seconds(), p50: lat[calls/2],
		cpu: float64(cpu.Microseconds()) / float64(2*calls)}, nil
}

// request sends one request and returns the result of its answer.
func (c *client) request(method, params string) (json.RawMessage, error) {
	c.next++
	id := c.next
	fmt.Fprintf(c.w, `{"jsonrpc":"2.0","id":%d,"method":%s,"params":%s}`+"\n", id, method, params)
	if err := c.w.Flush(); err != nil {
		return nil, err
	}
	m, err := c.answer()
	if err != nil {
		return nil, err
	}
	if m.ID != id {
		return nil, fmt.Errorf("answer to id %d, want %d", m.ID, id)
	}
	return m.Result, nil
}

// calls makes n tools/call requests, at most inflight at a time, and
// returns the time they took; lat, when not nil, gets each one's latency
// (inflight must then be 1).
func (c *client) calls(n, inflight int, lat []time.Duration) (time.Duration, error) {
	first := c.next + 1
	sent := make([]time.Time, n)
	buf := make([]byte, 0, 256)
	send := func() { // a write error stays in c.w and comes out of Flush
		c.next++
		sent[c.next-first] = time.Now()
		buf = buf[:0]
		buf = append(buf, `{"jsonrpc":"2.0","id":`...)
		buf = strconv.AppendInt(buf, c.next, 10)
		buf = append(buf, `,"method":"tools/call","params":{"name":`...)
		buf = append(buf, c.tool...)
		buf = append(buf, `,"arguments":{"text":"c`...)
		buf = strconv.AppendInt(buf, c.next, 10)
		buf = append(buf, "\"}}}\n"...)
		_, _ = c.w.Write(buf)
	}
	start := time.Now()
	queued := 0
	for ; queued < min(n, inflight); queued++ {
		send()
	}
	if err := c.w.Flush(); err != nil {
		return 0, err
	}
	for done := 0; done < n; done++ {
		m, err := c.answer()
		if err != nil {
			return 0, err
		}
		if m.ID < first || m.ID >= first+int64(n) {
			return 0, fmt.Errorf("answer to id %d, not one of the calls %d..%d", m.ID, first, first+int64(n)-1)
		}
		if err := checkCall(m); err != nil {
			return 0, err
		}
		if lat != nil {
			lat[m.ID-first] = time.Since(sent[m.ID-first])
		}
		if queued < n {
			send()
			queued++
			if err := c.w.Flush(); err != nil {
				return 0, err
			}
		}
	}
	return time.Since(start), nil
}

type message struct {
	ID     int64           `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// answer reads the next answer, skipping notifications.
func (c *client) answer() (*message, error) {
	for {
		line, err := c.r.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			return nil, errors.New("an answer longer than 1 MiB")
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				return nil, errors.New("the server closed its output")
			}
			return nil, err
		}
		var m message
		if err := json.Unmarshal(line, &m); err != nil {
			return nil, fmt.Errorf("answer %.200q: %w", line, err)
		}
		switch {
		case m.Method != "" && m.ID == 0:
			continue // a notification
		case m.Method != "":
			return nil, fmt.Errorf("unexpected request from the server: %s", m.Method)
		case m.Error != nil:
			return nil, fmt.Errorf("error %d: %s", m.Error.Code, m.Error.Message)
		}
		return &m, nil
	}
}

// checkCall checks that a tools/call result is the text of its request.
func checkCall(m *message) error {
	var r struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(m.Result, &r); err != nil {
		return fmt.Errorf("result of call %d: %w", m.ID, err)
	}
	want := "c" + strconv.FormatInt(m.ID, 10)
	if r.IsError || len(r.Content) != 1 || r.Content[0].Text != want {
		return fmt.Errorf("call %d returned %s, want the text %q", m.ID, m.Result, want)
	}
	return nil
}

// treeCPU returns the user and system time of pid and its descendants so
// far, from /proc (in clock ticks of 10 ms: Linux's USER_HZ is 100).
func treeCPU(pid int) time.Duration {
	var total time.Duration
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The fields after the command name, which is in parentheses: utime and
	// stime are the 14th and 15th of the line.
	if i := strings.LastIndexByte(string(stat), ')'); i >= 0 {
		f := strings.Fields(string(stat[i+1:]))
		if len(f) > 12 {
			ut, _ := strconv.ParseInt(f[11], 10, 64)
			st, _ := strconv.ParseInt(f[12], 10, 64)
			total += time.Duration(ut+st) * 10 * time.Millisecond
		}
	}
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	for _, t := range tasks {
		children, _ := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/children", pid, t.Name()))
		for _, c := range strings.Fields(string(children)) {
			if n, err := strconv.Atoi(c); err == nil {
				total += treeCPU(n)
			}
		}
	}
	return total
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "mcpload:", err)
	os.Exit(1)
}
