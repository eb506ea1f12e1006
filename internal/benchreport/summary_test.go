package main

import (
	"strings"
	"testing"

	"github.com/spiritagents/spirit/internal/benchstat"
)

func record(unit string, figs ...benchstat.Figure) benchstat.Record {
	return benchstat.Record{Title: "t", Unit: unit, Commands: figs, Headline: true}
}

func fig(name string, median float64) benchstat.Figure {
	return benchstat.Figure{Name: name, Min: median * 0.9, Median: median, Max: median * 1.1}
}

func TestVerdict(t *testing.T) {
	list := record("ms", fig("list", 60), fig("version", 42), fig("cat-manifests", 18))
	calls := record("calls/s", fig("spirit", 5000), fig("ts-sdk", 4000))
	rss := record("MB", fig("initialize-cold", 475))
	for _, c := range []struct {
		r    benchstat.Record
		goal string
		want string
	}{
		{list, "<= 1.5x version", "met"},
		{list, "<= 1.4x version", "missed"},
		{list, "≤ 1.43× version", "met"},
		{list, "<= 70 ms, <= 1.5x version", "met"},
		{list, "<= 50 ms, <= 1.5x version", "missed"},
		{list, "<= 1.5x nothing", "not checked"},
		{list, "fast", "not checked"},
		{list, "<= 60 MB", "not checked"},
		{calls, "spirit >= 2,500/s and >= ts-sdk", "met"},
		{calls, "spirit >= 6,000/s and >= ts-sdk", "missed"},
		{calls, "ts-sdk >= spirit", "missed"},
		{rss, "<= 600 MB", "met"},
		{rss, "<= 400 MB", "missed"},
	} {
		if got := verdict(c.r, c.goal); got != c.want {
			t.Errorf("verdict(%v, %q) = %q, want %q", c.r.Commands, c.goal, got, c.want)
		}
	}
}

func TestSummaryRowsKeepOnlyHeadlines(t *testing.T) {
	head := record("ms", fig("spirit", 120), fig("tar-xzf", 100))
	head.Title = "install a local .tgz, 600 files (goal: <= 1.3x tar-xzf)"
	other := head
	other.Headline = false
	other.Title = "something else"
	rows := summaryRows([]benchstat.Record{other, head})
	if len(rows) != 1 {
		t.Fatalf("rows = %+v, want the headline only", rows)
	}
	r := rows[0]
	if r.what != "install a local .tgz, 600 files" || r.figure != "spirit/tar-xzf 1.20×" ||
		r.goal != "<= 1.3x tar-xzf — **met**" || !strings.Contains(r.how, "spirit 108 / 120 / 132 ms") {
		t.Errorf("row = %+v", r)
	}
}
