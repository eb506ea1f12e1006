package exthost

import (
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/manifest"
)

func kitchenManifest(t *testing.T) (*install.Installed, *Host) {
	t.Helper()
	p := installFixtures(t, "kitchen")
	h := newTestHost(t, p, nil)
	ext, err := h.Extension("@fixture/kitchen")
	if err != nil {
		t.Fatal(err)
	}
	return ext, h
}

func TestSettings(t *testing.T) {
	tests := []struct {
		name    string
		stored  string // file content before; "" means no file
		keys    []string
		values  map[string]any
		wantErr string
		want    map[string]any // GetAll after
		file    string         // file content after; "" means unchanged
	}{
		{name: "defaults when nothing is stored", want: map[string]any{"greeting": "hi", "mode": "a"}},
		{name: "malformed file reads as empty", stored: "{not json", want: map[string]any{"greeting": "hi", "mode": "a"}},
		{name: "a nested value makes the whole file empty", stored: `{"count": 3, "x": {"a": 1}}`, want: map[string]any{"greeting": "hi", "mode": "a"}},
		{name: "undeclared key", keys: []string{"nope"}, values: map[string]any{"nope": "x"}, wantErr: "The extension does not declare the setting: nope"},
		{name: "string type", keys: []string{"greeting"}, values: map[string]any{"greeting": 1.0}, wantErr: "Extension setting greeting must be a string."},
		{name: "required string not blank", keys: []string{"api-base"}, values: map[string]any{"api-base": "  "}, wantErr: "Extension setting api-base must not be empty."},
		{name: "boolean type", keys: []string{"loud"}, values: map[string]any{"loud": "yes"}, wantErr: "Extension setting loud must be a boolean."},
		{name: "number type", keys: []string{"count"}, values: map[string]any{"count": "3"}, wantErr: "Extension setting count must be a number."},
		{name: "select option", keys: []string{"mode"}, values: map[string]any{"mode": "c"}, wantErr: "Extension setting mode has an invalid value: c"},
		{name: "select type", keys: []string{"mode"}, values: map[string]any{"mode": true}, wantErr: "Extension setting mode must be a string."},
		{name: "required without default cannot be cleared", stored: `{"api-base": "x"}`, keys: []string{"api-base"}, values: map[string]any{"api-base": nil}, wantErr: "Extension setting api-base is required and cannot be cleared."},
		{
			name: "required with default can be cleared", stored: `{"greeting": "yo", "count": 2}`,
			keys: []string{"greeting"}, values: map[string]any{"greeting": nil},
			want: map[string]any{"greeting": "hi", "mode": "a", "count": 2.0},
			file: "{\n  \"count\": 2\n}\n",
		},
		{
			name: "setAll is atomic: one bad value writes nothing", stored: `{"count": 1}`,
			keys: []string{"count", "loud"}, values: map[string]any{"count": 5.0, "loud": "no"},
			wantErr: "Extension setting loud must be a boolean.",
			want:    map[string]any{"greeting": "hi", "mode": "a", "count": 1.0},
		},
		{
			name: "written as JSON.stringify writes it", keys: []string{"greeting"}, values: map[string]any{"greeting": "<hi> & a\u2028b"},
			want: map[string]any{"greeting": "<hi> & a\u2028b", "mode": "a"},
			file: "{\n  \"greeting\": \"<hi> & a\u2028b\"\n}\n",
		},
		{
			name: "unknown stored keys are kept but not returned", stored: `{"legacy": "x"}`,
			keys: []string{"loud", "mode"}, values: map[string]any{"loud": true, "mode": "b"},
			want: map[string]any{"greeting": "hi", "mode": "b", "loud": true},
			file: "{\n  \"legacy\": \"x\",\n  \"loud\": true,\n  \"mode\": \"b\"\n}\n",
		},
		{
			name: "a drifted stored value falls back to the default", stored: `{"mode": 3, "count": "many"}`,
			want: map[string]any{"greeting": "hi", "mode": "a"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ext, h := kitchenManifest(t)
			file := h.opts.Paths.SettingsFile(ext.ID)
			if tt.stored != "" {
				if err := os.MkdirAll(h.opts.Paths.StateDir(), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(file, []byte(tt.stored), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if tt.keys != nil {
				_, err := h.Settings().SetAll(ext.Manifest, tt.keys, tt.values)
				var se *SettingError
				switch {
				case tt.wantErr == "" && err != nil:
					t.Fatalf("SetAll: %v", err)
				case tt.wantErr != "" && (!errors.As(err, &se) || se.Message != tt.wantErr):
					t.Fatalf("SetAll error = %v, want %q", err, tt.wantErr)
				}
			}
			if tt.want != nil {
				if diff := cmp.Diff(tt.want, h.Settings().GetAll(ext.Manifest)); diff != "" {
					t.Errorf("GetAll (-want +got):\n%s", diff)
				}
			}
			got, _ := os.ReadFile(file)
			wantFile := tt.file
			if wantFile == "" {
				wantFile = tt.stored
			}
			if string(got) != wantFile {
				t.Errorf("file = %q, want %q", got, wantFile)
			}
		})
	}
}

func TestSettingsThroughExtension(t *testing.T) {
	ext, h := kitchenManifest(t)
	if _, err := call(t, h, "@fixture/kitchen/settings", `{"op":"set","key":"count","value":4}`); err != nil {
		t.Fatal(err)
	}
	got, err := call(t, h, "@fixture/kitchen/settings", `{"op":"getAll"}`)
	if err != nil || !strings.Contains(got, `"count": 4`) {
		t.Errorf("getAll after set = %s, %v", got, err)
	}
	_, err = call(t, h, "@fixture/kitchen/settings", `{"op":"setAll","values":{"loud":true,"mode":"zzz"}}`)
	var te *ToolError
	if !errors.As(err, &te) || te.Message != "Extension setting mode has an invalid value: zzz" {
		t.Fatalf("setAll error = %v", err)
	}
	got, err = call(t, h, "@fixture/kitchen/settings", `{"op":"get","key":"loud"}`)
	if err != nil || got != "{\n  \"value\": \"undefined\"\n}" {
		t.Errorf("loud after the refused setAll = %s, %v", got, err)
	}
	b, _ := os.ReadFile(h.opts.Paths.SettingsFile(ext.ID))
	if string(b) != "{\n  \"count\": 4\n}\n" {
		t.Errorf("file = %q", b)
	}
}

func TestSecrets(t *testing.T) {
	ext, h := kitchenManifest(t)
	sec := h.Secrets()
	m := ext.Manifest
	if _, _, err := sec.Get(m, "undeclared"); err == nil || err.Error() != "The extension does not declare the secret slot: undeclared" {
		t.Fatalf("undeclared slot: %v", err)
	}
	st, err := sec.Status(m)
	if err != nil || st["api-key"] {
		t.Fatalf("status before = %v, %v", st, err)
	}
	if err := sec.Set(m, "api-key", "  sk-live-abcdef  "); err != nil {
		t.Fatal(err)
	}
	if v, ok, err := sec.Get(m, "api-key"); err != nil || !ok || v != "sk-live-abcdef" {
		t.Fatalf("get = %q %v %v", v, ok, err)
	}
	// The value is masked in results, errors and the log.
	got, err := call(t, h, "@fixture/kitchen/secret", `{"op":"get","key":"api-key"}`)
	if err != nil || got != "the secret is ***" {
		t.Errorf("result = %q, %v", got, err)
	}
	_, err = call(t, h, "@fixture/kitchen/secret", `{"op":"throw","key":"api-key"}`)
	if err == nil || err.Error() != "failed with ***" {
		t.Errorf("error = %v", err)
	}
	_, err = call(t, h, "@fixture/kitchen/secret", `{"op":"get","key":"other"}`)
	if err == nil || err.Error() != "The extension does not declare the secret slot: other" {
		t.Errorf("undeclared slot from the extension: %v", err)
	}
	if got, err := call(t, h, "@fixture/kitchen/secret", `{"op":"has","key":"api-key"}`); err != nil || got != "true" {
		t.Errorf("has = %q %v", got, err)
	}
	h.Close()
	log, _ := os.ReadFile(h.opts.Paths.LogFile(ext.ID))
	if strings.Contains(string(log), "sk-live-abcdef") || !strings.Contains(string(log), "secret is ***") {
		t.Errorf("log not masked:\n%s", log)
	}
	if err := sec.Set(m, "api-key", "   "); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := sec.Get(m, "api-key"); ok {
		t.Error("a blank value did not delete")
	}
	_ = sec.Set(m, "api-key", "again")
	if err := sec.DeleteAll(m.ID, m.SecretSlots); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := sec.Get(m, "api-key"); ok {
		t.Error("DeleteAll left the value")
	}
	if err := sec.DeleteAll(m.ID, []manifest.SecretSlot{{Key: "never-set"}}); err != nil {
		t.Errorf("DeleteAll of a missing value: %v", err)
	}
}

func TestNoSecretStore(t *testing.T) {
	p := installFixtures(t, "kitchen")
	h := newTestHost(t, p, func(o *Options) { o.Secrets = nil })
	_, err := call(t, h, "@fixture/kitchen/secret", `{"op":"set","key":"api-key","value":"x"}`)
	if err == nil || err.Error() != "The current host does not implement extension secret storage: @fixture/kitchen" {
		t.Fatalf("set: %v", err)
	}
	if got, err := call(t, h, "@fixture/kitchen/secret", `{"op":"has","key":"api-key"}`); err != nil || got != "false" {
		t.Fatalf("has: %q %v", got, err)
	}
}

func FuzzParseStored(f *testing.F) {
	f.Add([]byte(`{"a":1,"b":"x","c":null,"d":true}`))
	f.Add([]byte(`{"a":{}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		st, ok := parseStored(data)
		if !ok {
			return
		}
		for _, k := range st.keys {
			switch st.values[k].(type) {
			case string, bool, float64, nil:
			default:
				t.Fatalf("value of %q has type %T", k, st.values[k])
			}
		}
		if len(st.keys) != len(st.values) {
			t.Fatalf("%d keys, %d values", len(st.keys), len(st.values))
		}
	})
}
