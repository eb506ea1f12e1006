package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strconv"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"

	"github.com/spiritagents/spirit/internal/jsjson"
)

// Entry is one entry of the reference's extensions.json, field for field.
type Entry struct {
	ID                string `json:"id"`
	DirectoryName     string `json:"directoryName"`
	InstalledAtUnixMs int64  `json:"installedAtUnixMs"`
	ArchiveFileName   string `json:"archiveFileName,omitempty"`
	InstallSource     string `json:"installSource,omitempty"`
}

// The installSource values of the reference.
const (
	SourceArchive     = "archive"
	SourceMarketplace = "marketplace"
	SourceBuiltIn     = "built-in"
)

// readRegistry loads extensions.json as the reference does: a missing or
// unparsable file is empty, entries without a string id or directoryName
// are dropped, and the last duplicate of an id wins.
func readRegistry(file string) ([]Entry, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var doc struct {
		Entries []map[string]json.RawMessage `json:"entries"`
	}
	if json.Unmarshal(data, &doc) != nil {
		return nil, nil
	}
	byID := map[string]int{}
	var out []Entry
	for _, raw := range doc.Entries {
		var e Entry
		if json.Unmarshal(raw["id"], &e.ID) != nil || json.Unmarshal(raw["directoryName"], &e.DirectoryName) != nil {
			continue
		}
		if v, ok := raw["installedAtUnixMs"]; ok {
			var f float64
			if json.Unmarshal(v, &f) == nil {
				e.InstalledAtUnixMs = int64(f)
			}
		}
		_ = json.Unmarshal(raw["archiveFileName"], &e.ArchiveFileName)
		_ = json.Unmarshal(raw["installSource"], &e.InstallSource)
		if i, ok := byID[e.ID]; ok {
			out[i] = e
			continue
		}
		byID[e.ID] = len(out)
		out = append(out, e)
	}
	return out, nil
}

// encodeRegistry serialises entries as the reference does: sorted by id
// with English collation, 2-space indentation, a trailing newline.
func encodeRegistry(entries []Entry) []byte {
	sorted := slices.Clone(entries)
	c := collate.New(language.English)
	slices.SortStableFunc(sorted, func(a, b Entry) int { return c.CompareString(a.ID, b.ID) })
	var buf bytes.Buffer
	buf.WriteString("{\n  \"entries\": [")
	for i, e := range sorted {
		if i > 0 {
			buf.WriteString(",")
		}
		buf.WriteString("\n    {\n      \"id\": ")
		buf.Write(jsString(e.ID))
		buf.WriteString(",\n      \"directoryName\": ")
		buf.Write(jsString(e.DirectoryName))
		buf.WriteString(",\n      \"installedAtUnixMs\": ")
		buf.WriteString(strconv.FormatInt(e.InstalledAtUnixMs, 10))
		if e.ArchiveFileName != "" {
			buf.WriteString(",\n      \"archiveFileName\": ")
			buf.Write(jsString(e.ArchiveFileName))
		}
		if e.InstallSource != "" {
			buf.WriteString(",\n      \"installSource\": ")
			buf.Write(jsString(e.InstallSource))
		}
		buf.WriteString("\n    }")
	}
	if len(sorted) > 0 {
		buf.WriteString("\n  ")
	}
	buf.WriteString("]\n}\n")
	return buf.Bytes()
}

// jsString encodes s as JavaScript's JSON.stringify does.
func jsString(s string) []byte {
	b, _ := jsjson.Marshal(s) // a string always encodes
	return b
}

// Record is spirit's own record of one install, in .spirit/installed.json.
type Record struct {
	ID                  string   `json:"id"`
	Version             string   `json:"version"`
	DirectoryName       string   `json:"directoryName"`
	InstallSource       string   `json:"installSource,omitempty"`
	Source              string   `json:"source,omitempty"` // what the user asked for: a path, URL or npm spec
	ArchiveFileName     string   `json:"archiveFileName,omitempty"`
	ResolvedURL         string   `json:"resolvedUrl,omitempty"`
	Integrity           string   `json:"integrity,omitempty"`      // sha512 SRI of the artifact
	ManifestDigest      string   `json:"manifestDigest,omitempty"` // sha512 SRI of package.json
	GrantedCapabilities []string `json:"grantedCapabilities,omitempty"`
	MarketplaceID       string   `json:"marketplaceId,omitempty"`
	Channel             string   `json:"channel,omitempty"`
	ReviewStatus        string   `json:"reviewStatus,omitempty"`
	InstalledAtUnixMs   int64    `json:"installedAtUnixMs"`
	// FirstInstalledAtUnixMs is when the id was first installed; replaces
	// and updates keep it (the runtime gives colliding tool names by it).
	FirstInstalledAtUnixMs int64 `json:"firstInstalledAtUnixMs,omitempty"`
}

type recordsFile struct {
	SchemaVersion int                `json:"schemaVersion"`
	Extensions    map[string]*Record `json:"extensions"`
}

// readRecords loads installed.json; a missing or unreadable file is empty.
func readRecords(file string) map[string]*Record {
	out := map[string]*Record{}
	data, err := os.ReadFile(file)
	if err != nil {
		return out
	}
	var doc recordsFile
	if json.Unmarshal(data, &doc) != nil {
		return out
	}
	for id, r := range doc.Extensions {
		if r != nil {
			out[id] = r
		}
	}
	return out
}

func encodeRecords(recs map[string]*Record) []byte {
	data, _ := json.MarshalIndent(recordsFile{SchemaVersion: 1, Extensions: recs}, "", "  ")
	return append(data, '\n')
}
