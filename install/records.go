package install

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/text/collate"
	"golang.org/x/text/language"

	"github.com/spiritagents/spirit/internal/jsjson"
	"github.com/spiritagents/spirit/npm"
	"github.com/spiritagents/spirit/paths"
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
	var read []Entry
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
		read = append(read, e)
	}
	return lastByID(read), nil
}

// lastByID keeps one entry per id, in the order ids first appear, each
// the last entry of its id (the reference's registry is a map filled in
// order).
func lastByID(entries []Entry) []Entry {
	byID := map[string]int{}
	var out []Entry
	for _, e := range entries {
		if i, ok := byID[e.ID]; ok {
			out[i] = e
			continue
		}
		byID[e.ID] = len(out)
		out = append(out, e)
	}
	return out
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
	ID            string `json:"id"`
	Version       string `json:"version"`
	DirectoryName string `json:"directoryName"`
	InstallSource string `json:"installSource,omitempty"`
	Source        string `json:"source,omitempty"` // what the user asked for: a path, URL or npm spec
	// SourceKind is how Source was taken: one of the Kind constants.
	SourceKind string `json:"sourceKind,omitempty"`
	// NPMRegistry is the registry an npm install came from.
	NPMRegistry string `json:"npmRegistry,omitempty"`
	// NPMSignature is what the registry signature check found (npm installs).
	NPMSignature *npm.SignatureCheck `json:"npmSignature,omitempty"`
	// Provenance is the npm registry's (unverified) provenance of the version.
	Provenance          *npm.Provenance `json:"provenance,omitempty"`
	ArchiveFileName     string          `json:"archiveFileName,omitempty"`
	ResolvedURL         string          `json:"resolvedUrl,omitempty"`
	Integrity           string          `json:"integrity,omitempty"`      // sha512 SRI of the artifact
	ManifestDigest      string          `json:"manifestDigest,omitempty"` // sha512 SRI of package.json
	GrantedCapabilities []string        `json:"grantedCapabilities,omitempty"`
	// MarketplaceIndex is the index a marketplace install came from.
	MarketplaceIndex  string `json:"marketplaceIndex,omitempty"`
	MarketplaceID     string `json:"marketplaceId,omitempty"`
	Channel           string `json:"channel,omitempty"`
	ReviewStatus      string `json:"reviewStatus,omitempty"`
	InstalledAtUnixMs int64  `json:"installedAtUnixMs"`
	// FirstInstalledAtUnixMs is when the id was first installed; replaces
	// and updates keep it (the runtime gives colliding tool names by it).
	FirstInstalledAtUnixMs int64 `json:"firstInstalledAtUnixMs,omitempty"`
}

type recordsFile struct {
	SchemaVersion int                `json:"schemaVersion"`
	Extensions    map[string]*Record `json:"extensions"`
}

// recordsCorrupt reports whether installed.json exists and cannot be
// read as spirit's records.
func recordsCorrupt(file string) bool {
	data, err := os.ReadFile(file)
	if err != nil {
		return false
	}
	var doc recordsFile
	return json.Unmarshal(data, &doc) != nil
}

// rebuildRecords makes what records can be made again of the installs in
// the host tree that extensions.json lists: id, version, folder, the
// entry's source fields and times, and the manifest digest. What was asked
// for and the artifact's integrity are not known any more.
func rebuildRecords(p *paths.Paths, reg []Entry) map[string]*Record {
	recs := map[string]*Record{}
	for _, e := range reg {
		if e.DirectoryName != paths.PackageDirName(e.ID) {
			continue
		}
		dir := p.PackageDir(e.ID)
		data, err := os.ReadFile(filepath.Join(dir, "package.json"))
		if err != nil {
			continue
		}
		recs[e.ID] = &Record{
			ID: e.ID, Version: installedVersion(dir), DirectoryName: e.DirectoryName, InstallSource: e.InstallSource,
			ArchiveFileName: e.ArchiveFileName, ManifestDigest: bytesSRI(data),
			InstalledAtUnixMs: e.InstalledAtUnixMs, FirstInstalledAtUnixMs: e.InstalledAtUnixMs,
		}
	}
	return recs
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
			// Records written before URL credentials were dropped lose them here.
			r.Source, r.ResolvedURL = recordedURL(r.Source), recordedURL(r.ResolvedURL)
			out[id] = r
		}
	}
	return out
}

