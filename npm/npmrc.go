package npm

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"maps"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/spiritagents/spirit/fetch"
)

// DefaultRegistry is the public npm registry.
const DefaultRegistry = "https://registry.npmjs.org/"

// ParseNpmrc parses the ini text of an .npmrc into key/value pairs, in
// order. Comments (; and #), section headers and array keys (key[]) are
// skipped; quoted values are unquoted; "${VAR}" (and "${VAR?}") in keys and
// values is replaced from getenv. A line it cannot read is skipped, as npm
// does. It refuses a ${VAR} whose variable is not set, as npm 6 did (npm 9
// sends the text as is, and a missing token becomes a puzzling 401):
// the error is a *ConfigError naming it, and the pairs are still returned,
// with "" in its place. ${VAR?} is "" when VAR is not set.
func ParseNpmrc(data []byte, getenv func(string) string) (map[string]string, error) {
	var missing []string
	lookup := func(name string, optional bool) string {
		v := getenv(name)
		if v == "" && !optional && !slices.Contains(missing, name) {
			missing = append(missing, name)
		}
		return v
	}
	out := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || line[0] == ';' || line[0] == '#' || line[0] == '[' {
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || strings.HasSuffix(k, "[]") {
			continue
		}
		if len(v) >= 2 && (v[0] == '"' && v[len(v)-1] == '"' || v[0] == '\'' && v[len(v)-1] == '\'') {
			v = v[1 : len(v)-1]
		}
		out[expandEnv(k, lookup)] = expandEnv(v, lookup)
	}
	if len(missing) > 0 {
		return out, &ConfigError{Msg: "Failed to replace env in config: ${" + strings.Join(missing, "}, ${") + "} (not set)"}
	}
	return out, nil
}

var envRe = regexp.MustCompile(`(\\*)\$\{([^${}?]+)(\?)?\}`)

