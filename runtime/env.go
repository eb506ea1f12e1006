package runtime

import "strings"

// secretWords are the name fragments that keep a variable away from extensions.
var secretWords = [...]string{"KEY", "TOKEN", "SECRET", "PASSWORD", "CREDENTIAL", "AUTH"}

// childEnv returns environ without the variables whose name (compared in
// upper case) contains KEY, TOKEN, SECRET, PASSWORD, CREDENTIAL or AUTH.
func childEnv(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if secretName(name) {
			continue
		}
		out = append(out, kv)
	}
	return out
}

func secretName(name string) bool {
	up := strings.ToUpper(name)
	for _, w := range secretWords {
		if strings.Contains(up, w) {
			return true
		}
	}
	return false
}
