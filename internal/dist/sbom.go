package main

import (
	"bytes"
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"
)

// The CycloneDX 1.5 JSON document of one binary: the main module, every
// module linked into it (from the binary's own build information, so the
// SBOM says what was built, not what go.mod lists) and the Go standard
// library, each with its package URL, so scanners look up advisories by
// the real module path and version.

type cdxBOM struct {
	BOMFormat    string          `json:"bomFormat"`
	SpecVersion  string          `json:"specVersion"`
	SerialNumber string          `json:"serialNumber"`
	Version      int             `json:"version"`
	Metadata     cdxMetadata     `json:"metadata"`
	Components   []cdxComponent  `json:"components"`
	Dependencies []cdxDependency `json:"dependencies"`
}

type cdxMetadata struct {
	Timestamp string       `json:"timestamp"`
	Tools     cdxTools     `json:"tools"`
	Component cdxComponent `json:"component"`
}

type cdxTools struct {
	Components []cdxComponent `json:"components"`
}

type cdxComponent struct {
	Type       string        `json:"type"`
	BOMRef     string        `json:"bom-ref,omitempty"`
	Name       string        `json:"name"`
	Version    string        `json:"version,omitempty"`
	PURL       string        `json:"purl,omitempty"`
	Hashes     []cdxHash     `json:"hashes,omitempty"`
	Licenses   []cdxLicense  `json:"licenses,omitempty"`
	Properties []cdxProperty `json:"properties,omitempty"`
}

type cdxHash struct {
	Alg     string `json:"alg"`
	Content string `json:"content"`
}

type cdxLicense struct {
	License struct {
		ID string `json:"id"`
	} `json:"license"`
}

type cdxProperty struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

type cdxDependency struct {
	Ref       string   `json:"ref"`
	DependsOn []string `json:"dependsOn"`
}

// goPURL is the package URL of a Go module version.
func goPURL(path, version string) string {
	return "pkg:golang/" + path + "@" + strings.ReplaceAll(version, "+", "%2B")
}

// makeSBOM reads the build information of the binary at bin and returns
// its CycloneDX JSON.
func makeSBOM(bin string, t target, rel *Release) ([]byte, error) {
	data, err := os.ReadFile(bin)
	if err != nil {
		return nil, err
	}
	info, err := buildinfo.Read(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("reading the build information of %s: %w", bin, err)
	}
	sum := sha256.Sum256(data)
	mainRef := goPURL(modulePath, "v"+rel.Semver)
	props := []cdxProperty{{"spirit:goos", t.goos}, {"spirit:goarch", t.goarch}, {"spirit:commit", rel.Commit}}
	for _, s := range info.Settings {
		props = append(props, cdxProperty{"go:build:" + s.Key, s.Value})
	}
	var mit cdxLicense
	mit.License.ID = "MIT"
	goVersion := strings.TrimPrefix(info.GoVersion, "go")
	bom := cdxBOM{
		BOMFormat:    "CycloneDX",
		SpecVersion:  "1.5",
		SerialNumber: serialOf(sum[:]),
		Version:      1,
		Metadata: cdxMetadata{
			Timestamp: rel.Time.Format(time.RFC3339),
			Tools:     cdxTools{Components: []cdxComponent{{Type: "application", Name: "spirit internal/dist"}}},
			Component: cdxComponent{
				Type: "application", BOMRef: mainRef, Name: "spirit", Version: rel.Semver, PURL: mainRef,
				Hashes:     []cdxHash{{Alg: "SHA-256", Content: hex.EncodeToString(sum[:])}},
				Licenses:   []cdxLicense{mit},
				Properties: props,
			},
		},
		Components: []cdxComponent{},
	}
	stdRef := "pkg:golang/stdlib@" + goVersion
	bom.Components = append(bom.Components, cdxComponent{Type: "library", BOMRef: stdRef, Name: "stdlib", Version: goVersion, PURL: stdRef})
	deps := []string{stdRef}
	for _, d := range info.Deps {
		if d.Replace != nil {
			d = d.Replace
		}
		ref := goPURL(d.Path, d.Version)
		c := cdxComponent{Type: "library", BOMRef: ref, Name: d.Path, Version: d.Version, PURL: ref}
		if d.Sum != "" {
			c.Properties = []cdxProperty{{"go:module:sum", d.Sum}}
		}
		bom.Components = append(bom.Components, c)
		deps = append(deps, ref)
	}
	bom.Dependencies = []cdxDependency{{Ref: mainRef, DependsOn: deps}}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(bom); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// serialOf derives the BOM's serial number (a UUID, version 8) from the
// binary's digest, so that the same binary gets the same document.
func serialOf(sum []byte) string {
	u := sum[:16:16]
	u = append([]byte(nil), u...)
	u[6] = u[6]&0x0f | 0x80
	u[8] = u[8]&0x3f | 0x80
	h := hex.EncodeToString(u)
	return "urn:uuid:" + h[0:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:32]
}
