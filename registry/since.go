package registry

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/spiritagents/spirit/internal/within"
)

// unchangedSince returns a test that says whether a file (absolute path)
// has the same bytes now as in revision rev of the git repository that
// holds root. Uncommitted changes count as changes.
func unchangedSince(root, rev string) (func(file string, data []byte) bool, error) {
	repo, err := git.PlainOpenWithOptions(root, &git.PlainOpenOptions{DetectDotGit: true})
	if err != nil {
		return nil, fmt.Errorf("--since: %s is not in a git repository: %w", root, err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		return nil, fmt.Errorf("--since: %w", err)
	}
	top, err := filepath.EvalSymlinks(wt.Filesystem.Root())
	if err != nil {
		return nil, err
	}
	hash, err := repo.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		return nil, fmt.Errorf("--since: unknown revision %q: %w", rev, err)
	}
	commit, err := repo.CommitObject(*hash)
	if err != nil {
		return nil, fmt.Errorf("--since: %q is not a commit: %w", rev, err)
	}
	tree, err := commit.Tree()
	if err != nil {
		return nil, fmt.Errorf("--since: %w", err)
	}
	return func(file string, data []byte) bool {
		real, err := filepath.EvalSymlinks(file)
		if err != nil {
			return false
		}
		rel, err := filepath.Rel(top, real)
		if err != nil || !filepath.IsLocal(rel) {
			return false
		}
		f, err := tree.File(filepath.ToSlash(rel))
		if errors.Is(err, object.ErrFileNotFound) || err != nil {
			return false
		}
		old, err := f.Contents()
		return err == nil && old == string(data)
	}, nil
}

// readIfExists returns the bytes of the file path of the repository root,
// or nil when it does not exist.
func readIfExists(root, path string) ([]byte, error) {
	data, err := within.ReadFile(root, path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	return data, err
}
