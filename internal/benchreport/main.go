// Command benchreport turns one `make bench` run into the performance
// table of docs/performance.md: the Go benchmark output (run with -count K, so each
// benchmark has K samples) and the JSON lines internal/benchpair appends
// for every side-by-side comparison of the scripts/bench-*.sh scripts.
// Every row gives min / median / max; a side-by-side row gives every
// command of its comparison and the ratio of medians, all from that run.
//
//	benchreport -go go.txt -pairs pairs.jsonl [-doc docs/performance.md] [-note TEXT]
//
// With -doc (or its old name -readme), the table replaces what lies between the lines
// "<!-- bench-table:begin -->" and "<!-- bench-table:end -->" of that
// file; otherwise it is printed. With -summary FILE, the headline records
// (the goals; benchpair -headline) also go, each with its verdict, between
// "<!-- bench-summary:begin -->" and "<!-- bench-summary:end -->" of FILE.
package main

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/spiritagents/spirit/internal/benchstat"
)

const (
	beginMark = "<!-- bench-table:begin -->"
	endMark   = "<!-- bench-table:end -->"
)

func main() {
	goOut := flag.String("go", "", "output of go test -bench with -count K")
	pairs := flag.String("pairs", "", "JSON lines written by benchpair -record")
	doc := flag.String("doc", "", "replace the table between the bench-table marks of this file")
	readme := flag.String("readme", "", "the old name of -doc")
	note := flag.String("note", "", "a line printed above the table (when and under which load)")
	summary := flag.String("summary", "", "replace the table between the bench-summary marks of this file with the headline goals")
	flag.Parse()
	var rows []row
	var records []benchstat.Record
	if *goOut != "" {
		data, err := os.ReadFile(*goOut)
		if err != nil {
			fail(err)
		}
		rows = append(rows, goRows(parseGo(data))...)
	}
	if *pairs != "" {
		data, err := os.ReadFile(*pairs)
		if err != nil {
			fail(err)
		}
		records, err = parseRecords(data)
		if err != nil {
			fail(fmt.Errorf("%s: %w", *pairs, err))
		}
		rows = append(rows, pairRows(records)...)
	}
	if *summary != "" {
		if err := splice(*summary, summaryBegin, summaryEnd, render(*note, summaryHeader, summaryRows(records))); err != nil {
			fail(err)
		}
	}
	table := render(*note, tableHeader, rows)
	file := cmp.Or(*doc, *readme)
	if file == "" {
		fmt.Print(table)
		return
	}
	if err := splice(file, beginMark, endMark, table); err != nil {
		fail(err)
	}
}

// A row is one line of a table; the summary puts the figures in how and
// the ratios in figure (its header names them).
type row struct{ what, how, figure, goal string }

const (
	tableHeader   = "| what | how it is measured | figure (min / median / max) | goal |"
	summaryHeader = "| what | figures (min / median / max) | ratio of medians | goal |"
)

func render(note, header string, rows []row) string {
	var b strings.Builder
	if note != "" {
		b.WriteString(note + "\n\n")
	}
	b.WriteString(header + "\n| --- | --- | --- | --- |\n")
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", cell(r.what), cell(r.how), cell(r.figure), cell(r.goal))
	}
	return b.String()
}

func cell(s string) string {
	if s == "" {
		return "—"
	}
	return strings.ReplaceAll(s, "|", `\|`)
}

// splice replaces what lies between the begin and end marks of file,
// keeping both; the file is written only when both are found in order.
func splice(file, beginMark, endMark, table string) error {
	data, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	begin := bytes.Index(data, []byte(beginMark))
	end := bytes.Index(data, []byte(endMark))
	if begin < 0 || end < begin {
		return fmt.Errorf("%s: no %q … %q block", file, beginMark, endMark)
	}
	var out bytes.Buffer
	out.Write(data[:begin+len(beginMark)])
	out.WriteString("\n" + table)
	out.Write(data[end:])
	return os.WriteFile(file, out.Bytes(), 0o644)
}

// A goBench is one benchmark's samples: unit → values, one per -count.
type goBench struct {
	pkg, name string
	units     []string
	samples   map[string][]float64
}

