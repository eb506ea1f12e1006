package collate

import (
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// readTable returns the header and the names of a table that node sorted.
func readTable(t *testing.T, file string) (string, []string) {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	return lines[0], lines[1:]
}

// TestChineseMatchesNode sorts shuffled copies of the names and expects
// the order node's ICU gave (testdata/zh-CN.order.txt, made from
// testdata/names.txt by the command in the test below).
func TestChineseMatchesNode(t *testing.T) {
	_, want := readTable(t, "testdata/zh-CN.order.txt")
	// Known differences, see the package doc: ICU sorts the word 重庆 as
	// chóngqìng through a contraction (spirit weighs 重 alone, zhòng), and
	// puts supplementary-plane Han among the rare BMP ones.
	want = slices.DeleteFunc(want, func(s string) bool { return s == "重庆" || s == "𠀀" || s == "𪜀" })
	c := Chinese()
	r := rand.New(rand.NewPCG(3, 4))
	for range 20 {
		got := slices.Clone(want)
		r.Shuffle(len(got), func(i, j int) { got[i], got[j] = got[j], got[i] })
		slices.SortStableFunc(got, c.Compare)
		if !slices.Equal(got, want) {
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("at %d: got %q, node has %q\n got %q\nwant %q", i, got[i], want[i], got, want)
				}
			}
		}
	}
	for i := 1; i < len(want); i++ {
		if c.Compare(want[i-1], want[i]) >= 0 || c.Compare(want[i], want[i-1]) <= 0 {
			t.Errorf("Compare(%q, %q) does not say the first comes first", want[i-1], want[i])
		}
	}
}

// TestCommonHanMatchesNode: the 3,755 common characters of GB2312 level 1
// in the order node gives them.
func TestCommonHanMatchesNode(t *testing.T) {
	_, want := readTable(t, "testdata/gb2312-1.order.txt")
	got := slices.Clone(want)
	slices.Reverse(got)
	slices.SortStableFunc(got, Chinese().Compare)
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("at %d: got %q, node has %q", i, got[i], want[i])
		}
	}
}

func TestIssueExample(t *testing.T) {
	names := []string{"Zed", "阿", "中文", "ä", "z 9", "Apple", "éclair", "_x", "1abc"}
	slices.SortStableFunc(names, Chinese().Compare)
	if got, want := strings.Join(names, ", "), "_x, 1abc, 阿, 中文, ä, Apple, éclair, z 9, Zed"; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

func TestEnglish(t *testing.T) {
	ids := []string{"b-x", "a.b", "a_b", "A-b", "a-b", "@z/a", "10", "9"}
	slices.SortStableFunc(ids, English().Compare)
	if got, want := strings.Join(ids, " "), "@z/a 10 9 a_b a-b A-b a.b b-x"; got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
}

// TestTableIsNodes re-sorts testdata/names.txt with the node on this
// machine and compares with the table, when that node has the ICU version
// the table was made with.
func TestTableIsNodes(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	header, want := readTable(t, "testdata/zh-CN.order.txt")
	icu, err := exec.Command(node, "-p", "process.versions.icu").Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(header, "# ICU "+strings.TrimSpace(string(icu))+":") {
		t.Skipf("node has ICU %s; the table says %s", icu, header)
	}
	out, err := exec.Command(node, "-e", `
const names = require("fs").readFileSync("testdata/names.txt", "utf8").split("\n").filter(s => s !== "");
process.stdout.write(names.sort((a, b) => a.localeCompare(b, "zh-CN")).join("\n") + "\n");`).Output()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n"); !slices.Equal(got, want) {
		t.Errorf("node sorts testdata/names.txt to\n%q\nthe table has\n%q", got, want)
	}
}

// BenchmarkSortChinese sorts the name table (about 110 names), as listing
// installed extensions does.
func BenchmarkSortChinese(b *testing.B) {
	data, err := os.ReadFile("testdata/zh-CN.order.txt")
	if err != nil {
		b.Fatal(err)
	}
	names := strings.Split(strings.TrimSpace(string(data)), "\n")[1:]
	for b.Loop() {
		list := slices.Clone(names)
		slices.SortStableFunc(list, Chinese().Compare)
	}
}

// FuzzCompare: display names come from packages; any two strings compare
// without a panic, and the order is antisymmetric.
func FuzzCompare(f *testing.F) {
	f.Add("阿", "Apple")
	f.Add("中\xff文", "z\u0301")
	f.Add("\U00020000", "㐀")
	zh, en := Chinese(), English()
	f.Fuzz(func(t *testing.T, a, b string) {
		for _, c := range []*Collator{zh, en} {
			if x, y := c.Compare(a, b), c.Compare(b, a); x != -y {
				t.Fatalf("Compare(%q, %q) = %d but Compare(%q, %q) = %d", a, b, x, b, a, y)
			}
		}
	})
}

// TestFirstHanRank: isHan answers without the table below firstHanRank,
// which is right only while no character of han-order.txt is lower.
func TestFirstHanRank(t *testing.T) {
	hanOnce.Do(loadHanRanks)
	for r := range hanRanks {
		if r < firstHanRank {
			t.Fatalf("han-order.txt has %U, below firstHanRank %U", r, firstHanRank)
		}
	}
	if _, ok := hanRanks[firstHanRank]; !ok {
		t.Errorf("firstHanRank %U is not in han-order.txt", firstHanRank)
	}
}

// CompareKeys gives Compare's answer for every pair of names of both
// tables (Han, Latin with accents and case, punctuation, digits,
// supplementary planes), in both collators.
func TestCompareKeysIsCompare(t *testing.T) {
	_, names := readTable(t, "testdata/zh-CN.order.txt")
	_, han := readTable(t, "testdata/gb2312-1.order.txt")
	names = append(names, han[:200]...)
	names = append(names, "", "a", "A", "á", "Zed", "z 9", "重庆", "重", "Scale 0001", "Scale 0001 ", "scale 0001")
	for _, c := range []*Collator{Chinese(), English()} {
		keys := make([]Key, len(names))
		for i, s := range names {
			keys[i] = c.Key(s)
		}
		for i := range names {
			for j := range names {
				if got, want := c.CompareKeys(keys[i], keys[j]), c.Compare(names[i], names[j]); got != want {
					t.Fatalf("CompareKeys(%q, %q) = %d, Compare = %d", names[i], names[j], got, want)
				}
			}
		}
	}
}
