// Package scaffold writes the starting package of a new Spirit Agent
// extension, the files behind `spirit extension create`.
//
// Rules it keeps: every package it writes passes `spirit extension validate
// --strict` as written (Render checks its own output with package manifest
// before anything is written, so the package name follows the apps' rule by
// construction); it writes only into a directory that is missing or empty,
// and never replaces a file; the templates are embedded, nothing is fetched.
package scaffold

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing/fstest"
	"text/template"
	"unicode"
	"unicode/utf8"

	"github.com/spiritagents/spirit/manifest"
)

//go:embed templates
var templateFS embed.FS

// Template is the kind of package to write.
type Template string

// The templates.
const (
	// Tools is one tool whose handler uses its arguments and ctx.log.
	Tools Template = "tools"
	// Prompt is a system prompt contribution.
	Prompt Template = "prompt"
	// Full is tools, a system prompt, a setting, a secret slot and dispose.
	Full Template = "full"
)

// Templates lists the templates, the default first.
var Templates = []Template{Tools, Prompt, Full}

// Hosts are the hosts a package may support, in manifest order.
var Hosts = []string{"cli", "desktop"}

// Options say what to write.
type Options struct {
	// Name is the package name, the extension id. Required.
	Name string
	// DisplayName is spiritExtension.displayName; "" derives it from Name.
	DisplayName string
	// Template is the kind of package; "" means Tools.
	Template Template
	// Hosts is spiritExtension.supportedHosts; nil means both.
	Hosts []string
	// SpiritVersion is the version of the spirit that writes the package;
	// the devDependency on the npm package @spiritagents/spirit asks for it
	// (see SpiritRange).
	SpiritVersion string
}

// SpiritPackage is the npm package of spirit that a new package has in
// devDependencies, for its validate and pack scripts.
const SpiritPackage = "@spiritagents/spirit"

// SpiritRange is the devDependency range on SpiritPackage for a spirit of
// the given version: "^1.2.3" for a release (v1.2.3), "latest" for any
// other build (a development build's version is no npm version).
func SpiritRange(version string) string {
	v := strings.TrimPrefix(version, "v")
	parts := strings.Split(v, ".")
	if len(parts) != 3 {
		return "latest"
	}
	for _, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" || (len(p) > 1 && p[0] == '0') {
			return "latest"
		}
	}
	return "^" + v
}

// File is one file of the package.
type File struct {
	// Name is the slash-separated path inside the package.
	Name string
	Data []byte
}

// InvalidNameError says the package name breaks the apps' rule.
type InvalidNameError struct {
	Name    string
	Message string
}

func (e *InvalidNameError) Error() string {
	return fmt.Sprintf("invalid name %q: %s", e.Name, e.Message)
}

// ErrNotEmpty means the target directory already has files.
var ErrNotEmpty = errors.New("directory is not empty")

// NotEmptyError names the directory that already has files. It matches ErrNotEmpty.
type NotEmptyError struct{ Dir string }

func (e *NotEmptyError) Error() string { return "directory " + e.Dir + " is not empty" }

// Is makes errors.Is(err, ErrNotEmpty) true.
func (e *NotEmptyError) Is(target error) bool { return target == ErrNotEmpty }

// DefaultDisplayName derives a display name from a package name: the part
// after the scope, its words capitalised ("@acme/weather-tools" gives
// "Weather Tools").
func DefaultDisplayName(name string) string {
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	words := strings.FieldsFunc(name, func(r rune) bool { return r == '-' || r == '_' || r == '.' })
	for i, w := range words {
		r, n := utf8.DecodeRuneInString(w)
		words[i] = string(unicode.ToUpper(r)) + w[n:]
	}
	if len(words) == 0 {
		return name
	}
	return strings.Join(words, " ")
}