var benchLine = regexp.MustCompile(`^(Benchmark\S+?)(?:-\d+)?\s+\d+\s+(.*)$`)

func parseGo(data []byte) []*goBench {
	var order []*goBench
	byKey := map[string]*goBench{}
	pkg := ""
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if p, ok := strings.CutPrefix(line, "pkg: "); ok {
			pkg = strings.TrimSpace(p)
			continue
		}
		m := benchLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		key := pkg + " " + m[1]
		b := byKey[key]
		if b == nil {
			b = &goBench{pkg: pkg, name: m[1], samples: map[string][]float64{}}
			byKey[key] = b
			order = append(order, b)
		}
		f := strings.Fields(m[2])
		for i := 0; i+1 < len(f); i += 2 {
			v, err := strconv.ParseFloat(f[i], 64)
			if err != nil {
				continue
			}
			unit := f[i+1]
			if _, seen := b.samples[unit]; !seen {
				b.units = append(b.units, unit)
			}
			b.samples[unit] = append(b.samples[unit], v)
		}
	}
	return order
}

// describe gives the table's words for a benchmark: the first entry
// whose key ("<package>.<Benchmark name prefix>") matches.
var describe = []struct{ key, what, goal string }{
	{"manifest.BenchmarkValidateExample", "validate the full example manifest (tools, settings, secrets, contributions, files)", "≥ 20,000 manifests/s"},
	{"manifest.BenchmarkDecodeJSON", "decode the example manifest (UTF-8 and depth checks, then encoding/json)", ""},
	{"catalog.BenchmarkParseCatalog10k", "parse a 10,000-item catalog.json", ""},
	{"catalog.BenchmarkSearch10k", "search a parsed 10,000-item catalog", ""},
	{"catalog.BenchmarkListWarmCache10k", "list a 10,000-item catalog from the warm cache", "< 150 ms"},
	{"exthost.BenchmarkWarmCall", "warm tool call round trip, Go host → sandboxed Node runner", "≥ 12,000 calls/s, p50 ≤ 90 µs"},
	{"exthost.BenchmarkEchoFloor", "floor for the row above: bare Go↔Node newline-JSON echo over the same pipes", ""},
	{"install.BenchmarkInstall", "install a package folder", ""},
	{"install.BenchmarkExtractTgz", "extract a .tgz into staging", ""},
	{"registry.BenchmarkRegistry/build-cold/entries=10000", "registry build, 10,000 entries × 3 versions, cold", "completes"},
	{"registry.BenchmarkRegistry/build-cold/entries=1000", "registry build, 1,000 entries × 3 versions, npm at 20 ms a request, cold", "< 10 s"},
	{"registry.BenchmarkRegistry/rebuild-304/entries=1000", "registry rebuild, nothing changed (1,000 × 304)", "< 2 s"},
	{"registry.BenchmarkRegistry/validate/entries=1000", "registry validate, 1,000 entries", "< 1 s"},
	{"registry.BenchmarkRegistry", "registry", ""},
	{"site.BenchmarkBuild1000", "render the marketplace site for 1,000 extensions", ""},
	{"mcp.BenchmarkStdioCalls/gc=tuned", "MCP tools/call over stdio pipes, as `mcp serve` runs (GC tuned)", "≥ 2,500 calls/s sequential, ≥ 8,000/s from 8 callers"},
	{"mcp.BenchmarkStdioCalls/gc=default", "MCP tools/call over stdio pipes, default GC", ""},
	{"mcp.BenchmarkCall", "one tool call: through exthost.Host / MCP in memory / MCP over HTTP", ""},
	{"mcp.BenchmarkCheckFrame", "check one MCP stdio frame", ""},
}

