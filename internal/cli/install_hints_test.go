package cli

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// tgzOf packs files under package/ as npm does.
func tgzOf(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, body := range files {
		if err := tw.WriteHeader(&tar.Header{Name: "package/" + name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		tw.Write([]byte(body))
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

// An install of a package whose manifest is invalid keeps the apps'
// message, and its hint names the package and says how to fix the first
// problem: left-pad, an npm package that is no extension, by name and
// version; a local folder by its path, with the validate command.
func TestInstallInvalidManifestHint(t *testing.T) {
	body := tgzOf(t, map[string]string{"package.json": `{"name":"left-pad","version":"1.3.0","main":"index.js"}`, "index.js": "module.exports = 1\n"})
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	defer srv.Close()
	mux.HandleFunc("/left-pad", func(w http.ResponseWriter, r *http.Request) {
		w.Write(packument("left-pad", "1.3.0", srv.URL+"/left-pad/-/left-pad-1.3.0.tgz", body))
	})
	mux.HandleFunc("/left-pad/-/left-pad-1.3.0.tgz", func(w http.ResponseWriter, r *http.Request) { w.Write(body) })

	work := t.TempDir()
	dir := filepath.Join(work, "bad-tool")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "index.js"), []byte("export function activate() {}\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"name":"bad-tool","version":"1.0.0","main":"index.js","spiritExtension":{"displayName":"B","supportedHosts":["cli"],
  "requestedCapabilities":["tool-definitions","tool-execution"],"contributes":{"tools":[{"name":"Get Weather","description":"d","inputSchema":{"type":"object"}}]}}}`), 0o644)

	env := []string{"HOME=" + work, "SPIRIT_AGENT_DATA_DIR=" + filepath.Join(work, "data"), "SPIRIT_HOST=",
		"npm_config_registry=", "NPM_CONFIG_REGISTRY="}
	tests := []struct {
		name   string
		source string
		want   string
	}{
		{name: "npm package that is no extension", source: "left-pad@1.3.0",
			want: "Error: The extension package.json is missing the spiritExtension field, which must be an object.\n" +
				`Hint: left-pad@1.3.0: this package is not a Spirit extension: an extension's package.json has a "spiritExtension" object (spirit extension create makes one)` + "\n"},
		{name: "folder with a bad tool name", source: dir,
			want: "Error: Invalid extension tool name: Get Weather\n" +
				`Hint: ` + dir + `: a tool name is lowercase letters and digits, in words joined by one ".", "_" or "-", such as "get-weather"; spirit extension validate ` + dir + " lists every problem\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, stderr, _, err := runSpirit(t, time.Minute, work, env, "", "extension", "install", tt.source, "--npm-registry", srv.URL)
			if err == nil {
				t.Fatal("installed")
			}
			if !strings.HasSuffix(stderr, tt.want) {
				t.Errorf("stderr:\n%s\nwant it to end with:\n%s", stderr, tt.want)
			}
		})
	}
}
