package catalog

import (
	"context"
	"errors"
	"slices"

	"github.com/spiritagents/spirit/fetch"
	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/manifest"
)

// IndexName is the name of the index src recorded on a marketplace
// install: the source as the user names it, without URL credentials.
func IndexName(src *Source) string {
	switch src.Kind {
	case KindURL:
		return fetch.Redact(src.URL.String())
	case KindGit:
		s := "git+" + fetch.Redact(src.Repo)
		if src.Ref != "" {
			s += "#" + src.Ref
		}
		return s
	}
	return src.String()
}

// OriginOf is the marketplace origin of item it in the index src: what an
// install of it records, and what it may replace.
func OriginOf(src *Source, it *Item) install.MarketplaceOrigin {
	index := IndexName(src)
	official := false
	if def, err := ParseSource(DefaultRegistry); err == nil {
		official = index == IndexName(def)
	}
	return install.MarketplaceOrigin{Index: index, ExtensionID: it.ExtensionID, PackageName: it.PackageName, Official: official}
}

// ItemFor returns the catalog item that an installed extension was
// installed from, in the index src: the item whose origin owns the install
// (install.MarketplaceOrigin.Owns); nil when none. An install from
// anywhere else (a local archive, npm, a URL, another index) is never
// taken for a marketplace install, even when its id is an item's
// packageName or extensionId.
func ItemFor(c *Catalog, src *Source, in *install.Installed) *Item {
	for i := range c.Items {
		if OriginOf(src, &c.Items[i]).Owns(in.Entry, in.Record) {
			return &c.Items[i]
		}
	}
	return nil
}

// InstalledByItem maps each catalog extensionId to its install from the
// index src, if any.
func InstalledByItem(c *Catalog, src *Source, installed []install.Installed) map[string]*install.Installed {
	out := map[string]*install.Installed{}
	for i := range installed {
		if it := ItemFor(c, src, &installed[i]); it != nil {
			if _, taken := out[it.ExtensionID]; !taken {
				out[it.ExtensionID] = &installed[i]
			}
		}
	}
	return out
}

// Additions is what a new version of an extension asks for that the
// installed one did not.
type Additions struct {
	Capabilities     []string `json:"capabilities,omitempty"`
	Tools            []string `json:"tools,omitempty"`
	ActivationEvents []string `json:"activationEvents,omitempty"`
	SecretSlots      []string `json:"secretSlots,omitempty"`
	// ApprovalModes are the tools of both versions whose calls needed the
	// user (need-approval, need-questions) and no longer do: a loosening
	// that needs the same consent as a new capability.
	ApprovalModes []ApprovalChange `json:"approvalModes,omitempty"`
}

// ApprovalChange is one tool whose approval mode an update changes.
type ApprovalChange struct {
	Tool string `json:"tool"`
	From string `json:"from"`
	To   string `json:"to"`
}

// String is "TOOL FROM → TO".
func (c ApprovalChange) String() string { return c.Tool + " " + c.From + " → " + c.To }

// Empty reports whether nothing is added.
func (a *Additions) Empty() bool {
	return a == nil || len(a.Capabilities)+len(a.Tools)+len(a.ActivationEvents)+len(a.SecretSlots)+len(a.ApprovalModes) == 0
}

// approvalMode is a tool's mode as the runtime applies it: no mode is
// "allowed".
func approvalMode(t manifest.Tool) string {
	if t.ApprovalMode == "" {
		return "allowed"
	}
	return t.ApprovalMode
}

// gated reports whether a call in mode waits for the user.
func gated(mode string) bool { return mode == "need-approval" || mode == "need-questions" }

// loosened returns the tools of both prev and next that waited for the
// user in prev and may run without it in next. With a tool name listed
// more than once, any gated entry of prev and any ungated one of next
// count, so a duplicate cannot hide a loosening.
func loosened(prev, next []manifest.Tool) []ApprovalChange {
	before := map[string]string{}
	for _, t := range prev {
		if m := approvalMode(t); gated(m) && before[t.Name] == "" {
			before[t.Name] = m
		}
	}
	var out []ApprovalChange
	done := map[string]bool{}
	for _, t := range next {
		from, to := before[t.Name], approvalMode(t)
		if from != "" && !gated(to) && !done[t.Name] {
			done[t.Name] = true
			out = append(out, ApprovalChange{Tool: t.Name, From: from, To: to})
		}
	}
	return out
}

