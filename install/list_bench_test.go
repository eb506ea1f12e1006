package install_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/paths"
)

// BenchmarkList300 measures install.ListAll and ListAllBrief over 300
// installed extensions, each a copy of testdata/examples/hello-tools under
// its own name and display name, as scripts/bench-scale.sh makes them:
// brief is what `spirit extension list` does after the process started.
func BenchmarkList300(b *testing.B) {
	p := scaleTree(b, 300)
	for _, c := range []struct {
		name string
		list func(*paths.Paths) ([]install.Installed, error)
	}{{"all", install.ListAll}, {"brief", install.ListAllBrief}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				list, err := c.list(p)
				if err != nil {
					b.Fatal(err)
				}
				if len(list) != 300 || list[0].Manifest == nil {
					b.Fatalf("listed %d", len(list))
				}
			}
		})
	}
}

// scaleTree installs n copies of testdata/examples/hello-tools.
func scaleTree(b *testing.B, n int) *paths.Paths {
	src := filepath.Join("..", "testdata", "examples", "hello-tools")
	manifest, err := os.ReadFile(filepath.Join(src, "package.json"))
	if err != nil {
		b.Fatal(err)
	}
	index, err := os.ReadFile(filepath.Join(src, "index.mjs"))
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	in := &install.Installer{Paths: paths.New(filepath.Join(dir, "data"), paths.HostCLI)}
	for i := 1; i <= n; i++ {
		pkg := filepath.Join(dir, "src", fmt.Sprintf("%04d", i))
		if err := os.MkdirAll(pkg, 0o755); err != nil {
			b.Fatal(err)
		}
		m := strings.Replace(string(manifest), `"name": "hello-tools"`, fmt.Sprintf(`"name": "scale-ext-%04d"`, i), 1)
		m = strings.Replace(m, `"displayName": "Hello Tools"`, fmt.Sprintf(`"displayName": "Scale %04d"`, i), 1)
		if err := os.WriteFile(filepath.Join(pkg, "package.json"), []byte(m), 0o644); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(pkg, "index.mjs"), index, 0o644); err != nil {
			b.Fatal(err)
		}
		if _, err := in.Install(context.Background(), install.Request{Path: pkg}); err != nil {
			b.Fatal(err)
		}
	}
	return in.Paths
}
