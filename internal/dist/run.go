package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
)

// AllTargets are the release targets, GOOS/GOARCH.
var AllTargets = []string{
	"linux/amd64", "linux/arm64",
	"darwin/amd64", "darwin/arm64",
	"windows/amd64", "windows/arm64",
}

// modulePath is the module whose cmd/spirit is built.
const modulePath = "github.com/spiritagents/spirit"

// Options say what to make.
type Options struct {
	// Repo is the repository root; "" finds it with git from the current directory.
	Repo string
	// Out is the output directory, replaced when everything is made.
	Out string
	// Targets are GOOS/GOARCH pairs, a subset of AllTargets; nil means all.
	Targets []string
	// Version is the version to stamp; "" means git describe.
	Version string
	// NPM also makes the npm packages.
	NPM bool
	// Log receives one line per step; nil means none.
	Log io.Writer
}

// Release describes what a run made.
type Release struct {
	Version string // as given or described, passed to the binary
	Semver  string // the version in file names and npm packages
	Commit  string
	Time    time.Time // the commit's, every timestamp of the output
	Files   []string  // paths relative to Out: those of checksums.txt, sorted, then checksums.txt
}

// target is one GOOS/GOARCH and its names.
type target struct {
	goos, goarch string
}

func (t target) exe() string {
	if t.goos == "windows" {
		return "spirit.exe"
	}
	return "spirit"
}

// npmOS and npmCPU are Node's process.platform and process.arch.
func (t target) npmOS() string {
	if t.goos == "windows" {
		return "win32"
	}
	return t.goos
}

func (t target) npmCPU() string {
	if t.goarch == "amd64" {
		return "x64"
	}
	return t.goarch
}

