package manifest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/Masterminds/semver/v3"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

var driveLetter = regexp.MustCompile(`^[A-Za-z]:`)

// SafeRelativePath applies the reference's rule to a path a manifest names:
// backslashes become slashes and one leading "./" is dropped; the result must
// not be empty, absolute or start with a drive letter, and no segment may be
// empty, "." or "..". It returns the normalised path, or the reference's
// message for label.
func SafeRelativePath(label, p string) (string, error) {
	n := strings.ReplaceAll(p, `\`, "/")
	n = strings.TrimPrefix(n, "./")
	if n == "" || strings.HasPrefix(n, "/") || driveLetter.MatchString(n) {
		return "", fmt.Errorf("Extension %s must be a relative path.", label)
	}
	for _, seg := range strings.Split(n, "/") {
		if seg == "" || seg == "." || seg == ".." {
			return "", fmt.Errorf("Extension %s contains an illegal path segment.", label)
		}
	}
	return n, nil
}

func (v *validator) safePath(ptr, label, p string) bool {
	if _, err := SafeRelativePath(label, p); err != nil {
		v.errorf(ptr, "%s", err.Error())
		return false
	}
	return true
}

// lookupPath is how a path the manifest names is found in the package: the
// reference splits the stored value on "/" only, after dropping one "./".
func lookupPath(p string) string { return strings.TrimPrefix(p, "./") }

// ErrEscapes is returned by DirFS for a path that leaves the package
// directory through a symlink.
var ErrEscapes = errors.New("path escapes the package through a symlink")

// DirFS returns the package directory root as a file system whose Open
// (and Stat) refuse paths that resolve, through symlinks, outside root.
func DirFS(root string) fs.FS {
	return &dirFS{root: sync.OnceValues(func() (string, error) { return filepath.EvalSymlinks(root) })}
}

// DirFSIn is DirFS(filepath.Join(realParent, name)) for a parent folder
// whose path is already resolved (filepath.EvalSymlinks returned it): only
// name is resolved, so listing hundreds of packages in one folder does not
// walk the folder's path again for each.
func DirFSIn(realParent, name string) fs.FS {
	return &dirFS{root: sync.OnceValues(func() (string, error) {
		root := filepath.Join(realParent, name)
		if fi, err := os.Lstat(root); err != nil || fi.Mode()&fs.ModeSymlink != 0 {
			return filepath.EvalSymlinks(root)
		}
		return root, nil
	})}
}

// DirFSListed is DirFSIn for a name that the listing of realParent gave
// as a folder, not a symbolic link (os.DirEntry.IsDir): it is not looked
// at again, which spares a list of installs one lstat per package.
func DirFSListed(realParent, name string) fs.FS {
	root := filepath.Join(realParent, name)
	return &dirFS{root: func() (string, error) { return root, nil }}
}

// dirFS resolves its root once: a manifest names several files, and a list
// of installed extensions validates hundreds of manifests.
type dirFS struct{ root func() (string, error) }

// resolve returns the real path of name, inside the root, and, when no
// element of name is a symlink, its Lstat (which is then its Stat).
func (d *dirFS) resolve(op, name string) (string, fs.FileInfo, error) {
	if !fs.ValidPath(name) {
		return "", nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrInvalid}
	}
	root, err := d.root()
	if err != nil {
		return "", nil, &fs.PathError{Op: op, Path: name, Err: err}
	}
	joined := filepath.Join(root, filepath.FromSlash(name))
	// The root is a real path, so a name none of whose elements is a
	// symlink is its own real path: one Lstat per element, where
	// EvalSymlinks would walk every element of the root again.
	var info fs.FileInfo
	for i := len(root); i < len(joined); {
		next := strings.IndexByte(joined[i+1:], filepath.Separator)
		if next < 0 {
			i = len(joined)
		} else {
			i += 1 + next
		}
		if info, err = os.Lstat(joined[:i]); err != nil {
			return "", nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
		}
		if info.Mode()&fs.ModeSymlink != 0 {
			info = nil
			break
		}
	}
	if info != nil {
		return joined, info, nil
	}
	full, err := filepath.EvalSymlinks(joined)
	if err != nil {
		return "", nil, &fs.PathError{Op: op, Path: name, Err: fs.ErrNotExist}
	}
	if rel, err := filepath.Rel(root, full); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", nil, &fs.PathError{Op: op, Path: name, Err: ErrEscapes}
	}
	return full, nil, nil
}

func (d *dirFS) Open(name string) (fs.File, error) {
	full, _, err := d.resolve("open", name)
	if err != nil {
		return nil, err
	}
	return os.Open(full)
}

// Stat is Open and Stat without opening the file.
func (d *dirFS) Stat(name string) (fs.FileInfo, error) {
	full, info, err := d.resolve("stat", name)
	if err != nil || info != nil {
		return info, err
	}
	return os.Stat(full)
}

// checkFile looks up a file the manifest names: it must exist, be a
// regular file, and stay inside the package. The apps check none of this
// for an installed package (main only when it is installed), so these are
// strict rules; main's escape through a symlink stays an error, so spirit
// never runs code from outside the package.
func (v *validator) checkFile(ptr, label, p, missing string) {
	if _, err := SafeRelativePath(label, p); err != nil {
		return // already reported
	}
	info, err := fs.Stat(v.fsys, lookupPath(p))
	switch {
	case errors.Is(err, ErrEscapes) && ptr == "/main":
		v.errorf(ptr, "Extension %s escapes the package through a symlink: %s", label, p)
	case errors.Is(err, ErrEscapes):
		v.strictf(ptr, "Extension %s escapes the package through a symlink: %s", label, p)
	case err != nil:
		v.strictf(ptr, "%s", missing)
	case info.IsDir():
		v.strictf(ptr, "Extension %s names a directory, not a file: %s", label, p)
	}
}

// files applies the rules that look at the package's files.
func (v *validator) files() {
	if v.fsys == nil {
		return
	}
	if v.m.Main != "" {
		v.checkFile("/main", "main", v.m.Main, "The extension main file does not exist: "+v.m.Main)
	}
	if v.m.Icon != "" {
		v.checkFile("/spiritExtension/icon", "spiritExtension.icon", v.m.Icon,
			"The file referenced by extension spiritExtension.icon does not exist: "+v.m.Icon)
	}
	if c := v.m.Contributes; c != nil && c.Desktop != nil {
		for i, css := range c.Desktop.CSS {
			ptr, label := element("/spiritExtension/contributes/desktop/css", "spiritExtension.contributes.desktop.css", v.cssIndex[i])
			label += ".path"
			v.checkFile(ptr+"/path", label, css.Path, "The file referenced by extension "+label+" does not exist: "+css.Path)
		}
	}
}

var (
	hookSlots    = []string{"message.user", "message.assistant", "message.tool", "assistant.thinking", "input.frame", "bottom_form", "bottom_form.section", "slash_suggestions", "approval.panel", "questions.panel"}
	hookVariants = []string{"default", "accented", "muted", "warning", "success", "danger"}
	hookTokens   = []string{"default", "primary", "secondary", "muted", "accent", "success", "warning", "danger"}
)

// hooksFile reads and checks the CLI hooks resource, as the reference does
// while parsing. Its problems point at the hooks path in package.json.
func (v *validator) hooksFile(ptr, path string) ([]Hook, bool) {
	const label = "spiritExtension.contributes.cli.hooks.path"
	data, err := fs.ReadFile(v.fsys, lookupPath(path))
	if errors.Is(err, ErrEscapes) {
		v.errorf(ptr, "Extension %s escapes the package through a symlink: %s", label, path)
		return nil, false
	}
	if err != nil || len(data) > MaxSize {
		v.errorf(ptr, "The file referenced by extension %s does not exist: %s", label, path)
		return nil, false
	}
	doc, err := decodeJSON(data)
	if err != nil {
		v.errorf(ptr, "The extension CLI hooks resource is not valid JSON: %s", path)
		return nil, false
	}
	root, _ := doc.(map[string]any)
	list, ok := root["hooks"].([]any)
	if !ok {
		v.errorf(ptr, "The extension CLI hooks resource must be an object of the form { \"hooks\": [...] }: %s", path)
		return nil, false
	}
	prefix := "CLI hooks resource " + path + ".hooks"
	var out []Hook
	for j, item := range list {
		l := fmt.Sprintf("%s[%d]", prefix, j)
		obj, ok := item.(map[string]any)
		if !ok {
			if _, isArr := item.([]any); !isArr {
				v.errorf(ptr, "Extension field %s must be an object.", l)
				continue
			}
			obj = map[string]any{}
		}
		h := Hook{}
		good := true
		label := l
		enum := func(key string, values []string, required bool) string {
			x, present := obj[key]
			if !present || x == nil {
				if required {
					v.errorf(ptr, "Extension field %s.%s must be a string.", label, key)
					good = false
				}
				return ""
			}
			s, ok := x.(string)
			if !ok {
				v.errorf(ptr, "Extension field %s.%s must be a string.", label, key)
				good = false
				return ""
			}
			if !slices.Contains(values, trim(s)) {
				v.errorf(ptr, "Extension field %s.%s has an invalid value: %s", label, key, s)
				v.hintValues(values, s)
				good = false
				return ""
			}
			return trim(s)
		}
		h.Slot = enum("slot", hookSlots, true)
		h.Variant = enum("variant", hookVariants, false)
		if t, ok := obj["tokens"].(map[string]any); ok {
			saved := obj
			obj, label = t, l+".tokens"
			tok := HookTokens{
				Foreground: enum("foreground", hookTokens, false),
				Border:     enum("border", hookTokens, false),
				Accent:     enum("accent", hookTokens, false),
			}
			obj, label = saved, l
			if tok != (HookTokens{}) {
				h.Tokens = &tok
			}
		}
		if s, ok := obj["prefix"].(string); ok {
			h.Prefix = trim(s)
		}
		if s, ok := obj["suffix"].(string); ok {
			h.Suffix = trim(s)
		}
		if good {
			out = append(out, h)
		}
	}
	return out, true
}

// warnings are the strict rules that the reference does not have and that
// do not stop Spirit Agent from accepting the package.
func (v *validator) warnings() {
	m := v.m
	if m.Version != "" {
		if _, err := semver.StrictNewVersion(m.Version); err != nil {
			v.warnf("/version", "Extension version %s is not strict semantic versioning (MAJOR.MINOR.PATCH); updates cannot be ordered.", m.Version)
		}
	}
	if len(m.Tools()) > 0 && !(m.HasCapability("tool-definitions") && m.HasCapability("tool-execution")) {
		v.warnf("/spiritExtension/contributes/tools", "The extension contributes tools but does not request both tool-definitions and tool-execution; Spirit Agent will not expose them.")
	}
	if len(m.Tools()) > 0 && m.Main == "" && m.HasCapability("tool-definitions") && m.HasCapability("tool-execution") {
		v.warnf("/spiritExtension/contributes/tools", "The extension contributes tools but declares no main; Spirit Agent shows them to the model and every call fails, spirit does not expose them.")
	}
	if m.Main == "" && m.HasCapability("system-prompt") {
		v.warnf("/spiritExtension/requestedCapabilities", "The extension requests system-prompt but declares no main; it cannot provide a system prompt.")
	}
	if m.Main == "" && len(m.ActivationEvents) > 0 {
		v.warnf("/spiritExtension/activationEvents", "The extension declares activationEvents but no main; no event can reach it.")
	}
	if len(m.SecretSlots) > 0 && !m.HasCapability("secret-storage") {
		v.warnf("/spiritExtension/secretSlots", "The extension declares secretSlots but does not request secret-storage.")
	}
}

// toolSchemas: tool names are unique, and inputSchema/outputSchema compile
// as JSON Schemas of type object. The apps check neither: for an installed
// package these are warnings.
func (v *validator) toolSchemas(installed bool) {
	report := v.errorf
	if installed {
		report = v.warnf
	}
	seen := map[string]bool{}
	for i, t := range v.m.Tools() {
		ptr, label := element("/spiritExtension/contributes/tools", "spiritExtension.contributes.tools", v.toolIndex[i])
		if t.Name != "" && v.fail(ptr+"/name") == failNone {
			if seen[t.Name] {
				report(ptr+"/name", "Duplicate extension tool name: %s", t.Name)
			}
			seen[t.Name] = true
		}
		v.objectSchema(report, ptr+"/inputSchema", label+".inputSchema", t.InputSchema)
		v.objectSchema(report, ptr+"/outputSchema", label+".outputSchema", t.OutputSchema)
	}
}

func (v *validator) objectSchema(report func(ptr, format string, a ...any), ptr, label string, raw []byte) {
	if raw == nil {
		return
	}
	if err := CheckObjectSchema(raw); err != nil {
		report(ptr, "Extension field %s %v", label, err)
	}
}

// CheckObjectSchema reports whether raw is a JSON Schema that compiles and
// describes an object (its "type" is "object"). Only local references are
// followed. Results are remembered, so checking the same schema again (every
// list of installed extensions does) costs a map lookup.
func CheckObjectSchema(raw []byte) error {
	return toolSchemas.check(raw)
}

// schemaChecker compiles tool schemas with one long-lived compiler, so the
// draft's meta-schema is loaded once, and remembers each verdict.
type schemaChecker struct {
	mu       sync.Mutex
	compiler *jsonschema.Compiler
	compiled int
	verdicts map[string]error
}

var toolSchemas = &schemaChecker{}

// schemaCacheSize bounds the verdicts and the compiled schemas kept.
const schemaCacheSize = 1024

func (c *schemaChecker) check(raw []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err, ok := c.verdicts[string(raw)]; ok {
		return err
	}
	err := c.compile(raw)
	if c.verdicts == nil || len(c.verdicts) >= schemaCacheSize {
		c.verdicts = map[string]error{}
	}
	c.verdicts[string(raw)] = err
	return err
}

func (c *schemaChecker) compile(raw []byte) error {
	doc, err := decodeJSON(raw)
	if err != nil {
		return fmt.Errorf("is not valid JSON: %v", err)
	}
	obj, ok := doc.(map[string]any)
	if !ok {
		return errors.New("must be a JSON Schema object, not an array.")
	}
	if obj["type"] != "object" {
		return errors.New(`must be a JSON Schema of "type": "object".`)
	}
	if c.compiler == nil || c.compiled >= schemaCacheSize {
		c.compiler = jsonschema.NewCompiler()
		c.compiler.UseLoader(noLoader{})
		c.compiled = 0
	}
	c.compiled++
	url := fmt.Sprintf("mem:///tool-%d.schema.json", c.compiled)
	if err := c.compiler.AddResource(url, doc); err != nil {
		c.compiler = nil // a failed AddResource may leave the compiler half-updated
		return fmt.Errorf("is not a valid JSON Schema: %v", err)
	}
	if _, err := c.compiler.Compile(url); err != nil {
		c.compiler = nil
		return fmt.Errorf("is not a valid JSON Schema: %v", err)
	}
	return nil
}

// noLoader refuses every remote reference: nothing is loaded from the network.
type noLoader struct{}

func (noLoader) Load(url string) (any, error) {
	return nil, fmt.Errorf("refusing to load %s: only local references are allowed", url)
}