func added(old, new []string) []string {
	var out []string
	for _, s := range new {
		if !slices.Contains(old, s) && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// Diff returns what next asks for that prev did not. granted, when not
// nil, replaces prev's capabilities (those recorded as granted).
func Diff(prev, next *manifest.Manifest, granted []string) Additions {
	var a Additions
	if next == nil {
		return a
	}
	var caps, tools, events, secrets []string
	if prev != nil {
		caps, events = prev.RequestedCapabilities, prev.ActivationEvents
		for _, t := range prev.Tools() {
			tools = append(tools, t.Name)
		}
		for _, s := range prev.SecretSlots {
			secrets = append(secrets, s.Key)
		}
	}
	if granted != nil {
		caps = granted
	}
	a.Capabilities = added(caps, next.RequestedCapabilities)
	a.ActivationEvents = added(events, next.ActivationEvents)
	var nt, ns []string
	for _, t := range next.Tools() {
		nt = append(nt, t.Name)
	}
	for _, s := range next.SecretSlots {
		ns = append(ns, s.Key)
	}
	a.Tools, a.SecretSlots = added(tools, nt), added(secrets, ns)
	if prev != nil {
		a.ApprovalModes = loosened(prev.Tools(), next.Tools())
	}
	return a
}

// Status of one installed extension against the catalog.
type Status struct {
	// ID is the installed id; ExtensionID the marketplace id.
	ID          string `json:"id"`
	ExtensionID string `json:"extensionId"`
	DisplayName string `json:"displayName"`
	Installed   string `json:"installed"`
	// Channel is the channel followed: the recorded one, else the
	// installed version's in the detail, else stable.
	Channel string `json:"channel"`
	// Latest is the newest version of the channel that supports the host
	// and is not revoked; "" when the catalog has none.
	Latest string `json:"latest,omitempty"`
	// Default is the index's default version (what a new install gets)
	// when the host can run it and it is not revoked, and DefaultChannel
	// its channel: `update --latest` goes to it past the channel followed.
	Default        string `json:"default,omitempty"`
	DefaultChannel string `json:"defaultChannel,omitempty"`
	// Outdated: Latest is a higher semver than Installed.
	Outdated bool `json:"outdated"`
	// Revoked: the installed version's review is now revoked.
	Revoked bool `json:"revoked,omitempty"`
	// Blocked: the extension is now blocked in the marketplace.
	Blocked bool `json:"blocked,omitempty"`
	// Unlisted: the installed version is no longer in the detail.
	Unlisted bool `json:"unlisted,omitempty"`
	// Adds is what Latest asks for beyond the installed version, from the
	// detail (capabilities only) until the caller fills in the rest.
	Adds *Additions `json:"adds,omitempty"`
	// Error says why the extension's detail could not be read.
	Error string `json:"error,omitempty"`
}

// Statuses returns the Status of every installed extension that was
// installed from this index (ItemFor), in the order of installed, for host. A detail that cannot be
// read is reported in Status.Error, not as a failure.
func (c *Client) Statuses(ctx context.Context, installed []install.Installed, host string) ([]Status, error) {
	cat, err := c.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	var out []Status
	for i := range installed {
		in := &installed[i]
		it := ItemFor(cat, c.src, in)
		if it == nil || in.Manifest == nil {
			continue
		}
		st := Status{ID: in.ID, ExtensionID: it.ExtensionID, DisplayName: in.DisplayName(), Installed: in.Version(),
			Blocked: it.Status == StatusBlocked}
		d, _, err := c.Detail(ctx, it.ExtensionID)
		if err != nil {
			st.Error = err.Error()
			out = append(out, st)
			continue
		}
		st.Blocked = st.Blocked || d.Status == StatusBlocked
		cur := d.Find(st.Installed)
		switch {
		case in.Record != nil && in.Record.Channel != "":
			st.Channel = in.Record.Channel
		case cur != nil:
			st.Channel = cur.Channel
		default:
			st.Channel = ChannelStable
		}
		st.Unlisted = cur == nil
		st.Revoked = cur != nil && cur.ReviewStatus == ReviewRevoked
		if dv := d.Find(d.DefaultVersion); dv != nil && dv.ReviewStatus != ReviewRevoked && (host == "" || dv.SupportsHost(host)) {
			st.Default, st.DefaultChannel = dv.Version, dv.Channel
		}
		if latest := Highest(d, st.Channel, host, false); latest != nil {
			st.Latest = latest.Version
			st.Outdated = Newer(latest.Version, st.Installed)
			if st.Outdated {
				var granted []string
				if in.Record != nil {
					granted = in.Record.GrantedCapabilities
				}
				if granted == nil {
					granted = in.Manifest.RequestedCapabilities
				}
				a := Additions{Capabilities: added(granted, latest.RequestedCapabilities)}
				st.Adds = &a
			}
		}
		out = append(out, st)
	}
	return out, nil
}

// Search returns the items whose text contains query (the words joined by
// single spaces, lowercased): display name, description, extensionId,
// packageName, keywords and author. Hidden, blocked and unknown-status
// items are left out unless all.
func Search(items []Item, query string, all bool) []Item {
	q := normalizeQuery(query)
	out := make([]Item, 0, len(items))
	for i := range items {
		it := &items[i]
		if !all && !it.Listed() {
			continue
		}
		if q == "" || matches(it, q) {
			out = append(out, *it)
		}
	}
	return out
}

// PackageManifest reads the package.json of a downloaded tarball (with the
// install package's archive rules) and validates it.
func PackageManifest(file string) (*manifest.Manifest, error) {
	a, err := install.ReadArchive(file)
	if err != nil {
		return nil, err
	}
	rep := manifest.Validate(a.Manifest, a.FS, manifest.Options{})
	if err := rep.Err(); err != nil {
		return nil, err
	}
	if rep.Manifest == nil {
		return nil, errors.New("package.json is not a JSON object")
	}
	return rep.Manifest, nil
}
