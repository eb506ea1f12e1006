package manifest

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/spiritagents/spirit/internal/jsjson"
)

// MaxSize is the largest package.json accepted (1 MiB).
const MaxSize = 1 << 20

// MaxDepth is the deepest JSON nesting accepted.
const MaxDepth = 64

// Options tune Validate.
type Options struct {
	// Host, when set ("cli" or "desktop"), must be in supportedHosts.
	Host string
	// Strict makes every warning an error.
	Strict bool
	// Installed checks a package that is already installed (by the apps,
	// say) by the apps' rules: what only spirit's install refuses (tool
	// schemas that are not JSON Schemas of type object, duplicate tool
	// names) is a warning, so spirit exposes what the apps expose.
	Installed bool
	// Trusted says that these exact bytes passed Validate before (an
	// install records their digest): the JSON Schema pass and the
	// compilation of the tools' schemas are skipped. The Manifest is built
	// as always, and the rules that look at files still run.
	Trusted bool
	// NoToolSchemas, with Trusted, leaves the tools' InputSchema and
	// OutputSchema nil: for a listing that does not show them (`extension
	// list`), which spares re-reading each schema from the bytes. Without
	// Trusted the schemas are checked, so they are read anyway.
	NoToolSchemas bool
}

// Validate checks package.json bytes and reports every problem. fsys is the
// package root, used for the rules that look at files (main, icon, css,
// hooks, symlink escapes); when it is nil those rules are skipped, and so is
// reading the CLI hooks file. Problems come in the order the reference
// checks them, followed by the file rules and the warnings.
func Validate(data []byte, fsys fs.FS, opts Options) *Report {
	return validate(data, fsys, opts, true)
}

// validate is Validate; brief lets it build the manifest of trusted bytes
// without the tools' schemas by briefManifest, which tests turn off to
// compare.
func validate(data []byte, fsys fs.FS, opts Options, brief bool) *Report {
	v := &validator{installed: opts.Installed, noSchemas: opts.Trusted && opts.NoToolSchemas, fsys: fsys, report: &Report{}, data: data, blockFailed: map[string]bool{}}
	if brief && v.noSchemas {
		if m, ok := briefManifest(data); ok {
			// The document has spiritExtension, and no key that
			// unknownKeys would warn about.
			v.m, v.report.Manifest = m, m
			v.checkManifest(opts, true)
		}
	}
	if v.m == nil {
		if doc, ok := v.decode(data); ok {
			v.validate(doc, opts)
			v.unknownKeys(doc)
		}
	}
	if opts.Strict {
		for i := range v.report.Problems {
			v.report.Problems[i].Severity = SeverityError
		}
	}
	return v.report
}

type validator struct {
	// installed says the package is installed already (Options.Installed):
	// strict rules the apps lack are warnings (strictf).
	installed bool
	// noSchemas leaves the tools' schemas out (Options.NoToolSchemas).
	noSchemas bool
	fsys      fs.FS
	data      []byte
	report    *Report
	fails     map[string]failure
	m         *Manifest
	// toolIndex and cssIndex give, for each parsed tool and stylesheet,
	// its index in package.json (items that failed are left out of m).
	toolIndex, cssIndex []int
	// blockFailed says a contributes block ("desktop", "cli") had problems
	// of its own, so its absence is not reported again.
	blockFailed map[string]bool
	// tools holds the bytes of each item of spiritExtension.contributes.tools,
	// read when a tool schema needs them (toolsRead).
	tools     [][]byte
	toolsRead bool
}

func (v *validator) add(ptr string, sev Severity, msg string) {
	v.report.Problems = append(v.report.Problems, Problem{Pointer: ptr, InDocument: true, Message: msg, Severity: sev})
}

func (v *validator) addDetail(ptr string, sev Severity, msg, detail string) {
	v.report.Problems = append(v.report.Problems, Problem{Pointer: ptr, InDocument: true, Message: msg, Severity: sev, Detail: detail})
}

func (v *validator) errorf(ptr, format string, a ...any) {
	v.add(ptr, SeverityError, fmt.Sprintf(format, a...))
}

func (v *validator) warnf(ptr, format string, a ...any) {
	v.add(ptr, SeverityWarning, fmt.Sprintf(format, a...))
}