func parseTargets(list []string) ([]target, error) {
	if len(list) == 0 {
		list = AllTargets
	}
	var out []target
	for _, s := range list {
		if !slices.Contains(AllTargets, s) {
			return nil, fmt.Errorf("unknown target %q: use GOOS/GOARCH from %s", s, strings.Join(AllTargets, " "))
		}
		goos, goarch, _ := strings.Cut(s, "/")
		t := target{goos, goarch}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	return out, nil
}

// Run makes the release files described by opts.
func Run(ctx context.Context, opts Options) (*Release, error) {
	targets, err := parseTargets(opts.Targets)
	if err != nil {
		return nil, err
	}
	if opts.Log == nil {
		opts.Log = io.Discard
	}
	if opts.Out == "" {
		return nil, fmt.Errorf("no output directory")
	}
	repo := opts.Repo
	if repo == "" {
		if repo, err = git(ctx, ".", "rev-parse", "--show-toplevel"); err != nil {
			return nil, err
		}
	}
	rel := &Release{Version: opts.Version}
	if rel.Version == "" {
		if rel.Version, err = git(ctx, repo, "describe", "--tags", "--always", "--dirty"); err != nil {
			return nil, err
		}
	}
	if rel.Semver, err = semverOf(rel.Version); err != nil {
		return nil, err
	}
	if rel.Commit, err = git(ctx, repo, "rev-parse", "HEAD"); err != nil {
		return nil, err
	}
	epoch := os.Getenv("SOURCE_DATE_EPOCH")
	if epoch == "" {
		if epoch, err = git(ctx, repo, "log", "-1", "--format=%ct"); err != nil {
			return nil, err
		}
	}
	sec, err := strconv.ParseInt(epoch, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("invalid SOURCE_DATE_EPOCH %q: want seconds since 1970", epoch)
	}
	rel.Time = time.Unix(sec, 0).UTC()

	// Everything is made in a sibling of Out, which replaces it at the end.
	out, err := filepath.Abs(opts.Out)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return nil, err
	}
	work, err := os.MkdirTemp(filepath.Dir(out), "."+filepath.Base(out)+".tmp-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(work)
	stage := filepath.Join(work, "out")
	if err := os.MkdirAll(filepath.Join(stage, "npm"), 0o755); err != nil {
		return nil, err
	}
	docs := map[string][]byte{}
	for _, name := range []string{"LICENSE", "README.md"} {
		if docs[name], err = os.ReadFile(filepath.Join(repo, name)); err != nil {
			return nil, err
		}
	}

	var npmDirs []string
	for _, t := range targets {
		fmt.Fprintf(opts.Log, "dist: building %s/%s\n", t.goos, t.goarch)
		bin := filepath.Join(work, "bin", t.goos+"_"+t.goarch, t.exe())
		if err := buildBinary(ctx, repo, t, rel, bin); err != nil {
			return nil, err
		}
		binData, err := os.ReadFile(bin)
		if err != nil {
			return nil, err
		}
		base := fmt.Sprintf("spirit_%s_%s_%s", rel.Semver, t.goos, t.goarch)
		entries := []entry{
			{name: t.exe(), mode: 0o755, data: binData},
			{name: "LICENSE", mode: 0o644, data: docs["LICENSE"]},
			{name: "README.md", mode: 0o644, data: docs["README.md"]},
		}
		archive := base + ".tar.gz"
		write := writeTarGz
		if t.goos == "windows" {
			archive, write = base+".zip", writeZip
		}
		if err := write(filepath.Join(stage, archive), base, entries, rel.Time); err != nil {
			return nil, err
		}
		sbom, err := makeSBOM(bin, t, rel)
		if err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(stage, archive+".sbom.json"), sbom, 0o644); err != nil {
			return nil, err
		}
		if opts.NPM {
			dir := filepath.Join(work, "npm", t.npmOS()+"-"+t.npmCPU())
			if err := writePlatformPackage(dir, t, rel, binData, docs["LICENSE"]); err != nil {
				return nil, err
			}
			npmDirs = append(npmDirs, dir)
		}
	}
	if opts.NPM {
		dir := filepath.Join(work, "npm", "main")
		if err := writeMainPackage(dir, rel, docs["LICENSE"]); err != nil {
			return nil, err
		}
		npmDirs = append(npmDirs, dir)
		for _, dir := range npmDirs {
			fmt.Fprintf(opts.Log, "dist: npm pack %s\n", filepath.Base(dir))
			if err := npmPack(ctx, dir, filepath.Join(stage, "npm"), filepath.Join(work, "npm-cache")); err != nil {
				return nil, err
			}
		}
	}
	if rel.Files, err = writeChecksums(stage); err != nil {
		return nil, err
	}
	if err := os.RemoveAll(out); err != nil {
		return nil, err
	}
	if err := os.Rename(stage, out); err != nil {
		return nil, err
	}
	fmt.Fprintf(opts.Log, "dist: %d files in %s (version %s, commit %s)\n", len(rel.Files), opts.Out, rel.Semver, rel.Commit)
	return rel, nil
}

// buildBinary builds cmd/spirit for t into path.
func buildBinary(ctx context.Context, repo string, t target, rel *Release, path string) error {
	pkg := modulePath + "/internal/build"
	ldflags := fmt.Sprintf("-s -w -X %s.Version=%s -X %s.Commit=%s -X %s.Date=%s",
		pkg, rel.Version, pkg, rel.Commit, pkg, rel.Time.Format(time.RFC3339))
	cmd := exec.CommandContext(ctx, "go", "build", "-trimpath", "-buildvcs=false", "-ldflags", ldflags, "-o", path, "./cmd/spirit")
	cmd.Dir = repo
	// Fixed settings: nothing of the caller's environment changes the bytes.
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+t.goos, "GOARCH="+t.goarch,
		"GOAMD64=v1", "GOARM64=v8.0", "GOFLAGS=-mod=readonly", "GOEXPERIMENT=")
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stderr, &stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("building spirit for %s/%s failed (%v):\n%s", t.goos, t.goarch, err, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// writeChecksums writes checksums.txt (sha256sum format) over every file
// under dir and returns their names.
func writeChecksums(dir string) ([]string, error) {
	var names []string
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		names = append(names, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	var b strings.Builder
	for _, name := range names {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			return nil, err
		}
		sum := sha256.Sum256(data)
		fmt.Fprintf(&b, "%s  %s\n", hex.EncodeToString(sum[:]), name)
	}
	if err := os.WriteFile(filepath.Join(dir, "checksums.txt"), []byte(b.String()), 0o644); err != nil {
		return nil, err
	}
	return append(names, "checksums.txt"), nil
}

func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return strings.TrimSpace(string(out)), nil
}
