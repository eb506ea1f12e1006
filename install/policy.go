package install

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spiritagents/spirit/internal/atomicfile"
	"github.com/spiritagents/spirit/internal/rmtree"
	"github.com/spiritagents/spirit/paths"
	"github.com/spiritagents/spirit/sandbox"
)

// maxPermissionsFile bounds permissions.json; a larger file is refused.
const maxPermissionsFile = 4 << 20

// ErrBadPermissions is a permissions.json that cannot be read as grants.
var ErrBadPermissions = errors.New("unreadable permissions file")

// PermissionsFile is where spirit keeps each extension's sandbox grants:
// {extensionsDir}/.spirit/permissions.json (spirit's own records; the
// apps do not read it).
func PermissionsFile(p *paths.Paths) string { return filepath.Join(p.SpiritDir(), "permissions.json") }

// PrivateDir is extension id's own directory in spirit's records, where
// the Landlock sandbox keeps its HOME and TMPDIR: .spirit/sandbox/<b64 id>.
func PrivateDir(p *paths.Paths, id string) string {
	return filepath.Join(p.SpiritDir(), "sandbox", paths.EncodeID(id))
}

// purgePermissions deletes id's grants and private directory; the caller
// holds the install lock. all is the grants read before anything changed.
func purgePermissions(p *paths.Paths, all map[string]sandbox.Policy, id string) error {
	if err := rmtree.Remove(PrivateDir(p, id)); err != nil {
		return err
	}
	if _, ok := all[id]; !ok {
		return nil
	}
	delete(all, id)
	return writePermissions(p, all)
}

type permissionsDoc struct {
	Version    int                       `json:"version"`
	Extensions map[string]sandbox.Policy `json:"extensions"`
}

// AllPermissions returns the grants of every extension that has any; an
// extension missing from the map has the default policy. A missing file
// is empty; a file that does not parse is an error wrapping
// ErrBadPermissions, so a damaged file never silently widens or narrows
// what extensions may do.
func AllPermissions(p *paths.Paths) (map[string]sandbox.Policy, error) {
	file := PermissionsFile(p)
	f, err := os.Open(file)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]sandbox.Policy{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxPermissionsFile+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", file, err)
	}
	return parsePermissions(file, data)
}

func parsePermissions(file string, data []byte) (map[string]sandbox.Policy, error) {
	if len(data) > maxPermissionsFile {
		return nil, fmt.Errorf("%w %s: larger than %d bytes", ErrBadPermissions, file, maxPermissionsFile)
	}
	var doc permissionsDoc
	if err := json.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%w %s: %v", ErrBadPermissions, file, err)
	}
	if doc.Version != 1 {
		return nil, fmt.Errorf("%w %s: version %d, this spirit reads version 1", ErrBadPermissions, file, doc.Version)
	}
	out := make(map[string]sandbox.Policy, len(doc.Extensions))
	for id, pol := range doc.Extensions {
		clean, err := pol.Clean()
		if err != nil {
			return nil, fmt.Errorf("%w %s: extension %s: %w", ErrBadPermissions, file, id, err)
		}
		out[id] = clean
	}
	return out, nil
}

// Permissions returns the grants of id (the default policy when it has none).
func Permissions(p *paths.Paths, id string) (sandbox.Policy, error) {
	all, err := AllPermissions(p)
	if err != nil {
		return sandbox.Policy{}, err
	}
	return all[id], nil
}

// SetPermissions stores pol as the grants of the installed extension id
// (the default policy removes its entry) under the install lock, and
// returns the cleaned policy stored.
func (in *Installer) SetPermissions(ctx context.Context, id string, pol sandbox.Policy) (sandbox.Policy, error) {
	pol, err := pol.Clean()
	if err != nil {
		return sandbox.Policy{}, err
	}
	unlock, err := in.lock(ctx)
	if err != nil {
		return sandbox.Policy{}, err
	}
	defer unlock()
	if _, err := Find(in.Paths, id); err != nil {
		return sandbox.Policy{}, err
	}
	all, err := AllPermissions(in.Paths)
	if err != nil {
		return sandbox.Policy{}, err
	}
	if pol.IsDefault() {
		delete(all, id)
	} else {
		all[id] = pol
	}
	if err := writePermissions(in.Paths, all); err != nil {
		return sandbox.Policy{}, err
	}
	return pol, nil
}

func writePermissions(p *paths.Paths, all map[string]sandbox.Policy) error {
	data, err := json.MarshalIndent(permissionsDoc{Version: 1, Extensions: all}, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.WriteDurable(PermissionsFile(p), append(data, '\n'), 0o600)
}
