package install

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/spiritagents/spirit/manifest"
)

// sortInstalled, which works out each name's collation key once, gives
// the order of a stable sort by ListOrder: names that differ only in case
// or accents, equal names (then by id), broken installs (by id), Han.
func TestSortInstalledIsListOrder(t *testing.T) {
	named := func(id, name string) Installed {
		return Installed{ID: id, Manifest: &manifest.Manifest{ID: id, Name: name}}
	}
	base := []Installed{
		named("b", "Tools"), named("a", "Tools"), named("c", "tools"), named("d", "Töols"),
		named("e", "中文"), named("f", "阿"), named("g", "_x"), named("h", "1abc"),
		named("i", "Zed"), named("j", "Apple"), named("k", "éclair"), named("l", "z 9"),
		{ID: "broken-b"}, {ID: "broken-a"}, {ID: "Tools"}, named("m", ""), named("A", "Tools"),
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		got := slices.Clone(base)
		r.Shuffle(len(got), func(i, j int) { got[i], got[j] = got[j], got[i] })
		want := slices.Clone(got)
		cmp := ListOrder()
		slices.SortStableFunc(want, func(a, b Installed) int { return cmp(&a, &b) })
		sortInstalled(got)
		for i := range got {
			if got[i].ID != want[i].ID {
				t.Fatalf("at %d: got %s, want %s", i, got[i].ID, want[i].ID)
			}
		}
	}
}
