package registry

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// packument is the part of an npm packument the build reads: the version
// manifests and the publish times (spec §2.2). Everything else is ignored.
type packument struct {
	versions map[string]json.RawMessage
	time     map[string]json.RawMessage
}

// parsePackument reads a full packument with jq's `.versions // {}` and
// `.time // {}`.
func parsePackument(data []byte) (*packument, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		var ute *json.UnmarshalTypeError
		if errors.As(err, &ute) {
			return nil, fmt.Errorf("the document is not a JSON object")
		}
		return nil, fmt.Errorf("bad JSON: %w", err)
	}
	p := &packument{}
	for key, dst := range map[string]*map[string]json.RawMessage{"versions": &p.versions, "time": &p.time} {
		raw, ok := top[key]
		if !ok || isFalsyJSON(raw) {
			continue
		}
		if err := json.Unmarshal(raw, dst); err != nil {
			return nil, fmt.Errorf("Cannot index %s of the packument: it is not an object", key)
		}
	}
	return p, nil
}

func isFalsyJSON(raw json.RawMessage) bool {
	s := strings.TrimSpace(string(raw))
	return s == "null" || s == "false"
}

// VersionError is a version of an entry that cannot be built from npm
// metadata (spec §2.2), with the reference's message.
type VersionError struct {
	Package, Version string
	Msg              string
}

func (e *VersionError) Error() string { return e.Msg }

// detailVersion builds the detail version object of entry version item
// (spec §3.2) from the packument.
func detailVersion(pkg string, item *Value, p *packument) (*Value, error) {
	verVal, _ := item.Get("version")
	v := verVal.ToString()
	fail := func(format string, a ...any) error {
		return &VersionError{Package: pkg, Version: v, Msg: fmt.Sprintf(format, a...)}
	}
	// jq's own runtime errors name no package; say which one.
	jqFail := func(err error) error { return fail("Package %s@%s: %v", pkg, v, err) }
	raw, ok := p.versions[v]
	if !ok || strings.TrimSpace(string(raw)) == "null" {
		return nil, fail("Version '%s' was not found in npm metadata for %s.", v, pkg)
	}
	m, err := ParseValue(raw)
	if err != nil {
		return nil, fail("npm metadata for %s@%s does not parse: %v", pkg, v, err)
	}
	se, err := m.index("spiritExtension")
	if err != nil {
		return nil, jqFail(err)
	}
	if se.IsNull() {
		return nil, fail("Package %s@%s is missing package.json spiritExtension metadata.", pkg, v)
	}
	field := func(obj *Value, key string) (*Value, error) {
		val, err := obj.index(key)
		if err != nil {
			return nil, jqFail(err)
		}
		return val, nil
	}
	displayName, err := field(se, "displayName")
	if err != nil {
		return nil, err
	}
	if displayName.blank() {
		return nil, fail("Package %s@%s is missing spiritExtension.displayName.", pkg, v)
	}
	out := Object()
	channel, _ := item.Get("channel")
	review, _ := item.Get("reviewStatus")
	out.Set("version", String(v))
	out.Set("channel", String(channel.ToString()))
	out.Set("reviewStatus", String(review.ToString()))
	out.Set("displayName", String(displayName.ToString()))

	desc, err := field(m, "description")
	if err != nil {
		return nil, err
	}
	out.Set("description", String(orEmpty(desc)))

	author, err := field(m, "author")
	if err != nil {
		return nil, err
	}
	setNonBlank(out, "author", nameOrString(author, "name"))

	home, err := field(m, "homepage")
	if err != nil {
		return nil, err
	}
	setNonBlank(out, "homepageUrl", nullableString(home))

	repo, err := field(m, "repository")
	if err != nil {
		return nil, err
	}
	if u := nameOrString(repo, "url"); u != nil && !isBlank(*u) {
		s := normalizeRepoURL(*u)
		out.Set("repositoryUrl", String(s))
	}

	kw, err := field(m, "keywords")
	if err != nil {
		return nil, err
	}
	keywords, err := stringList(kw)
	if err != nil {
		return nil, jqFail(err)
	}
	if len(keywords.Elems) > 0 {
		out.Set("keywords", keywords)
	}
	for _, k := range []string{"supportedHosts", "requestedCapabilities"} {
		val, err := field(se, k)
		if err != nil {
			return nil, err
		}
		list, err := stringList(val)
		if err != nil {
			return nil, jqFail(err)
		}
		out.Set(k, list)
	}
	icon, err := field(se, "icon")
	if err != nil {
		return nil, err
	}
	if !icon.blank() {
		out.Set("iconUrl", String(IconURL(pkg, v, icon.ToString())))
	}
	if raw, ok := p.time[v]; ok {
		t, err := ParseValue(raw)
		if err == nil {
			setNonBlank(out, "publishedAt", nullableString(t))
		}
	}
	dist, err := field(m, "dist")
	if err != nil {
		return nil, err
	}
	if dist.falsy() {
		dist = nil
	}
	for _, k := range [][2]string{{"tarball", "tarballUrl"}, {"integrity", "integrity"}, {"shasum", "shasum"}} {
		val, err := field(dist, k[0])
		if err != nil {
			return nil, err
		}
		setNonBlank(out, k[1], nullableString(val))
	}
	if cl, _ := item.Get("changelog"); !cl.IsNull() {
		summary, _ := cl.Get("summary")
		body, _ := cl.Get("body")
		out.Set("changelog", Object().Set("summary", String(summary.ToString())).Set("body", String(body.ToString())))
	}
	return out, nil
}

