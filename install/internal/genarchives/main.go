// Command genarchives writes the install test corpus into testdata/install:
// malicious/<name> with the exact expected error in malicious/<name>.err,
// and good/ packages used by the command tests. Run it from the repository
// root: go run ./install/internal/genarchives
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spiritagents/spirit/install/internal/corpus"
)

func main() {
	if err := run("testdata/install"); err != nil {
		fmt.Fprintln(os.Stderr, "genarchives:", err)
		os.Exit(1)
	}
}

func run(dir string) error {
	for _, sub := range []string{"malicious", "good"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			return err
		}
	}
	for _, c := range corpus.Cases() {
		if err := os.WriteFile(filepath.Join(dir, "malicious", c.Name), c.Data, 0o644); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "malicious", c.Name+".err"), []byte(c.Want+"\n"), 0o644); err != nil {
			return err
		}
	}
	for name, data := range corpus.Good() {
		if err := os.WriteFile(filepath.Join(dir, "good", name), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}
