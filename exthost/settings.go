package exthost

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/spiritagents/spirit/internal/atomicfile"
	"github.com/spiritagents/spirit/internal/jsjson"
	"github.com/spiritagents/spirit/manifest"
	"github.com/spiritagents/spirit/paths"
)

// SettingError is a settings value the schema refuses; Message is the
// reference's text.
type SettingError struct {
	Key     string
	Message string
}

func (e *SettingError) Error() string { return e.Message }

// Settings reads and writes extension settings values in the reference's
// file, extension-state/ext-<b64url(id)>.json: a flat JSON object of string,
// number, boolean or null values, pretty-printed with a trailing newline.
// Values are checked against the extension's settingsSchema with the
// reference's messages. It is safe for concurrent use.
type Settings struct {
	paths *paths.Paths
	mu    sync.Mutex
}

// NewSettings returns the settings store of p's host.
func NewSettings(p *paths.Paths) *Settings { return &Settings{paths: p} }

// stored is the raw file content with its key order kept.
type stored struct {
	keys   []string
	values map[string]any
}

func (s *stored) set(k string, v any) {
	if _, ok := s.values[k]; !ok {
		s.keys = append(s.keys, k)
	}
	s.values[k] = v
}

func (s *stored) del(k string) {
	if _, ok := s.values[k]; !ok {
		return
	}
	delete(s.values, k)
	for i, x := range s.keys {
		if x == k {
			s.keys = append(s.keys[:i], s.keys[i+1:]...)
			break
		}
	}
}

// load reads the raw values; a missing or malformed file, or one holding a
// value of another type, is empty, as in the reference.
func (s *Settings) load(id string) *stored {
	empty := &stored{values: map[string]any{}}
	data, err := os.ReadFile(s.paths.SettingsFile(id))
	if err != nil {
		return empty
	}
	out, ok := parseStored(data)
	if !ok {
		return empty
	}
	return out
}

func parseStored(data []byte) (*stored, bool) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, false
	}
	out := &stored{values: map[string]any{}}
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, false
		}
		k, _ := kt.(string)
		vt, err := dec.Token()
		if err != nil {
			return nil, false
		}
		switch v := vt.(type) {
		case string, bool, nil:
			out.set(k, v)
		case json.Number:
			f, err := v.Float64()
			if err != nil {
				return nil, false
			}
			out.set(k, f)
		default:
			return nil, false // an object or array
		}
	}
	if _, err := dec.Token(); err != nil {
		return nil, false
	}
	if _, err := dec.Token(); err == nil {
		return nil, false // trailing data
	}
	return out, true
}

// save writes st as JSON.stringify(values, null, 2) writes the object the
// apps hold: integer-like keys first. A new file gets mode 0666 less the
// umask, as the apps' writeFile gives it; an existing one keeps its mode.
func (s *Settings) save(id string, st *stored) error {
	var b bytes.Buffer
	b.WriteString("{")
	for i, k := range jsjson.SortKeys(st.keys) {
		if i > 0 {
			b.WriteString(",")
		}
		kb, _ := jsjson.Marshal(k)
		vb, err := jsjson.Marshal(st.values[k])
		if err != nil {
			return err
		}
		fmt.Fprintf(&b, "\n  %s: %s", kb, vb)
	}
	if len(st.keys) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("}\n")
	file := s.paths.SettingsFile(id)
	mode := 0o666 &^ umask()
	if fi, err := os.Stat(file); err == nil {
		mode = fi.Mode().Perm()
	}
	return atomicfile.Write(file, b.Bytes(), mode)
}

// umask returns the process's file mode creation mask, read from
// /proc/self/status (setting it to read it would race with other
// goroutines creating files); 022 where that is not available.
func umask() fs.FileMode {
	data, err := os.ReadFile("/proc/self/status")
	if err == nil {
		for line := range strings.Lines(string(data)) {
			if v, ok := strings.CutPrefix(line, "Umask:"); ok {
				if n, err := strconv.ParseUint(strings.TrimSpace(v), 8, 32); err == nil {
					return fs.FileMode(n) & fs.ModePerm
				}
			}
		}
	}
	return 0o022
}

// Undefined is the JavaScript value undefined given to settings.set or
// setAll. The apps validate it like any other value, so it is refused with
// the type message of the setting; it does not clear the key as null does.
type Undefined struct{}

