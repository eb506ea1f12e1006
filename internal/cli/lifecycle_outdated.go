package cli

import (
	"fmt"
	"strings"

	"github.com/spiritagents/spirit/catalog"
	"github.com/spiritagents/spirit/fetch"
	"github.com/spiritagents/spirit/internal/termtext"
	"github.com/spiritagents/spirit/npm"
	"github.com/spiritagents/spirit/paths"
)

// updater is the domain's outdated and update for catalog client c on the
// install tree p: npm clients made through the Factory (its limits, HTTP
// client and progress), each npm install asked of npmRegistry when set.
func (f *Factory) updater(c *catalog.Client, p *paths.Paths, mo *marketplaceOptions, npmRegistry string) *catalog.Updater {
	return &catalog.Updater{Paths: p, Catalog: c, Offline: mo.Offline,
		NPM: f.npmClients(p, mo.Offline, npmRegistry),
		Fetch: func() (*fetch.Client, error) {
			lim, err := f.FetchLimits()
			if err != nil {
				return nil, err
			}
			return fetch.New(fetch.Options{HTTP: f.HTTPClient(), Limits: lim}), nil
		}}
}

// npmClients makes one npm client per registry, in p's cache.
func (f *Factory) npmClients(p *paths.Paths, offline bool, registry string) *catalog.NPMClients {
	return &catalog.NPMClients{Registry: registry, New: func(reg string) (*npm.Client, error) {
		return f.npmClient(npm.Config{Registry: reg, CacheDir: p.CacheDir(), Offline: offline, Progress: f.IO.Progress()})
	}}
}

// printSourceStatuses writes the npm rows that are outdated or could not
// be checked, and names the installs that are not checked.
func printSourceStatuses(f *Factory, rows []catalog.SourceStatus, offline bool) error {
	w := f.IO.Out
	var shown []catalog.SourceStatus
	npmRows := 0
	var unchecked []string
	for _, st := range rows {
		switch {
		case st.Kind == catalog.SourceNPM:
			npmRows++
			if st.Outdated || st.Warning != "" {
				shown = append(shown, st)
			}
		case st.Kind == catalog.SourceURL && (st.Checked || st.Warning != ""):
			if st.Changed || st.Warning != "" {
				shown = append(shown, st)
			}
		default:
			unchecked = append(unchecked, st.ID+" ("+st.Kind+")")
		}
	}
	if len(shown) > 0 {
		t := newTablePrinter(f.IO, -1, "ID", "SOURCE", "CURRENT", "WANTED", "LATEST", "ASKED")
		for _, st := range shown {
			latest := dash(st.Latest)
			if st.Changed {
				latest = "changed"
			}
			t.addRow(st.ID, st.Kind, st.Current, dash(st.Wanted), latest, st.Asked)
			t.colorCell(0, f.IO.ColorScheme().Bold)
		}
		if err := t.render(); err != nil {
			return err
		}
		for _, st := range shown {
			if st.Warning != "" {
				termtext.Fprintf(f.IO.ErrOut, "Warning: %s: not checked: %s\n", st.ID, st.Warning)
			}
		}
	} else if npmRows > 0 {
		fmt.Fprintln(w, upToDate(npmRows, "npm extension"))
	}
	if offline {
		for _, st := range rows {
			if st.Kind == catalog.SourceNPM && st.CacheAge != "" {
				termtext.Fprintf(f.IO.ErrOut, "Offline: %s is checked against the cached registry document, %s old.\n", st.ID, st.CacheAge)
			}
		}
	}
	if len(unchecked) > 0 {
		termtext.Fprintf(w, "Not checked: %s.\n", strings.Join(unchecked, ", "))
	}
	return nil
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