func goRows(benches []*goBench) []row {
	var rows []row
	for _, b := range benches {
		full := path.Base(b.pkg) + "." + b.name
		r := row{what: b.name}
		for _, d := range describe {
			if strings.HasPrefix(full, d.key) {
				r.what, r.goal = d.what, d.goal
				if d.key != full {
					r.what += " (" + strings.TrimPrefix(full, d.key) + ")"
				}
				break
			}
		}
		n := len(b.samples["ns/op"])
		r.how = fmt.Sprintf("`go test -run '^$' -bench '%s' -cpu 1 -count %d ./%s/`", "^"+strings.ReplaceAll(b.name, "/", "$/^")+"$", n, strings.TrimPrefix(b.pkg, "github.com/spiritagents/spirit/"))
		// A benchmark that reports its own metrics (calls/s, p50) times a
		// batch per op, so its ns/op says nothing the metrics do not.
		var figs []string
		for _, u := range b.units {
			if u != "ns/op" && u != "B/op" && u != "allocs/op" {
				figs = append(figs, spread(b.samples[u], u))
			}
		}
		if len(figs) == 0 {
			figs = append(figs, spread(b.samples["ns/op"], "ns/op"))
		}
		r.figure = strings.Join(figs, "; ")
		rows = append(rows, r)
	}
	return rows
}

// spread writes min / median / max of vs in unit; ns/op is shown as a
// duration.
func spread(vs []float64, unit string) string {
	s := slices.Clone(vs)
	slices.Sort(s)
	lo, mid, hi := s[0], benchstat.Median(s), s[len(s)-1]
	if unit == "ns/op" {
		scale, name := durationUnit(mid)
		return fmt.Sprintf("%s / %s / %s %s", num(lo/scale), num(mid/scale), num(hi/scale), name)
	}
	return fmt.Sprintf("%s / %s / %s %s", num(lo), num(mid), num(hi), unit)
}

func durationUnit(ns float64) (float64, string) {
	switch {
	case ns >= 1e9:
		return 1e9, "s"
	case ns >= 1e6:
		return 1e6, "ms"
	case ns >= 1e3:
		return 1e3, "µs"
	}
	return 1, "ns"
}

// num prints three significant digits, with thousands separated.
func num(v float64) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	digits := 2 - int(math.Floor(math.Log10(math.Abs(v))))
	if digits < 0 {
		digits = 0
	}
	s := strconv.FormatFloat(v, 'f', digits, 64)
	whole, frac, _ := strings.Cut(s, ".")
	for i := len(whole) - 3; i > 0 && whole[i-1] != '-'; i -= 3 {
		whole = whole[:i] + "," + whole[i:]
	}
	if frac != "" {
		return whole + "." + frac
	}
	return whole
}

var goalInTitle = regexp.MustCompile(`\s*\((?:goal[: ]*)([^)]*)\)\s*$`)

// parseRecords reads the JSON lines benchpair and mcpload append.
func parseRecords(data []byte) ([]benchstat.Record, error) {
	var records []benchstat.Record
	for i, line := range bytes.Split(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var r benchstat.Record
		if err := json.Unmarshal(line, &r); err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		if len(r.Commands) == 0 {
			return nil, fmt.Errorf("line %d: %w", i+1, errors.New("no commands"))
		}
		records = append(records, r)
	}
	return records, nil
}

func pairRows(records []benchstat.Record) []row {
	var rows []row
	for _, r := range records {
		out := row{what: r.Title, how: fmt.Sprintf("%d runs", r.Runs)}
		if r.Source != "" {
			out.how = fmt.Sprintf("`%s`, %d runs", r.Source, r.Runs)
		}
		if m := goalInTitle.FindStringSubmatchIndex(r.Title); m != nil {
			out.what, out.goal = r.Title[:m[0]], r.Title[m[2]:m[3]]
		}
		var figs []string
		for _, c := range r.Commands {
			f := fmt.Sprintf("%s %s / %s / %s %s", c.Name, num(c.Min), num(c.Median), num(c.Max), r.Unit)
			if c.CPU != nil {
				f += fmt.Sprintf(" (CPU %s ms)", num(*c.CPU))
			}
			figs = append(figs, f)
		}
		for _, q := range ratios(r) {
			figs = append(figs, "**"+q+"**")
		}
		out.figure = strings.Join(figs, "; ")
		rows = append(rows, out)
	}
	return rows
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchreport:", err)
	os.Exit(1)
}
