package catalog

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"

	"github.com/spiritagents/spirit/fetch"
	"github.com/spiritagents/spirit/internal/atomicfile"
	"github.com/spiritagents/spirit/internal/rmtree"
)

// gitStamp is stored beside a clone: when it was fetched, from where.
type gitStamp struct {
	Repo      string    `json:"repo"`
	Ref       string    `json:"ref,omitempty"`
	FetchedAt time.Time `json:"fetchedAt"`
}

// gitDir returns the registry folder of a git source: the clone in the
// cache, cloned again (shallow) when older than MaxAge. When the clone
// fails and an older one exists, that one is used and origin says so.
func (c *Client) gitDir(ctx context.Context) (string, *Origin, error) {
	src := c.src
	if c.opts.CacheDir == "" {
		return "", nil, errors.New("a git registry needs a cache directory")
	}
	sum := sha256.Sum256([]byte(src.Repo + "#" + src.Ref))
	name := hex.EncodeToString(sum[:12])
	root := filepath.Join(c.opts.CacheDir, "marketplace-git")
	dir := filepath.Join(root, name)
	stampFile := dir + ".json"
	var stamp gitStamp
	haveClone := false
	if raw, err := os.ReadFile(stampFile); err == nil && json.Unmarshal(raw, &stamp) == nil && stamp.Repo == src.Repo {
		_, err := os.Stat(filepath.Join(dir, ".git"))
		haveClone = err == nil
	}
	now := c.now()
	age := now.Sub(stamp.FetchedAt)
	origin := &Origin{Location: IndexName(src), FromCache: haveClone, Age: age}
	if haveClone && (c.opts.Offline || age < c.opts.MaxAge) {
		return registryRoot(dir), origin, nil
	}
	if c.opts.Offline {
		return "", nil, fmt.Errorf("%w: git registry %s", ErrOffline, IndexName(src))
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return "", nil, err
	}
	tmp, err := os.MkdirTemp(root, name+".tmp-")
	if err != nil {
		return "", nil, err
	}
	defer rmtree.Remove(tmp)
	ctx, cancel := context.WithTimeout(ctx, c.opts.Fetch.Timeout)
	defer cancel()
	err = c.checkGitRedirect(ctx, src.Repo)
	if err == nil {
		err = cloneShallow(ctx, src.Repo, src.Ref, tmp)
	}
	if err != nil {
		if haveClone {
			origin.Stale, origin.FetchErr = true, err.Error()
			return registryRoot(dir), origin, nil
		}
		return "", nil, fmt.Errorf("cloning registry %s: %w", IndexName(src), err)
	}
	old := dir + ".old-" + filepath.Base(tmp)
	if haveClone {
		if err := os.Rename(dir, old); err != nil {
			return "", nil, err
		}
	} else {
		_ = rmtree.Remove(dir)
	}
	if err := os.Rename(tmp, dir); err != nil {
		_ = os.Rename(old, dir)
		return "", nil, err
	}
	_ = rmtree.Remove(old)
	raw, _ := json.Marshal(gitStamp{Repo: src.Repo, Ref: src.Ref, FetchedAt: now})
	_ = atomicfile.Write(stampFile, raw, 0o600)
	return registryRoot(dir), &Origin{Location: IndexName(src)}, nil
}

// ErrGitRedirect is a git index whose URL carries credentials and whose
// server redirects to another origin.
var ErrGitRedirect = errors.New("git registry redirects away from the host its credentials are for")

// checkGitRedirect asks for the repository's ref advertisement through the
// fetch layer before go-git clones it, and refuses to clone when that
// request is redirected from https to http (fetch.ErrInsecureRedirect), or,
// for a URL with user information, to another scheme, host or port
// (ErrGitRedirect): the credentials are for that origin only. go-git also
// refuses a redirect to http and drops credentials on one that leaves the
// origin; the check makes such an index an error instead of an anonymous
// clone from elsewhere. Other failures are left for the clone to report.
func (c *Client) checkGitRedirect(ctx context.Context, repo string) error {
	u, err := url.Parse(repo)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") {
		return nil
	}
	probe := *u
	probe.Path = strings.TrimSuffix(u.Path, "/") + "/info/refs"
	probe.RawPath, probe.RawQuery, probe.Fragment = "", "service=git-upload-pack", ""
	limits := c.opts.Fetch
	limits.Tries = 1
	fc := fetch.New(fetch.Options{HTTP: c.hc, Limits: limits, UserAgent: "git/2 (spirit)"})
	resp, err := fc.Get(ctx, probe.String(), nil)
	if errors.Is(err, fetch.ErrInsecureRedirect) {
		return err
	}
	if err != nil {
		return nil
	}
	resp.Body.Close()
	if u.User != nil && (resp.Final.Scheme != u.Scheme || fetch.HostPort(resp.Final) != fetch.HostPort(u)) {
		return fmt.Errorf("%w: %s answers from %s", ErrGitRedirect, fetch.Redact(repo), fetch.Redact(resp.Final.String()))
	}
	return nil
}

// cloneShallow clones one commit of ref (a branch, else a tag; "" is the
// default branch) into dir.
func cloneShallow(ctx context.Context, repo, ref, dir string) error {
	opts := &git.CloneOptions{URL: repo, Depth: 1, SingleBranch: true, Tags: git.NoTags}
	if ref == "" {
		_, err := git.PlainCloneContext(ctx, dir, false, opts)
		return err
	}
	opts.ReferenceName = plumbing.NewBranchReferenceName(ref)
	_, err := git.PlainCloneContext(ctx, dir, false, opts)
	if err == nil || ctx.Err() != nil {
		return err
	}
	if rerr := rmtree.Remove(dir); rerr != nil {
		return err
	}
	if mkErr := os.Mkdir(dir, 0o755); mkErr != nil {
		return err
	}
	opts.ReferenceName = plumbing.NewTagReferenceName(ref)
	if _, terr := git.PlainCloneContext(ctx, dir, false, opts); terr != nil {
		return fmt.Errorf("no branch or tag %q: %w", ref, err)
	}
	return nil
}

// registryRoot returns dir, or dir/registry when the index lives there (as
// in the official repository). Only a real folder and file count: a
// symbolic link in the clone is not followed to choose the root.
func registryRoot(dir string) string {
	isFile := func(p string) bool {
		fi, err := os.Lstat(p)
		return err == nil && fi.Mode().IsRegular()
	}
	if isFile(filepath.Join(dir, "catalog.json")) {
		return dir
	}
	if fi, err := os.Lstat(filepath.Join(dir, "registry")); err == nil && fi.IsDir() && isFile(filepath.Join(dir, "registry", "catalog.json")) {
		return filepath.Join(dir, "registry")
	}
	return dir
}
