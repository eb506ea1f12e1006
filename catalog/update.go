package catalog

import (
	"context"
	"crypto/sha512"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/Masterminds/semver/v3"

	"github.com/spiritagents/spirit/fetch"
	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/internal/rmtree"
	"github.com/spiritagents/spirit/manifest"
	"github.com/spiritagents/spirit/npm"
	"github.com/spiritagents/spirit/paths"
)

// ErrNotConsented is matched by the error of an update that Ask refused.
var ErrNotConsented = errors.New("the update was not accepted")

// The kinds of SourceStatus: installs that did not come from a marketplace.
const (
	SourceNPM   = "npm"
	SourceLocal = "local"
	SourceURL   = "url"
	SourceOther = "other"
)

// SourceStatus is one install that did not come from a marketplace: npm
// installs are checked against their registry, URL installs (with
// Updater.CheckURLs) downloaded again, the others only named. Its field
// names are a public contract (`outdated --json`).
type SourceStatus struct {
	ID   string `json:"id"`
	Kind string `json:"kind"` // npm | local | url | other
	// Asked is what the install asked for: the npm spec, the path or URL.
	Asked   string `json:"asked,omitempty"`
	Current string `json:"current"`
	// Wanted is the newest version that satisfies what was asked (npm
	// range or dist-tag); Latest the registry's latest dist-tag.
	Wanted   string `json:"wanted,omitempty"`
	Latest   string `json:"latest,omitempty"`
	Outdated bool   `json:"outdated"`
	Checked  bool   `json:"checked"`
	// Warning says why an npm install could not be checked.
	Warning string `json:"warning,omitempty"`
	// CacheAge, offline, is how old the cached registry document was.
	CacheAge string `json:"cacheAge,omitempty"`
	// Changed, for a URL install checked with CheckURLs, says the URL now
	// serves other bytes than the ones installed.
	Changed bool `json:"changed,omitempty"`

	// Install is the install the row is about.
	Install *install.Installed `json:"-"`
	spec    npm.Spec
}

// Target is the version an update installs: Wanted, or Latest with latest.
func (st *SourceStatus) Target(latest bool) string {
	if latest {
		return st.Latest
	}
	return st.Wanted
}

// NPMClients makes one npm client per registry that installs came from,
// or Registry for all when it is set.
type NPMClients struct {
	// New makes the client of a registry URL.
	New func(registry string) (*npm.Client, error)
	// Registry, when set, is used for every install.
	Registry string
	clients  map[string]*npm.Client
}

// Client returns the client for an install recorded from registry.
func (nc *NPMClients) Client(recorded string) (*npm.Client, error) {
	reg := nc.Registry
	if reg == "" {
		reg = recorded
	}
	if c, ok := nc.clients[reg]; ok {
		return c, nil
	}
	c, err := nc.New(reg)
	if err != nil {
		return nil, err
	}
	if nc.clients == nil {
		nc.clients = map[string]*npm.Client{}
	}
	nc.clients[reg] = c
	return c, nil
}

// Updater says what is outdated among the installs of one host and updates
// them: marketplace installs from Catalog (only those it owns, see
// install.MarketplaceOrigin), npm installs from their registry. It never
// prints and never prompts: Apply hands every question to its Ask.
//
// The steps are Statuses (marketplace), CheckSources (npm, URL), then
// CompleteAdds for `outdated`, or PlanAll / Plan.Add and Apply for `update`.
type Updater struct {
	Paths   *paths.Paths
	Catalog *Client
	NPM     *NPMClients
	// Offline uses the caches only: npm rows say how old their document is.
	Offline bool
	// CheckURLs downloads URL installs again (through Fetch) to see
	// whether they changed.
	CheckURLs bool
	Fetch     func() (*fetch.Client, error)
	// AllowSHA1 accepts marketplace tarballs that only sha1 verifies.
	AllowSHA1 bool
	// Latest goes past what was asked: npm's latest version past the
	// range, the index's default version past the channel followed.
	Latest bool
	// Policy is what the default marketplace resolution accepts.
	Policy Consent
	// Marketplace, when set, resolves a marketplace version to a
	// downloaded and verified artifact (a front end that asks about the
	// install policy sets it); nil prepares, checks Policy and downloads
	// through Catalog.
	Marketplace func(ctx context.Context, ref install.MarketplaceRef) (*install.Artifact, error)
	// Installer installs the updates (Apply only).
	Installer *install.Installer
	// Check, when set, is asked about each new version's manifest before it
	// is installed (install.Request.Check); an error refuses that update.
	// The command line refuses a tool name the update would newly share.
	Check func(*manifest.Manifest) error
}