func encodeRecords(recs map[string]*Record) []byte {
	data, _ := json.MarshalIndent(recordsFile{SchemaVersion: 1, Extensions: recs}, "", "  ")
	return append(data, '\n')
}

// MarketplaceOrigin names one entry of one marketplace index: what a
// marketplace install or update may replace.
type MarketplaceOrigin struct {
	// Index is the marketplace index as the user names it, without
	// credentials (catalog.IndexName).
	Index string
	// ExtensionID and PackageName are the entry's ids.
	ExtensionID, PackageName string
	// Official is set when Index is the official index, which spirit's
	// records without an index (made before it recorded the index) are
	// taken to come from.
	Official bool
}

// Owns reports whether the install recorded by e and r came from o: a
// marketplace install of the same extension id from the same index. An
// install with no spirit record (the apps made it) counts when the apps'
// entry says marketplace and the id is o's package name, from any index:
// the apps record no index and update it from whichever they read.
func (o MarketplaceOrigin) Owns(e *Entry, r *Record) bool {
	if r == nil {
		return e != nil && e.InstallSource == SourceMarketplace && e.ID == o.PackageName
	}
	if r.InstallSource != SourceMarketplace || r.MarketplaceID == "" || r.MarketplaceID != o.ExtensionID {
		return false
	}
	return r.MarketplaceIndex == o.Index || r.MarketplaceIndex == "" && o.Official
}

// String names the origin for a message.
func (o MarketplaceOrigin) String() string {
	return "marketplace extension " + o.ExtensionID + " of " + o.Index
}

// DescribeOrigin says where the install recorded by e and r came from,
// for a message: the marketplace entry, else the source the user gave.
func DescribeOrigin(e *Entry, r *Record) string {
	switch {
	case r != nil && r.InstallSource == SourceMarketplace && r.MarketplaceID != "":
		index := r.MarketplaceIndex
		if index == "" {
			index = "an unrecorded index"
		}
		return "marketplace extension " + r.MarketplaceID + " of " + index
	case r != nil && r.Source != "":
		return r.Source
	case r != nil && r.ArchiveFileName != "":
		return r.ArchiveFileName
	case e != nil && e.InstallSource != "":
		return "an unrecorded source (installSource " + e.InstallSource + ")"
	}
	return "an unrecorded source"
}

// ErrForeignInstall is matched by a ForeignInstallError.
var ErrForeignInstall = errors.New("installed from another source")

// ForeignInstallError refuses a marketplace install or update over an
// install that did not come from the same marketplace entry.
type ForeignInstallError struct {
	ID, Version string
	// From says where the installed version came from (DescribeOrigin).
	From string
	// Incoming is the marketplace entry that would replace it.
	Incoming MarketplaceOrigin
	// IncomingVersion is the version that would replace it.
	IncomingVersion string
}

func (e *ForeignInstallError) Error() string {
	return fmt.Sprintf("%s %s is installed from %s, not from %s; installing %s would replace it",
		e.ID, e.Version, e.From, e.Incoming, e.IncomingVersion)
}

// Is matches ErrForeignInstall.
func (e *ForeignInstallError) Is(target error) bool { return target == ErrForeignInstall }

// KindOf says how the install recorded by r was asked for: one of the
// Kind constants, or "" for an install without a usable record (made by
// the Spirit Agent apps, or a record no longer about what is installed).
// Records written before the kind was recorded are read by their source.
func KindOf(r *Record) string {
	switch {
	case r == nil:
		return ""
	case r.SourceKind != "":
		return r.SourceKind
	case r.InstallSource == SourceMarketplace:
		return KindMarketplace
	case strings.HasPrefix(r.Source, "https://") || strings.HasPrefix(r.Source, "http://"):
		return KindURL
	case r.ResolvedURL != "" && r.Source != "":
		if _, err := NPMSpecOf(r); err == nil {
			return KindNPM
		}
	case r.Source != "" && r.ArchiveFileName == "":
		return KindDir
	case r.Source != "":
		return KindArchive
	}
	return ""
}

// NPMSpecOf returns the npm spec an npm install asked for.
func NPMSpecOf(r *Record) (npm.Spec, error) {
	spec, err := npm.ParseSpec(r.Source)
	if err != nil && IsBare(r.Source) {
		spec, err = npm.ParseSpec("npm:" + r.Source)
	}
	return spec, err
}
