package registry

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"

	"github.com/spiritagents/spirit/internal/within"
)

// ValidateOptions tune Validate.
type ValidateOptions struct {
	// Root is the registry repository (the folder holding registry/).
	Root string
	// Schemas, when set, adds the official schemas' checks as warnings.
	Schemas *Schemas
	// Strict turns schema warnings into errors.
	Strict bool
}

// Validate runs the reference's offline consistency checks (spec §5) and
// returns every problem found. It never touches the network or the files.
func Validate(opts ValidateOptions) ([]Problem, error) {
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, err
	}
	entries, ps, err := LoadEntries(root, opts.Schemas)
	if err != nil {
		if errors.Is(err, ErrNoEntries) {
			return []Problem{{Message: err.Error(), Severity: SeverityError}}, nil
		}
		return nil, err
	}
	if hasErrors(ps) {
		return strictify(ps, opts.Strict), nil
	}
	errorf := func(file, format string, a ...any) {
		ps = append(ps, Problem{File: file, Message: fmt.Sprintf(format, a...), Severity: SeverityError})
	}
	catalogPath := filepath.Join(root, "registry", "catalog.json")
	catalogData, err := within.ReadFile(root, catalogPath)
	if errors.Is(err, fs.ErrNotExist) {
		errorf(catalogPath, "registry/catalog.json is missing. Run ./scripts/build-catalog.sh to regenerate it.")
	} else if err != nil {
		return nil, err
	}
	detailFiles, err := findFiles(root, "detail.json")
	if err != nil {
		return nil, err
	}
	if len(detailFiles) != len(entries) {
		errorf("", "registry/extensions/**/detail.json file count (%d) does not match registry entry count (%d).", len(detailFiles), len(entries))
	}
	for _, e := range entries {
		id := e.ID()
		readme := filepath.Join(extensionsDir(root), id, "README.md")
		st, err := within.Stat(root, readme)
		if errors.Is(err, within.ErrEscape) {
			return nil, err
		}
		if err != nil || !st.Mode().IsRegular() {
			errorf(readme, "registry/extensions/%s/README.md is missing.", id)
		}
		detail := filepath.Join(extensionsDir(root), id, "detail.json")
		st, err = within.Stat(root, detail)
		if errors.Is(err, within.ErrEscape) {
			return nil, err
		}
		if err != nil || !st.Mode().IsRegular() {
			errorf(detail, "Missing detail artifact for extensionId '%s'.", id)
		}
	}
	var details []*Value
	for _, f := range detailFiles {
		data, err := within.ReadFile(root, f)
		if err != nil {
			return nil, err
		}
		d, err := ParseValue(data)
		if err != nil {
			errorf(f, "%v", err)
			errorf(f, "Failed to parse %s; it is not JSON.", f)
			continue
		}
		details = append(details, d)
		if opts.Schemas != nil {
			ps = append(ps, opts.Schemas.checkValue(schemaDetail, f, d)...)
		}
	}
	if catalogData == nil {
		return strictify(ps, opts.Strict), nil
	}
	catalog, err := ParseValue(catalogData)
	if err != nil {
		errorf(catalogPath, "%v", err)
		errorf(catalogPath, "Failed to parse %s or a detail artifact; see the jq error above for the file.", catalogPath)
		return strictify(ps, opts.Strict), nil
	}
	if opts.Schemas != nil {
		ps = append(ps, opts.Schemas.checkValue(schemaCatalog, catalogPath, catalog)...)
	}
	seen := map[string]bool{}
	for _, p := range ps {
		seen[p.Message] = true
	}
	for _, msg := range CheckConsistency(entries, catalog, details) {
		if !seen[msg] {
			errorf("", "%s", msg)
		}
	}
	return strictify(ps, opts.Strict), nil
}

// strictify turns warnings into errors when strict is set.
func strictify(ps []Problem, strict bool) []Problem {
	if strict {
		for i := range ps {
			ps[i].Severity = SeverityError
		}
	}
	return ps
}