// expandEnv replaces ${VAR} and ${VAR?} as npm does; a backslash escapes it.
func expandEnv(s string, lookup func(name string, optional bool) string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	return envRe.ReplaceAllStringFunc(s, func(m string) string {
		sub := envRe.FindStringSubmatch(m)
		esc := len(sub[1])
		if esc%2 == 1 {
			return strings.Repeat(`\`, (esc-1)/2) + m[esc:]
		}
		return strings.Repeat(`\`, esc/2) + lookup(sub[2], sub[3] == "?")
	})
}

// credential is the Authorization header value for one registry prefix.
type credential struct {
	prefix  string   // nerf-darted: //host[:port]/path/
	header  string   // "Bearer …" or "Basic …"
	schemes []string // the schemes it may be sent over: see scopeSchemes
	// scheme is the scheme of the registry URL that carried it
	// (user:password in the URL); "" for an .npmrc key.
	scheme string
}

// settings is what the client takes from the environment and .npmrc files.
type settings struct {
	registry string            // default registry, with a trailing slash, no userinfo
	scopes   map[string]string // "@scope" → registry
	creds    []credential      // longest prefix first
}

// loadSettings resolves the registry and credentials from cfg, the
// environment, the project .npmrc and ~/.npmrc.
func loadSettings(cfg Config, getenv func(string) string) (*settings, error) {
	merged := map[string]string{}
	var files []string
	if cfg.HomeDir != "" {
		files = append(files, filepath.Join(cfg.HomeDir, ".npmrc"))
	}
	if cfg.WorkDir != "" {
		files = append(files, filepath.Join(cfg.WorkDir, ".npmrc"))
	}
	if u := getenv("npm_config_userconfig"); u != "" {
		files = append(files[:0:0], u)
		if cfg.WorkDir != "" {
			files = append(files, filepath.Join(cfg.WorkDir, ".npmrc"))
		}
	}
	for _, f := range files { // later files (the project's) win
		data, err := os.ReadFile(f)
		if err != nil {
			continue
		}
		pairs, err := ParseNpmrc(data, getenv)
		if err != nil {
			return nil, &ConfigError{Msg: strings.TrimPrefix(err.Error(), "npm configuration: ") + " in " + f}
		}
		for k, v := range pairs {
			merged[k] = v
		}
	}
	s := &settings{scopes: map[string]string{}}
	// configured are the registries of the user's configuration (the
	// environment and .npmrc files), which alone say over which scheme a
	// credential travels; Config.Registry (a flag, a lock file) never does.
	var configured []string
	reg := cfg.Registry
	for _, src := range []string{getenv("npm_config_registry"), getenv("NPM_CONFIG_REGISTRY"), merged["registry"], DefaultRegistry} {
		if r, _, err := normalizeRegistry(src); src != "" && src != DefaultRegistry && err == nil {
			configured = append(configured, r)
		}
		if reg == "" {
			reg = src
		}
	}
	var err error
	var userinfo *credential
	if s.registry, userinfo, err = normalizeRegistry(reg); err != nil {
		return nil, err
	}
	if userinfo != nil {
		s.creds = append(s.creds, *userinfo)
	}
	for k, v := range merged {
		switch {
		case strings.HasPrefix(k, "@") && strings.HasSuffix(k, ":registry"):
			r, ui, err := normalizeRegistry(v)
			if err != nil {
				return nil, err
			}
			s.scopes[strings.TrimSuffix(k, ":registry")] = r
			configured = append(configured, r)
			if ui != nil {
				s.creds = append(s.creds, *ui)
			}
		case strings.HasPrefix(k, "//"):
			i := strings.LastIndex(k, ":")
			if i < 0 {
				continue
			}
			prefix, field := k[:i], k[i+1:]
			if !strings.HasSuffix(prefix, "/") {
				prefix += "/"
			}
			switch field {
			case "_authToken":
				if v != "" {
					s.creds = append(s.creds, credential{prefix: prefix, header: "Bearer " + v})
				}
			case "_auth":
				if v != "" {
					s.creds = append(s.creds, credential{prefix: prefix, header: "Basic " + v})
				}
			case "username":
				pw, err := base64.StdEncoding.DecodeString(merged[k[:i]+":_password"])
				if err == nil && v != "" {
					s.creds = append(s.creds, credential{prefix: prefix, header: basic(v, string(pw))})
				}
			}
		}
	}
	if a := merged["_auth"]; a != "" {
		s.creds = append(s.creds, credential{prefix: nerfDart(s.registry), header: "Basic " + a})
	}
	s.scopeSchemes(configured)
	// Longest prefix first; among equal prefixes the more specific field
	// order above is kept stable.
	slices.SortStableFunc(s.creds, func(a, b credential) int { return len(b.prefix) - len(a.prefix) })
	if err := s.checkPlainHTTP(); err != nil {
		return nil, err
	}
	return s, nil
}

// scopeSchemes gives each credential the schemes it may travel over: https
// always; plain http only to this machine (a loopback host), and only when
// the configuration does not say https for it: the credential came in an
// http registry URL, or a configured registry at or under its prefix is
// http, or none is there at all (a bare //127.0.0.1:PORT/ key). An .npmrc
// key (//host:port/path/) has no scheme of its own, so the registry lines
// of the configuration give it; a flag or a lock file never widens it.
func (s *settings) scopeSchemes(configured []string) {
	for i := range s.creds {
		c := &s.creds[i]
		c.prefix = canonicalPrefix(c.prefix)
		c.schemes = []string{"https"}
		if !loopbackPrefix(c.prefix) {
			continue
		}
		httpLine, httpsLine := c.scheme == "http", c.scheme == "https"
		for _, r := range configured {
			u, err := url.Parse(r)
			if err != nil || !c.covers(r) {
				continue
			}
			httpLine = httpLine || u.Scheme == "http"
			httpsLine = httpsLine || u.Scheme == "https"
		}
		if httpLine || !httpsLine {
			c.schemes = append(c.schemes, "http")
		}
	}
}

// covers reports whether requests to registry r may carry c: its prefix
// is at or under r's, or r's under c's.
func (c *credential) covers(r string) bool {
	d := canonicalPrefix(nerfDart(r))
	return d != "" && (strings.HasPrefix(d, c.prefix) || strings.HasPrefix(c.prefix, d))
}

// loopbackPrefix reports whether a nerf-dart prefix names this machine:
// localhost or a loopback address.
func loopbackPrefix(prefix string) bool {
	host, _, _ := strings.Cut(strings.TrimPrefix(prefix, "//"), "/")
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// checkPlainHTTP refuses a plain http registry that a credential is
// configured for but may not travel to (a lock or a flag that says http
// where the .npmrc says https, or http to another machine): sending the
// request without the token would hide why it fails, and sending it with
// the token would show it to the network.
func (s *settings) checkPlainHTTP() error {
	regs := []string{s.registry}
	for _, scope := range slices.Sorted(maps.Keys(s.scopes)) {
		regs = append(regs, s.scopes[scope])
	}
	for _, r := range regs {
		u, err := url.Parse(r)
		if err != nil || u.Scheme != "http" {
			continue
		}
		for _, c := range s.creds {
			if c.covers(r) && !slices.Contains(c.schemes, "http") {
				return &ConfigError{Msg: "registry " + r + " is plain http, and a credential for " + c.prefix +
					" is configured: spirit sends it only over https, or over http to this machine when the .npmrc says http" +
					" (use https://" + strings.TrimPrefix(r, "http://") + ")"}
			}
		}
	}
	return nil
}

// canonicalPrefix lower-cases the host of a nerf-dart key; the port is
// kept as written, as npm does.
func canonicalPrefix(p string) string {
	rest, ok := strings.CutPrefix(p, "//")
	if !ok {
		return p
	}
	host, path, _ := strings.Cut(rest, "/")
	return "//" + strings.ToLower(host) + "/" + path
}

func basic(user, pass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+pass))
}

// normalizeRegistry checks a registry URL, gives it a trailing slash, and
// moves any user:password out of it into a credential.
func normalizeRegistry(r string) (string, *credential, error) {
	u, err := url.Parse(strings.TrimSpace(r))
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", nil, &ConfigError{Msg: "registry " + Redact(r) + " is not an http(s) URL"}
	}
	var cred *credential
	if u.User != nil {
		pass, _ := u.User.Password()
		user := u.User.Username()
		u.User = nil
		cred = &credential{prefix: nerfDart(u.String()), header: basic(user, pass), scheme: u.Scheme}
	}
	u.RawQuery, u.Fragment = "", ""
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
		if u.RawPath != "" {
			u.RawPath += "/"
		}
	}
	if cred != nil {
		cred.prefix = nerfDart(u.String())
	}
	return u.String(), cred, nil
}

// nerfDart turns a URL into npm's credential key: //host[:port]/path/
// without scheme, query or the last path element after the final slash.
func nerfDart(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	p := u.EscapedPath()
	if i := strings.LastIndex(p, "/"); i >= 0 {
		p = p[:i+1]
	} else {
		p = "/"
	}
	return "//" + u.Host + p
}

// authFor returns the Authorization header for a request URL: the
// credential whose prefix is the longest prefix of the URL's host, port
// and path, when the URL's scheme is one it may travel over; else "".
// The fetch layer asks again at every redirect.
func (s *settings) authFor(u *url.URL) string {
	if u == nil || u.Host == "" {
		return ""
	}
	key := "//" + strings.ToLower(u.Host) + u.EscapedPath()
	for _, c := range s.creds {
		if strings.HasPrefix(key, c.prefix) && slices.Contains(c.schemes, u.Scheme) {
			return c.header
		}
	}
	return ""
}

// registryFor returns the registry of a package name.
func (s *settings) registryFor(name string) string {
	if scope, _, ok := strings.Cut(name, "/"); ok && strings.HasPrefix(scope, "@") {
		if r, ok := s.scopes[scope]; ok {
			return r
		}
	}
	return s.registry
}

// ConfigError is a bad registry setting.
type ConfigError struct{ Msg string }

func (e *ConfigError) Error() string { return "npm configuration: " + e.Msg }

// Redact returns a URL without its user:password; a string that is not a
// URL is returned as "<invalid URL>" when it may hold credentials.
func Redact(raw string) string { return fetch.Redact(raw) }