// Outdated is what Statuses and CheckSources found.
type Outdated struct {
	// Installed is every install of the host.
	Installed []install.Installed
	// Extensions are the marketplace installs; nil when CatalogErr.
	Extensions []Status
	// Sources are the other installs.
	Sources  []SourceStatus
	Warnings []Warning
	// CatalogErr says why the index could not be read; a warning says so
	// when a marketplace install needed it.
	CatalogErr error
}

// Statuses lists the installs and the catalog status of those the index
// owns. An index that cannot be read is CatalogErr, not an error: only a
// failure to list the installs is. Adds holds only the capabilities the
// details list; CompleteAdds reads the rest.
func (u *Updater) Statuses(ctx context.Context) (*Outdated, error) {
	installed, err := install.List(u.Paths)
	if err != nil {
		return nil, err
	}
	o := &Outdated{Installed: installed}
	cat, err := u.Catalog.Catalog(ctx)
	if err == nil {
		o.Extensions, err = u.Catalog.Statuses(ctx, installed, string(u.Paths.Host))
	}
	if err != nil {
		o.CatalogErr = err
		for i := range installed {
			if install.KindOf(installed[i].Record) == install.KindMarketplace {
				o.Warnings = append(o.Warnings, Warning{Pointer: IndexName(u.Catalog.Source()),
					Message: "marketplace extensions not checked: " + err.Error()})
				break
			}
		}
		return o, nil
	}
	o.Warnings = cat.Warnings
	if u.Latest {
		latestPastChannel(o.Extensions)
	}
	return o, nil
}

// latestPastChannel makes the index's default version the target of every
// status where it is newer than both the installed version and the newest
// of the channel followed; the install then follows the default's channel.
func latestPastChannel(sts []Status) {
	for i := range sts {
		st := &sts[i]
		base := st.Installed
		if st.Latest != "" && Newer(st.Latest, base) {
			base = st.Latest
		}
		if st.Default != "" && Newer(st.Default, base) {
			st.Latest, st.Channel, st.Outdated = st.Default, st.DefaultChannel, true
		}
	}
}

// CheckSources fills o.Sources: a row for every install that is not a
// marketplace install, npm installs checked against their registry; a
// registry that cannot be reached is a warning on its rows.
func (u *Updater) CheckSources(ctx context.Context, o *Outdated) {
	o.Sources = nil
	for i := range o.Installed {
		in := &o.Installed[i]
		kind := install.KindOf(in.Record)
		if kind == install.KindMarketplace || kind == "" && in.Entry != nil && in.Entry.InstallSource == install.SourceMarketplace {
			continue
		}
		st := SourceStatus{ID: in.ID, Current: in.Version(), Install: in}
		if in.Record != nil {
			st.Asked = in.Record.Source
		}
		switch kind {
		case install.KindDir, install.KindArchive:
			st.Kind = SourceLocal
		case install.KindURL:
			st.Kind = SourceURL
			if u.CheckURLs {
				u.checkURL(ctx, &st)
			}
		case install.KindNPM:
			st.Kind = SourceNPM
			u.checkNPM(ctx, &st)
		default:
			st.Kind = SourceOther
		}
		o.Sources = append(o.Sources, st)
	}
}

func (u *Updater) checkNPM(ctx context.Context, st *SourceStatus) {
	spec, err := install.NPMSpecOf(st.Install.Record)
	if err != nil {
		st.Warning = err.Error()
		return
	}
	st.spec = spec
	c, err := u.NPM.Client(st.Install.Record.NPMRegistry)
	if err != nil {
		st.Warning = err.Error()
		return
	}
	w, err := c.Resolve(ctx, spec)
	if err != nil {
		st.Warning = err.Error()
		return
	}
	l, err := c.Resolve(ctx, npm.Spec{Name: spec.Name, Range: "latest"})
	if err != nil {
		st.Warning = err.Error()
		return
	}
	st.Wanted, st.Latest, st.Checked = w.Version, l.Version, true
	if u.Offline {
		if age, ok := c.CacheAge(spec.Name); ok {
			st.CacheAge = age.Round(time.Second).String()
		}
	}
	st.Outdated = newer(st.Wanted, st.Current) || newer(st.Latest, st.Current)
}

