package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spiritagents/spirit/internal/iostreams"
)

func TestCreateAsksAtTerminal(t *testing.T) {
	tests := []struct {
		name     string
		tty      bool
		args     []string
		input    string
		wantJSON []string
		wantAsk  []string
		notAsked []string
	}{
		{name: "terminal, all asked", tty: true, args: []string{"ext"},
			input:    "@acme/asked\nAsked Ext\nprompt\ncli\n",
			wantJSON: []string{`"name": "@acme/asked"`, `"displayName": "Asked Ext"`, `"system-prompt"`, `"supportedHosts": [` + "\n      \"cli\"\n    ]"},
			wantAsk:  []string{"Package name [ext]: ", "Display name [Asked]: ", "Template (tools, prompt, full) [tools]: ", "Hosts (cli, desktop, cli,desktop) [cli,desktop]: "}},
		{name: "terminal, defaults kept", tty: true, args: []string{"ext"}, input: "\n\n\n\n",
			wantJSON: []string{`"name": "ext"`, `"displayName": "Ext"`, `"tool-definitions"`}},
		{name: "terminal, flags not asked", tty: true, args: []string{"ext", "--name", "flagged", "--template", "full"}, input: "\n\n",
			wantJSON: []string{`"name": "flagged"`, `"displayName": "Flagged"`, `"settingsSchema"`},
			notAsked: []string{"Package name", "Template"}},
		{name: "no terminal, nothing asked", args: []string{"ext"},
			wantJSON: []string{`"name": "ext"`}, notAsked: []string{"Package name", "Display name"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			ios, in, _, errOut := iostreams.Test()
			ios.SetTTY(tt.tty)
			in.WriteString(tt.input)
			f := &Factory{IO: ios, Getenv: func(string) string { return "" }, Now: time.Now}
			cmd := newCmdCreate(f, nil)
			args := append([]string(nil), tt.args...)
			args[0] = filepath.Join(dir, args[0])
			cmd.SetArgs(args)
			if err := cmd.Execute(); err != nil {
				t.Fatalf("create: %v\n%s", err, errOut)
			}
			data, err := os.ReadFile(filepath.Join(args[0], "package.json"))
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range tt.wantJSON {
				if !strings.Contains(string(data), w) {
					t.Errorf("package.json lacks %q:\n%s", w, data)
				}
			}
			for _, w := range tt.wantAsk {
				if !strings.Contains(errOut.String(), w) {
					t.Errorf("stderr lacks the question %q:\n%s", w, errOut)
				}
			}
			for _, w := range tt.notAsked {
				if strings.Contains(errOut.String(), w) {
					t.Errorf("stderr asks %q:\n%s", w, errOut)
				}
			}
		})
	}
}
