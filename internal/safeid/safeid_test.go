package safeid

import "testing"

func TestValid(t *testing.T) {
	tests := []struct {
		name string
		id   string
		want bool
	}{
		{name: "dotted", id: "spiritagent.system-message-demo", want: true},
		{name: "scoped package", id: "@scope/pkg_1+x", want: true},
		{name: "empty", id: "", want: false},
		{name: "command substitution", id: "q.y$(touch${IFS}PWNED)a", want: false},
		{name: "backquote", id: "a`id`", want: false},
		{name: "blank", id: "a b", want: false},
		{name: "glob", id: "a*", want: false},
		{name: "semicolon", id: "a;b", want: false},
		{name: "tilde", id: "~a", want: false},
		{name: "escape", id: "evil.id\x1b]0;owned\x07", want: false},
		{name: "non-ASCII letter", id: "é.x", want: false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Valid(tt.id); got != tt.want {
				t.Errorf("Valid(%q) = %v, want %v", tt.id, got, tt.want)
			}
		})
	}
}