// checkURL downloads a URL install's URL again (through the fetch layer,
// with its limits) and compares the bytes with the digest recorded at
// install: no validator such as an ETag is recorded, so the bytes are the
// check. The download is removed afterwards.
func (u *Updater) checkURL(ctx context.Context, st *SourceStatus) {
	rec := st.Install.Record
	switch {
	case u.Offline:
		st.Warning = "not checked offline"
		return
	case rec == nil || rec.Integrity == "":
		st.Warning = "no digest was recorded at install"
		return
	}
	fc, err := u.Fetch()
	if err != nil {
		st.Warning = err.Error()
		return
	}
	dir, err := os.MkdirTemp("", "spirit-check-")
	if err != nil {
		st.Warning = err.Error()
		return
	}
	defer rmtree.Remove(dir)
	url := rec.ResolvedURL
	if url == "" {
		url = rec.Source
	}
	file, _, err := install.DownloadWith(ctx, fc, url, dir)
	if err != nil {
		st.Warning = err.Error()
		return
	}
	data, err := os.ReadFile(file)
	if err != nil {
		st.Warning = err.Error()
		return
	}
	sum := sha512.Sum512(data)
	st.Checked = true
	st.Changed = !slices.Contains(strings.Fields(rec.Integrity), "sha512-"+base64.StdEncoding.EncodeToString(sum[:]))
	st.Outdated = st.Changed
}

// CompleteAdds completes the Adds of each outdated marketplace status from
// the newer tarball's manifest (downloaded and cached), and adds a warning
// for each it cannot read.
func (u *Updater) CompleteAdds(ctx context.Context, o *Outdated) {
	for i := range o.Extensions {
		st := &o.Extensions[i]
		if !st.Outdated {
			continue
		}
		adds, err := u.fullAdditions(ctx, st, findInstalled(o.Installed, st.ID))
		if err != nil {
			o.Warnings = append(o.Warnings, Warning{Pointer: st.ID,
				Message: "could not read " + st.Latest + " to see what it adds beyond capabilities: " + err.Error()})
			continue
		}
		st.Adds = adds
	}
}

func findInstalled(list []install.Installed, id string) *install.Installed {
	for i := range list {
		if list[i].ID == id {
			return &list[i]
		}
	}
	return nil
}

// fullAdditions reads the tarball of st.Latest and diffs its manifest with
// the installed one (capabilities against those recorded as granted).
func (u *Updater) fullAdditions(ctx context.Context, st *Status, in *install.Installed) (*Additions, error) {
	if in == nil {
		return nil, errors.New("not installed")
	}
	prep, err := u.Catalog.Prepare(ctx, st.ExtensionID, Selector{Version: st.Latest})
	if err != nil {
		return nil, err
	}
	tb, err := u.Catalog.Tarball(ctx, prep, u.AllowSHA1)
	if err != nil {
		return nil, err
	}
	if tb.Temporary {
		defer os.Remove(tb.Path)
	}
	return AdditionsOf(in, tb.Path)
}

// AdditionsOf diffs the manifest of a package file (a tarball, an archive
// or a folder) with the installed one, capabilities against those recorded
// as granted: what replacing in with it needs consent for. update and sync
// share it.
func AdditionsOf(in *install.Installed, file string) (*Additions, error) {
	m, err := PackageManifest(file)
	if err != nil {
		return nil, err
	}
	var granted []string
	if in.Record != nil {
		granted = in.Record.GrantedCapabilities
	}
	a := Diff(in.Manifest, m, granted)
	return &a, nil
}

// Plan is what `update` would do: the marketplace and npm installs to
// update (or, when named, to report up to date), and the named installs it
// skips.
type Plan struct {
	Marketplace []Status
	NPM         []*SourceStatus
	Skipped     []UpdateResult
}

