package iostreams

import (
	"strings"
	"sync"
	"testing"
)

func TestProgressDownload(t *testing.T) {
	for _, tty := range []bool{true, false} {
		ios, _, _, errOut := Test()
		ios.SetTTY(tty)
		p := ios.Progress()
		p.Start("@acme/x@1.0.0", 4<<20)
		p.Add(1 << 20)
		p.Add(3 << 20)
		p.Done(nil)
		got := errOut.String()
		if tty && (!strings.Contains(got, "Downloading @acme/x@1.0.0 [#####") || !strings.HasSuffix(got, "100% 4.0/4.0 MiB\n")) {
			t.Errorf("tty: got %q", got)
		}
		if !tty && got != "" {
			t.Errorf("piped: want nothing, got %q", got)
		}
	}
}

// Labels come from outside: a package name cannot move the cursor, and
// one Progress serves every caller (install, npm, registry) at once.
func TestProgressEscapesAndShares(t *testing.T) {
	ios, _, _, errOut := Test()
	ios.SetTTY(true)
	if p1, p2 := ios.Progress(), ios.Progress(); p1 != p2 {
		t.Fatal("two progress lines on one stream")
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() { ios.Progress().Fetched("evil\x1b]0;title\x07\r", i, 8) })
	}
	wg.Wait()
	ios.Progress().Waiting("/data/.lock\x1b[2J")
	ios.Progress().Extracting(8<<20, 8<<20)
	ios.Progress().Stop()
	got := errOut.String()
	if strings.Contains(strings.ReplaceAll(got, "\r\x1b[K", ""), "\x1b") || strings.Count(got, "\r") != strings.Count(got, "\r\x1b[K") {
		t.Fatalf("raw control bytes from a label: %q", got)
	}
	for _, want := range []string{`/8 evil\x1b]0;title\x07\x0d`, `(lock /data/.lock\x1b[2J)…` + "\n", "Unpacking [####################] 100% 8.0/8.0 MiB\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in %q", want, got)
		}
	}
	var nilP *Progress
	nilP.Start("x", 1)
	nilP.Add(1)
	nilP.Done(nil)
	nilP.Fetched("x", 1, 1)
	nilP.Stop()
}

func TestPrompter(t *testing.T) {
	ios, in, _, errOut := Test()
	ios.SetTTY(true)
	in.WriteString("y\nnote\nYES\n")
	p := ios.Prompter()
	// An id that tries to rewrite the question stays visible as text.
	ok, err := p.Confirm("Extension %s is not verified by the marketplace. Install it anyway?", "x\r\x1b[2KExtension x is VERIFIED and signed.")
	if !ok || err != nil {
		t.Fatalf("first answer: %v %v", ok, err)
	}
	// The same buffered reader serves the next questions: nothing typed
	// ahead is lost.
	if line, err := ios.Prompter().Input("Note: "); line != "note\n" || err != nil {
		t.Fatalf("second answer: %q %v", line, err)
	}
	if ok, _ := ios.Prompter().Confirm("Again?"); !ok {
		t.Fatal("third answer lost")
	}
	if ok, err := ios.Prompter().Confirm("At the end?"); ok || err == nil {
		t.Fatalf("no more input: %v %v", ok, err)
	}
	want := `Extension x\x0d\x1b[2KExtension x is VERIFIED and signed. is not verified by the marketplace. Install it anyway? [y/N] Note: Again? [y/N] At the end? [y/N] `
	if got := errOut.String(); got != want {
		t.Fatalf("prompts %q\nwant    %q", got, want)
	}

	ios.SetTTY(false)
	if ok, err := ios.Prompter().Confirm("Piped?"); ok || err != nil {
		t.Fatalf("without a terminal: %v %v", ok, err)
	}
	if _, err := ios.Prompter().Password("Secret: "); err == nil {
		t.Fatal("a masked read from a buffer")
	}
}

func TestPagerCommand(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want string
	}{
		{name: "default", want: DefaultPager},
		{name: "PAGER", env: map[string]string{"PAGER": "most"}, want: "most"},
		{name: "SPIRIT_PAGER first", env: map[string]string{"PAGER": "most", "SPIRIT_PAGER": "lv"}, want: "lv"},
		{name: "dumb terminal", env: map[string]string{"TERM": "dumb"}, want: ""},
		{name: "dumb terminal ignores PAGER", env: map[string]string{"TERM": "dumb", "PAGER": "less"}, want: ""},
		{name: "dumb terminal keeps SPIRIT_PAGER", env: map[string]string{"TERM": "dumb", "SPIRIT_PAGER": "cat -n"}, want: "cat -n"},
	}
	for _, tt := range tests {
		if got := PagerCommand(func(k string) string { return tt.env[k] }); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}
