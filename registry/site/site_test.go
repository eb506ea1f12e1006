package site

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/net/html"

	"github.com/spiritagents/spirit/catalog"
	"github.com/spiritagents/spirit/internal/testutil/golden"
	"github.com/spiritagents/spirit/internal/testutil/tempdir"
)

const fixture = "testdata/index"

func render(t *testing.T, dir string) *Result {
	t.Helper()
	src, err := catalog.New(catalog.Options{Source: dir})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Render(context.Background(), Options{Source: src, Registry: "https://example.org/my registry/"})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func build(t *testing.T, dir, out string) *Result {
	t.Helper()
	src, err := catalog.New(catalog.Options{Source: dir})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Build(context.Background(), Options{Source: src, Out: out})
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestGolden(t *testing.T) {
	res := render(t, fixture)
	for _, name := range []string{"index.html", "index.json", "x/acme.weather.html", "x/evil.readme.html"} {
		golden.Check(t, filepath.Join("testdata/golden", filepath.FromSlash(name)), res.File(name))
	}
	want := []string{"assets/index-data.js", "assets/site.css", "assets/site.js", "index.html", "index.json",
		"x/acme.bad.html", "x/acme.notes.html", "x/acme.old.html", "x/acme.weather.html", "x/evil.readme.html"}
	if got := res.Files(); !slices.Equal(got, want) {
		t.Errorf("files:\n got %q\nwant %q", got, want)
	}
}

func TestListing(t *testing.T) {
	res := render(t, fixture)
	index := string(res.File("index.html"))
	for _, left := range []string{"acme.hidden", "acme.blocked", "escape"} {
		if strings.Contains(index, left) || strings.Contains(string(res.File("index.json")), left) {
			t.Errorf("%s is on the site", left)
		}
	}
	if !strings.Contains(index, `<li class="card is-deprecated" data-id="acme.old">`) {
		t.Error("the deprecated extension is not marked")
	}
	if !strings.Contains(string(res.File("x/acme.bad.html")), "was revoked") {
		t.Error("the revoked extension is not marked")
	}
	if i, j := strings.Index(index, `data-id="acme.weather"`), strings.Index(index, `data-id="acme.bad"`); i < 0 || j < 0 || i > j {
		t.Error("the featured extension is not first")
	}
	page := string(res.File("x/acme.weather.html"))
	for _, want := range []string{
		"spirit --registry &#39;https://example.org/my registry/&#39; extension marketplace install acme.weather",
		"<td>Oslo</td>", "2.0.0-beta.1 (preview)", "1.1.0 (stable)", "Faster &amp; &lt;better&gt;",
		`href="https://acme.example/"`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("extension page lacks %q", want)
		}
	}
	if strings.Contains(page, "javascript:") {
		t.Error("a javascript: repository URL reached the page")
	}
	var skipped bool
	for _, w := range res.Warnings {
		skipped = skipped || strings.Contains(w.Message, `"../escape"`)
	}
	if !skipped {
		t.Errorf("no warning about the unsafe id: %v", res.Warnings)
	}
}

// TestHostile parses every page and checks, element by element, that
// nothing can run: no event handler, no script but the site's own files,
// no javascript: or data: URL, no embedding element, no inline style, and
// images only over https (or the site's own).
func TestHostile(t *testing.T) {
	res := render(t, fixture)
	for _, name := range res.Files() {
		if !strings.HasSuffix(name, ".html") {
			continue
		}
		checkInert(t, name, res.File(name))
	}
	page := string(res.File("x/evil.readme.html"))
	for _, want := range []string{`src="https://secure.example/b.png"`, "Totally normal", "&lt;script&gt;alert(&#39;name&#39;)&lt;/script&gt;", `href="https://ok.example/"`} {
		if !strings.Contains(page, want) {
			t.Errorf("evil page lacks %q", want)
		}
	}
	if strings.Contains(page, "insecure.example") {
		t.Error("an image over http reached the page")
	}
}

func checkInert(t *testing.T, name string, page []byte) {
	t.Helper()
	z := html.NewTokenizer(bytes.NewReader(page))
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			return
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		tok := z.Token()
		switch tok.Data {
		case "iframe", "object", "embed", "form", "svg", "math", "style", "base", "frame", "input", "button":
			if !(tok.Data == "form" && attr(tok, "id") == "filters") && !(tok.Data == "input" && attr(tok, "id") == "q") {
				t.Errorf("%s: element <%s> %v", name, tok.Data, tok.Attr)
			}
		case "script":
			if src := attr(tok, "src"); !strings.Contains(src, "assets/") || strings.Contains(src, ":") {
				t.Errorf("%s: script %v", name, tok.Attr)
			}
		case "img":
			if src := attr(tok, "src"); src != "" && !strings.HasPrefix(src, "https://") {
				t.Errorf("%s: image %q", name, src)
			}
		}
		for _, a := range tok.Attr {
			v := strings.ToLower(strings.TrimSpace(a.Val))
			switch {
			case strings.HasPrefix(a.Key, "on"), a.Key == "style", a.Key == "srcdoc", a.Key == "formaction":
				t.Errorf("%s: attribute %s=%q on <%s>", name, a.Key, a.Val, tok.Data)
			case strings.HasPrefix(v, "javascript:"), strings.HasPrefix(v, "data:"), strings.HasPrefix(v, "vbscript:"):
				t.Errorf("%s: URL %s=%q on <%s>", name, a.Key, a.Val, tok.Data)
			}
		}
	}
}