// PlanAll plans the update of every outdated install of o.
func (u *Updater) PlanAll(o *Outdated) *Plan {
	p := &Plan{}
	for _, st := range o.Extensions {
		if st.Outdated {
			p.Marketplace = append(p.Marketplace, st)
		}
	}
	for i := range o.Sources {
		if o.Sources[i].Kind == SourceNPM && newer(o.Sources[i].Target(u.Latest), o.Sources[i].Current) {
			p.NPM = append(p.NPM, &o.Sources[i])
		}
	}
	return p
}

// NotUpdatableError says that an id named to update is no install that
// update knows: not a marketplace install of the index, nor an install of
// another kind. CatalogErr is set when the index could not be read.
type NotUpdatableError struct {
	ID         string
	CatalogErr error
}

func (e *NotUpdatableError) Error() string {
	if e.CatalogErr != nil {
		return e.CatalogErr.Error()
	}
	return e.ID + " is not an installed extension that the marketplace knows"
}

// Unwrap returns CatalogErr.
func (e *NotUpdatableError) Unwrap() error { return e.CatalogErr }

// Add plans the update of the install id (an installed id or a marketplace
// id): a marketplace install of the index or an npm install is planned, a
// folder, archive or URL install is skipped (the returned result says why);
// anything else is a *NotUpdatableError.
func (p *Plan) Add(o *Outdated, id string) (*UpdateResult, error) {
	for _, st := range o.Extensions {
		if st.ID == id || st.ExtensionID == id {
			p.Marketplace = append(p.Marketplace, st)
			return nil, nil
		}
	}
	for i := range o.Sources {
		st := &o.Sources[i]
		if st.ID != id {
			continue
		}
		if st.Kind == SourceNPM {
			p.NPM = append(p.NPM, st)
			return nil, nil
		}
		in := st.Install
		r := UpdateResult{ID: id, From: st.Current, Kind: st.Kind, Status: UpdateSkipped, Install: in,
			Error: fmt.Sprintf("%s is installed from %s (%s); update does not replace %s installs",
				id, install.DescribeOrigin(in.Entry, in.Record), st.Kind, st.Kind)}
		p.Skipped = append(p.Skipped, r)
		return &r, nil
	}
	return nil, &NotUpdatableError{ID: id, CatalogErr: o.CatalogErr}
}

// The outcomes of one update.
const (
	UpdateDone     = "updated"
	UpdateUpToDate = "up-to-date"
	UpdateRefused  = "refused"
	UpdateFailed   = "failed"
	UpdateSkipped  = "skipped"
)

// UpdateResult is the outcome of one planned update. Its field names are a
// public contract (`update --json`).
type UpdateResult struct {
	ID      string     `json:"id"`
	From    string     `json:"from"`
	To      string     `json:"to,omitempty"`
	Channel string     `json:"channel,omitempty"`
	Status  string     `json:"status"` // updated | up-to-date | refused | failed | skipped
	Kind    string     `json:"kind,omitempty"`
	Adds    *Additions `json:"adds,omitempty"`
	Error   string     `json:"error,omitempty"`
	Granted []string   `json:"grantedCapabilities,omitempty"`
	// Rollback is the version replaced, kept for rollback.
	Rollback string `json:"rollbackVersion,omitempty"`

	// Err is the error behind Error; Result the install, when updated.
	Err    error           `json:"-"`
	Result *install.Result `json:"-"`
	// Marketplace or NPM is the planned row (nil for a skipped install,
	// whose Install is set).
	Marketplace *Status            `json:"-"`
	NPM         *SourceStatus      `json:"-"`
	Install     *install.Installed `json:"-"`
}

// Question is what Apply asks before an update goes ahead: whether it may
// cross a major version (MajorChange, only with Latest, before the
// download), or whether it may add what Adds lists (once the downloaded
// bytes are diffed, only when they add something).
type Question struct {
	ID, From, To string
	MajorChange  bool
	Adds         *Additions
}

// Ask answers a Question: nil lets the update go on; an error (matching
// ErrNotConsented, for a refusal) stops it.
type Ask func(Question) error

