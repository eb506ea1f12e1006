package catalog

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"strings"
	"time"

	"github.com/spiritagents/spirit/catalog/verify"
	"github.com/spiritagents/spirit/internal/atomicfile"
	"github.com/spiritagents/spirit/paths"
)

// TrustStore returns the folder that keeps the trust (pinned root,
// versions seen) of the index src under trustDir.
func TrustStore(trustDir string, src *Source) string {
	return filepath.Join(trustDir, paths.EncodeID(IndexName(src)))
}

// Signature verifies the index's TUF metadata (once per Client) and
// returns it; nil when the index is unsigned. Every document the Client
// reads afterwards is checked against it.
func (c *Client) Signature(ctx context.Context) (*verify.Index, error) {
	if c.sigDone {
		return c.sig, c.sigErr
	}
	c.sig, c.sigErr = c.openSignature(ctx)
	if ctx.Err() == nil {
		c.sigDone = true
	}
	return c.sig, c.sigErr
}

// unsignedMark records when an https index was last seen unsigned, so that
// an index with nothing pinned is not asked for tuf/root.json more often
// than MaxAge.
type unsignedMark struct {
	CheckedAt time.Time `json:"checkedAt"`
}

func (c *Client) openSignature(ctx context.Context) (*verify.Index, error) {
	store := ""
	if c.opts.TrustDir != "" {
		store = TrustStore(c.opts.TrustDir, c.src)
	}
	mark := ""
	if store != "" && c.src.Kind == KindURL && !c.opts.RequireSigned {
		mark = store + ".unsigned.json"
		if verify.Pinned(store) == nil {
			var m unsignedMark
			if raw, err := readSmall(mark); err == nil && json.Unmarshal(raw, &m) == nil &&
				(c.opts.Offline || c.now().Sub(m.CheckedAt) < c.opts.MaxAge) {
				return nil, nil
			}
		}
	}
	fetchMeta := func(ctx context.Context, name string, limit int64) ([]byte, error) {
		loc, _, err := c.resolve(ctx, name, "signed index metadata")
		if err != nil {
			return nil, err
		}
		data, _, err := c.get(ctx, loc, limit, "signed index "+name)
		// offline, a next root version never fetched is taken as absent
		// (a 404 is not cached); other metadata must be in the cache.
		nextRoot := strings.HasSuffix(name, ".root.json") && !strings.HasSuffix(name, "/root.json")
		if errors.Is(err, ErrNotFound) || (nextRoot && errors.Is(err, ErrOffline)) {
			return nil, fmt.Errorf("%w: %w", fs.ErrNotExist, err)
		}
		return data, err
	}
	ix, err := verify.Open(ctx, fetchMeta, verify.Options{
		Index: IndexName(c.src), StoreDir: store, Now: c.opts.Now,
		RequireSigned: c.opts.RequireSigned, AllowExpired: c.opts.AllowExpired,
	})
	if err != nil && !errors.As(err, new(*verify.Error)) && ctx.Err() == nil && !c.opts.RequireSigned &&
		(store == "" || verify.Pinned(store) == nil) {
		// nothing pinned and the metadata could not be fetched (network,
		// 5xx): the index is read as unsigned, as before it was ever seen
		// signed. Once a root is pinned, such a failure is an error.
		return nil, nil
	}
	if ix != nil && c.opts.OnSignature != nil {
		c.opts.OnSignature(ix)
	}
	if err == nil && ix == nil && mark != "" {
		raw, _ := json.Marshal(unsignedMark{CheckedAt: c.now()})
		_ = atomicfile.Write(mark, raw, 0o600)
	}
	return ix, err
}

// indexName returns loc's path relative to the index base, with slashes;
// "" when it is not inside the index.
func (c *Client) indexName(loc location) string {
	if loc.url != nil {
		if c.src.Kind != KindURL {
			return ""
		}
		rel, ok := strings.CutPrefix(loc.url.String(), c.src.URL.String())
		if !ok {
			return ""
		}
		return path.Clean(rel)
	}
	rel, err := filepath.Rel(loc.dir, loc.file)
	if err != nil || !filepath.IsLocal(rel) {
		return ""
	}
	return filepath.ToSlash(rel)
}

// getSigned reads loc as get does and, for a signed index, checks the bytes
// against the signed targets. A mirror of a signed index serves its own
// rewritten documents and keeps the signed originals as tuf/targets/NAME:
// the original is then what is returned (checked), and served holds the
// mirror's document, which may only relocate tarballs.
func (c *Client) getSigned(ctx context.Context, loc location, limit int64, label string) (data, served []byte, origin *Origin, err error) {
	ix, err := c.Signature(ctx)
	if err != nil {
		return nil, nil, nil, err
	}
	data, origin, err = c.get(ctx, loc, limit, label)
	if err != nil || ix == nil {
		return data, nil, origin, err
	}
	name := c.indexName(loc)
	cerr := ix.Check(name, data)
	if cerr == nil {
		return data, nil, origin, nil
	}
	if name != "" && ix.Listed(name) {
		if oloc, _, rerr := c.resolve(ctx, verify.MetaDir+"/targets/"+name, label); rerr == nil {
			if orig, _, gerr := c.get(ctx, oloc, limit, label); gerr == nil && ix.Check(name, orig) == nil {
				return orig, data, origin, nil
			}
		}
	}
	return nil, nil, nil, cerr
}

// relocate copies the tarball URLs of the mirror's detail (served) into
// d, the signed detail, version by version. Only the location moves: the
// integrity the tarball is checked against stays the signed one.
func relocate(d *Detail, served []byte) {
	m, err := ParseDetail(served)
	if err != nil {
		return
	}
	for i := range d.Versions {
		if v := m.Find(d.Versions[i].Version); v != nil && v.Integrity == d.Versions[i].Integrity {
			d.Versions[i].TarballURL = v.TarballURL
		}
	}
}

func readSmall(file string) ([]byte, error) {
	return readFileCapped(location{file: filepath.Base(file), dir: filepath.Dir(file)}, 4096, "trust mark")
}

// SignedFile returns the file name (relative to the index) of a signed
// index as it was signed: verified against targets (for a mirror, its
// signed original).
func (c *Client) SignedFile(ctx context.Context, name string) ([]byte, error) {
	loc, _, err := c.resolve(ctx, name, "signed file")
	if err != nil {
		return nil, err
	}
	limit := c.opts.Limits.JSON
	switch {
	case name == "catalog.json":
		limit = c.opts.Limits.Catalog
	case strings.HasSuffix(name, ".md"):
		limit = c.opts.Limits.Readme
	}
	data, _, _, err := c.getSigned(ctx, loc, limit, "signed file "+name)
	return data, err
}

// MetadataFile returns tuf/NAME of the index as it is served, unverified.
func (c *Client) MetadataFile(ctx context.Context, name string) ([]byte, error) {
	loc, _, err := c.resolve(ctx, verify.MetaDir+"/"+name, "signed index metadata")
	if err != nil {
		return nil, err
	}
	data, _, err := c.get(ctx, loc, verify.MaxTargets, "signed index "+name)
	return data, err
}