var (
	catalogItemKeys = []string{"extensionId", "packageName", "status", "featured", "defaultVersion", "defaultChannel",
		"defaultReviewStatus", "detailPath", "displayName", "description", "supportedHosts", "requestedCapabilities"}
	detailKeys = []string{"schemaVersion", "extensionId", "packageName", "status", "featured", "defaultVersion",
		"defaultReviewStatus", "readmePath", "versions"}
	detailVersionKeys = []string{"version", "channel", "reviewStatus", "displayName", "description", "supportedHosts", "requestedCapabilities"}
)

// CheckConsistency is the reference's content check (spec §5): catalog
// and details against the entries, every message collected, in order.
// Entries must be in extensionId order.
func CheckConsistency(entries []*Entry, catalog *Value, details []*Value) []string {
	var out []string
	add := func(format string, a ...any) { out = append(out, fmt.Sprintf(format, a...)) }
	if !Equal(fieldOf(catalog, "schemaVersion"), Number("1")) {
		add("registry/catalog.json has an unsupported schemaVersion.")
	}
	itemsVal := fieldOf(catalog, "items")
	var items []*Value
	if itemsVal == nil || itemsVal.Kind != KindArray {
		add("registry/catalog.json is missing the items array.")
	} else {
		items = itemsVal.Elems
	}
	if len(items) != len(entries) {
		add("registry/catalog.json item count (%d) does not match registry/extensions item count (%d).", len(items), len(entries))
	}
	for _, k := range catalogItemKeys {
		if slices.ContainsFunc(items, func(it *Value) bool { return !it.Has(k) }) {
			add("registry/catalog.json is missing required key '%s' on one or more items.", k)
		}
	}
	ids := make([]*Value, len(items))
	for i, it := range items {
		ids[i] = fieldOf(it, "extensionId")
	}
	slices.SortStableFunc(ids, Compare)
	for i := 1; i < len(ids); i++ {
		if Equal(ids[i], ids[i-1]) && (i == 1 || !Equal(ids[i-1], ids[i-2])) {
			add("Duplicate extensionId '%s' found in registry/catalog.json.", ids[i].ToString())
		}
	}
	for _, e := range entries {
		out = append(out, checkEntryArtifacts(e, items, details)...)
	}
	return out
}

func fieldOf(v *Value, k string) *Value { x, _ := v.Get(k); return x }

// checkEntryArtifacts checks the catalog item and the detail of one entry.
func checkEntryArtifacts(e *Entry, items, details []*Value) []string {
	var out []string
	add := func(format string, a ...any) { out = append(out, fmt.Sprintf(format, a...)) }
	id := e.ID()
	idVal := e.field("extensionId")
	var matches []*Value
	for _, it := range items {
		if Equal(fieldOf(it, "extensionId"), idVal) {
			matches = append(matches, it)
		}
	}
	switch len(matches) {
	case 0:
		add("registry/catalog.json is missing extensionId '%s'.", id)
		return out
	case 1:
	default:
		add("registry/catalog.json contains multiple items for extensionId '%s'.", id)
		return out
	}
	item := matches[0]
	for _, f := range []string{"packageName", "status", "featured", "defaultVersion", "defaultReviewStatus"} {
		if !Equal(fieldOf(item, f), e.field(f)) {
			add("registry/catalog.json is out of sync for extensionId '%s' field '%s'.", id, f)
		}
	}
	dv := e.field("defaultVersion")
	var devChannel *Value
	for _, v := range e.versions() {
		if Equal(fieldOf(v, "version"), dv) {
			devChannel = fieldOf(v, "channel")
			break
		}
	}
	if !Equal(fieldOf(item, "defaultChannel"), devChannel) {
		add("registry/catalog.json is out of sync for extensionId '%s' field '%s'.", id, "defaultChannel")
	}
	if !Equal(fieldOf(item, "detailPath"), String("extensions/"+id+"/detail.json")) {
		add("registry/catalog.json has an unexpected detailPath for extensionId '%s'.", id)
	}
	var detail *Value
	for _, d := range details {
		if Equal(fieldOf(d, "extensionId"), idVal) {
			detail = d
			break
		}
	}
	if detail == nil {
		add("Missing detail artifact for extensionId '%s'.", id)
		return out
	}
	out = append(out, checkDetail(e, detail, item)...)
	return out
}