// Apply runs the plan, one install at a time (each an atomic install; the
// replaced version is kept for rollback): marketplace installs first, then
// npm installs. report, when set, is called with each result as it is
// known. It returns the skipped results, then one per planned install.
func (u *Updater) Apply(ctx context.Context, p *Plan, o *Outdated, ask Ask, report func(UpdateResult)) []UpdateResult {
	results := append([]UpdateResult{}, p.Skipped...)
	done := func(r UpdateResult) {
		if r.Err != nil {
			r.Error = r.Err.Error()
		}
		if report != nil {
			report(r)
		}
		results = append(results, r)
	}
	for i := range p.Marketplace {
		st := &p.Marketplace[i]
		r := UpdateResult{ID: st.ID, From: st.Installed, Channel: st.Channel, Adds: st.Adds, Marketplace: st}
		if !st.Outdated {
			r.Status = UpdateUpToDate
			done(r)
			continue
		}
		r.To = st.Latest
		res, adds, err := u.applyMarketplace(ctx, *st, findInstalled(o.Installed, st.ID), ask)
		if adds != nil {
			r.Adds = adds
		}
		r.settle(res, err)
		done(r)
	}
	for _, st := range p.NPM {
		r := UpdateResult{ID: st.ID, From: st.Current, Kind: SourceNPM, NPM: st}
		to := st.Target(u.Latest)
		switch {
		case st.Warning != "":
			r.Status, r.Err = UpdateFailed, errors.New(st.Warning)
		case !newer(to, st.Current):
			r.Status = UpdateUpToDate
		default:
			r.To = to
			r.settle(u.applyNPM(ctx, st, ask))
		}
		done(r)
	}
	return results
}

// settle records how an applied update ended: updated (with what was
// granted and the version kept for rollback), refused or failed.
func (r *UpdateResult) settle(res *install.Result, err error) {
	r.Result, r.Err = res, err
	switch {
	case err == nil:
		r.Status, r.Granted, r.Rollback = UpdateDone, res.Record.GrantedCapabilities, res.Previous
	case errors.Is(err, ErrNotConsented):
		r.Status = UpdateRefused
	default:
		r.Status = UpdateFailed
	}
}

// askMajor asks whether an update with Latest may cross a major version.
func (u *Updater) askMajor(ask Ask, id, from, to string) error {
	if !u.Latest || major(to) == major(from) {
		return nil
	}
	return ask(Question{ID: id, From: from, To: to, MajorChange: true})
}

// askAdds asks whether an update may add what adds lists.
func askAdds(ask Ask, id, from, to string, adds *Additions) error {
	if adds.Empty() {
		return nil
	}
	return ask(Question{ID: id, From: from, To: to, Adds: adds})
}

// applyMarketplace installs st.Latest over installed, after the install
// policy and, when the downloaded version adds anything, ask. It returns
// what the version adds, once it is known.
func (u *Updater) applyMarketplace(ctx context.Context, st Status, installed *install.Installed, ask Ask) (*install.Result, *Additions, error) {
	if installed == nil {
		return nil, nil, fmt.Errorf("%s is not installed", st.ID)
	}
	if err := u.askMajor(ask, st.ID, st.Installed, st.Latest); err != nil {
		return nil, nil, err
	}
	resolve := u.Marketplace
	if resolve == nil {
		resolve = u.resolveMarketplace
	}
	r := &install.Resolver{Marketplace: resolve}
	art, err := r.ResolveMarketplace(ctx, install.MarketplaceRef{ID: st.ExtensionID, Version: st.Latest})
	if err != nil {
		return nil, nil, err
	}
	defer art.Close()
	// Consent is asked for what the bytes about to be installed add.
	adds, err := AdditionsOf(installed, art.Path)
	if err != nil {
		return nil, nil, err
	}
	if err := askAdds(ask, st.ID, st.Installed, st.Latest, adds); err != nil {
		return nil, adds, err
	}
	req := art.Request(true, false)
	req.Channel = st.Channel
	owner := OriginOf(u.Catalog.Source(), &Item{ExtensionID: art.MarketplaceID, PackageName: art.ExpectName})
	req.Owner = &owner
	req.Check = u.Check
	res, err := u.Installer.Install(ctx, req)
	return res, adds, err
}

// resolveMarketplace resolves ref through Catalog with Policy.
func (u *Updater) resolveMarketplace(ctx context.Context, ref install.MarketplaceRef) (*install.Artifact, error) {
	return u.Catalog.Resolve(ctx, ref, string(u.Paths.Host), u.Policy, u.AllowSHA1)
}

