package site

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	cdppage "github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/spiritagents/spirit/internal/testutil/tempdir"
)

// browser returns the path of a Chromium-family browser. The browser test
// is skipped without one, unless SPIRIT_REQUIRE_BROWSER is set (as make
// test and CI do), where it fails instead.
func browser(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("SPIRIT_REQUIRE_BROWSER") != "" {
		t.Fatal("no chromium found and SPIRIT_REQUIRE_BROWSER is set: install it (scripts/test-deps.sh does)")
	}
	t.Skip("no chromium found (apt-get install chromium); set SPIRIT_REQUIRE_BROWSER=1 to make this a failure")
	return ""
}

// events collects what a page must not do: console errors, uncaught
// exceptions, error entries of the browser log (CSP violations among them)
// and dialogs (an alert is what most payloads would open).
type events struct {
	mu      sync.Mutex
	errors  []string
	dialogs []string
}

func (e *events) add(list *[]string, s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	*list = append(*list, s)
}

func (e *events) take() (errs, dialogs []string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	errs, dialogs = e.errors, e.dialogs
	e.errors, e.dialogs = nil, nil
	return errs, dialogs
}

// listen collects the events of the tab of ctx until ctx ends; dialogs are
// dismissed so that the page never stalls.
func listen(ctx context.Context, ev *events) {
	console := chromedp.Console(ctx)
	dialogs := chromedp.Events(ctx, cdppage.JavascriptDialogOpening)
	go func() {
		for m, err := range console {
			if err != nil {
				return
			}
			switch {
			case m.IsException(), m.Type == "error" && !(m.Source == "network" && strings.HasSuffix(m.URL, "/favicon.ico")):
				ev.add(&ev.errors, fmt.Sprintf("%s (%s %s)", m.String(), m.Source, m.URL))
			}
		}
	}()
	go func() {
		for d, err := range dialogs {
			if err != nil {
				return
			}
			ev.add(&ev.dialogs, d.Message)
			_, _ = chromedp.Call(ctx, cdppage.HandleJavaScriptDialog, cdppage.HandleJavaScriptDialogParams{Accept: false})
		}
	}()
}

// visible returns the ids of the cards shown.
func visible(ctx context.Context, t *testing.T) []string {
	t.Helper()
	ids, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](
		`Array.from(document.querySelectorAll('#list > li')).filter(li => !li.hidden && li.offsetParent !== null).map(li => li.dataset.id)`))
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// choose selects value in the select sel as a user would: the value, then
// the change event.
func choose(sel, value string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(chromedp.SetValue(chromedp.CSS(sel), value),
		chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := chromedp.Evaluate[any](fmt.Sprintf(`document.querySelector(%q).dispatchEvent(new Event('change'))`, sel))(ctx, t)
			return err
		}))
}

