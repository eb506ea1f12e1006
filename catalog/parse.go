package catalog

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/spiritagents/spirit/catalog/verify"
	"github.com/spiritagents/spirit/internal/safeid"
	"github.com/spiritagents/spirit/problem"
)

// Listing statuses of a catalog item.
const (
	StatusListed     = "listed"
	StatusHidden     = "hidden"
	StatusDeprecated = "deprecated"
	StatusBlocked    = "blocked"
)

// Review statuses of a version.
const (
	ReviewUnverified = "unverified"
	ReviewVerified   = "verified"
	ReviewRevoked    = "revoked"
)

// Channels of a version.
const (
	ChannelStable       = "stable"
	ChannelPreview      = "preview"
	ChannelExperimental = "experimental"
)

var (
	channels     = []string{ChannelStable, ChannelPreview, ChannelExperimental}
	reviewValues = []string{ReviewUnverified, ReviewVerified, ReviewRevoked}
	statusValues = []string{StatusListed, StatusHidden, StatusDeprecated, StatusBlocked}
	hostValues   = []string{"cli", "desktop"}
)

// ErrBadDocument is matched by every error about a catalog or detail
// document that cannot be used at all.
var ErrBadDocument = errors.New("invalid marketplace document")

// DocumentError says why a whole document was refused.
type DocumentError struct {
	Label string // "marketplace catalog" or "marketplace detail"
	Msg   string
}

func (e *DocumentError) Error() string { return e.Label + ": " + e.Msg }

// Is matches ErrBadDocument.
func (e *DocumentError) Is(target error) bool { return target == ErrBadDocument }

// Warning is a part of a document that was skipped or a fallback that was
// taken; the rest was used. Its Pointer names the part, e.g.
// "catalog.items[3]"; its Severity is left empty.
type Warning = problem.Problem

// Item is one entry of catalog.json. Its JSON field names are those of the
// registry format.
type Item struct {
	ExtensionID           string   `json:"extensionId"`
	PackageName           string   `json:"packageName"`
	Status                string   `json:"status"`
	Featured              bool     `json:"featured"`
	DefaultVersion        string   `json:"defaultVersion"`
	DefaultChannel        string   `json:"defaultChannel"`
	DefaultReviewStatus   string   `json:"defaultReviewStatus"`
	DetailPath            string   `json:"detailPath"`
	DisplayName           string   `json:"displayName"`
	Description           string   `json:"description"`
	Author                string   `json:"author,omitempty"`
	HomepageURL           string   `json:"homepageUrl,omitempty"`
	RepositoryURL         string   `json:"repositoryUrl,omitempty"`
	IconURL               string   `json:"iconUrl,omitempty"`
	Keywords              []string `json:"keywords,omitempty"`
	SupportedHosts        []string `json:"supportedHosts"`
	RequestedCapabilities []string `json:"requestedCapabilities,omitempty"`
}

// Listed reports whether the item shows in a default listing: not hidden,
// not blocked, and of a known status.
func (it *Item) Listed() bool {
	return it.Status == StatusListed || it.Status == StatusDeprecated
}

// Catalog is a parsed catalog.json.
type Catalog struct {
	SchemaVersion int       `json:"schemaVersion"`
	Items         []Item    `json:"items"`
	Warnings      []Warning `json:"warnings,omitempty"`
	// Origin says where the bytes came from (nil when parsed from bytes).
	Origin *Origin `json:"-"`
}

// Find returns the item whose extensionId is id, else the one whose
// packageName is id, else nil.
func (c *Catalog) Find(id string) *Item {
	for i := range c.Items {
		if c.Items[i].ExtensionID == id {
			return &c.Items[i]
		}
	}
	for i := range c.Items {
		if c.Items[i].PackageName == id {
			return &c.Items[i]
		}
	}
	return nil
}

// Changelog is a version's changelog.
type Changelog struct {
	Summary string `json:"summary"`
	Body    string `json:"body"`
}