// Resolve prepares the version ref names (the default version when it
// names none), checks it against policy for host, and downloads the
// verified tarball: the marketplace side of an install, without a
// terminal. It fits install.Resolver.Marketplace; install the artifact
// with Request.Owner set to OriginOf the item, as `marketplace install`
// does, so that it replaces only an install of the same entry.
func (c *Client) Resolve(ctx context.Context, ref install.MarketplaceRef, host string, policy Consent, allowSHA1 bool) (*install.Artifact, error) {
	prep, err := c.Prepare(ctx, ref.ID, Selector{Version: ref.Version})
	if err != nil {
		return nil, err
	}
	if err := prep.Check(host, policy); err != nil {
		return nil, err
	}
	tb, err := c.Tarball(ctx, prep, allowSHA1)
	if err != nil {
		return nil, err
	}
	return c.Artifact(prep, tb), nil
}

// Artifact is the install artifact of the downloaded tarball tb of p: what
// the install records about its marketplace origin. Closing it removes a
// temporary tarball.
func (c *Client) Artifact(p *Prepared, tb *npm.Tarball) *install.Artifact {
	a := &install.Artifact{
		Path:             tb.Path,
		MarketplaceIndex: IndexName(c.Source()),
		Source:           install.MarketplacePrefix + p.Item.ExtensionID + "@" + p.Version.Version,
		ResolvedURL:      p.TarballLocation(),
		Integrity:        tb.Integrity,
		ArchiveFileName:  p.SourceFileName,
		MarketplaceID:    p.Item.ExtensionID, Channel: p.Version.Channel, ReviewStatus: p.Version.ReviewStatus,
		ExpectName: p.Item.PackageName, ExpectVersion: p.Version.Version,
	}
	if tb.Temporary {
		a.OnClose(func() { os.Remove(tb.Path) })
	}
	return a
}

// applyNPM installs st's target version over the npm install st.Install,
// through the same atomic install and consent as a marketplace update. The
// record keeps what was asked; with Latest it asks NAME@^NEW.
func (u *Updater) applyNPM(ctx context.Context, st *SourceStatus, ask Ask) (*install.Result, error) {
	to := st.Target(u.Latest)
	c, err := u.NPM.Client(st.Install.Record.NPMRegistry)
	if err != nil {
		return nil, err
	}
	res, err := c.Resolve(ctx, npm.Spec{Name: st.spec.Name, Range: to})
	if err != nil {
		return nil, err
	}
	if err := u.askMajor(ask, st.ID, st.Current, to); err != nil {
		return nil, err
	}
	tb, err := c.FetchTarball(ctx, res)
	if err != nil {
		return nil, err
	}
	if tb.Temporary {
		defer os.Remove(tb.Path)
	}
	adds, err := AdditionsOf(st.Install, tb.Path)
	if err != nil {
		return nil, err
	}
	if err := askAdds(ask, st.ID, st.Current, to, adds); err != nil {
		return nil, err
	}
	asked := st.Install.Record.Source
	if u.Latest {
		asked = st.spec.Name + "@^" + to // past the range: the new range follows the new major
	}
	return u.Installer.Install(ctx, install.Request{
		Path: tb.Path, Replace: true, Source: asked, SourceKind: install.KindNPM, NPMRegistry: res.Registry,
		ResolvedURL: res.TarballURL, Integrity: tb.Integrity, InstallSource: install.SourceArchive,
		ArchiveFileName: TarballName(res.TarballURL), ExpectName: res.Name, ExpectVersion: res.Version,
		NPMSignature: &res.Signature, Provenance: c.Provenance(ctx, res), Check: u.Check,
	})
}

// TarballName is the file name at the end of a tarball URL.
func TarballName(u string) string {
	if i := strings.LastIndex(u, "/"); i >= 0 {
		return u[i+1:]
	}
	return u
}

// newer reports whether a is a higher semver than b.
func newer(a, b string) bool {
	va, err1 := semver.NewVersion(a)
	vb, err2 := semver.NewVersion(b)
	return err1 == nil && err2 == nil && va.GreaterThan(vb)
}

func major(v string) uint64 {
	sv, err := semver.NewVersion(v)
	if err != nil {
		return 0
	}
	return sv.Major()
}
