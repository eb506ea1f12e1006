package npmtest

import (
	"context"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// PublishSpirit makes spirit's npm packages for this machine with make
// dist's program (internal/dist) and publishes them under the tag latest:
// the main package @spiritagents/spirit and the platform package it
// installs here. Guides start with `npm install @spiritagents/spirit`.
func (v *Verdaccio) PublishSpirit(t testing.TB) {
	t.Helper()
	target := runtime.GOOS + "/" + runtime.GOARCH
	out := filepath.Join(t.TempDir(), "dist")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "run", "./internal/dist", "-targets", target, "-out", out)
	cmd.Dir = RepoRoot()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run ./internal/dist -targets %s: %v\n%s", target, err, b)
	}
	tarballs, err := filepath.Glob(filepath.Join(out, "npm", "*.tgz"))
	if err != nil || len(tarballs) != 2 {
		t.Fatalf("dist made %q, want the main and one platform package (%v)", tarballs, err)
	}
	v.PublishTarballs(t, "latest", tarballs...)
}