// checkValue applies the reference's type rules to a non-null value.
func checkValue(def manifest.Setting, v any) error {
	key := def.Key
	switch def.Type {
	case "string":
		s, ok := v.(string)
		if !ok {
			return &SettingError{key, fmt.Sprintf("Extension setting %s must be a string.", key)}
		}
		if def.Required && manifest.TrimJS(s) == "" {
			return &SettingError{key, fmt.Sprintf("Extension setting %s must not be empty.", key)}
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return &SettingError{key, fmt.Sprintf("Extension setting %s must be a boolean.", key)}
		}
	case "number":
		f, ok := v.(float64)
		if !ok || math.IsInf(f, 0) || math.IsNaN(f) {
			return &SettingError{key, fmt.Sprintf("Extension setting %s must be a number.", key)}
		}
	case "select":
		s, ok := v.(string)
		if !ok {
			return &SettingError{key, fmt.Sprintf("Extension setting %s must be a string.", key)}
		}
		if len(def.Options) > 0 {
			found := false
			for _, o := range def.Options {
				found = found || o.Value == s
			}
			if !found {
				return &SettingError{key, fmt.Sprintf("Extension setting %s has an invalid value: %s", key, s)}
			}
		}
	}
	return nil
}

// normalise walks the schema in order: a stored value that passes the type
// rules, else the default, else nothing. Unlike the reference, a stored
// value whose type drifted after an update falls back to the default
// instead of failing every read.
func normalise(m *manifest.Manifest, st *stored) map[string]any {
	out := map[string]any{}
	for _, def := range m.SettingsSchema {
		if v, ok := st.values[def.Key]; ok && v != nil && checkValue(def, v) == nil {
			out[def.Key] = v
			continue
		}
		if def.DefaultValue != nil {
			out[def.Key] = def.DefaultValue
		}
	}
	return out
}

// GetAll returns the settings of m's extension: stored values checked
// against the schema, defaults for the rest; keys without either are absent.
func (s *Settings) GetAll(m *manifest.Manifest) map[string]any {
	s.mu.Lock()
	defer s.mu.Unlock()
	return normalise(m, s.load(m.ID))
}

// ordered returns values (as GetAll returns them) as the apps' object
// holds them: in settingsSchema order, integer-like keys first.
func ordered(m *manifest.Manifest, values map[string]any) jsjson.Object {
	out := jsjson.Object{}
	for _, def := range m.SettingsSchema {
		if v, ok := values[def.Key]; ok {
			out = out.Set(def.Key, v)
		}
	}
	return out
}

// GetAllChecked is GetAll as an extension sees it through ctx.settings:
// as in the apps, a stored value that fails the type rules (a stored null
// included) is an error with the apps' message, not the default, so an
// extension that reads a drifted value fails under spirit as it does in
// the apps.
func (s *Settings) GetAllChecked(m *manifest.Manifest) (map[string]any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.load(m.ID)
	for _, def := range m.SettingsSchema {
		if v, ok := st.values[def.Key]; ok {
			if err := checkValue(def, v); err != nil {
				return nil, err
			}
		}
	}
	return normalise(m, st), nil
}

// Get returns one setting, and whether it has a value.
func (s *Settings) Get(m *manifest.Manifest, key string) (any, bool) {
	v, ok := s.GetAll(m)[key]
	return v, ok
}

// SetAll merges values into the stored ones atomically: the first refused
// value aborts and nothing is written. A nil value clears the key; an
// Undefined value is refused by the type rules. Values are JSON-decoded Go
// values (string, bool, float64, nil) or Undefined. It returns the
// settings after the write, as GetAll does.
func (s *Settings) SetAll(m *manifest.Manifest, keys []string, values map[string]any) (map[string]any, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st := s.load(m.ID)
	for _, key := range keys {
		v := values[key]
		def, ok := m.Setting(key)
		if !ok {
			return nil, &SettingError{key, "The extension does not declare the setting: " + key}
		}
		if v == nil {
			if def.Required && def.DefaultValue == nil {
				return nil, &SettingError{key, fmt.Sprintf("Extension setting %s is required and cannot be cleared.", key)}
			}
			st.del(key)
			continue
		}
		if n, ok := v.(int); ok {
			v = float64(n)
		}
		if err := checkValue(def, v); err != nil {
			return nil, err
		}
		st.set(key, v)
	}
	if err := s.save(m.ID, st); err != nil {
		return nil, fmt.Errorf("saving settings of %s: %w", m.ID, err)
	}
	return normalise(m, st), nil
}
