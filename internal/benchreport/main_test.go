package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestGoRows(t *testing.T) {
	out := `pkg: github.com/spiritagents/spirit/exthost
BenchmarkWarmCall 	       1	 425000000 ns/op	        32.00 p50-µs	     23600 calls/s
BenchmarkWarmCall 	       1	 425000000 ns/op	        40.00 p50-µs	     17900 calls/s
BenchmarkWarmCall 	       1	 425000000 ns/op	        23.00 p50-µs	     27200 calls/s
pkg: github.com/spiritagents/spirit/registry
BenchmarkRegistry/validate/entries=1000-2 	1	390000000 ns/op
ok  	github.com/spiritagents/spirit/registry	3.1s
`
	rows := goRows(parseGo([]byte(out)))
	if len(rows) != 2 {
		t.Fatalf("got %d rows, want 2: %+v", len(rows), rows)
	}
	if got, want := rows[0].figure, "23.0 / 32.0 / 40.0 p50-µs; 17,900 / 23,600 / 27,200 calls/s"; got != want {
		t.Errorf("warm call figure = %q, want %q", got, want)
	}
	if rows[0].goal == "" || !strings.Contains(rows[0].how, "-count 3 ./exthost/") {
		t.Errorf("warm call row = %+v", rows[0])
	}
	if got, want := rows[1].figure, "390 / 390 / 390 ms"; got != want {
		t.Errorf("registry figure = %q, want %q", got, want)
	}
	if !strings.Contains(rows[1].how, "'^BenchmarkRegistry$/^validate$/^entries=1000$'") {
		t.Errorf("registry how = %q", rows[1].how)
	}
}

func TestPairRows(t *testing.T) {
	line := `{"title":"startup: spirit --version (goal <= 4 ms)","source":"scripts/bench-startup.sh","runs":41,"unit":"ms",` +
		`"commands":[{"name":"spirit","min":10.8,"median":15.2,"max":17.1,"cpuMs":16.7},{"name":"minimal-go","min":1.4,"median":1.9,"max":2.2,"cpuMs":1.8}]}`
	records, err := parseRecords([]byte(line + "\n"))
	if err != nil {
		t.Fatal(err)
	}
	rows := pairRows(records)
	want := row{
		what:   "startup: spirit --version",
		how:    "`scripts/bench-startup.sh`, 41 runs",
		figure: "spirit 10.8 / 15.2 / 17.1 ms (CPU 16.7 ms); minimal-go 1.40 / 1.90 / 2.20 ms (CPU 1.80 ms); **spirit/minimal-go 8.00×**",
		goal:   "<= 4 ms",
	}
	if len(rows) != 1 || rows[0] != want {
		t.Errorf("rows = %+v\nwant %+v", rows, want)
	}
	if _, err := parseRecords([]byte("{not json\n")); err == nil {
		t.Error("a broken line was accepted")
	}
}

func TestSplice(t *testing.T) {
	file := filepath.Join(t.TempDir(), "README.md")
	os.WriteFile(file, []byte("# x\n"+beginMark+"\nold table\n"+endMark+"\nafter\n"), 0o644)
	if err := splice(file, beginMark, endMark, "new table\n"); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(file)
	if want := "# x\n" + beginMark + "\nnew table\n" + endMark + "\nafter\n"; string(got) != want {
		t.Errorf("README =\n%s\nwant\n%s", got, want)
	}
	os.WriteFile(file, []byte("no marks\n"), 0o644)
	if err := splice(file, beginMark, endMark, "t\n"); err == nil {
		t.Error("a file without marks was rewritten")
	}
}
