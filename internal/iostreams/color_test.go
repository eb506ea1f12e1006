package iostreams

import (
	"strings"
	"testing"
)

func TestColorFromEnv(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		tty  bool
		want bool
	}{
		{name: "terminal", tty: true, want: true},
		{name: "pipe", tty: false, want: false},
		{name: "NO_COLOR on a terminal", env: map[string]string{"NO_COLOR": "1"}, tty: true, want: false},
		{name: "CLICOLOR_FORCE on a pipe", env: map[string]string{"CLICOLOR_FORCE": "1"}, tty: false, want: true},
		{name: "CLICOLOR_FORCE=0 on a pipe", env: map[string]string{"CLICOLOR_FORCE": "0"}, tty: false, want: false},
		{name: "NO_COLOR wins over CLICOLOR_FORCE", env: map[string]string{"NO_COLOR": "yes", "CLICOLOR_FORCE": "1"}, tty: true, want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ColorFromEnv(func(k string) string { return tt.env[k] }, tt.tty); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestColorScheme(t *testing.T) {
	ios, _, _, _ := Test()
	if got := ios.ColorScheme().Red("x"); got != "x" {
		t.Errorf("colour off: got %q", got)
	}
	ios.SetColorEnabled(true)
	if got := ios.ColorScheme().Red("x"); !strings.HasPrefix(got, "\x1b[31m") || !strings.HasSuffix(got, "\x1b[0m") {
		t.Errorf("colour on: got %q", got)
	}
}
