package npm

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseNpmrc(t *testing.T) {
	env := map[string]string{"TOKEN": "t0k", "HOST": "r.example"}
	getenv := func(k string) string { return env[k] }
	tests := []struct {
		name string
		in   string
		want map[string]string
	}{
		{name: "plain", in: "registry=https://r.example/\n", want: map[string]string{"registry": "https://r.example/"}},
		{name: "spaces and comments", in: "; c\n# c\n  registry = https://r/  \n[section]\n", want: map[string]string{"registry": "https://r/"}},
		{name: "quoted", in: `a="x y"` + "\nb='z'", want: map[string]string{"a": "x y", "b": "z"}},
		{name: "env", in: "//r/:_authToken=${TOKEN}", want: map[string]string{"//r/:_authToken": "t0k"}},
		{name: "env in key", in: "//${HOST}/:_authToken=x", want: map[string]string{"//r.example/:_authToken": "x"}},
		{name: "optional env unset", in: "a=${NOPE?}", want: map[string]string{"a": ""}},
		{name: "escaped env", in: `a=\${TOKEN}`, want: map[string]string{"a": "${TOKEN}"}},
		{name: "array skipped", in: "ca[]=x\n", want: map[string]string{}},
		{name: "no equals", in: "junk\n", want: map[string]string{}},
		{name: "crlf", in: "a=b\r\nc=d\r\n", want: map[string]string{"a": "b", "c": "d"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseNpmrc([]byte(tt.in), getenv)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s = %q, want %q (all: %v)", k, got[k], v, got)
				}
			}
		})
	}
}

