package npmtest

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// PackSpirit makes spirit's npm packages for this machine into dir with
// make dist's program (internal/dist) and returns the two tarballs: the
// main package @spiritagents/spirit and the platform package it installs
// here. It needs no registry, so it can run while one starts.
func PackSpirit(dir string) ([]string, error) {
	target := runtime.GOOS + "/" + runtime.GOARCH
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "run", "./internal/dist", "-targets", target, "-out", dir)
	cmd.Dir = RepoRoot()
	if b, err := cmd.CombinedOutput(); err != nil {
		return nil, fmt.Errorf("go run ./internal/dist -targets %s: %v\n%s", target, err, b)
	}
	tarballs, err := filepath.Glob(filepath.Join(dir, "npm", "*.tgz"))
	if err != nil || len(tarballs) != 2 {
		return nil, fmt.Errorf("dist made %q, want the main and one platform package (%v)", tarballs, err)
	}
	return tarballs, nil
}

// PublishSpirit publishes spirit's npm packages for this machine
// (PackSpirit) under the tag latest. Guides start with `npm install
// @spiritagents/spirit`.
func (v *Verdaccio) PublishSpirit(t testing.TB) {
	t.Helper()
	tarballs, err := PackSpirit(filepath.Join(t.TempDir(), "dist"))
	if err != nil {
		t.Fatal(err)
	}
	v.PublishTarballs(t, "latest", tarballs...)
}
