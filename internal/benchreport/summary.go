package main

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/spiritagents/spirit/internal/benchstat"
)

// The README's summary table lies between these marks: the headline
// records only (benchpair -headline, mcpload's goals), each with its
// verdict.
const (
	summaryBegin = "<!-- bench-summary:begin -->"
	summaryEnd   = "<!-- bench-summary:end -->"
)

// summaryRows gives one row per headline record: what, every command's
// min / median / max, the ratios, the goal and whether it was met.
func summaryRows(records []benchstat.Record) []row {
	var rows []row
	for _, r := range records {
		if !r.Headline {
			continue
		}
		what, goal := r.Title, ""
		if m := goalInTitle.FindStringSubmatchIndex(r.Title); m != nil {
			what, goal = r.Title[:m[0]], r.Title[m[2]:m[3]]
		}
		var figs []string
		for _, c := range r.Commands {
			figs = append(figs, fmt.Sprintf("%s %s / %s / %s %s", c.Name, num(c.Min), num(c.Median), num(c.Max), r.Unit))
		}
		if goal != "" {
			goal += " — **" + verdict(r, goal) + "**"
		}
		rows = append(rows, row{what: what, how: strings.Join(figs, "; "), figure: strings.Join(ratios(r), "; "), goal: goal})
	}
	return rows
}

func ratios(r benchstat.Record) []string {
	if r.NoRatio || len(r.Commands) < 2 {
		return nil
	}
	var out []string
	first := r.Commands[0]
	for _, o := range r.Commands[1:] {
		if o.Median > 0 {
			out = append(out, fmt.Sprintf("%s/%s %.2f×", first.Name, o.Name, first.Median/o.Median))
		}
	}
	return out
}

// A goal is clauses joined by ", " or " and ", each one of
//
//	[NAME] OP NUMBER UNIT     the median of NAME (else the first command)
//	[NAME] OP NUMBERx OTHER   the ratio of NAME's median to OTHER's
//	[NAME] OP OTHER           the same with 1x
//
// where OP is <=, >=, ≤ or ≥. verdict says "met" when every clause holds,
// "missed" when one does not, and "not checked" when a clause is none of
// these or names a command the record does not have.
var clause = regexp.MustCompile(`^(?:([A-Za-z][\w-]*) )?(<=|>=|≤|≥) ?(?:([\d,.]+) ?(x|×)? ?)?(.*)$`)

var goalClauses = regexp.MustCompile(`, | and `)

func verdict(r benchstat.Record, goal string) string {
	met := true
	for _, c := range goalClauses.Split(goal, -1) {
		ok, checked := holds(r, strings.TrimSpace(c))
		if !checked {
			return "not checked"
		}
		met = met && ok
	}
	if met {
		return "met"
	}
	return "missed"
}

func holds(r benchstat.Record, c string) (ok, checked bool) {
	m := clause.FindStringSubmatch(c)
	if m == nil || len(r.Commands) == 0 {
		return false, false
	}
	subject, op, number, isRatio, rest := m[1], m[2], m[3], m[4] != "", strings.TrimSpace(m[5])
	value := r.Commands[0].Median
	if subject != "" {
		f, found := figure(r, subject)
		if !found {
			return false, false
		}
		value = f.Median
	}
	limit := 1.0
	if number != "" {
		n, err := strconv.ParseFloat(strings.ReplaceAll(number, ",", ""), 64)
		if err != nil {
			return false, false
		}
		limit = n
	}
	switch {
	case isRatio || number == "":
		other, found := figure(r, rest)
		if !found || other.Median == 0 {
			return false, false
		}
		value /= other.Median
	case !sameUnit(rest, r.Unit):
		return false, false
	}
	if op == "<=" || op == "≤" {
		return value <= limit, true
	}
	return value >= limit, true
}

func figure(r benchstat.Record, name string) (benchstat.Figure, bool) {
	for _, f := range r.Commands {
		if f.Name == name {
			return f, true
		}
	}
	return benchstat.Figure{}, false
}

// sameUnit reports whether the unit a goal names is the record's: "ms"
// for ms, "/s" for calls/s.
func sameUnit(goal, unit string) bool {
	return goal == unit || (strings.HasPrefix(goal, "/") && strings.HasSuffix(unit, goal))
}