// strictf reports a rule of spirit's that the apps lack: an error for a
// package being installed, a warning for one installed already (the apps
// expose it, and so does spirit).
func (v *validator) strictf(ptr, format string, a ...any) {
	if v.installed {
		v.warnf(ptr, format, a...)
		return
	}
	v.errorf(ptr, format, a...)
}

// fail returns how the schema said the value at ptr is wrong.
func (v *validator) fail(ptr string) failure { return v.fails[ptr] }

func (v *validator) validate(doc any, opts Options) {
	root, isObj := doc.(map[string]any)
	if _, isArr := doc.([]any); !isObj && !isArr {
		v.errorf("", "The extension package.json must be a JSON object.")
		return
	}
	if !isObj {
		// The reference treats an array as an object, which then has no spiritExtension.
		v.errorf("/spiritExtension", "The extension package.json is missing the spiritExtension field, which must be an object.")
		return
	}
	normalizeRecords(root)
	if !opts.Trusted {
		fails, err := schemaFailures(root)
		if err != nil {
			v.errorf("", "internal error: the manifest schema failed: %v", err)
			return
		}
		v.fails = fails
	}
	v.m = &Manifest{SchemaVersion: 1}
	v.report.Manifest = v.m
	if t, ok := root["type"].(string); ok {
		v.m.Type = t
	}

	se, hasSE := root["spiritExtension"].(map[string]any)
	if !hasSE {
		v.errorf("/spiritExtension", "The extension package.json is missing the spiritExtension field, which must be an object.")
		v.hintMissingBlock(root)
		se = nil
	}
	if hasSE {
		v.schemaVersion(se)
	}
	v.m.ID = v.requiredString(root, "/name", "name")
	if v.m.ID != "" && v.fail("/name") == failPattern {
		v.errorf("/name", "The extension package.json name field is invalid; it must be a valid npm package name, and only lowercase names with an optional scope are supported.")
	}
	if hasSE {
		v.m.Name = v.requiredString(se, "/spiritExtension/displayName", "spiritExtension.displayName")
		v.m.Icon = v.optionalString(se, "/spiritExtension/icon", "spiritExtension.icon")
	}
	v.m.Version = v.requiredString(root, "/version", "version")
	v.m.Description = v.optionalString(root, "/description", "description")
	v.m.Homepage = v.optionalString(root, "/homepage", "homepage")
	v.m.Main = v.optionalString(root, "/main", "main")
	v.author(root)
	if hasSE {
		v.m.ActivationEvents = v.stringList(se, "/spiritExtension/activationEvents", "spiritExtension.activationEvents")
		v.m.RequestedCapabilities = v.stringList(se, "/spiritExtension/requestedCapabilities", "spiritExtension.requestedCapabilities")
		v.contributes(se)
		v.settings(se)
		v.secretSlots(se)
		v.supportedHosts(se)
	}
	v.checkManifest(opts, hasSE)
}

// checkManifest applies the rules that read the manifest built from the
// document (v.m): paths, capabilities, files, the warnings and the host.
func (v *validator) checkManifest(opts Options, hasSE bool) {
	if v.m.Main != "" {
		v.safePath("/main", "main", v.m.Main)
	}
	if v.m.Icon != "" {
		v.safePath("/spiritExtension/icon", "spiritExtension.icon", v.m.Icon)
	}
	if hasSE {
		v.uiPairing()
		if !opts.Trusted {
			v.toolSchemas(opts.Installed)
		}
		v.files()
		v.warnings()
		if opts.Host != "" && v.fail("/spiritExtension/supportedHosts") == failNone && len(v.m.SupportedHosts) > 0 && !v.m.SupportsHost(opts.Host) {
			labels := make([]string, len(v.m.SupportedHosts))
			for i, h := range v.m.SupportedHosts {
				labels[i] = hostLabel(h)
			}
			v.errorf("/spiritExtension/supportedHosts", "This extension cannot be installed on the current host: current host is %s, but the extension only supports %s.",
				hostLabel(opts.Host), strings.Join(labels, ", "))
		}
	}
	v.leftovers()
}

// element returns the JSON pointer and the reference's label ("a.b[i]") of
// item i of the list at ptr and label.
func element(ptr, label string, i int) (string, string) {
	n := strconv.Itoa(i)
	return ptr + "/" + n, label + "[" + n + "]"
}

