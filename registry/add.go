package registry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/spiritagents/spirit/internal/within"
	"github.com/spiritagents/spirit/manifest"
	"github.com/spiritagents/spirit/npm"
)

// extensionIDPattern is the entry schema's extensionId pattern.
var extensionIDPattern = regexp.MustCompile(`^[a-z0-9]+(?:[.-][a-z0-9]+)*\.[a-z0-9]+(?:[.-][a-z0-9]+)*$`)

// ErrEntryExists is returned by Add when the extension id or the package
// already has an entry.
var ErrEntryExists = errors.New("entry already exists")

// AddOptions tune Add.
type AddOptions struct {
	// Root is the registry repository.
	Root string
	// Package is the npm package name, ID the extension id to list it as.
	Package, ID string
	// Version is the version to list; "" means the latest dist-tag.
	Version string
	// NPM fetches the packument.
	NPM Packuments
}

// AddResult says what Add wrote.
type AddResult struct {
	EntryPath  string `json:"entryPath"`
	ReadmePath string `json:"readmePath"`
	// ReadmeWritten is false when a README.md was already there and kept.
	ReadmeWritten bool   `json:"readmeWritten"`
	Version       string `json:"version"`
	// Warnings are the manifest's warnings.
	Warnings []manifest.Problem `json:"warnings"`
}

// Add lists an npm package in the registry: it fetches the packument,
// checks the version's package.json (spiritExtension included) with the
// manifest rules, and writes registry/extensions/<id>/entry.json (one
// stable, unverified version, status listed, not featured) and, unless one
// exists, a README.md from the package's readme or its description.
func Add(ctx context.Context, opts AddOptions) (*AddResult, error) {
	if !extensionIDPattern.MatchString(opts.ID) {
		return nil, fmt.Errorf("extension id %q does not match %s", opts.ID, extensionIDPattern)
	}
	if !npm.ValidOldName(opts.Package) {
		return nil, fmt.Errorf("%q is not a valid npm package name", opts.Package)
	}
	root, err := filepath.Abs(opts.Root)
	if err != nil {
		return nil, err
	}
	dir := filepath.Join(extensionsDir(root), opts.ID)
	entryPath := filepath.Join(dir, "entry.json")
	if _, err := within.Stat(root, entryPath); err == nil {
		return nil, fmt.Errorf("%w: %s", ErrEntryExists, entryPath)
	}
	files, err := findFiles(root, "entry.json")
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		data, err := within.ReadFile(root, f)
		if err != nil {
			return nil, err
		}
		doc, err := ParseValue(data)
		if err != nil {
			continue
		}
		if Equal(fieldOf(doc, "extensionId"), String(opts.ID)) || Equal(fieldOf(doc, "packageName"), String(opts.Package)) {
			return nil, fmt.Errorf("%w: %s already lists %s or %s", ErrEntryExists, f, opts.ID, opts.Package)
		}
	}
	data, err := opts.NPM.FullPackument(ctx, opts.Package)
	if err != nil {
		return nil, err
	}
	var doc struct {
		DistTags map[string]string          `json:"dist-tags"`
		Versions map[string]json.RawMessage `json:"versions"`
		Readme   string                     `json:"readme"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("npm metadata for %s: %w", opts.Package, err)
	}
	version := opts.Version
	if version == "" {
		version = doc.DistTags["latest"]
		if version == "" {
			return nil, fmt.Errorf("%s has no latest dist-tag; pass --version", opts.Package)
		}
	}
	raw, ok := doc.Versions[version]
	if !ok {
		return nil, fmt.Errorf("Version '%s' was not found in npm metadata for %s.", version, opts.Package)
	}
	report := manifest.Validate(raw, nil, manifest.Options{})
	if err := report.Err(); err != nil {
		return nil, fmt.Errorf("%s@%s: %w", opts.Package, version, err)
	}
	res := &AddResult{EntryPath: entryPath, ReadmePath: filepath.Join(dir, "README.md"), Version: version}
	for _, p := range report.Problems {
		if p.Severity == manifest.SeverityWarning {
			res.Warnings = append(res.Warnings, p)
		}
	}
	entry := Object().
		Set("$schema", String("../../../schemas/marketplace-entry.schema.json")).
		Set("schemaVersion", Number("1")).
		Set("extensionId", String(opts.ID)).
		Set("packageName", String(opts.Package)).
		Set("status", String("listed")).
		Set("featured", Bool(false)).
		Set("defaultVersion", String(version)).
		Set("defaultReviewStatus", String("unverified")).
		Set("versions", Array(Object().Set("version", String(version)).Set("channel", String("stable")).Set("reviewStatus", String("unverified"))))
	readme := readmeFor(opts.Package, version, raw, doc.Readme)
	if _, err := within.Stat(root, res.ReadmePath); errors.Is(err, os.ErrNotExist) {
		if err := within.WriteFile(root, res.ReadmePath, []byte(readme), 0o644); err != nil {
			return nil, err
		}
		res.ReadmeWritten = true
	}
	if err := within.WriteFile(root, entryPath, Encode(entry), 0o644); err != nil {
		return nil, err
	}
	return res, nil
}

// readmeFor is the package's own readme when npm has one, else a short
// page from its displayName and description.
func readmeFor(pkg, version string, manifestJSON json.RawMessage, readme string) string {
	var m struct {
		Description     string `json:"description"`
		Readme          string `json:"readme"`
		SpiritExtension struct {
			DisplayName string `json:"displayName"`
		} `json:"spiritExtension"`
	}
	_ = json.Unmarshal(manifestJSON, &m)
	for _, r := range []string{m.Readme, readme} {
		if !isBlank(r) && r != "ERROR: No README data found!" {
			if !strings.HasSuffix(r, "\n") {
				r += "\n"
			}
			return r
		}
	}
	title := strings.TrimSpace(m.SpiritExtension.DisplayName)
	if title == "" {
		title = pkg
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", title)
	if d := strings.TrimSpace(m.Description); d != "" {
		fmt.Fprintf(&b, "%s\n\n", d)
	}
	fmt.Fprintf(&b, "Install: `spirit extension install npm:%s@%s`\n", pkg, version)
	return b.String()
}