// Version is one entry of detail.json's versions.
type Version struct {
	Version               string     `json:"version"`
	Channel               string     `json:"channel"`
	ReviewStatus          string     `json:"reviewStatus"`
	DisplayName           string     `json:"displayName"`
	Description           string     `json:"description"`
	Author                string     `json:"author,omitempty"`
	HomepageURL           string     `json:"homepageUrl,omitempty"`
	RepositoryURL         string     `json:"repositoryUrl,omitempty"`
	IconURL               string     `json:"iconUrl,omitempty"`
	PublishedAt           string     `json:"publishedAt,omitempty"`
	TarballURL            string     `json:"tarballUrl,omitempty"`
	Integrity             string     `json:"integrity,omitempty"`
	Shasum                string     `json:"shasum,omitempty"`
	Keywords              []string   `json:"keywords,omitempty"`
	SupportedHosts        []string   `json:"supportedHosts"`
	RequestedCapabilities []string   `json:"requestedCapabilities,omitempty"`
	Changelog             *Changelog `json:"changelog,omitempty"`
}

// SupportsHost reports whether host is among the version's supportedHosts.
func (v *Version) SupportsHost(host string) bool { return slices.Contains(v.SupportedHosts, host) }

// Detail is a parsed detail.json.
type Detail struct {
	SchemaVersion       int       `json:"schemaVersion"`
	ExtensionID         string    `json:"extensionId"`
	PackageName         string    `json:"packageName"`
	Status              string    `json:"status"`
	Featured            bool      `json:"featured"`
	DefaultVersion      string    `json:"defaultVersion"`
	DefaultReviewStatus string    `json:"defaultReviewStatus,omitempty"`
	ReadmePath          string    `json:"readmePath,omitempty"`
	Versions            []Version `json:"versions"`
	Warnings            []Warning `json:"warnings,omitempty"`
	Origin              *Origin   `json:"-"`
	// Signature is the verified signed index the detail came from; nil
	// for an unsigned index.
	Signature *verify.Index `json:"signature,omitempty"`
}

// Find returns the version whose string is exactly v, or nil.
func (d *Detail) Find(v string) *Version {
	for i := range d.Versions {
		if d.Versions[i].Version == v {
			return &d.Versions[i]
		}
	}
	return nil
}

// fieldError is one broken field rule of an item or version.
type fieldError struct{ msg string }

func (e *fieldError) Error() string { return e.msg }

// fields reads the fields of one JSON object with the reference's rules.
type fields struct {
	m      map[string]any
	prefix string
	err    error
}

func (f *fields) fail(format string, a ...any) {
	if f.err == nil {
		f.err = &fieldError{fmt.Sprintf(format, a...)}
	}
}

// id returns the required extension id of field key, which must be made
// of the characters of safeid (it reaches shells through completion).
func (f *fields) id(key string) string {
	s := f.required(key)
	if s != "" && !safeid.Valid(s) {
		f.fail("%s.%s %q may hold only %s.", f.prefix, key, s, safeid.Chars)
	}
	return s
}

// required returns the trimmed non-blank string field key.
func (f *fields) required(key string) string {
	s, ok := f.m[key].(string)
	s = strings.TrimSpace(s)
	if !ok || s == "" {
		f.fail("%s.%s must not be empty.", f.prefix, key)
	}
	return s
}

// optional returns a trimmed string field, "" for blanks and non-strings.
func (f *fields) optional(key string) string {
	s, _ := f.m[key].(string)
	return strings.TrimSpace(s)
}

func (f *fields) boolean(key string) bool {
	b, ok := f.m[key].(bool)
	if !ok {
		f.fail("%s.%s must be a boolean.", f.prefix, key)
	}
	return b
}

func (f *fields) enum(key string, values []string) string {
	s := f.required(key)
	if s != "" && !slices.Contains(values, s) {
		f.fail("%s.%s has an invalid value: %s", f.prefix, key, s)
	}
	return s
}

