// Package benchstat holds what the benchmark tools share: the record
// internal/benchpair appends for every side-by-side table and
// internal/benchreport reads back, and the median they both take.
package benchstat

import (
	"encoding/json"
	"os"
	"time"
)

// Record is one benchpair table: what was compared, by which script, and
// each command's figures.
type Record struct {
	Title    string   `json:"title"`
	Source   string   `json:"source"`
	Runs     int      `json:"runs"`
	Unit     string   `json:"unit"`
	Commands []Figure `json:"commands"`
	// NoRatio says the commands are different measures side by side, not
	// one thing against its comparison, so no ratio is printed.
	NoRatio bool `json:"noRatio,omitempty"`
	// Headline says the figure is one of the goals the README's summary
	// table shows (internal/benchreport -summary).
	Headline bool `json:"headline,omitempty"`
}

// Figure is one command's min, median and max (wall time in ms for timed
// commands, else the record's unit) and, for timed commands, the median
// CPU time (user and system, children included) in ms.
type Figure struct {
	Name   string   `json:"name"`
	Min    float64  `json:"min"`
	Median float64  `json:"median"`
	Max    float64  `json:"max"`
	CPU    *float64 `json:"cpuMs,omitempty"`
}

// Append writes r as one JSON line at the end of the file at path.
func (r Record) Append(path string) error {
	line, err := json.Marshal(r)
	if err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Median returns the median of sorted, which must not be empty.
func Median[T time.Duration | float64](sorted []T) T {
	n := len(sorted)
	if n%2 == 1 {
		return sorted[n/2]
	}
	return (sorted[n/2-1] + sorted[n/2]) / 2
}