// ParseHosts reads a comma-separated host list ("cli,desktop").
func ParseHosts(s string) ([]string, error) {
	var out []string
	for _, h := range strings.Split(s, ",") {
		h = strings.ToLower(strings.TrimSpace(h))
		if h == "" {
			continue
		}
		if !slices.Contains(Hosts, h) {
			return nil, fmt.Errorf("unknown host %q: use cli, desktop or both (cli,desktop)", h)
		}
		if !slices.Contains(out, h) {
			out = append(out, h)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no host given: use cli, desktop or both (cli,desktop)")
	}
	// Manifest order, whatever order they were given in.
	slices.SortFunc(out, func(a, b string) int { return slices.Index(Hosts, a) - slices.Index(Hosts, b) })
	return out, nil
}

// ParseTemplate reads a template name.
func ParseTemplate(s string) (Template, error) {
	t := Template(strings.ToLower(strings.TrimSpace(s)))
	if !slices.Contains(Templates, t) {
		return "", fmt.Errorf("unknown template %q: use tools, prompt or full", s)
	}
	return t, nil
}

// view is what the templates see.
type view struct {
	ID, DisplayName, Description, PromptText, HostsText string
	HasTools, HasPrompt, HasSettings                    bool
}

// Render returns the files of the package opts describes, checked with the
// strict validator. A name the apps refuse gives an *InvalidNameError.
func Render(opts Options) ([]File, error) {
	if opts.Template == "" {
		opts.Template = Tools
	}
	if _, err := ParseTemplate(string(opts.Template)); err != nil {
		return nil, err
	}
	if opts.Hosts == nil {
		opts.Hosts = Hosts
	}
	if strings.TrimSpace(opts.Name) == "" {
		return nil, &InvalidNameError{Name: opts.Name, Message: "the package name must not be empty"}
	}
	if strings.TrimSpace(opts.DisplayName) == "" {
		opts.DisplayName = DefaultDisplayName(opts.Name)
	}
	v := view{
		ID:          opts.Name,
		DisplayName: strings.TrimSpace(opts.DisplayName),
		HasTools:    opts.Template != Prompt,
		HasPrompt:   opts.Template != Tools,
		HasSettings: opts.Template == Full,
	}
	switch opts.Template {
	case Tools:
		v.Description = "Greets people by name."
	case Prompt:
		v.Description = "Asks the agent to answer briefly and plainly."
		v.PromptText = "Answer briefly and plainly; prefer short sentences and concrete examples."
	case Full:
		v.Description = "Greets people by name, with a configurable greeting."
		v.PromptText = "When the user asks you to greet someone, use the greet tool."
	}
	labels := map[string]string{"cli": "Spirit Agent CLI", "desktop": "Spirit Agent desktop app"}
	var hs []string
	for _, h := range opts.Hosts {
		hs = append(hs, labels[h])
	}
	v.HostsText = strings.Join(hs, " and ")

	pkg, err := packageJSON(opts, v)
	if err != nil {
		return nil, err
	}
	files := []File{{Name: "package.json", Data: pkg}}
	for _, t := range []struct{ name, tmpl string }{
		{"index.js", string(opts.Template) + ".js.tmpl"},
		{"README.md", "README.md.tmpl"},
		{".gitignore", "gitignore.tmpl"},
	} {
		data, err := render(t.tmpl, v)
		if err != nil {
			return nil, err
		}
		files = append(files, File{Name: t.name, Data: data})
	}
	if err := check(opts.Name, files); err != nil {
		return nil, err
	}
	return files, nil
}

func render(name string, v view) ([]byte, error) {
	funcs := template.FuncMap{"js": func(s string) (string, error) {
		// JSON strings are JavaScript string literals (Go escapes U+2028/9).
		b, err := json.Marshal(s)
		return string(b), err
	}}
	t, err := template.New(name).Funcs(funcs).ParseFS(templateFS, "templates/"+name)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

type toolJSON struct {
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	InputSchema  json.RawMessage `json:"inputSchema"`
	ApprovalMode string          `json:"approvalMode"`
}

type settingJSON struct {
	Key          string `json:"key"`
	Type         string `json:"type"`
	Title        string `json:"title"`
	Description  string `json:"description"`
	DefaultValue string `json:"defaultValue"`
}

type slotJSON struct {
	Key         string `json:"key"`
	Title       string `json:"title"`
	Description string `json:"description"`
	Required    bool   `json:"required"`
}

type contributesJSON struct {
	Tools []toolJSON `json:"tools,omitempty"`
}

type extensionJSON struct {
	SchemaVersion         int              `json:"schemaVersion"`
	DisplayName           string           `json:"displayName"`
	SupportedHosts        []string         `json:"supportedHosts"`
	RequestedCapabilities []string         `json:"requestedCapabilities"`
	Contributes           *contributesJSON `json:"contributes,omitempty"`
	SettingsSchema        []settingJSON    `json:"settingsSchema,omitempty"`
	SecretSlots           []slotJSON       `json:"secretSlots,omitempty"`
}

type packageJSONDoc struct {
	Name            string            `json:"name"`
	Version         string            `json:"version"`
	Description     string            `json:"description"`
	Type            string            `json:"type"`
	Main            string            `json:"main"`
	Files           []string          `json:"files"`
	Scripts         map[string]string `json:"scripts"`
	Keywords        []string          `json:"keywords"`
	DevDependencies map[string]string `json:"devDependencies"`
	SpiritExtension extensionJSON     `json:"spiritExtension"`
}

const greetSchema = `{"type":"object","properties":{"name":{"type":"string","minLength":1,"description":"Who to greet."}},"required":["name"],"additionalProperties":false}`

func packageJSON(opts Options, v view) ([]byte, error) {
	se := extensionJSON{SchemaVersion: 1, DisplayName: v.DisplayName, SupportedHosts: opts.Hosts}
	if v.HasTools {
		se.RequestedCapabilities = append(se.RequestedCapabilities, "tool-definitions", "tool-execution")
		se.Contributes = &contributesJSON{Tools: []toolJSON{{
			Name: "greet", Description: "Greet someone by name.", InputSchema: json.RawMessage(greetSchema), ApprovalMode: "allowed",
		}}}
	}
	if v.HasPrompt {
		se.RequestedCapabilities = append(se.RequestedCapabilities, "system-prompt")
	}
	if v.HasSettings {
		se.RequestedCapabilities = append(se.RequestedCapabilities, "settings", "secret-storage")
		se.SettingsSchema = []settingJSON{{Key: "greeting", Type: "string", Title: "Greeting",
			Description: "The word the greeting starts with.", DefaultValue: "Hello"}}
		se.SecretSlots = []slotJSON{{Key: "api-token", Title: "API token",
			Description: "A token for the service the extension calls (an example slot).", Required: false}}
	}
	doc := packageJSONDoc{
		Name: opts.Name, Version: "0.1.0", Description: v.Description, Type: "module", Main: "index.js",
		Files: []string{"index.js", "README.md"}, Keywords: []string{"spirit-extension"}, SpiritExtension: se,
		// `npm install` gets spirit itself; `npm run validate` and `npm run pack` use it.
		Scripts:         map[string]string{"validate": "spirit extension validate .", "pack": "spirit extension pack"},
		DevDependencies: map[string]string{SpiritPackage: SpiritRange(opts.SpiritVersion)},
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// check validates the rendered package strictly: a /name problem is the
// user's (an *InvalidNameError), any other a defect of the templates.
func check(name string, files []File) error {
	fsys := fstest.MapFS{}
	for _, f := range files {
		fsys[f.Name] = &fstest.MapFile{Data: f.Data, Mode: 0o644}
	}
	r := manifest.Validate(files[0].Data, fsys, manifest.Options{Strict: true})
	var msgs []string
	for _, p := range r.Problems {
		if p.Pointer == "/name" {
			return &InvalidNameError{Name: name, Message: p.Message}
		}
		if p.Pointer == "/spiritExtension/displayName" {
			return fmt.Errorf("invalid display name: %s", p.Message)
		}
		msgs = append(msgs, p.Pointer+": "+p.Message)
	}
	if len(msgs) > 0 {
		return fmt.Errorf("scaffold: the template does not validate (a bug): %s", strings.Join(msgs, "; "))
	}
	return nil
}

// Write renders the package and writes it into dir, which must be missing
// or empty. It returns the names of the files written.
func Write(dir string, opts Options) ([]string, error) {
	files, err := Render(opts)
	if err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
	case err != nil:
		return nil, err
	case len(entries) > 0:
		return nil, &NotEmptyError{Dir: dir}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	var names []string
	for _, f := range files {
		// O_EXCL: a file that appeared meanwhile is never replaced.
		fh, err := root.OpenFile(filepath.FromSlash(f.Name), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err != nil {
			return names, err
		}
		_, err = fh.Write(f.Data)
		if cerr := fh.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return names, err
		}
		names = append(names, f.Name)
	}
	return names, nil
}