// strings returns an optional array of non-blank strings (trimmed).
func (f *fields) strings(key string) []string {
	raw, present := f.m[key]
	if !present || raw == nil {
		return nil
	}
	arr, ok := raw.([]any)
	if !ok {
		f.fail("%s.%s must be an array of strings.", f.prefix, key)
		return nil
	}
	out := make([]string, 0, len(arr))
	for i, v := range arr {
		s, ok := v.(string)
		s = strings.TrimSpace(s)
		if !ok || s == "" {
			f.fail("%s.%s[%d] must not be empty.", f.prefix, key, i)
			return nil
		}
		out = append(out, s)
	}
	return out
}

func (f *fields) hosts(key string) []string {
	raw, ok := f.m[key].([]any)
	if !ok {
		f.fail("%s.%s requires at least one host.", f.prefix, key)
		return nil
	}
	out := make([]string, 0, len(raw))
	for _, v := range raw {
		s, _ := v.(string)
		s = strings.TrimSpace(s)
		if !slices.Contains(hostValues, s) {
			f.fail("%s.%s has an invalid value: %v", f.prefix, key, v)
			return nil
		}
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		f.fail("%s.%s requires at least one host.", f.prefix, key)
	}
	return out
}

// decodeRoot decodes a document's root object and checks schemaVersion.
func decodeRoot(data []byte, label, name string) (map[string]any, error) {
	var root any
	if err := json.Unmarshal(data, &root); err != nil {
		return nil, &DocumentError{label, "not valid JSON: " + err.Error()}
	}
	m, ok := root.(map[string]any)
	if !ok {
		return nil, &DocumentError{label, label + " must be an object."}
	}
	n, ok := m["schemaVersion"].(float64)
	if !ok || math.IsInf(n, 0) || math.IsNaN(n) {
		return nil, &DocumentError{label, name + ".schemaVersion must be a number."}
	}
	if n != 1 {
		return nil, &DocumentError{label, fmt.Sprintf("Only %s schemaVersion=1 is supported, got %v", label, n)}
	}
	return m, nil
}

// ParseCatalog parses catalog.json. Items that break a field rule, and
// later duplicates of an extensionId, are skipped with a Warning; an
// unknown status is kept (not listed) with a Warning.
func ParseCatalog(data []byte) (*Catalog, error) {
	const label = "marketplace catalog"
	m, err := decodeRoot(data, label, "catalog")
	if err != nil {
		return nil, err
	}
	items, ok := m["items"].([]any)
	if !ok {
		return nil, &DocumentError{label, "catalog.items must be an array."}
	}
	c := &Catalog{SchemaVersion: 1, Items: make([]Item, 0, len(items))}
	seen := make(map[string]bool, len(items))
	for i, raw := range items {
		ptr := fmt.Sprintf("catalog.items[%d]", i)
		it, err := parseItem(raw, ptr)
		if err != nil {
			c.Warnings = append(c.Warnings, Warning{Pointer: ptr, Message: "skipped: " + err.Error()})
			continue
		}
		if seen[it.ExtensionID] {
			c.Warnings = append(c.Warnings, Warning{Pointer: ptr, Message: "skipped: duplicate extensionId " + it.ExtensionID})
			continue
		}
		seen[it.ExtensionID] = true
		if !slices.Contains(statusValues, it.Status) {
			c.Warnings = append(c.Warnings, Warning{Pointer: ptr, Message: fmt.Sprintf("%s has an unknown status %q; it is not listed", it.ExtensionID, it.Status)})
		}
		c.Items = append(c.Items, it)
	}
	return c, nil
}