// orEmpty is `if . == null then "" else tostring end`.
func orEmpty(v *Value) string {
	if v.IsNull() {
		return ""
	}
	return v.ToString()
}

// nullableString is `if . == null then null else tostring end`.
func nullableString(v *Value) *string {
	if v.IsNull() {
		return nil
	}
	s := v.ToString()
	return &s
}

// nameOrString reads author and repository: a string as is, an object's
// key when that is not null or false, else nothing.
func nameOrString(v *Value, key string) *string {
	switch {
	case v == nil:
		return nil
	case v.Kind == KindString:
		s := v.Str
		return &s
	case v.Kind == KindObject:
		if n, _ := v.Get(key); !n.falsy() {
			s := n.ToString()
			return &s
		}
	}
	return nil
}

func setNonBlank(obj *Value, key string, s *string) {
	if s != nil && !isBlank(*s) {
		obj.Set(key, String(*s))
	}
}

// stringList is `if . == null then [] else [.[] | tostring] end`.
func stringList(v *Value) (*Value, error) {
	out := Array()
	if v.IsNull() {
		return out, nil
	}
	elems, err := v.iterate()
	if err != nil {
		return nil, err
	}
	for _, e := range elems {
		out.Elems = append(out.Elems, String(e.ToString()))
	}
	return out, nil
}

// trailingGit is the reference's `\.git$`, where $ also matches before a
// final newline.
var trailingGit = regexp.MustCompile(`\.git(\n?)$`)

// normalizeRepoURL applies the reference's three rewrites, in order and
// case-sensitively (spec §2.3).
func normalizeRepoURL(u string) string {
	u = strings.TrimPrefix(u, "git+")
	if rest, ok := strings.CutPrefix(u, "git://github.com/"); ok {
		u = "https://github.com/" + rest
	}
	return trailingGit.ReplaceAllString(u, "$1")
}

// IconURL is the jsDelivr address of an icon inside a published package:
// the leading run of '.' and '/' removed, then every '\' turned into '/'.
// The package name is not encoded (spec §2.3).
func IconURL(pkg, version, icon string) string {
	p := strings.TrimLeft(icon, "./")
	p = strings.ReplaceAll(p, `\`, "/")
	return "https://cdn.jsdelivr.net/npm/" + pkg + "@" + version + "/" + p
}

// catalogItem builds the catalog item of an entry from its built detail
// versions (spec §3.4).
func catalogItem(e *Entry, versions []*Value) (*Value, error) {
	dv := e.field("defaultVersion")
	var devChannel *Value
	for _, item := range e.versions() {
		if v, _ := item.Get("version"); Equal(v, dv) {
			devChannel, _ = item.Get("channel")
			break
		}
	}
	var ddv *Value
	for _, d := range versions {
		if v, _ := d.Get("version"); Equal(v, dv) {
			ddv = d
			break
		}
	}
	if ddv == nil {
		return nil, fmt.Errorf("defaultVersion '%s' was not found in generated detail versions for extensionId '%s'.", dv.ToString(), e.ID())
	}
	item := Object()
	for _, k := range []string{"extensionId", "packageName", "status", "featured"} {
		item.Set(k, e.field(k))
	}
	item.Set("defaultVersion", String(dv.ToString()))
	item.Set("defaultChannel", String(devChannel.ToString()))
	item.Set("defaultReviewStatus", String(e.field("defaultReviewStatus").ToString()))
	item.Set("detailPath", String("extensions/"+e.ID()+"/detail.json"))
	for _, k := range []string{"displayName", "description", "author", "homepageUrl", "repositoryUrl", "keywords", "supportedHosts", "requestedCapabilities", "iconUrl"} {
		v, ok := ddv.Get(k)
		switch k {
		case "displayName", "description", "supportedHosts", "requestedCapabilities":
			if !ok {
				v = nullValue
			}
			item.Set(k, v)
		case "keywords":
			if ok && v.Kind == KindArray && len(v.Elems) > 0 {
				item.Set(k, v)
			}
		default:
			if ok && !v.blank() {
				item.Set(k, v)
			}
		}
	}
	return item, nil
}

// detailDoc builds detail.json of an entry (spec §3.3).
func detailDoc(e *Entry, versions []*Value) *Value {
	d := Object()
	d.Set("$schema", String("../../../schemas/marketplace-detail.schema.json"))
	d.Set("schemaVersion", Number("1"))
	for _, k := range []string{"extensionId", "packageName", "status", "featured"} {
		d.Set(k, e.field(k))
	}
	d.Set("defaultVersion", String(e.field("defaultVersion").ToString()))
	d.Set("defaultReviewStatus", String(e.field("defaultReviewStatus").ToString()))
	d.Set("readmePath", String("extensions/"+e.ID()+"/README.md"))
	d.Set("versions", Array(versions...))
	return d
}

// catalogDoc builds catalog.json (spec §3.5).
func catalogDoc(items []*Value) *Value {
	c := Object()
	c.Set("$schema", String("../schemas/marketplace-catalog.schema.json"))
	c.Set("schemaVersion", Number("1"))
	c.Set("items", Array(items...))
	return c
}
