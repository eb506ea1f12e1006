package cli

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/spiritagents/spirit/sandbox"
)

// TestSandboxJSONContract keeps the field names and shape of `doctor
// --json` and `extension permissions --json` in
// testdata/sandbox_json.golden.json (rewrite with -update): they are a
// public contract, so a change shows in review.
func TestSandboxJSONContract(t *testing.T) {
	st := sandbox.Status{Kind: sandbox.KindBwrap, Path: "/usr/bin/bwrap", Version: "bubblewrap 0.8.0", LandlockABI: 7, Scoper: "/usr/bin/spirit"}
	pol := sandbox.Policy{Read: []string{"/home/u/notes"}, NoNetwork: true, Env: []string{"GH_TOKEN"}}
	doctor := DoctorReport{
		Sandbox:     st,
		Confinement: sandbox.Describe(st, sandbox.Policy{}, "linux"),
		Node:        DoctorNode{Path: "/home/u/.local/bin/node", Version: "22.1.0", PermissionModel: "--permission", UnderHome: true},
		Keyring: DoctorKeyring{Backend: "file", Store: "file /home/u/.local/share/SpiritAgent/spirit-keyring/secrets.json",
			Dir: "/home/u/.local/share/SpiritAgent/spirit-keyring", File: "/home/u/.local/share/SpiritAgent/spirit-keyring/secrets.json",
			Reason: "no session bus", RoundTrip: true},
		DataDir:     "/home/u/.local/share/SpiritAgent",
		Unsandboxed: []string{"trusted"},
		Warnings:    []string{"a warning"},
	}
	perms := PermissionsReport{ID: "notes", Sandbox: string(st.Kind), Policy: pol, Network: false,
		Read: []string{"/data/extensions/cli/pkg-bm90ZXM", "/home/u/notes"}, Write: []string{}, Env: pol.Env,
		Confinement: sandbox.Describe(st, pol, "linux")}
	got, err := json.MarshalIndent(map[string]any{"doctor": doctor, "permissions": perms}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, filepath.Join("testdata", "sandbox_json.golden.json"), append(got, '\n'))
}
