package npm

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// Provenance is what a version's SLSA provenance attestation says about
// how it was built. spirit does not verify the Sigstore bundle that
// carries it (that needs Sigstore's trusted root and a Sigstore verifier),
// so it is a claim of the registry's, shown as unverified provenance.
// What is checked is that the statement names this package version and
// its sha512 integrity.
type Provenance struct {
	// PredicateType is the SLSA predicate, e.g. https://slsa.dev/provenance/v1.
	PredicateType string `json:"predicateType"`
	// Repository is the source repository the build says it ran from.
	Repository string `json:"repository,omitempty"`
	// Commit is the source commit.
	Commit string `json:"commit,omitempty"`
	// Ref is the git ref the build ran on.
	Ref string `json:"ref,omitempty"`
	// Workflow is the path of the CI workflow file that built it.
	Workflow string `json:"workflow,omitempty"`
	// BuildURL is the CI run.
	BuildURL string `json:"buildUrl,omitempty"`
	// Builder is the builder id (e.g. GitHub-hosted runners).
	Builder string `json:"builder,omitempty"`
	// AttestationsURL is where the registry serves the attestations.
	AttestationsURL string `json:"attestationsUrl,omitempty"`
	// Verified is false: the bundle's signature and transparency log
	// entry are not checked.
	Verified bool `json:"verified"`
	// Error, when set, says why the attestations could not be read; only
	// PredicateType and AttestationsURL are known then.
	Error string `json:"error,omitempty"`
}

// maxAttestationsSize caps an attestations document.
const maxAttestationsSize = 4 << 20

// ErrBadAttestations: an attestations document that cannot be read, or
// that is about another package.
var ErrBadAttestations = errors.New("invalid attestations")

// Purl is the package URL npm's attestations name a version by:
// pkg:npm/NAME@VERSION, the @ of a scope written %40.
func Purl(name, version string) string {
	if strings.HasPrefix(name, "@") {
		name = "%40" + name[1:]
	}
	return "pkg:npm/" + name + "@" + version
}

// ParseAttestations reads the document of a version's attestations URL
// ({"attestations":[{"predicateType","bundle":{"dsseEnvelope":…}}]}) and
// returns what its SLSA provenance statement says. The statement must
// name Purl(name, version) with the sha512 digest of integrity (an SRI).
// The bundle's signatures are not verified.
func ParseAttestations(data []byte, name, version, integrity string) (*Provenance, error) {
	var doc struct {
		Attestations []struct {
			PredicateType string `json:"predicateType"`
			Bundle        struct {
				DSSE struct {
					Payload     string `json:"payload"`
					PayloadType string `json:"payloadType"`
				} `json:"dsseEnvelope"`
			} `json:"bundle"`
		} `json:"attestations"`
	}
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadAttestations, err)
	}
	var want []byte
	if hs, err := ParseSRI(integrity); err == nil {
		for _, h := range hs {
			if h.Algorithm == "sha512" {
				want = h.Digest
			}
		}
	}
	for _, a := range doc.Attestations {
		if !strings.HasPrefix(a.PredicateType, "https://slsa.dev/provenance/") {
			continue
		}
		if a.Bundle.DSSE.PayloadType != "application/vnd.in-toto+json" {
			return nil, fmt.Errorf("%w: provenance payload type %q", ErrBadAttestations, truncate(a.Bundle.DSSE.PayloadType, 60))
		}
		payload, err := base64.StdEncoding.DecodeString(a.Bundle.DSSE.Payload)
		if err != nil {
			return nil, fmt.Errorf("%w: provenance payload is not base64", ErrBadAttestations)
		}
		var st statement
		if err := json.Unmarshal(payload, &st); err != nil {
			return nil, fmt.Errorf("%w: provenance statement: %v", ErrBadAttestations, err)
		}
		if st.PredicateType != a.PredicateType {
			return nil, fmt.Errorf("%w: the statement's predicate %q is not the listed %q", ErrBadAttestations, truncate(st.PredicateType, 60), truncate(a.PredicateType, 60))
		}
		if len(st.Subject) != 1 || st.Subject[0].Name != Purl(name, version) {
			return nil, fmt.Errorf("%w: the provenance is not about %s", ErrBadAttestations, Purl(name, version))
		}
		if got, err := hex.DecodeString(st.Subject[0].Digest.SHA512); err != nil || want == nil || string(got) != string(want) {
			return nil, fmt.Errorf("%w: the provenance of %s@%s names another tarball (sha512 %s)", ErrBadAttestations, name, version, truncate(st.Subject[0].Digest.SHA512, 16))
		}
		p := st.provenance()
		p.PredicateType = a.PredicateType
		return p, nil
	}
	return nil, fmt.Errorf("%w: no SLSA provenance among %d attestations", ErrBadAttestations, len(doc.Attestations))
}

