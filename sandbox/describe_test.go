package sandbox

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/spiritagents/spirit/internal/testutil/golden"
)

// TestDescribe keeps what doctor and permissions say per OS and sandbox in
// testdata/confinement.golden.json (rewrite with -update): the words and
// the JSON shape are a contract.
func TestDescribe(t *testing.T) {
	cases := []struct {
		Name   string
		goos   string
		st     Status
		pol    Policy
		Result Confinement
	}{
		{Name: "linux bwrap, scoped", goos: "linux", st: Status{Kind: KindBwrap, LandlockABI: 7, Scoper: "/usr/bin/spirit"}},
		{Name: "linux bwrap, old kernel", goos: "linux", st: Status{Kind: KindBwrap, LandlockABI: 3}},
		{Name: "linux bwrap, no network", goos: "linux", st: Status{Kind: KindBwrap, LandlockABI: 3}, pol: Policy{NoNetwork: true}},
		{Name: "linux landlock ABI 7, no network", goos: "linux", st: Status{Kind: KindLandlock, LandlockABI: 7}, pol: Policy{NoNetwork: true}},
		{Name: "linux landlock ABI 5", goos: "linux", st: Status{Kind: KindLandlock, LandlockABI: 5}},
		{Name: "linux none", goos: "linux", st: Status{Kind: KindNone}},
		{Name: "linux bwrap, unsandboxed grant", goos: "linux", st: Status{Kind: KindBwrap, LandlockABI: 7, Scoper: "x"}, pol: Policy{Unsandboxed: true}},
		{Name: "darwin seatbelt", goos: "darwin", st: Status{Kind: KindSeatbelt}},
		{Name: "darwin seatbelt, no network", goos: "darwin", st: Status{Kind: KindSeatbelt}, pol: Policy{NoNetwork: true}},
		{Name: "windows node", goos: "windows", st: Status{Kind: KindNode}},
		{Name: "windows node, no network", goos: "windows", st: Status{Kind: KindNode}, pol: Policy{NoNetwork: true}},
		{Name: "windows none", goos: "windows", st: Status{Kind: KindNone}},
	}
	for i := range cases {
		cases[i].Result = Describe(cases[i].st, cases[i].pol, cases[i].goos)
	}
	got, err := json.MarshalIndent(cases, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, filepath.Join("testdata", "confinement.golden.json"), append(got, '\n'))
}