func TestSettings(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	write := func(dir, text string) {
		if err := os.WriteFile(filepath.Join(dir, ".npmrc"), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(home, "registry=https://home.example/npm\n//home.example/npm/:_authToken=HOMETOKEN\n@corp:registry=https://corp.example:8443/r/\n//corp.example:8443/r/:_authToken=${CORP}\n")
	write(work, "//other.example/:username=u\n//other.example/:_password=cA==\n")
	env := map[string]string{"CORP": "CORPTOKEN"}
	getenv := func(k string) string { return env[k] }

	tests := []struct {
		name     string
		registry string
		envReg   string
		pkg      string
		wantReg  string
		authURL  string
		wantAuth string
	}{
		{name: "npmrc registry", pkg: "a", wantReg: "https://home.example/npm/", authURL: "https://home.example/npm/a", wantAuth: "Bearer HOMETOKEN"},
		{name: "token path prefix only", pkg: "a", wantReg: "https://home.example/npm/", authURL: "https://home.example/other/a", wantAuth: ""},
		{name: "token not to another host", pkg: "a", wantReg: "https://home.example/npm/", authURL: "https://evil.example/npm/a", wantAuth: ""},
		{name: "token not to another port", pkg: "a", wantReg: "https://home.example/npm/", authURL: "https://home.example:444/npm/a", wantAuth: ""},
		{name: "scope registry", pkg: "@corp/x", wantReg: "https://corp.example:8443/r/", authURL: "https://corp.example:8443/r/@corp%2fx", wantAuth: "Bearer CORPTOKEN"},
		{name: "scope wins over flag", registry: "http://flag.example", pkg: "@corp/x", wantReg: "https://corp.example:8443/r/"},
		{name: "flag", registry: "http://flag.example", pkg: "a", wantReg: "http://flag.example/"},
		{name: "env registry", envReg: "http://env.example/x", pkg: "a", wantReg: "http://env.example/x/"},
		{name: "username password", pkg: "a", wantReg: "https://home.example/npm/", authURL: "https://other.example/a/-/a-1.tgz", wantAuth: basic("u", "p")},
		{name: "userinfo in registry", registry: "https://me:secret@flag.example/", pkg: "a", wantReg: "https://flag.example/", authURL: "https://flag.example/a", wantAuth: basic("me", "secret")},
		{name: "token not over http to an https registry", pkg: "a", wantReg: "https://home.example/npm/", authURL: "http://home.example/npm/a", wantAuth: ""},
		{name: "token not over http when no registry there", pkg: "a", wantReg: "https://home.example/npm/", authURL: "http://other.example/a/-/a-1.tgz", wantAuth: ""},
		{name: "host case", pkg: "a", wantReg: "https://home.example/npm/", authURL: "https://HOME.example/npm/a", wantAuth: "Bearer HOMETOKEN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env["npm_config_registry"] = tt.envReg
			s, err := loadSettings(Config{Registry: tt.registry, HomeDir: home, WorkDir: work}, getenv)
			if err != nil {
				t.Fatal(err)
			}
			if got := s.registryFor(tt.pkg); got != tt.wantReg {
				t.Errorf("registry = %q, want %q", got, tt.wantReg)
			}
			if tt.authURL != "" {
				u, err := url.Parse(tt.authURL)
				if err != nil {
					t.Fatal(err)
				}
				if got := s.authFor(u); got != tt.wantAuth {
					t.Errorf("auth for %s = %q, want %q", tt.authURL, got, tt.wantAuth)
				}
			}
		})
	}
}

// A lock file or a flag never widens where a token goes: it travels over
// the scheme its .npmrc registry line says, to the same host, port and
// path prefix, and plain http only to this machine. A registry that would
// need the token over plain http is refused, naming it.
func TestTokenScheme(t *testing.T) {
	tests := []struct {
		name, npmrc, registry string
		authURL, wantAuth     string
		wantErr               string
	}{
		{name: "lock says http, npmrc https", npmrc: "registry=https://npm.corp.example/\n//npm.corp.example/:_authToken=T\n",
			registry: "http://npm.corp.example/", wantErr: "registry http://npm.corp.example/ is plain http, and a credential for //npm.corp.example/"},
		{name: "flag http under the token's path", npmrc: "registry=https://npm.corp.example/r/\n//npm.corp.example/:_authToken=T\n",
			registry: "http://npm.corp.example/r/x/", wantErr: "is plain http"},
		{name: "npmrc says http to another machine", npmrc: "registry=http://npm.corp.example/\n//npm.corp.example/:_authToken=T\n",
			wantErr: "is plain http"},
		{name: "scope registry over http", npmrc: "@c:registry=http://npm.corp.example/\n//npm.corp.example/:_authToken=T\n",
			wantErr: "is plain http"},
		{name: "http elsewhere without a token", npmrc: "//npm.corp.example/:_authToken=T\n", registry: "http://other.example/",
			authURL: "http://npm.corp.example/a", wantAuth: ""},
		{name: "https as configured", npmrc: "registry=https://npm.corp.example/\n//npm.corp.example/:_authToken=T\n",
			registry: "https://npm.corp.example/", authURL: "https://npm.corp.example/a", wantAuth: "Bearer T"},
		{name: "loopback http as the npmrc says", npmrc: "registry=http://127.0.0.1:4873/\n//127.0.0.1:4873/:_authToken=T\n",
			authURL: "http://127.0.0.1:4873/a", wantAuth: "Bearer T"},
		{name: "loopback bare key, flag http", npmrc: "//127.0.0.1:4873/:_authToken=T\n", registry: "http://127.0.0.1:4873",
			authURL: "http://127.0.0.1:4873/a", wantAuth: "Bearer T"},
		{name: "loopback npmrc https, lock http", npmrc: "registry=https://localhost:4873/\n//localhost:4873/:_authToken=T\n",
			registry: "http://localhost:4873/", wantErr: "is plain http"},
		{name: "userinfo over http to another machine", registry: "http://me:pw@npm.corp.example/", wantErr: "is plain http"},
		{name: "userinfo over loopback http", registry: "http://me:pw@[::1]:4873/", authURL: "http://[::1]:4873/a", wantAuth: basic("me", "pw")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			if err := os.WriteFile(filepath.Join(home, ".npmrc"), []byte(tt.npmrc), 0o600); err != nil {
				t.Fatal(err)
			}
			s, err := loadSettings(Config{Registry: tt.registry, HomeDir: home}, func(string) string { return "" })
			if tt.wantErr != "" {
				var ce *ConfigError
				if !errors.As(err, &ce) || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want a *ConfigError with %q", err, tt.wantErr)
				}
				if strings.Contains(err.Error(), "pw") || strings.Contains(err.Error(), "=T") {
					t.Errorf("the error shows the credential: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			u, _ := url.Parse(tt.authURL)
			if got := s.authFor(u); got != tt.wantAuth {
				t.Errorf("auth for %s = %q, want %q", tt.authURL, got, tt.wantAuth)
			}
		})
	}
}

func TestSettingsBadRegistry(t *testing.T) {
	_, err := loadSettings(Config{Registry: "ftp://u:pw@x/"}, func(string) string { return "" })
	if err == nil {
		t.Fatal("no error for an ftp registry")
	}
	if s := err.Error(); containsAny(s, "pw") {
		t.Errorf("error shows the password: %s", s)
	}
}

func TestParseNpmrcUnsetVariable(t *testing.T) {
	got, err := ParseNpmrc([]byte("//r/:_authToken=${NPM_TOKEN}\nregistry=https://r/\nx=${A}${A}"), func(string) string { return "" })
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Msg != "Failed to replace env in config: ${NPM_TOKEN}, ${A} (not set)" {
		t.Fatalf("err = %v", err)
	}
	if got["registry"] != "https://r/" || got["//r/:_authToken"] != "" {
		t.Errorf("pairs = %v", got)
	}
	// The client says which file holds it.
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".npmrc"), []byte("//r/:_authToken=${NPM_TOKEN}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err = NewClient(Config{HomeDir: home, Getenv: func(string) string { return "" }})
	if !errors.As(err, &ce) || !strings.Contains(err.Error(), "${NPM_TOKEN}") || !strings.Contains(err.Error(), filepath.Join(home, ".npmrc")) {
		t.Fatalf("NewClient: %v", err)
	}
}

func FuzzParseNpmrc(f *testing.F) {
	f.Add([]byte("registry=https://r/\n//r/:_authToken=${T}\n@s:registry=http://x\n"))
	f.Add([]byte("a='b\n[x]\n;c\n\\${X}=${Y?}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, _ := ParseNpmrc(data, func(string) string { return "v" })
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, ".npmrc"), data, 0o600); err != nil {
			t.Fatal(err)
		}
		s, err := loadSettings(Config{WorkDir: dir}, func(string) string { return "" })
		if err == nil {
			if u, err := url.Parse(s.registryFor("@s/x") + "x"); err == nil {
				_ = s.authFor(u)
			}
		}
		_ = m
	})
}
