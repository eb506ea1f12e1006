package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spiritagents/spirit/catalog"
)

// twoOutdated serves a registry with two extensions, each with 1.0.0 and
// 1.1.0 (nothing added), and installs both at 1.0.0.
func twoOutdated(t *testing.T) (*cliEnv, *httptest.Server, *requestLog) {
	t.Helper()
	dir := t.TempDir()
	caps := []string{"system-prompt"}
	ext := func(id, pkg string) fixtureExt {
		return fixtureExt{ID: id, Package: pkg, Versions: []fixtureVersion{
			{Version: "1.0.0", Spirit: helloSpirit(caps, nil)},
			{Version: "1.1.0", Spirit: helloSpirit(caps, nil)},
		}}
	}
	buildRegistry(t, dir, ext("fixture.a", "@fixture/a"), ext("fixture.b", "@fixture/b"))
	log := &requestLog{}
	srv := httptest.NewServer(log.wrap(http.FileServer(http.Dir(dir))))
	t.Cleanup(srv.Close)
	e := &cliEnv{data: t.TempDir(), now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	for _, id := range []string{"fixture.a", "fixture.b"} {
		if code, out, errOut := e.run(t, srv.URL, false, "", "extension", "marketplace", "install", id, "--version", "1.0.0"); code != 0 {
			t.Fatalf("install %s: %d\n%s\n%s", id, code, out, errOut)
		}
	}
	return e, srv, log
}

// TestUpdateOneDownloadsOnlyIt: `update ID` fetches the tarball of ID's
// newer version only, not those of the other outdated extensions.
func TestUpdateOneDownloadsOnlyIt(t *testing.T) {
	e, srv, log := twoOutdated(t)
	code, out, errOut := e.run(t, srv.URL, false, "", "extension", "update", "@fixture/a")
	if code != 0 || !strings.Contains(out, "Updated @fixture/a 1.0.0 → 1.1.0") {
		t.Fatalf("update: %d\n%s\n%s", code, out, errOut)
	}
	got := log.tarballs()
	if got["/tarballs/fixture.b-1.1.0.tgz"] != 0 {
		t.Errorf("update @fixture/a downloaded fixture.b's tarball: %v", got)
	}
	if got["/tarballs/fixture.a-1.1.0.tgz"] != 1 {
		t.Errorf("fixture.a 1.1.0 fetched %d times, want 1: %v", got["/tarballs/fixture.a-1.1.0.tgz"], got)
	}
}

// TestCompleteAddsNotInstalled: nothing is downloaded for an extension
// that is not installed.
func TestCompleteAddsNotInstalled(t *testing.T) {
	_, srv, log := twoOutdated(t)
	before := log.tarballs()["/tarballs/fixture.a-1.1.0.tgz"]
	c, err := catalog.New(catalog.Options{Source: srv.URL, CacheDir: filepath.Join(t.TempDir(), "cache"), HTTPClient: srv.Client()})
	if err != nil {
		t.Fatal(err)
	}
	o := &catalog.Outdated{Extensions: []catalog.Status{{ID: "@fixture/a", ExtensionID: "fixture.a", Installed: "1.0.0", Latest: "1.1.0", Outdated: true}}}
	(&catalog.Updater{Catalog: c}).CompleteAdds(context.Background(), o)
	if len(o.Warnings) != 1 || !strings.Contains(o.Warnings[0].Message, "not installed") {
		t.Errorf("warnings = %v", o.Warnings)
	}
	if n := log.tarballs()["/tarballs/fixture.a-1.1.0.tgz"]; n != before {
		t.Errorf("the tarball of an extension that is not installed was downloaded (%d requests)", n-before)
	}
}

// TestAnotherIndexDoesNotReplace: the same catalog served from a second
// index is not the index an extension was installed from; it neither
// lists nor updates it, and its install needs --replace.
func TestAnotherIndexDoesNotReplace(t *testing.T) {
	e, srv, _ := twoOutdated(t)
	mirror := httptest.NewServer(srv.Config.Handler)
	defer mirror.Close()

	code, out, errOut := e.run(t, mirror.URL, false, "", "extension", "outdated")
	if code != 0 || !strings.Contains(out, "No marketplace extensions to check.") {
		t.Fatalf("outdated on the mirror: %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = e.run(t, mirror.URL, false, "", "extension", "update", "--all", "--yes")
	if code != 0 || strings.Contains(out, "Updated") {
		t.Fatalf("update --all on the mirror: %d\n%s\n%s", code, out, errOut)
	}
	code, _, errOut = e.run(t, mirror.URL, false, "", "extension", "marketplace", "install", "fixture.a")
	want := "@fixture/a 1.0.0 is installed from marketplace extension fixture.a of " + srv.URL + "/, not from marketplace extension fixture.a of " + mirror.URL + "/; installing 1.1.0 would replace it"
	if code != ExitFailure || !strings.Contains(errOut, want) || !strings.Contains(errOut, "Hint: pass --replace") {
		t.Fatalf("install from the mirror: %d\n%s\nwant %s", code, errOut, want)
	}
	code, out, errOut = e.run(t, srv.URL, false, "", "extension", "outdated")
	if code != 0 || !strings.Contains(out, "@fixture/a") || !strings.Contains(out, "@fixture/b") {
		t.Fatalf("outdated on the index it came from: %d\n%s\n%s", code, out, errOut)
	}
}

// TestUpdateLooseningNeedsConsent: an update that lets a need-approval
// tool run without approval, or adds a tool, is shown by outdated and
// applied only with --yes or a yes at the prompt; never without a terminal.
func TestUpdateLooseningNeedsConsent(t *testing.T) {
	dir := t.TempDir()
	caps := []string{"tool-definitions", "tool-execution"}
	buildRegistry(t, dir,
		fixtureExt{ID: "fixture.loose", Package: "@fixture/loose", Versions: []fixtureVersion{
			{Version: "1.0.0", Spirit: helloSpirit(caps, map[string]string{"run": "need-approval"})},
			{Version: "1.1.0", Spirit: helloSpirit(caps, map[string]string{"run": "allowed"})},
		}},
		fixtureExt{ID: "fixture.more", Package: "@fixture/more", Versions: []fixtureVersion{
			{Version: "1.0.0", Spirit: helloSpirit(caps, map[string]string{"run": ""})},
			{Version: "1.1.0", Spirit: helloSpirit(caps, map[string]string{"run": "", "rm": ""})},
		}})
	srv := httptest.NewServer(http.FileServer(http.Dir(dir)))
	defer srv.Close()
	e := &cliEnv{data: t.TempDir(), now: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)}
	for _, id := range []string{"fixture.loose", "fixture.more"} {
		if code, out, errOut := e.run(t, srv.URL, false, "", "extension", "marketplace", "install", id, "--version", "1.0.0"); code != 0 {
			t.Fatalf("install %s: %d\n%s\n%s", id, code, out, errOut)
		}
	}

	code, out, errOut := e.run(t, srv.URL, false, "", "extension", "outdated")
	if code != 0 || !strings.Contains(out, "loosens approval: run need-approval → allowed") || !strings.Contains(out, "adds tools: rm") {
		t.Fatalf("outdated: %d\n%s\n%s", code, out, errOut)
	}
	_, out, _ = e.run(t, srv.URL, false, "", "--json", "extension", "outdated")
	if !strings.Contains(out, `"approvalModes": [`) || !strings.Contains(out, `"from": "need-approval"`) {
		t.Errorf("outdated --json lacks the approval change:\n%s", out)
	}

	code, out, errOut = e.run(t, srv.URL, false, "", "extension", "update", "--all")
	if code != ExitFailure || strings.Contains(out, "Updated") ||
		!strings.Contains(errOut, "@fixture/loose: the update was not accepted: 1.1.0 loosens approval: run need-approval → allowed") ||
		!strings.Contains(errOut, "@fixture/more: the update was not accepted: 1.1.0 adds tools: rm") {
		t.Fatalf("update --all without a terminal: %d\n%s\n%s", code, out, errOut)
	}
	for _, id := range []string{"@fixture/loose", "@fixture/more"} {
		if rec := readInstalledRecord(t, e.data, id); rec.Version != "1.0.0" {
			t.Errorf("%s was updated to %s without consent", id, rec.Version)
		}
	}

	code, out, errOut = e.run(t, srv.URL, true, "n\n", "extension", "update", "@fixture/loose")
	if code != ExitFailure || !strings.Contains(errOut, "Updating @fixture/loose 1.0.0 → 1.1.0 loosens approval: run need-approval → allowed. Accept? [y/N]") {
		t.Fatalf("declined at the prompt: %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = e.run(t, srv.URL, true, "y\n", "extension", "update", "@fixture/loose")
	if code != 0 || !strings.Contains(out, "Updated @fixture/loose 1.0.0 → 1.1.0 (loosens approval: run need-approval → allowed; granted)") {
		t.Fatalf("accepted at the prompt: %d\n%s\n%s", code, out, errOut)
	}
	code, out, errOut = e.run(t, srv.URL, false, "", "extension", "update", "@fixture/more", "--yes")
	if code != 0 || !strings.Contains(out, "Updated @fixture/more 1.0.0 → 1.1.0") {
		t.Fatalf("--yes: %d\n%s\n%s", code, out, errOut)
	}
}