func attr(tok html.Token, key string) string {
	for _, a := range tok.Attr {
		if a.Key == key {
			return a.Val
		}
	}
	return ""
}

// TestDeterministic: the same index gives the same bytes, and a second
// build writes nothing.
func TestDeterministic(t *testing.T) {
	a, b := tempdir.New(t), tempdir.New(t)
	first := build(t, fixture, a)
	build(t, fixture, b)
	for _, name := range first.Files() {
		x, _ := os.ReadFile(filepath.Join(a, name))
		y, _ := os.ReadFile(filepath.Join(b, name))
		if !bytes.Equal(x, y) || len(x) == 0 {
			t.Errorf("%s differs between two builds", name)
		}
	}
	again := build(t, fixture, a)
	if len(again.Written) != 0 || again.Unchanged != len(first.Files()) {
		t.Errorf("second build wrote %v, %d unchanged", again.Written, again.Unchanged)
	}
}

// TestStale: the page of an extension that left the index is removed, and
// files the site does not own are left alone.
func TestStale(t *testing.T) {
	dir, out := tempdir.New(t), tempdir.New(t)
	if err := os.CopyFS(dir, os.DirFS(fixture)); err != nil {
		t.Fatal(err)
	}
	build(t, dir, out)
	if err := os.WriteFile(filepath.Join(out, "CNAME"), []byte("ext.example\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cat, _ := os.ReadFile(filepath.Join(dir, "catalog.json"))
	cat = bytes.Replace(cat, []byte(`"status": "deprecated"`), []byte(`"status": "hidden"`), 1)
	if err := os.WriteFile(filepath.Join(dir, "catalog.json"), cat, 0o644); err != nil {
		t.Fatal(err)
	}
	res := build(t, dir, out)
	if !slices.Equal(res.Removed, []string{"x/acme.old.html"}) {
		t.Errorf("removed %v", res.Removed)
	}
	if _, err := os.Stat(filepath.Join(out, "x", "acme.old.html")); err == nil {
		t.Error("the page of the hidden extension is still there")
	}
	if _, err := os.Stat(filepath.Join(out, "CNAME")); err != nil {
		t.Error("a file the site does not own was removed")
	}
}

// FuzzReadme: whatever the README, the rendered HTML carries nothing that
// runs.
func FuzzReadme(f *testing.F) {
	for _, s := range []string{"# hi", "<script>x</script>", "<img src=x onerror=y>", "[a](javascript:b)",
		"<a href=\"jav&#x09;ascript:x\">a</a>", "![i](http://x/y.png)", "<svg><script>x</script></svg>"} {
		f.Add(s)
	}
	r := NewRenderer()
	f.Fuzz(func(t *testing.T, src string) {
		out, err := r.RenderBounded([]byte(src), 5*time.Second)
		if err != nil {
			return
		}
		checkInert(t, "README", out)
	})
}

// TestReadmeShapes: READMEs shaped to make the Markdown parser quadratic
// are shown as text, quickly, with a warning, instead of stalling the build.
func TestReadmeShapes(t *testing.T) {
	r := NewRenderer()
	for name, src := range map[string]string{
		"nested quotes":    strings.Repeat(">", 64<<10),
		"spaced quotes":    strings.Repeat("> ", 40) + "deep\n",
		"unclosed links":   strings.Repeat("[a](", 16<<10),
		"closed links too": strings.Repeat("[a](b) ", MaxLinkOpeners+1),
	} {
		start := time.Now()
		_, err := r.RenderBounded([]byte(src), time.Minute)
		var ce *ComplexityError
		if !errors.As(err, &ce) {
			t.Errorf("%s: err = %v", name, err)
		}
		if d := time.Since(start); d > 5*time.Second {
			t.Errorf("%s: took %s", name, d)
		}
	}
	for name, src := range map[string]string{
		"quote depth at the limit": strings.Repeat(">", MaxQuoteDepth) + " ok\n",
		"shell redirect":           "    cmd > out >> log\n",
	} {
		if _, err := r.RenderBounded([]byte(src), time.Minute); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	// Under the shape limits but slow: the time bound applies.
	_, err := r.RenderBounded([]byte(strings.Repeat("[a](", MaxLinkOpeners)), time.Millisecond)
	if ce := (*ComplexityError)(nil); !errors.As(err, &ce) || !strings.Contains(err.Error(), "longer than 1ms") {
		t.Errorf("time bound: %v", err)
	}

	// Through the site: the page shows the README as escaped text.
	dir := tempdir.New(t)
	if err := os.CopyFS(dir, os.DirFS(fixture)); err != nil {
		t.Fatal(err)
	}
	evil := strings.Repeat(">", 64<<10) + "<script>window.__pwned=1</script>"
	if err := os.WriteFile(filepath.Join(dir, "extensions", "acme.notes", "README.md"), []byte(evil), 0o644); err != nil {
		t.Fatal(err)
	}
	res := render(t, dir)
	page := string(res.File("x/acme.notes.html"))
	if !strings.Contains(page, `<pre class="readme-plain">&gt;&gt;&gt;`) || strings.Contains(page, "<script>window") {
		t.Error("the README is not shown as escaped text")
	}
	var warned bool
	for _, w := range res.Warnings {
		warned = warned || strings.Contains(w.Message, "README shown as plain text: blockquotes nested")
	}
	if !warned {
		t.Errorf("warnings %v", res.Warnings)
	}
	checkInert(t, "x/acme.notes.html", []byte(page))
}
