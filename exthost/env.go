package exthost

import (
	"net/url"
	"slices"
	"strings"
)

// allowedEnv are the variables an extension gets from spirit's environment
// (besides the names given per extension): what Node and ordinary
// libraries need to find programs, the user's locale and time zone, temp
// files, certificates and proxies. Everything else (tokens, database URLs,
// session keys, CI credentials…) stays in spirit.
var allowedEnv = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "TERM", "LANG", "LANGUAGE", "TZ", "TMPDIR",
	"NODE_EXTRA_CA_CERTS", "SSL_CERT_FILE", "SSL_CERT_DIR",
}

// proxyEnv are the proxy variables; they are passed without userinfo.
var proxyEnv = []string{"HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"}

// childEnv returns the part of environ an extension gets: the allowed
// names, LC_*, the proxy variables (upper or lower case) with any
// user:password@ removed, and the names in extra exactly as given.
func childEnv(environ []string, extra []string) []string {
	out := make([]string, 0, len(allowedEnv)+len(extra))
	for _, kv := range environ {
		name, value, ok := strings.Cut(kv, "=")
		if !ok || name == "" {
			continue
		}
		switch {
		case slices.Contains(extra, name):
			out = append(out, kv)
		case slices.Contains(allowedEnv, name), strings.HasPrefix(name, "LC_"):
			out = append(out, kv)
		case slices.Contains(proxyEnv, strings.ToUpper(name)):
			out = append(out, name+"="+stripUserinfo(value))
		}
	}
	return out
}

// stripUserinfo removes user:password@ from a proxy URL ("u:p@host:3128"
// without a scheme too). NO_PROXY lists pass through unchanged.
func stripUserinfo(v string) string {
	at := strings.LastIndex(v, "@")
	if at < 0 {
		return v
	}
	scheme, rest, ok := strings.Cut(v, "://")
	if !ok {
		scheme, rest = "", v
	}
	if u, err := url.Parse("http://" + rest); err == nil {
		if u.User == nil {
			return v
		}
		u.User = nil
		s := strings.TrimPrefix(u.String(), "http://")
		if scheme != "" {
			return scheme + "://" + s
		}
		return s
	}
	// Not a URL: drop everything up to the last @ of the authority.
	if scheme != "" {
		return scheme + "://" + v[at+1:]
	}
	return v[at+1:]
}
