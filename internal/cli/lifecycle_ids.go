package cli

import (
	"context"
	"errors"
	"sync"

	"github.com/spiritagents/spirit/catalog"
	"github.com/spiritagents/spirit/install"
)

// catalogOrigins gives a marketplace id's item in the cached catalog of
// the configured index, as the origin an install from it records (nil
// when the catalog has no such id). It never touches the network: without
// a cache it knows no id. The catalog is read once, at the first call.
func catalogOrigins(ctx context.Context, f *Factory) func(id string) *install.MarketplaceOrigin {
	var once sync.Once
	byID := map[string]*install.MarketplaceOrigin{}
	return func(id string) *install.MarketplaceOrigin {
		once.Do(func() {
			c, _, err := f.marketplace(&marketplaceOptions{MaxAge: catalog.DefaultMaxAge, Offline: true})
			if err != nil {
				return
			}
			cat, err := c.Catalog(ctx)
			if err != nil {
				return
			}
			for i := range cat.Items {
				o := catalog.OriginOf(c.Source(), &cat.Items[i])
				byID[o.ExtensionID] = &o
			}
		})
		return byID[id]
	}
}

// lookupInstalled finds the install that arg names: its package name or
// its marketplace id (install.Lookup), with hints on the errors.
func lookupInstalled(ctx context.Context, f *Factory, arg string) (*install.Installed, error) {
	p, err := f.Paths()
	if err != nil {
		return nil, err
	}
	list, err := install.ListAll(p)
	if err != nil {
		return nil, err
	}
	in, err := install.Lookup(list, arg, catalogOrigins(ctx, f))
	return in, idError(err)
}

// idError adds the hints of a failed id lookup.
func idError(err error) error {
	var ae *install.AmbiguousIDError
	switch {
	case errors.As(err, &ae):
		return withHint(err, "say which one: package:NAME for a package name, marketplace:ID for a marketplace id")
	case errors.Is(err, install.ErrNotFound):
		return withHint(err, "see 'spirit extension list' for the installed ids")
	}
	return err
}

// installedID returns the id (package name) of the install that arg names.
// An argument that names no install is returned as it is, for the
// command's own not-found error; an ambiguous one is an error.
func installedID(ctx context.Context, f *Factory, arg string) (string, error) {
	in, err := lookupInstalled(ctx, f, arg)
	switch {
	case err == nil:
		return in.ID, nil
	case errors.Is(err, install.ErrNotFound):
		id, _, _ := install.SplitIDArg(arg)
		return id, nil
	}
	return "", err
}