// TestBrowser loads the site of the fixture index in a real headless
// Chromium, over HTTP and from file://: no console error, search and
// filters narrow the list, an extension page shows its README and install
// command, no payload of the hostile README fires, the page works with
// JavaScript off, and screenshots at phone and desktop widths are taken.
func TestBrowser(t *testing.T) {
	exe := browser(t)
	out := tempdir.New(t)
	build(t, fixture, out)
	srv := httptest.NewServer(http.FileServer(http.Dir(out)))
	defer srv.Close()

	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(exe), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("no-proxy-server", true))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	bctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel := context.WithTimeout(bctx, 2*time.Minute)
	defer cancel()
	ev := &events{}
	listen(ctx, ev)
	do := func(t *testing.T, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatal(err)
		}
	}
	text := func(t *testing.T, sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.TextContent(chromedp.CSS(sel)))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	clean := func(t *testing.T) {
		t.Helper()
		if errs, dialogs := ev.take(); len(errs)+len(dialogs) > 0 {
			t.Errorf("console errors %q, dialogs %q", errs, dialogs)
		}
	}
	shots := tempdir.New(t)
	shoot := func(t *testing.T, name string, width, height int64, mobile bool) {
		t.Helper()
		vopts := []chromedp.EmulateViewportOption{chromedp.EmulateScale(1)}
		if mobile {
			vopts = append(vopts, chromedp.EmulateMobile)
		}
		do(t, chromedp.EmulateViewport(width, height, vopts...))
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatal(err)
		}
		file := filepath.Join(shots, name+".png")
		if err := os.WriteFile(file, png, 0o644); err != nil {
			t.Fatal(err)
		}
		if len(png) < 20_000 {
			t.Errorf("screenshot %s is only %d bytes", file, len(png))
		}
		t.Logf("screenshot %s: %d bytes", file, len(png))
		if dir := os.Getenv("SPIRIT_SCREENSHOTS"); dir != "" {
			_ = os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644)
		}
	}
	// fits says the page is no wider than a phone of 390 px: nothing
	// makes it scroll sideways.
	fits := func(t *testing.T, page string) {
		t.Helper()
		do(t, chromedp.EmulateViewport(390, 844, chromedp.EmulateScale(1), chromedp.EmulateMobile))
		w, err := chromedp.Run(ctx, chromedp.Evaluate[int](`Math.max(document.documentElement.scrollWidth, document.body.scrollWidth)`))
		if err != nil {
			t.Fatal(err)
		}
		if w > 390 {
			wide, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll('body *')].filter(e => e.getBoundingClientRect().right > 391).slice(0, 5).map(e => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.className ? '.' + String(e.className).split(' ').join('.') : '') + ' ' + Math.round(e.getBoundingClientRect().right)).join(', ')`))
			t.Errorf("%s is %d px wide at a 390 px viewport; wider than it: %s", page, w, wide)
		}
	}
	all := "acme.weather evil.readme acme.bad acme.notes acme.old"
	shown := func(t *testing.T, what, want string) {
		t.Helper()
		if got := strings.Join(visible(ctx, t), " "); got != want {
			t.Errorf("%s: cards shown %q, want %q", what, got, want)
		}
	}

	for _, base := range []string{srv.URL + "/", "file://" + filepath.ToSlash(out) + "/"} {
		t.Run("index "+strings.SplitN(base, ":", 2)[0], func(t *testing.T) {
			do(t, chromedp.Navigate(base+"index.html"), chromedp.WaitVisible(chromedp.CSS("#q")))
			shown(t, "no search", all)
			if strings.HasPrefix(base, "http") {
				fits(t, "the index page")
				shoot(t, "index-phone", 390, 844, true)
				shoot(t, "index-desktop", 1280, 900, false)
			}
			do(t, chromedp.SendKeys(chromedp.CSS("#q"), "FORECAST"))
			shown(t, "typed FORECAST", "acme.weather")
			if c := text(t, "#count"); c != "1 of 5 extensions" {
				t.Errorf("count %q", c)
			}
			do(t, chromedp.SendKeys(chromedp.CSS("#q"), strings.Repeat("\b", 8)))
			shown(t, "search erased", all)
			do(t, choose("#f-host", "cli"))
			shown(t, "host cli", "acme.weather evil.readme acme.notes acme.old")
			do(t, choose("#f-review", "unverified"))
			shown(t, "host cli, review unverified", "acme.notes")
			do(t, choose("#f-host", ""), choose("#f-review", ""), choose("#f-keyword", "legacy"))
			shown(t, "keyword legacy", "acme.old")
			do(t, choose("#f-keyword", ""), choose("#f-channel", "preview"))
			shown(t, "channel preview", "acme.weather")
			do(t, choose("#f-channel", ""))
			clean(t)
		})
	}

	t.Run("extension page", func(t *testing.T) {
		do(t, chromedp.Navigate(srv.URL+"/index.html"), chromedp.WaitVisible(chromedp.CSS("#q")),
			chromedp.Click(chromedp.CSS(`li[data-id="acme.weather"] h2 a`)),
			chromedp.WaitVisible(chromedp.CSS("#readme")))
		if readme := text(t, "#readme"); !strings.Contains(readme, "Get forecasts.") || !strings.Contains(readme, "Oslo") {
			t.Errorf("README text %q", readme)
		}
		if install := text(t, "#install-cmd"); install != "spirit extension marketplace install acme.weather" {
			t.Errorf("install command %q", install)
		}
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll('#readme table, #readme h1, #readme strong').length`))
		if err != nil || n != 3 {
			t.Errorf("rendered README elements: %d, %v", n, err)
		}
		fits(t, "the extension page")
		shoot(t, "extension-phone", 390, 844, true)
		shoot(t, "extension-desktop", 1280, 900, false)
		clean(t)
	})

	t.Run("hostile README", func(t *testing.T) {
		do(t, chromedp.Navigate(srv.URL+"/x/evil.readme.html"), chromedp.WaitVisible(chromedp.CSS("#readme")))
		// Click what a payload would hang on, staying on the page.
		for _, sel := range []string{"#readme summary", "#readme a[href^='https://ok.example']"} {
			do(t, chromedp.Func(func(ctx context.Context, tg *chromedp.Target) error {
				_, err := chromedp.Evaluate[any](fmt.Sprintf(`(() => { const e = document.querySelector(%q); e.addEventListener('click', ev => { if (e.tagName === 'A') ev.preventDefault(); }); e.click(); })()`, sel))(ctx, tg)
				return err
			}))
		}
		pwned, err := chromedp.Run(ctx, chromedp.Evaluate[string](`String(window.__pwned)`))
		if err != nil {
			t.Fatal(err)
		}
		errs, dialogs := ev.take()
		if pwned != "undefined" || len(dialogs) > 0 {
			t.Errorf("a payload fired: window.__pwned = %s, dialogs %q", pwned, dialogs)
		}
		// A payload that the Content-Security-Policy stopped still got
		// through the sanitizer: that fails too.
		for _, e := range errs {
			if strings.Contains(e, "Content Security Policy") || strings.Contains(e, "Uncaught") {
				t.Errorf("a payload reached the page: %s", e)
			}
		}
		if h1 := text(t, "h1"); h1 != "<script>alert('name')</script>" {
			t.Errorf("the hostile display name is not shown as text: %q", h1)
		}
	})

	t.Run("javascript off", func(t *testing.T) {
		tctx, cancel := chromedp.NewContext(bctx)
		defer cancel()
		if _, err := chromedp.Call(tctx, emulation.SetScriptExecutionDisabled, emulation.SetScriptExecutionDisabledParams{Value: true}); err != nil {
			t.Fatal(err)
		}
		if err := chromedp.Do(tctx, chromedp.Navigate(srv.URL+"/index.html"), chromedp.WaitVisible(chromedp.CSS("#list"))); err != nil {
			t.Fatal(err)
		}
		if got := strings.Join(visible(tctx, t), " "); got != all {
			t.Errorf("with JavaScript off: %q", got)
		}
		hidden, err := chromedp.Run(tctx, chromedp.Evaluate[bool](`document.getElementById('filters').hidden`))
		if err != nil || !hidden {
			t.Errorf("the search form shows without JavaScript (hidden=%v, %v)", hidden, err)
		}
	})
}
