package mirror

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"sync"

	"github.com/spiritagents/spirit/catalog"
	"github.com/spiritagents/spirit/catalog/verify"
	"github.com/spiritagents/spirit/internal/rmtree"
)

// A mirror of a signed index cannot sign what it rewrites (relative
// tarball URLs, a selection of versions), so it keeps the signed
// originals beside its own files: tuf/targets/<name> holds the source's
// catalog.json, detail.json and README.md bytes as signed, and tuf/ the
// source's metadata (the whole root chain, targets, snapshot, timestamp)
// unchanged. A client verifies the originals against the same root as the
// source and takes only the tarball locations from the mirror's details;
// each tarball is still checked against the signed integrity.

// namedFile is a file to write in the mirror.
type namedFile struct {
	name string
	data []byte
}

// metaName matches the metadata files of tuf/.
var metaName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:[0-9]{1,9}\.root|root|targets|snapshot|timestamp)\.json$`)
})

// signedFiles returns the files that carry the source's signature into the
// mirror, in the order they are written (timestamp.json last); nil when
// the source is not signed.
func signedFiles(ctx context.Context, src *catalog.Client, exts []*mirrored) ([]namedFile, error) {
	sig, err := src.Signature(ctx)
	if err != nil || sig == nil {
		return nil, err
	}
	var files []namedFile
	names := []string{"catalog.json"}
	for _, m := range exts {
		for _, n := range []string{"extensions/" + m.item.ExtensionID + "/detail.json", "extensions/" + m.item.ExtensionID + "/README.md"} {
			if sig.Listed(n) {
				names = append(names, n)
			}
		}
	}
	for _, n := range names {
		data, err := src.SignedFile(ctx, n)
		if err != nil {
			return nil, fmt.Errorf("copying the signed %s: %w", n, err)
		}
		files = append(files, namedFile{verify.MetaDir + "/targets/" + n, data})
	}
	for v := int64(1); v <= sig.RootVersion; v++ {
		name := strconv.FormatInt(v, 10) + ".root.json"
		data, err := src.MetadataFile(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("copying the signed index metadata %s: %w", name, err)
		}
		files = append(files, namedFile{verify.MetaDir + "/" + name, data})
	}
	for _, n := range []string{"root.json", "targets.json", "snapshot.json", "timestamp.json"} {
		files = append(files, namedFile{verify.MetaDir + "/" + n, sig.Metadata[n]})
	}
	return files, nil
}

// verifyMirror verifies the mirror as a client will: from the source's
// first root along the chain, then every signed original it holds. The
// mirror must end at the root the source is verified against.
func verifyMirror(ctx context.Context, src *catalog.Client, out string) error {
	sig, err := src.Signature(ctx)
	if err != nil {
		return err
	}
	trust, err := os.MkdirTemp("", "spirit-mirror-trust-")
	if err != nil {
		return err
	}
	defer rmtree.Remove(trust)
	mc, err := catalog.New(catalog.Options{Source: out, TrustDir: trust, RequireSigned: true, AllowExpired: sig.Expired})
	if err != nil {
		return err
	}
	first, err := mc.MetadataFile(ctx, "1.root.json")
	if err != nil {
		return err
	}
	if _, err := verify.Pin(catalog.TrustStore(trust, mc.Source()), first); err != nil {
		return fmt.Errorf("mirror tuf/1.root.json: %w", err)
	}
	ix, err := mc.Signature(ctx)
	if err != nil {
		return fmt.Errorf("verifying the mirror: %w", err)
	}
	if ix.RootVersion != sig.RootVersion || !slices.Equal(ix.RootKeyIDs, sig.RootKeyIDs) {
		return fmt.Errorf("verifying the mirror: it ends at root version %d, the source at %d", ix.RootVersion, sig.RootVersion)
	}
	cat, err := mc.Catalog(ctx)
	if err != nil {
		return fmt.Errorf("verifying the mirror: %w", err)
	}
	for _, it := range cat.Items {
		// a selection leaves details out: those are not found, not changed.
		if _, _, err := mc.Detail(ctx, it.ExtensionID); err != nil && !errors.Is(err, catalog.ErrNotFound) {
			return fmt.Errorf("verifying the mirror: %w", err)
		}
	}
	return nil
}
