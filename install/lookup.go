package install

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spiritagents/spirit/paths"
)

// Prefixes that pin how Lookup reads an argument.
const (
	// PackagePrefix names an install by its package name only: package:NAME.
	PackagePrefix = "package:"
)

// ErrAmbiguousID is matched by an AmbiguousIDError.
var ErrAmbiguousID = errors.New("ambiguous extension id")

// AmbiguousIDError says that an argument names two different installs:
// one by its package name, another by its marketplace id.
type AmbiguousIDError struct {
	Arg string
	// Candidates describe each install the argument could mean.
	Candidates []string
}

func (e *AmbiguousIDError) Error() string {
	return fmt.Sprintf("%q names more than one installed extension: %s", e.Arg, strings.Join(e.Candidates, " and "))
}

// Is matches ErrAmbiguousID.
func (e *AmbiguousIDError) Is(target error) bool { return target == ErrAmbiguousID }

// Lookup finds the install an argument names in list: its id (the package
// name), or its marketplace id, from the install record or, through
// marketplaceItem (which gives the origin of a marketplace id's item in the
// cached catalog, nil when it has none; a nil func means no catalog), from
// the catalog. A marketplace id names only an install recorded from its
// item (MarketplaceOrigin.Owns), never another install that happens to
// have the item's package name (a folder install). An argument that names
// two different installs this way is an *AmbiguousIDError; package:NAME
// and marketplace:ID pin one reading.
func Lookup(list []Installed, arg string, marketplaceItem func(id string) *MarketplaceOrigin) (*Installed, error) {
	arg, byName, byMarket := SplitIDArg(arg)
	if arg == "" {
		return nil, errors.New("The extension id must not be empty.")
	}
	var found []*Installed
	var why []string
	add := func(in *Installed, reason string) {
		for _, f := range found {
			if f.ID == in.ID {
				return
			}
		}
		found, why = append(found, in), append(why, reason)
	}
	if byName {
		if in := exact(list, arg); in != nil {
			add(in, in.ID+" (package name)")
		}
	}
	if byMarket {
		for i := range list {
			if r := list[i].Record; r != nil && r.MarketplaceID == arg {
				add(&list[i], list[i].ID+" (marketplace id "+arg+", installed from the marketplace)")
			}
		}
		if o := marketplaceItemOf(marketplaceItem, arg); o != nil && o.PackageName != arg {
			if in := exact(list, o.PackageName); in != nil && o.Owns(in.Entry, in.Record) {
				add(in, in.ID+" (marketplace id "+arg+" in the catalog)")
			}
		}
	}
	switch len(found) {
	case 0:
		return nil, fmt.Errorf("%w: %s", ErrNotFound, arg)
	case 1:
		return found[0], nil
	}
	return nil, &AmbiguousIDError{Arg: arg, Candidates: why}
}

// SplitIDArg reads the prefix of an argument naming an install: the id it
// names, and whether it may be a package name and a marketplace id.
func SplitIDArg(arg string) (id string, byName, byMarket bool) {
	arg = strings.TrimSpace(arg)
	switch {
	case strings.HasPrefix(arg, PackagePrefix):
		return strings.TrimSpace(strings.TrimPrefix(arg, PackagePrefix)), true, false
	case strings.HasPrefix(arg, MarketplacePrefix):
		return strings.TrimSpace(strings.TrimPrefix(arg, MarketplacePrefix)), false, true
	}
	return arg, true, true
}

func marketplaceItemOf(fn func(string) *MarketplaceOrigin, id string) *MarketplaceOrigin {
	if fn == nil {
		return nil
	}
	return fn(id)
}

// exact returns the install whose id is id, preferring the one in id's own
// directory, like Find.
func exact(list []Installed, id string) *Installed {
	var any *Installed
	for i := range list {
		if list[i].ID != id {
			continue
		}
		if filepath.Base(list[i].Dir) == paths.PackageDirName(id) {
			return &list[i]
		}
		if any == nil {
			any = &list[i]
		}
	}
	return any
}
