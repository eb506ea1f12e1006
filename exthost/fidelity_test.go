//go:build unix

package exthost

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/manifest"
)

// TestSettingsFidelity runs the apps' settings semantics through the real
// runner: set resolves to undefined, setAll to the values in schema order
// (integer-like keys first, as a JavaScript object has them), an undefined
// value is refused with the type message, and the file is written the way
// JSON.stringify writes that object, with the apps' file mode.
func TestSettingsFidelity(t *testing.T) {
	old := syscall.Umask(0o027)
	defer syscall.Umask(old)
	p := installFixtures(t, "fidelity")
	h := newTestHost(t, p, nil)
	file := p.SettingsFile("@fixture/fidelity")
	got, err := call(t, h, "@fixture/fidelity/settings", `{}`)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"set":"undefined","setAll":["2","10","zeta","greeting","alpha"],` +
		`"setUndefined":"threw: Extension setting greeting must be a string.",` +
		`"setAllUndefined":"threw: Extension setting greeting must be a string.",` +
		`"setNull":["2","10","zeta","greeting","alpha"],` +
		`"getAll":["2","10","zeta","greeting","alpha"]}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"2\": true,\n  \"10\": 5,\n  \"zeta\": \"z\"\n}\n"; string(b) != want {
		t.Errorf("file = %q, want %q", b, want)
	}
	fi, err := os.Stat(file)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o640 {
		t.Errorf("a new settings file has mode %v, want 0666 less the umask 027", fi.Mode().Perm())
	}
	// An existing file keeps its mode.
	if err := os.Chmod(file, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Settings().SetAll(mustExt(t, h, "@fixture/fidelity").Manifest, []string{"zeta"}, map[string]any{"zeta": "y"}); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Stat(file); fi.Mode().Perm() != 0o600 {
		t.Errorf("rewritten file has mode %v, want 0600 kept", fi.Mode().Perm())
	}
}

func mustExt(t *testing.T, h *Host, id string) *install.Installed {
	t.Helper()
	ext, err := h.Extension(id)
	if err != nil {
		t.Fatal(err)
	}
	return ext
}

// TestRequiredBlankIsJSBlank: a required string is blank as
// String.prototype.trim sees it: U+FEFF is space, U+0085 is not.
func TestRequiredBlankIsJSBlank(t *testing.T) {
	def := manifest.Setting{Key: "greeting", Type: "string", Required: true}
	if err := checkValue(def, "\uFEFF "); err == nil || err.Error() != "Extension setting greeting must not be empty." {
		t.Errorf("U+FEFF: %v", err)
	}
	if err := checkValue(def, "\u0085"); err != nil {
		t.Errorf("U+0085: %v, want accepted", err)
	}
}

// TestHandlerContextFidelity: ctx.extension has the apps' key order and a
// handler runs detached (this is undefined), as in the apps.
func TestHandlerContextFidelity(t *testing.T) {
	p := installFixtures(t, "fidelity")
	h := newTestHost(t, p, nil)
	got, err := call(t, h, "@fixture/fidelity/context", `{}`)
	want := `{"extension":["id","name","version","directoryPath","manifestPath","main"],"thisType":"undefined"}`
	if err != nil || got != want {
		t.Errorf("got %s, %v\nwant %s", got, err, want)
	}
}

// TestDefaultObjectWithoutInstance: export default { activate, tools } whose
// activate returns nothing fails with the apps' message.
func TestDefaultObjectWithoutInstance(t *testing.T) {
	p := installFixtures(t, "fidelity-default-obj")
	h := newTestHost(t, p, nil)
	_, err := call(t, h, "@fixture/fidelity-default-obj/hello", `{}`)
	if err == nil || err.Error() != "The extension did not return a callable instance: Default Object" {
		t.Errorf("err = %v, want the apps' message", err)
	}
}

// TestDriftedSettingThrows: a stored value of the wrong type makes
// ctx.settings.get and getAll throw the apps' message, as in the apps;
// GetAll (for spirit's own commands) still falls back to the default.
func TestDriftedSettingThrows(t *testing.T) {
	p := installFixtures(t, "fidelity")
	h := newTestHost(t, p, nil)
	file := p.SettingsFile("@fixture/fidelity")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(`{"alpha": 3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := call(t, h, "@fixture/fidelity/read", `{}`)
	want := `{"getAll":"threw: Extension setting alpha must be a string.","get":"threw: Extension setting alpha must be a string.",` +
		`"setOther":"threw: Extension setting alpha must be a string."}`
	if err != nil || got != want {
		t.Errorf("got %s, %v\nwant %s", got, err, want)
	}
	// As in the apps, setting another key is written before the stored
	// values are normalised and the drifted one throws.
	if b, _ := os.ReadFile(file); string(b) != "{\n  \"alpha\": 3,\n  \"zeta\": \"q\"\n}\n" {
		t.Errorf("file = %q", b)
	}
	if v, _ := h.Settings().Get(mustExt(t, h, "@fixture/fidelity").Manifest, "alpha"); v != "a" {
		t.Errorf("GetAll gives alpha = %v, want the default", v)
	}
}