func parseItem(raw any, ptr string) (Item, error) {
	m, ok := raw.(map[string]any)
	if !ok {
		return Item{}, &fieldError{ptr + " must be an object."}
	}
	f := &fields{m: m, prefix: ptr}
	it := Item{
		ExtensionID:           f.id("extensionId"),
		PackageName:           f.required("packageName"),
		Status:                f.required("status"),
		Featured:              f.boolean("featured"),
		DefaultVersion:        f.required("defaultVersion"),
		DefaultChannel:        f.enum("defaultChannel", channels),
		DefaultReviewStatus:   f.enum("defaultReviewStatus", reviewValues),
		DetailPath:            f.required("detailPath"),
		DisplayName:           f.required("displayName"),
		Description:           f.required("description"),
		Author:                f.optional("author"),
		HomepageURL:           f.optional("homepageUrl"),
		RepositoryURL:         f.optional("repositoryUrl"),
		IconURL:               f.optional("iconUrl"),
		Keywords:              f.strings("keywords"),
		SupportedHosts:        f.hosts("supportedHosts"),
		RequestedCapabilities: f.strings("requestedCapabilities"),
	}
	return it, f.err
}

// ParseDetail parses detail.json. Versions that break a field rule, and
// later duplicates of a version, are skipped with a Warning; the document
// fails when no version is left or a root field is broken.
func ParseDetail(data []byte) (*Detail, error) {
	const label = "marketplace detail"
	m, err := decodeRoot(data, label, "detail")
	if err != nil {
		return nil, err
	}
	versions, ok := m["versions"].([]any)
	if !ok {
		return nil, &DocumentError{label, "detail.versions must be an array."}
	}
	d := &Detail{SchemaVersion: 1}
	for i, raw := range versions {
		ptr := fmt.Sprintf("detail.versions[%d]", i)
		v, err := parseVersion(raw, ptr)
		if err != nil {
			d.Warnings = append(d.Warnings, Warning{Pointer: ptr, Message: "skipped: " + err.Error()})
			continue
		}
		if d.Find(v.Version) != nil {
			d.Warnings = append(d.Warnings, Warning{Pointer: ptr, Message: "skipped: duplicate version " + v.Version})
			continue
		}
		d.Versions = append(d.Versions, v)
	}
	if len(d.Versions) == 0 {
		return nil, &DocumentError{label, "marketplace detail.versions must not be empty."}
	}
	f := &fields{m: m, prefix: "detail"}
	d.ExtensionID = f.id("extensionId")
	d.PackageName = f.required("packageName")
	d.Status = f.required("status")
	d.Featured = f.boolean("featured")
	d.DefaultVersion = f.required("defaultVersion")
	d.DefaultReviewStatus = f.optional("defaultReviewStatus")
	d.ReadmePath = f.optional("readmePath")
	if f.err != nil {
		return nil, &DocumentError{label, f.err.Error()}
	}
	if d.Find(d.DefaultVersion) == nil {
		d.Warnings = append(d.Warnings, Warning{Pointer: "detail.defaultVersion", Message: "version " + d.DefaultVersion + " is not among the versions"})
	}
	return d, nil
}

func parseVersion(raw any, ptr string) (Version, error) {
	m, ok := raw.(map[string]any)
	if !ok {
		return Version{}, &fieldError{ptr + " must be an object."}
	}
	f := &fields{m: m, prefix: ptr}
	v := Version{
		Version:               f.required("version"),
		Channel:               f.enum("channel", channels),
		ReviewStatus:          f.enum("reviewStatus", reviewValues),
		DisplayName:           f.required("displayName"),
		Description:           f.required("description"),
		SupportedHosts:        f.hosts("supportedHosts"),
		Author:                f.optional("author"),
		HomepageURL:           f.optional("homepageUrl"),
		RepositoryURL:         f.optional("repositoryUrl"),
		IconURL:               f.optional("iconUrl"),
		PublishedAt:           f.optional("publishedAt"),
		TarballURL:            f.optional("tarballUrl"),
		Integrity:             f.optional("integrity"),
		Shasum:                f.optional("shasum"),
		Keywords:              f.strings("keywords"),
		RequestedCapabilities: f.strings("requestedCapabilities"),
	}
	if cl, ok := m["changelog"].(map[string]any); ok {
		cf := &fields{m: cl, prefix: ptr + ".changelog"}
		v.Changelog = &Changelog{Summary: cf.required("summary"), Body: cf.required("body")}
		if cf.err != nil && f.err == nil {
			f.err = cf.err
		}
	}
	return v, f.err
}