func isList(x any) bool {
	_, ok := x.([]any)
	return ok
}

func hostLabel(h string) string {
	if h == "desktop" {
		return "Desktop"
	}
	return "CLI"
}

// normalizeRecords replaces arrays with empty objects where the reference's
// isRecord test accepts an array as an object, so that the schema's
// "required" rules fire there as the reference's field checks do.
func normalizeRecords(root map[string]any) {
	asRecord := func(x any) any {
		if _, ok := x.([]any); ok {
			return map[string]any{}
		}
		return x
	}
	if _, ok := root["spiritExtension"].([]any); ok {
		root["spiritExtension"] = map[string]any{}
	}
	se, _ := root["spiritExtension"].(map[string]any)
	if se == nil {
		return
	}
	eachItem := func(list any, f func(map[string]any)) {
		items, _ := list.([]any)
		for i := range items {
			items[i] = asRecord(items[i])
			if m, ok := items[i].(map[string]any); ok && f != nil {
				f(m)
			}
		}
	}
	if c, ok := se["contributes"].(map[string]any); ok {
		eachItem(c["tools"], nil)
		if d, ok := c["desktop"].(map[string]any); ok {
			eachItem(d["css"], nil)
		}
		if cl, ok := c["cli"].(map[string]any); ok {
			if h, ok := cl["hooks"]; ok && h != nil {
				cl["hooks"] = asRecord(h)
			}
		}
	}
	eachItem(se["settingsSchema"], func(s map[string]any) { eachItem(s["options"], nil) })
	eachItem(se["secretSlots"], nil)
}

// requiredString reads a required non-blank string; any failure is
// "Extension field <label> must not be empty.".
func (v *validator) requiredString(obj map[string]any, ptr, label string) string {
	switch v.fail(ptr) {
	case failMissing, failType, failBlank:
		v.errorf(ptr, "Extension field %s must not be empty.", label)
		v.hintType(ptr, obj[lastToken(ptr)])
		return ""
	}
	s, _ := obj[lastToken(ptr)].(string)
	return trim(s)
}

// optionalString reads an optional string; null means absent and a blank
// value counts as absent.
func (v *validator) optionalString(obj map[string]any, ptr, label string) string {
	if v.fail(ptr) == failType {
		v.errorf(ptr, "The extension package.json field %s must be a string.", label)
		return ""
	}
	s, _ := obj[lastToken(ptr)].(string)
	return trim(s)
}

func lastToken(ptr string) string {
	t := ptr[strings.LastIndexByte(ptr, '/')+1:]
	if strings.IndexByte(t, '~') < 0 {
		return t
	}
	return pointerUnescaper.Replace(t)
}

var pointerUnescaper = strings.NewReplacer("~1", "/", "~0", "~")

func (v *validator) schemaVersion(se map[string]any) {
	const ptr = "/spiritExtension/schemaVersion"
	switch v.fail(ptr) {
	case failType:
		v.errorf(ptr, "Extension field spiritExtension.schemaVersion must be a number.")
	case failMinimum:
		if n, ok := se["schemaVersion"].(json.Number); ok {
			if f, err := n.Float64(); err != nil || math.IsInf(f, 0) {
				v.errorf(ptr, "Extension field spiritExtension.schemaVersion must be a number.")
				return
			}
		}
		v.errorf(ptr, "Only extension package.json with spiritExtension.schemaVersion=1 is supported.")
	}
}

func (v *validator) author(root map[string]any) {
	const ptr = "/author"
	if v.fail(ptr) == failType {
		v.errorf(ptr, "The extension package.json author field must be a string or an object with a name field.")
		return
	}
	switch a := root["author"].(type) {
	case string:
		v.m.Author = trim(a)
	case map[string]any:
		if v.fail("/author/name") == failType {
			v.errorf("/author/name", "The extension package.json field author.name must be a string.")
			return
		}
		if n, ok := a["name"].(string); ok {
			v.m.Author = trim(n)
		}
	}
}

