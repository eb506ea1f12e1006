package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spiritagents/spirit/exthost"
	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/internal/rmtree"
	"github.com/spiritagents/spirit/manifest"
	"github.com/spiritagents/spirit/paths"
)

// activateChecker runs packages in the real runner for validate --activate.
type activateChecker struct {
	f    *Factory
	host paths.Host
	// timeout bounds activation; zero means exthost.DefaultActivateTimeout.
	timeout time.Duration
}

// check activates the package at path (a directory, package.json, .zip or
// .tgz, already valid statically) in a throwaway data directory, with no
// secret store, and reports the runtime contract as problems: activation
// fails or times out (with the place Node reports); a declared tool has no
// handler (error); a handler has no declared tool (warning); system-prompt
// is requested but no prompt is given (error); main is an ES module in a
// package without "type": "module" (warning).
func (c *activateChecker) check(ctx context.Context, path string) []manifest.Problem {
	fail := func(ptr, msg, detail string) []manifest.Problem {
		return []manifest.Problem{{Pointer: ptr, InDocument: true, Message: msg, Detail: detail, Severity: manifest.SeverityError}}
	}
	tmp, err := os.MkdirTemp("", "spirit-activate-")
	if err != nil {
		return fail("", "cannot activate: "+err.Error(), "")
	}
	defer rmtree.Remove(tmp)
	dir, m, err := c.unpack(path, filepath.Join(tmp, "package"))
	if err != nil {
		return fail("", "cannot activate: "+err.Error(), "")
	}
	if m.Main == "" {
		return nil
	}
	p := paths.New(filepath.Join(tmp, "data"), c.host)
	ext := install.Installed{ID: m.ID, Dir: dir, Manifest: m, InstalledAtUnixMs: 1}
	h, err := exthost.New(exthost.Options{
		Paths:   p,
		Getenv:  c.f.Getenv,
		List:    func() ([]install.Installed, error) { return []install.Installed{ext}, nil },
		Sandbox: newExtSandbox(c.f, p).Wrap,

		ActivateTimeout: c.timeout,
	})
	if err != nil {
		return fail("", err.Error(), "")
	}
	defer h.Close()
	act, err := h.Activate(ctx, m.ID)
	var xe *exthost.ExtensionError
	var te *exthost.TimeoutError
	switch {
	case errors.As(err, &xe):
		return fail("/main", xe.Message, xe.Location)
	case errors.As(err, &te):
		return fail("/main", fmt.Sprintf("Activating the extension did not finish within %s.", te.After), "")
	case err != nil:
		return fail("/main", "cannot activate: "+err.Error(), "")
	}
	var probs []manifest.Problem
	add := func(ptr string, sev manifest.Severity, msg string) {
		probs = append(probs, manifest.Problem{Pointer: ptr, InDocument: true, Message: msg, Severity: sev})
	}
	if act.ModuleTypeless {
		add("/main", manifest.SeverityWarning, fmt.Sprintf(
			"main %s is an ES module, but package.json does not say \"type\": \"module\"; Node parses it twice and warns at every start.", m.Main))
		probs[len(probs)-1].Hint = `add "type": "module" to package.json, or name main with .mjs`
	}
	wantsInstance := len(m.Tools()) > 0 || m.HasCapability(exthost.CapSystemPrompt)
	if !act.Instance && wantsInstance {
		add("/main", manifest.SeverityError, "The extension did not return a callable instance: "+m.Name)
		return probs
	}
	declared := map[string]bool{}
	for i, t := range m.Tools() {
		declared[t.Name] = true
		if !act.Handles(t.Name) {
			add("/spiritExtension/contributes/tools/"+strconv.Itoa(i)+"/name", manifest.SeverityError,
				"The extension does not export a tool handler: "+t.Name)
		}
	}
	for _, name := range act.Tools {
		if !declared[name] {
			add("/spiritExtension/contributes/tools", manifest.SeverityWarning,
				fmt.Sprintf("activate returns a handler for tool %s, which contributes.tools does not declare; it is never called.", name))
		}
	}
	if m.HasCapability(exthost.CapSystemPrompt) {
		if !act.SystemPrompt {
			add("/spiritExtension/requestedCapabilities", manifest.SeverityError,
				"The extension requests system-prompt, but activate returns neither a non-empty systemPrompt string nor a getSystemPrompt function.")
		} else if text, err := h.ExtensionPrompt(ctx, m.ID); err != nil {
			add("/spiritExtension/requestedCapabilities", manifest.SeverityError, "getSystemPrompt failed: "+err.Error())
		} else if strings.TrimSpace(text) == "" {
			add("/spiritExtension/requestedCapabilities", manifest.SeverityWarning,
				"The extension requests system-prompt, but its prompt is empty (getSystemPrompt must return a string).")
		}
	}
	return probs
}

// unpack returns the package directory of path and its manifest: a
// directory as it is, an archive copied into dest.
func (c *activateChecker) unpack(path, dest string) (string, *manifest.Manifest, error) {
	data, fsys, err := openPackage(path)
	if err != nil {
		return "", nil, err
	}
	r := manifest.Validate(data, fsys, manifest.Options{Host: string(c.host)})
	if r.Manifest == nil {
		return "", nil, errors.New("no manifest")
	}
	info, err := os.Stat(path)
	if err != nil {
		return "", nil, err
	}
	switch {
	case info.IsDir():
		dir, err := filepath.Abs(path)
		return dir, r.Manifest, err
	case strings.EqualFold(filepath.Ext(path), ".json"):
		dir, err := filepath.Abs(filepath.Dir(path))
		return dir, r.Manifest, err
	}
	if err := os.CopyFS(dest, fsys); err != nil {
		return "", nil, err
	}
	return dest, r.Manifest, nil
}
