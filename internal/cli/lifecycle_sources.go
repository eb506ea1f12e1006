package cli

import (
	"context"
	"sync"

	"github.com/spiritagents/spirit/catalog"
	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/internal/termtext"
)

// installMarketplace is the marketplace side of `spirit extension install`:
// marketplace:ID[@VERSION] sources and bare extension ids of the configured
// index, installed with the policy of `marketplace install` (blocked
// refused, unverified asked or --review-acknowledged, revoked only with
// --allow-revoked). The catalog client is made at the first use, so a
// path, URL or npm: source never reads the index.
type installMarketplace struct {
	f    *Factory
	opts *InstallOptions

	once sync.Once
	ms   *marketplaceSource
	err  error
	// warned is set once a failed index read has been reported.
	warned bool
}

func (im *installMarketplace) source() (*marketplaceSource, error) {
	im.once.Do(func() {
		c, p, err := im.f.marketplace(&marketplaceOptions{MaxAge: catalog.DefaultMaxAge, Offline: im.opts.Offline})
		if err != nil {
			im.err = err
			return
		}
		im.ms = &marketplaceSource{f: im.f, c: c, host: string(p.Host), allowSHA1: im.opts.AllowSHA1,
			printWarnings: !im.f.Global.JSON,
			consent:       catalog.Consent{ReviewAcknowledged: im.opts.ReviewAcknowledged, AllowRevoked: im.opts.AllowRevoked}}
	})
	return im.ms, im.err
}

// wire sets the marketplace resolvers of r.
func (im *installMarketplace) wire(r *install.Resolver) {
	r.Marketplace = func(ctx context.Context, ref install.MarketplaceRef) (*install.Artifact, error) {
		ms, err := im.source()
		if err != nil {
			return nil, err
		}
		return ms.resolve(ctx, ref)
	}
	r.IsMarketplaceID = im.isMarketplaceID
}

// isMarketplaceID reports whether id is an extension id of the configured
// index. An index that cannot be read is a warning, once, and the id is
// then taken for an npm spec.
func (im *installMarketplace) isMarketplaceID(ctx context.Context, id string) bool {
	ms, err := im.source()
	if err == nil {
		var cat *catalog.Catalog
		if cat, err = ms.c.Catalog(ctx); err == nil {
			for _, it := range cat.Items {
				if it.ExtensionID == id {
					return true
				}
			}
			return false
		}
	}
	if !im.warned && !im.f.Global.JSON {
		im.warned = true
		termtext.Fprintf(im.f.IO.ErrOut, "Warning: could not read the marketplace index to look up %s: %v\n", id, err)
	}
	return false
}

// index names the configured marketplace index, for messages.
func (im *installMarketplace) index() string {
	if ms, err := im.source(); err == nil {
		return catalog.IndexName(ms.c.Source())
	}
	return "the configured marketplace index"
}

// describeKind says which way install took a source, for a message.
func (im *installMarketplace) describeKind(source, kind string) string {
	switch kind {
	case install.KindDir:
		return "a local directory"
	case install.KindArchive:
		return "a local archive"
	case install.KindURL:
		return "a URL"
	case install.KindMarketplace:
		if install.IsBare(source) {
			return "marketplace extension " + source + " of " + im.index() + " (write npm:" + source + " for the npm package)"
		}
		return "a marketplace extension of " + im.index()
	case install.KindNPM:
		if install.IsBare(source) {
			return "an npm spec (no such file or directory, and no extension id of " + im.index() + ")"
		}
		return "an npm spec"
	}
	return "nothing: no file, directory, URL, npm spec or marketplace id"
}