// stringList reads activationEvents or requestedCapabilities: a non-array
// is ignored; elements are trimmed, checked and de-duplicated.
func (v *validator) stringList(obj map[string]any, ptr, label string) []string {
	items, _ := obj[lastToken(ptr)].([]any)
	var out []string
	for i, it := range items {
		p := ptr + "/" + strconv.Itoa(i)
		str, isStr := it.(string)
		switch f := v.fail(p); {
		case f == failType, !isStr: // !isStr: Trusted bytes of a tampered record
			v.errorf(p, "Extension field %s must be an array of strings.", label)
			continue
		case f == failPattern:
			v.errorf(p, "Extension field %s has an invalid value: %s", label, it)
			v.hintEnum(p, it)
			continue
		}
		s := trim(str)
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// enumString reads an optional enum string (approvalMode, executionMode).
func (v *validator) enumString(obj map[string]any, ptr, label string) string {
	switch v.fail(ptr) {
	case failType:
		v.errorf(ptr, "Extension field %s must be a string.", label)
		return ""
	case failPattern:
		v.errorf(ptr, "Extension field %s has an invalid value: %s", label, obj[lastToken(ptr)])
		v.hintEnum(ptr, obj[lastToken(ptr)])
		return ""
	}
	s, _ := obj[lastToken(ptr)].(string)
	return trim(s)
}

// record returns the element x at ptr as an object, and says so if it is not one.
func (v *validator) record(ptr, label string, x any) (map[string]any, bool) {
	obj, isObj := x.(map[string]any)
	if v.fail(ptr) == failType || !isObj {
		// Without the schema pass (Options.Trusted) only the type test
		// sees a value that is not an object: the bytes were validated at
		// install, so it takes a tampered record to get here.
		v.errorf(ptr, "Extension field %s must be an object.", label)
		return nil, false
	}
	return obj, true
}

func (v *validator) contributes(se map[string]any) {
	c, ok := se["contributes"].(map[string]any)
	if !ok {
		return
	}
	out := &Contributes{}
	tools, _ := c["tools"].([]any)
	for i, t := range tools {
		ptr, label := element("/spiritExtension/contributes/tools", "spiritExtension.contributes.tools", i)
		obj, ok := v.record(ptr, label, t)
		if !ok {
			continue
		}
		tool := Tool{Name: v.requiredString(obj, ptr+"/name", label+".name")}
		if tool.Name != "" && v.fail(ptr+"/name") == failPattern {
			v.errorf(ptr+"/name", "Invalid extension tool name: %s", tool.Name)
			v.hintToolName(tool.Name)
		}
		tool.Description = v.requiredString(obj, ptr+"/description", label+".description")
		switch v.fail(ptr + "/inputSchema") {
		case failMissing, failType:
			v.errorf(ptr+"/inputSchema", "Extension field %s.inputSchema must be an object.", label)
		default:
			if !v.noSchemas {
				tool.InputSchema = v.toolSchema(i, "inputSchema", obj)
			}
		}
		if v.fail(ptr+"/outputSchema") == failType {
			v.errorf(ptr+"/outputSchema", "Extension field %s.outputSchema must be an object.", label)
		} else if o := obj["outputSchema"]; o != nil && !v.noSchemas {
			tool.OutputSchema = v.toolSchema(i, "outputSchema", obj)
		}
		tool.ApprovalMode = v.enumString(obj, ptr+"/approvalMode", label+".approvalMode")
		tool.ExecutionMode = v.enumString(obj, ptr+"/executionMode", label+".executionMode")
		out.Tools = append(out.Tools, tool)
		v.toolIndex = append(v.toolIndex, i)
	}
	if d, ok := c["desktop"].(map[string]any); ok {
		n := len(v.report.Problems)
		out.Desktop = v.desktop(d)
		v.blockFailed["desktop"] = len(v.report.Problems) > n
	}
	if cl, ok := c["cli"].(map[string]any); ok {
		n := len(v.report.Problems)
		out.CLI = v.cli(cl)
		v.blockFailed["cli"] = len(v.report.Problems) > n
	}
	if len(out.Tools) > 0 || out.Desktop != nil || out.CLI != nil {
		v.m.Contributes = out
	}
}

func (v *validator) desktop(d map[string]any) *Desktop {
	out := &Desktop{}
	css, _ := d["css"].([]any)
	for i, c := range css {
		ptr, label := element("/spiritExtension/contributes/desktop/css", "spiritExtension.contributes.desktop.css", i)
		obj, ok := v.record(ptr, label, c)
		if !ok {
			continue
		}
		p := v.requiredString(obj, ptr+"/path", label+".path")
		if p == "" {
			continue
		}
		if !v.safePath(ptr+"/path", label+".path", p) {
			continue
		}
		item := CSS{Path: p}
		if m, ok := obj["media"].(string); ok {
			item.Media = trim(m)
		}
		out.CSS = append(out.CSS, item)
		v.cssIndex = append(v.cssIndex, i)
	}
	const sp = "/spiritExtension/contributes/desktop/settingsPage"
	if v.fail(sp) == failType {
		v.errorf(sp, "Extension field spiritExtension.contributes.desktop.settingsPage must be a boolean or an object.")
	} else {
		switch s := d["settingsPage"].(type) {
		case bool:
			if s {
				out.SettingsPage = &SettingsPage{}
			}
		case map[string]any:
			out.SettingsPage = &SettingsPage{}
			if t, ok := s["title"].(string); ok {
				out.SettingsPage.Title = t
			}
		case []any:
			out.SettingsPage = &SettingsPage{}
		}
	}
	if len(out.CSS) == 0 && out.SettingsPage == nil {
		return nil
	}
	return out
}

func (v *validator) cli(c map[string]any) *CLI {
	const ptr = "/spiritExtension/contributes/cli/hooks"
	h, present := c["hooks"]
	if !present || h == nil {
		return nil
	}
	hm, isObj := h.(map[string]any)
	if v.fail(ptr) == failType || !isObj { // !isObj: Trusted bytes of a tampered record
		v.errorf(ptr, "Extension field spiritExtension.contributes.cli.hooks must be an object that references an external resource file via path.")
		return nil
	}
	path := v.requiredString(hm, ptr+"/path", "spiritExtension.contributes.cli.hooks.path")
	// The reference turns backslashes into slashes before it checks and
	// reads the path, so "hooks\\cli.json" names hooks/cli.json.
	path = strings.ReplaceAll(path, `\`, "/")
	if path == "" || !v.safePath(ptr+"/path", "spiritExtension.contributes.cli.hooks.path", path) {
		return nil
	}
	if v.fsys == nil {
		return &CLI{HooksPath: path}
	}
	hooks, ok := v.hooksFile(ptr+"/path", path)
	if !ok || len(hooks) == 0 {
		return nil
	}
	return &CLI{HooksPath: path, Hooks: hooks}
}

func (v *validator) settings(se map[string]any) {
	items, _ := se["settingsSchema"].([]any)
	seen := map[string]bool{}
	for i, it := range items {
		ptr, label := element("/spiritExtension/settingsSchema", "spiritExtension.settingsSchema", i)
		obj, ok := v.record(ptr, label, it)
		if !ok {
			continue
		}
		s := Setting{Key: v.itemKey(obj, ptr, label, "setting key", seen)}
		typ, isStr := obj["type"].(string)
		switch f := v.fail(ptr + "/type"); {
		case f == failMissing, f == failType, !isStr: // !isStr: Trusted bytes of a tampered record
			v.errorf(ptr+"/type", "Extension field %s.type must be a string.", label)
		case f == failPattern:
			v.errorf(ptr+"/type", "Extension field %s.type has an invalid value: %s", label, obj["type"])
			v.hintValues(settingTypes, obj["type"])
		default:
			s.Type = trim(typ)
		}
		s.Title = v.requiredString(obj, ptr+"/title", label+".title")
		if d, ok := obj["description"].(string); ok {
			s.Description = d
		}
		if p, ok := obj["placeholder"].(string); ok {
			s.Placeholder = p
		}
		if r, ok := obj["required"].(bool); ok {
			s.Required = r
		}
		v.settingDefault(obj, ptr, label, &s)
		v.settingOptions(obj, ptr, label, &s)
		v.m.SettingsSchema = append(v.m.SettingsSchema, s)
	}
}

func (v *validator) settingDefault(obj map[string]any, ptr, label string, s *Setting) {
	d, present := obj["defaultValue"]
	if !present || d == nil || s.Type == "" {
		return
	}
	p := ptr + "/defaultValue"
	switch s.Type {
	case "string", "select":
		str, ok := d.(string)
		if !ok {
			v.errorf(p, "Extension field %s.defaultValue must be a string.", label)
			return
		}
		s.DefaultValue = str
	case "boolean":
		b, ok := d.(bool)
		if !ok {
			v.errorf(p, "Extension field %s.defaultValue must be a boolean.", label)
			return
		}
		s.DefaultValue = b
	case "number":
		f, ok := finiteNumber(d)
		if !ok {
			v.errorf(p, "Extension field %s.defaultValue must be a number.", label)
			return
		}
		s.DefaultValue = f
	}
}

func finiteNumber(x any) (float64, bool) {
	n, ok := x.(json.Number)
	if !ok {
		return 0, false
	}
	f, err := n.Float64()
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

func (v *validator) settingOptions(obj map[string]any, ptr, label string, s *Setting) {
	opts, present := obj["options"]
	p := ptr + "/options"
	if present && opts != nil {
		if s.Type != "" && s.Type != "select" {
			v.errorf(p, "Only select-type settings may declare options: %s", label)
			return
		}
		list, isList := opts.([]any)
		if v.fail(p) == failType || !isList {
			v.errorf(p, "Extension field %s.options must be an array.", label)
			return
		}
		for k, o := range list {
			op, ol := element(p, label+".options", k)
			om, ok := v.record(op, ol, o)
			if !ok {
				continue
			}
			opt := Option{
				Value: v.requiredString(om, op+"/value", ol+".value"),
				Label: v.requiredString(om, op+"/label", ol+".label"),
			}
			if d, ok := om["description"].(string); ok {
				opt.Description = trim(d)
			}
			if opt.Value != "" && opt.Label != "" {
				s.Options = append(s.Options, opt)
			}
		}
	}
	if s.Type != "select" {
		return
	}
	if list, _ := opts.([]any); !present || len(list) == 0 {
		v.strictf(p, "Extension setting %s is a select but declares no options.", s.Key)
		return
	}
	if d, ok := s.DefaultValue.(string); ok && len(s.Options) > 0 && !slices.ContainsFunc(s.Options, func(o Option) bool { return o.Value == d }) {
		v.strictf(ptr+"/defaultValue", "Extension setting %s has a default value that is not one of its options: %s", s.Key, d)
	}
}

// itemKey reads the key of a setting or a secret slot: required, matching
// the key pattern (the reference's "Invalid extension <what>: <key>"), and,
// beyond the reference, not a duplicate of an earlier one.
func (v *validator) itemKey(obj map[string]any, ptr, label, what string, seen map[string]bool) string {
	key := v.requiredString(obj, ptr+"/key", label+".key")
	if key == "" {
		return ""
	}
	if v.fail(ptr+"/key") == failPattern {
		v.errorf(ptr+"/key", "Invalid extension %s: %s", what, key)
		return key
	}
	if seen[key] {
		v.strictf(ptr+"/key", "Duplicate extension %s: %s", what, key)
	}
	seen[key] = true
	return key
}

func (v *validator) secretSlots(se map[string]any) {
	items, _ := se["secretSlots"].([]any)
	seen := map[string]bool{}
	for i, it := range items {
		ptr, label := element("/spiritExtension/secretSlots", "spiritExtension.secretSlots", i)
		obj, ok := v.record(ptr, label, it)
		if !ok {
			continue
		}
		s := SecretSlot{Key: v.itemKey(obj, ptr, label, "secret slot key", seen)}
		s.Title = v.requiredString(obj, ptr+"/title", label+".title")
		if d, ok := obj["description"].(string); ok {
			s.Description = trim(d)
		}
		if r, ok := obj["required"].(bool); ok {
			s.Required = r
		}
		v.m.SecretSlots = append(v.m.SecretSlots, s)
	}
}

func (v *validator) supportedHosts(se map[string]any) {
	const ptr = "/spiritExtension/supportedHosts"
	h, present := se["supportedHosts"]
	switch {
	case !present || h == nil:
		v.errorf(ptr, "Extension field spiritExtension.supportedHosts is missing; it must be a non-empty array with cli and/or desktop entries.")
		return
	case v.fail(ptr) == failType, !isList(h):
		v.errorf(ptr, "Extension field spiritExtension.supportedHosts must be an array of strings.")
		return
	case v.fail(ptr) == failMinimum:
		v.errorf(ptr, "Extension field spiritExtension.supportedHosts must contain at least one entry (cli or desktop).")
		return
	}
	for i, it := range h.([]any) {
		p := ptr + "/" + strconv.Itoa(i)
		str, isStr := it.(string)
		switch f := v.fail(p); {
		case f == failType, !isStr: // !isStr: Trusted bytes of a tampered record
			v.errorf(p, "Extension field spiritExtension.supportedHosts must be an array of strings.")
			continue
		case f == failPattern:
			v.errorf(p, "Extension field spiritExtension.supportedHosts has an invalid value: %s", it)
			v.hintValues(hostNames, it)
			continue
		}
		if s := trim(str); !slices.Contains(v.m.SupportedHosts, s) {
			v.m.SupportedHosts = append(v.m.SupportedHosts, s)
		}
	}
}

// uiPairing: a desktop or cli contribution and its UI capability come together.
func (v *validator) uiPairing() {
	pair := func(block, capability string, hasBlock bool) {
		hasCap := v.m.HasCapability(capability)
		switch {
		case hasBlock && !hasCap:
			v.errorf("/spiritExtension/contributes/"+block, "The extension declares spiritExtension.contributes.%s but is missing %s in spiritExtension.requestedCapabilities.", block, capability)
		case hasCap && !hasBlock && !v.blockFailed[block]:
			// A block whose own problems emptied it is reported there, once.
			v.errorf("/spiritExtension/requestedCapabilities", "The extension declares the %s capability but is missing spiritExtension.contributes.%s.", capability, block)
		}
	}
	c := v.m.Contributes
	pair("desktop", "desktop-ui", c != nil && c.Desktop != nil)
	pair("cli", "cli-ui", c != nil && c.CLI != nil)
}

// leftovers reports schema failures that no rule above explained, so that
// nothing the schema rejects passes silently.
func (v *validator) leftovers() {
	reported := map[string]bool{}
	for _, p := range v.report.Problems {
		reported[p.Pointer] = true
	}
	var extra []string
	for ptr := range v.fails {
		if !reported[ptr] && !v.explained(ptr) {
			extra = append(extra, ptr)
		}
	}
	slices.Sort(extra)
	for _, ptr := range extra {
		v.errorf(ptr, "Extension field %s has an invalid value.", ptr)
	}
}

// explained reports whether a schema failure at ptr is one the reference
// deliberately ignores: anything under a part that was skipped because a
// parent was already reported or is ignored.
func (v *validator) explained(ptr string) bool {
	for _, p := range v.report.Problems {
		if p.Pointer != "" && strings.HasPrefix(ptr, p.Pointer+"/") {
			return true
		}
	}
	// a setting's options under a non-select type are reported once, at the options.
	return false
}

// toolSchema returns the schema field of tool i as the apps pass it on:
// JSON.stringify(JSON.parse(package.json)...) keeps the author's key order
// and writes numbers as JavaScript does, where a re-encoded Go map would
// sort the keys. Only the field's own bytes are parsed with JavaScript's
// rules: a list of hundreds of installed extensions reads every manifest.
func (v *validator) toolSchema(i int, field string, obj map[string]any) json.RawMessage {
	if raw := v.toolField(i, field); raw != nil {
		if x, err := jsjson.Parse(raw); err == nil {
			if b, err := jsjson.Marshal(x); err == nil {
				return b
			}
		}
	}
	return rawJSON(obj[field])
}

// toolField returns the bytes of field in item i of
// spiritExtension.contributes.tools, or nil. Keys are matched exactly and
// the last of repeated keys wins, as in JSON.parse.
func (v *validator) toolField(i int, field string) []byte {
	if !v.toolsRead {
		v.toolsRead = true
		x := v.data
		for _, key := range []string{"spiritExtension", "contributes", "tools"} {
			if x = rawMember(x, key); x == nil {
				break
			}
		}
		v.tools = rawElements(x)
	}
	if i >= len(v.tools) {
		return nil
	}
	return rawMember(v.tools[i], field)
}

func rawJSON(x any) json.RawMessage {
	b, err := json.Marshal(x)
	if err != nil {
		return nil
	}
	return b
}