// checkDetail checks one detail document against its entry and, when item
// is not nil, against its catalog item.
func checkDetail(e *Entry, detail, item *Value) []string {
	var out []string
	add := func(format string, a ...any) { out = append(out, fmt.Sprintf(format, a...)) }
	id := e.ID()
	df := "registry/extensions/" + id + "/detail.json"
	for _, k := range detailKeys {
		if !detail.Has(k) {
			add("%s is missing required key '%s'.", df, k)
		}
	}
	for _, f := range []string{"extensionId", "packageName", "status", "featured", "defaultVersion", "defaultReviewStatus"} {
		if !Equal(fieldOf(detail, f), e.field(f)) {
			add("%s is out of sync for field '%s'.", df, f)
		}
	}
	if !Equal(fieldOf(detail, "readmePath"), String("extensions/"+id+"/README.md")) {
		add("%s has an unexpected readmePath.", df)
	}
	var dvs []*Value
	if v := fieldOf(detail, "versions"); v != nil && v.Kind == KindArray {
		dvs = v.Elems
	}
	if len(dvs) != len(e.versions()) {
		add("%s version count is out of sync.", df)
	}
	dv := e.field("defaultVersion")
	var ddv *Value
	for _, v := range dvs {
		if Equal(fieldOf(v, "version"), dv) {
			ddv = v
			break
		}
	}
	if ddv == nil {
		add("%s is missing defaultVersion '%s'.", df, dv.ToString())
		return out
	}
	if item != nil {
		for _, f := range []string{"displayName", "description", "supportedHosts", "requestedCapabilities"} {
			v, ok := ddv.Get(f)
			if !ok {
				add("%s default version is missing '%s'.", df, f)
			} else if !Equal(v, fieldOf(item, f)) {
				add("registry/catalog.json is out of sync with detail artifact for extensionId '%s' field '%s'.", id, f)
			}
		}
		for _, f := range []string{"author", "homepageUrl", "repositoryUrl", "iconUrl"} {
			a, aok := ddv.Get(f)
			b, bok := item.Get(f)
			if aok != bok || !Equal(a, b) {
				add("registry/catalog.json optional field '%s' is out of sync with detail artifact for extensionId '%s'.", f, id)
			}
		}
		a, aok := ddv.Get("keywords")
		b, bok := item.Get("keywords")
		if aok != bok || !Equal(a, b) {
			add("registry/catalog.json keywords are out of sync with detail artifact for extensionId '%s'.", id)
		}
	}
	for _, ev := range e.versions() {
		ver := fieldOf(ev, "version")
		var found []*Value
		for _, v := range dvs {
			if Equal(fieldOf(v, "version"), ver) {
				found = append(found, v)
			}
		}
		if len(found) != 1 {
			add("%s has an invalid number of entries for version '%s'.", df, ver.ToString())
			continue
		}
		d := found[0]
		for _, k := range detailVersionKeys {
			if !d.Has(k) {
				add("%s is missing required version key '%s' for version '%s'.", df, k, ver.ToString())
			}
		}
		for _, f := range []string{"version", "channel", "reviewStatus"} {
			if !Equal(fieldOf(d, f), fieldOf(ev, f)) {
				add("%s is out of sync for version '%s' field '%s'.", df, ver.ToString(), f)
			}
		}
		ec, dc := fieldOf(ev, "changelog"), fieldOf(d, "changelog")
		if ec.IsNull() != dc.IsNull() {
			add("%s changelog presence is out of sync for version '%s'.", df, ver.ToString())
		} else if !ec.IsNull() {
			for _, f := range []string{"summary", "body"} {
				if !Equal(fieldOf(ec, f), fieldOf(dc, f)) {
					add("%s changelog field '%s' is out of sync for version '%s'.", df, f, ver.ToString())
				}
			}
		}
	}
	return out
}
