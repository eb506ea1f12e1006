package npm

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestRecordedProvenance: the npm registry's real attestations of
// sigstore@2.2.0 (a SLSA v1 provenance bundle) give its source repository,
// commit and workflow, marked unverified.
func TestRecordedProvenance(t *testing.T) {
	reg := newRecordedRegistry(t, "provenance")
	c := recordedClient(t, reg.url(), t.TempDir())
	r, err := c.Resolve(context.Background(), mustSpec(t, "npm:sigstore@2.2.0"))
	if err != nil {
		t.Fatal(err)
	}
	if r.Attestations == nil || r.Attestations.Provenance.PredicateType != "https://slsa.dev/provenance/v1" {
		t.Fatalf("attestations %+v", r.Attestations)
	}
	p := c.Provenance(context.Background(), r)
	want := Provenance{
		PredicateType:   "https://slsa.dev/provenance/v1",
		Repository:      "https://github.com/sigstore/sigstore-js",
		Commit:          "d9093d4b3b99d9ee446633ac7074e43cea78c727",
		Ref:             "refs/heads/main",
		Workflow:        ".github/workflows/release.yml",
		BuildURL:        "https://github.com/sigstore/sigstore-js/actions/runs/7507343033/attempts/1",
		Builder:         "https://github.com/actions/runner/github-hosted",
		AttestationsURL: reg.url() + "-/npm/v1/attestations/sigstore@2.2.0",
	}
	if p == nil || *p != want {
		t.Errorf("provenance\n%+v, want\n%+v", p, want)
	}
	// The attestations are asked of the registry the package came from.
	found := false
	for _, q := range reg.requests() {
		found = found || strings.HasPrefix(q, "/-/npm/v1/attestations/sigstore@2.2.0 ")
	}
	if !found {
		t.Errorf("requests %q", reg.requests())
	}
}

// TestProvenanceOfAnotherPackage: attestations that are about another
// version or tarball are not shown as this one's.
func TestProvenanceOfAnotherPackage(t *testing.T) {
	data := mustRead(t, "testdata/provenance/attestations-sigstore@2.2.0.json")
	const integrity = "sha512-fcU9clHwEss2/M/11FFM8Jwc4PjBgbhXoNskoK5guoK0qGQBSeUbQZRJ+B2fDFIvhyf0gqCaPrel9mszbhAxug=="
	if _, err := ParseAttestations(data, "sigstore", "2.2.0", integrity); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ name, version, integrity string }{
		{"sigstore", "2.2.1", integrity},
		{"@evil/sigstore", "2.2.0", integrity},
		{"sigstore", "2.2.0", "sha512-j8XsFGCLw79vWXkZtMSmmLaOk9z5SQ9bV/tkbZVCqvgwzrjAGq66igobLofHtF63NvMTp2WjytpsNTGKa+XRIQ=="},
		{"sigstore", "2.2.0", ""},
	} {
		if _, err := ParseAttestations(data, tc.name, tc.version, tc.integrity); !errors.Is(err, ErrBadAttestations) {
			t.Errorf("%+v: err = %v", tc, err)
		}
	}
	// Unreachable attestations: the predicate type is kept, with the reason.
	reg := newRecordedRegistry(t, "provenance")
	c := recordedClient(t, reg.url(), t.TempDir())
	p := c.Provenance(context.Background(), &Resolved{Name: "sigstore", Version: "9.9.9", Integrity: integrity, Registry: reg.url(),
		Attestations: &Attestations{URL: "https://elsewhere.example/-/npm/v1/attestations/sigstore@9.9.9"}})
	if p == nil || p.Error == "" || p.Repository != "" {
		t.Errorf("%+v", p)
	}
}

func TestPurl(t *testing.T) {
	for in, want := range map[[2]string]string{
		{"sigstore", "1.0.0"}:       "pkg:npm/sigstore@1.0.0",
		{"@x402/stellar", "2.12.0"}: "pkg:npm/%40x402/stellar@2.12.0",
	} {
		if got := Purl(in[0], in[1]); got != want {
			t.Errorf("Purl%v = %s, want %s", in, got, want)
		}
	}
}

// FuzzParseAttestations: an attestations document from the network never
// panics the parser, and a provenance it returns is about the package.
func FuzzParseAttestations(f *testing.F) {
	f.Add(mustRead(f, "testdata/provenance/attestations-sigstore@2.2.0.json"))
	f.Add([]byte(`{"attestations":[{"predicateType":"https://slsa.dev/provenance/v0.2","bundle":{"dsseEnvelope":{"payloadType":"application/vnd.in-toto+json","payload":"e30="}}}]}`))
	f.Add([]byte(`{}`))
	const integrity = "sha512-fcU9clHwEss2/M/11FFM8Jwc4PjBgbhXoNskoK5guoK0qGQBSeUbQZRJ+B2fDFIvhyf0gqCaPrel9mszbhAxug=="
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseAttestations(data, "sigstore", "2.2.0", integrity)
		if err != nil {
			if !errors.Is(err, ErrBadAttestations) {
				t.Fatalf("error %v does not match ErrBadAttestations", err)
			}
			return
		}
		if p.Verified || !strings.HasPrefix(p.PredicateType, "https://slsa.dev/provenance/") {
			t.Fatalf("%+v", p)
		}
	})
}