// statement is the part of an in-toto statement with a SLSA provenance
// predicate (v0.2 or v1) that Provenance shows.
type statement struct {
	PredicateType string `json:"predicateType"`
	Subject       []struct {
		Name   string `json:"name"`
		Digest struct {
			SHA512 string `json:"sha512"`
		} `json:"digest"`
	} `json:"subject"`
	Predicate struct {
		// v1
		BuildDefinition struct {
			ExternalParameters struct {
				Workflow struct {
					Ref        string `json:"ref"`
					Repository string `json:"repository"`
					Path       string `json:"path"`
				} `json:"workflow"`
			} `json:"externalParameters"`
			ResolvedDependencies []struct {
				URI    string `json:"uri"`
				Digest struct {
					GitCommit string `json:"gitCommit"`
				} `json:"digest"`
			} `json:"resolvedDependencies"`
		} `json:"buildDefinition"`
		RunDetails struct {
			Builder struct {
				ID string `json:"id"`
			} `json:"builder"`
			Metadata struct {
				InvocationID string `json:"invocationId"`
			} `json:"metadata"`
		} `json:"runDetails"`
		// v0.2
		Builder struct {
			ID string `json:"id"`
		} `json:"builder"`
		Invocation struct {
			ConfigSource struct {
				URI    string `json:"uri"`
				Digest struct {
					SHA1 string `json:"sha1"`
				} `json:"digest"`
				EntryPoint string `json:"entryPoint"`
			} `json:"configSource"`
		} `json:"invocation"`
		Metadata struct {
			BuildInvocationID string `json:"buildInvocationId"`
		} `json:"metadata"`
	} `json:"predicate"`
}

func (st *statement) provenance() *Provenance {
	pr := &st.Predicate
	p := &Provenance{}
	if w := pr.BuildDefinition.ExternalParameters.Workflow; w.Repository != "" || w.Path != "" {
		p.Repository, p.Workflow, p.Ref = w.Repository, w.Path, w.Ref
		for _, d := range pr.BuildDefinition.ResolvedDependencies {
			if d.Digest.GitCommit != "" {
				p.Commit = d.Digest.GitCommit
				break
			}
		}
		p.Builder, p.BuildURL = pr.RunDetails.Builder.ID, pr.RunDetails.Metadata.InvocationID
		return p
	}
	cs := pr.Invocation.ConfigSource
	// "git+https://github.com/o/r@refs/heads/main"
	repo, ref, _ := strings.Cut(strings.TrimPrefix(cs.URI, "git+"), "@")
	p.Repository, p.Ref, p.Commit, p.Workflow = repo, ref, cs.Digest.SHA1, cs.EntryPoint
	p.Builder = pr.Builder.ID
	if id := pr.Metadata.BuildInvocationID; strings.HasPrefix(id, "https://") {
		p.BuildURL = id
	}
	return p
}

// Provenance fetches and reads the attestations of r (r.Attestations must
// be set). As npm does, the document is fetched from r's registry at the
// path of the published URL, never from another host. A document that
// cannot be fetched or read gives a Provenance whose Error says so.
func (c *Client) Provenance(ctx context.Context, r *Resolved) *Provenance {
	if r == nil || r.Attestations == nil {
		return nil
	}
	p := &Provenance{PredicateType: r.Attestations.Provenance.PredicateType, AttestationsURL: Redact(r.Attestations.URL)}
	u, err := url.Parse(r.Attestations.URL)
	base, berr := url.Parse(r.Registry)
	if err != nil || berr != nil || u.Path == "" {
		p.Error = "the attestations URL is not a URL"
		return p
	}
	at := *base
	at.Path = strings.TrimSuffix(base.Path, "/") + u.Path
	at.RawPath = ""
	if u.RawPath != "" {
		at.RawPath = strings.TrimSuffix(base.EscapedPath(), "/") + u.RawPath
	}
	at.RawQuery, at.Fragment = "", ""
	if c.cfg.Offline {
		p.Error = "offline"
		return p
	}
	resp, err := c.get(ctx, at.String(), http.Header{"Accept": {"application/json"}})
	if err != nil {
		p.Error = err.Error()
		return p
	}
	defer resp.Body.Close()
	data, err := resp.ReadAll(maxAttestationsSize)
	if err != nil {
		p.Error = err.Error()
		return p
	}
	got, err := ParseAttestations(data, r.Name, r.Version, r.Integrity)
	if err != nil {
		p.Error = err.Error()
		return p
	}
	got.AttestationsURL = p.AttestationsURL
	return got
}
