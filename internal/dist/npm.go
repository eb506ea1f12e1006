package main

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The npm packages: @spiritagents/spirit holds only the launcher
// (launcher.js, installed as the `spirit` command) and lists one package per
// platform as optionalDependencies; npm installs the one whose os and cpu
// match the machine and skips the others. No package has install scripts,
// and nothing is downloaded at install time.

//go:embed launcher.js
var launcherJS []byte

const (
	npmScope = "@spiritagents"
	npmMain  = npmScope + "/spirit"
	repoURL  = "git+https://github.com/spiritagents/spirit.git"
)

// npmPlatforms are the platform packages of every release target, in
// AllTargets order: the main package lists all of them, whatever subset a
// run builds, since npm skips an optional dependency it cannot get.
func npmPlatforms() []target {
	ts, _ := parseTargets(AllTargets)
	return ts
}

func (t target) npmName() string { return npmMain + "-" + t.npmOS() + "-" + t.npmCPU() }

type packageJSON struct {
	Name                 string            `json:"name"`
	Version              string            `json:"version"`
	Description          string            `json:"description"`
	License              string            `json:"license"`
	Repository           map[string]string `json:"repository"`
	Keywords             []string          `json:"keywords,omitempty"`
	OS                   []string          `json:"os,omitempty"`
	CPU                  []string          `json:"cpu,omitempty"`
	Bin                  map[string]string `json:"bin,omitempty"`
	Files                []string          `json:"files"`
	Engines              map[string]string `json:"engines,omitempty"`
	OptionalDependencies map[string]string `json:"optionalDependencies,omitempty"`
	PreferUnplugged      bool              `json:"preferUnplugged,omitempty"`
}

func writeJSONFile(path string, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// writeFiles writes name → data under dir with mode 0644, executables 0755.
func writeFiles(dir string, files map[string][]byte, executables ...string) error {
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
	for _, name := range executables {
		// Explicit: the umask must not decide the mode npm pack records.
		if err := os.Chmod(filepath.Join(dir, filepath.FromSlash(name)), 0o755); err != nil {
			return err
		}
	}
	return nil
}

// writePlatformPackage writes the package of one target's binary into dir.
func writePlatformPackage(dir string, t target, rel *Release, bin, license []byte) error {
	binName := "bin/" + t.exe()
	pj := packageJSON{
		Name:        t.npmName(),
		Version:     rel.Semver,
		Description: fmt.Sprintf("The spirit binary for %s %s; install %s, which runs it.", t.npmOS(), t.npmCPU(), npmMain),
		License:     "MIT",
		Repository:  map[string]string{"type": "git", "url": repoURL},
		OS:          []string{t.npmOS()},
		CPU:         []string{t.npmCPU()},
		Files:       []string{binName},
		// Package managers that run packages from an archive (Yarn PnP)
		// must unpack this one: the binary is executed from disk.
		PreferUnplugged: true,
	}
	readme := fmt.Sprintf("# %s\n\nThe `spirit` binary for %s %s. Install [`%s`](https://www.npmjs.com/package/%s) instead:\nit depends on this package and runs the binary.\n",
		pj.Name, t.npmOS(), t.npmCPU(), npmMain, npmMain)
	if err := writeFiles(dir, map[string][]byte{binName: bin, "LICENSE": license, "README.md": []byte(readme)}, binName); err != nil {
		return err
	}
	return writeJSONFile(filepath.Join(dir, "package.json"), pj)
}

// writeMainPackage writes @spiritagents/spirit into dir.
func writeMainPackage(dir string, rel *Release, license []byte) error {
	optional := map[string]string{}
	for _, t := range npmPlatforms() {
		optional[t.npmName()] = rel.Semver
	}
	pj := packageJSON{
		Name:                 npmMain,
		Version:              rel.Semver,
		Description:          "spirit, the extension tool of Spirit Agent: create, validate, pack, run and install extensions.",
		License:              "MIT",
		Repository:           map[string]string{"type": "git", "url": repoURL},
		Keywords:             []string{"spirit-agent", "spirit-extension", "cli"},
		Bin:                  map[string]string{"spirit": "bin/spirit.js"},
		Files:                []string{"bin/spirit.js"},
		Engines:              map[string]string{"node": ">=18"},
		OptionalDependencies: optional,
	}
	readme := "# " + npmMain + "\n\n" +
		"spirit, the extension tool of Spirit Agent, for extension authors:\n\n" +
		"```sh\nnpm install --save-dev " + npmMain + "\nnpx spirit extension validate .\nnpx spirit extension pack\n```\n\n" +
		"npm installs the native binary of your platform from one of the optional dependencies\n" +
		"(`" + npmMain + "-<os>-<cpu>`); nothing is downloaded at install time and no install\n" +
		"script runs. Other ways to install: https://github.com/spiritagents/spirit#install\n"
	files := map[string][]byte{"bin/spirit.js": launcherJS, "LICENSE": license, "README.md": []byte(readme)}
	if err := writeFiles(dir, files, "bin/spirit.js"); err != nil {
		return err
	}
	return writeJSONFile(filepath.Join(dir, "package.json"), pj)
}

// npmPack runs `npm pack` on the package in dir, the tarball going to dest.
func npmPack(ctx context.Context, dir, dest, cache string) error {
	npm := os.Getenv("SPIRIT_NPM")
	if npm == "" {
		npm = "npm"
	}
	cmd := exec.CommandContext(ctx, npm, "pack", "--pack-destination", dest, "--ignore-scripts", "--loglevel=error")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "npm_config_cache="+cache, "npm_config_update_notifier=false")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("npm pack in %s failed (%v):\n%s\nHint: make dist needs Node.js and npm (SPIRIT_NPM names npm)", dir, err, strings.TrimSpace(stderr.String()))
	}
	return nil
}
