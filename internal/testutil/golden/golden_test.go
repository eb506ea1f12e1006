package golden

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/spiritagents/spirit/internal/testutil/tempdir"
)

func TestRecordedIsNeverUpdatable(t *testing.T) {
	defer func(old bool) { *update = old }(*update)
	*update = true
	dir := tempdir.New(t)
	rec := filepath.Join(dir, "upstream", "want", "a.json")
	free := filepath.Join(dir, "mine", "want", "a.json")
	for _, f := range []string{rec, free} {
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(f, []byte("old"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(dir, "upstream", RecordedMarker), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if Updatable(rec) || !Recorded(rec) {
		t.Error("a file under a RECORDED folder is updatable")
	}
	if !Updatable(free) || Recorded(free) {
		t.Error("a plain golden file is not updatable")
	}
	Check(t, free, []byte("new"))
	if data, _ := os.ReadFile(free); string(data) != "new" {
		t.Errorf("-update did not rewrite %s: %q", free, data)
	}
	Check(t, rec, []byte("old")) // equal: passes without writing
	if data, _ := os.ReadFile(rec); string(data) != "old" {
		t.Errorf("recorded file rewritten: %q", data)
	}
}

// TestRecordedRepositoryFixture: the reference builder's recorded output
// in this repository is guarded.
func TestRecordedRepositoryFixture(t *testing.T) {
	if !Recorded(filepath.Join("..", "..", "..", "testdata", "registry", "upstream-demo", "want", "registry", "catalog.json")) {
		t.Error("testdata/registry/upstream-demo/want is not guarded by a RECORDED file")
	}
}
