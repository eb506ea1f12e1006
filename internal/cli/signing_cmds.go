package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/spiritagents/spirit/catalog"
	"github.com/spiritagents/spirit/catalog/verify"
	"github.com/spiritagents/spirit/internal/iostreams"
	"github.com/spiritagents/spirit/internal/rmtree"
	"github.com/spiritagents/spirit/internal/termtext"
	"github.com/spiritagents/spirit/registry/sign"
)

// requireSigned is --require-signed, else SPIRIT_REQUIRE_SIGNED=1.
func (f *Factory) requireSigned() bool {
	if f.Global.RequireSigned {
		return true
	}
	v := strings.TrimSpace(f.Getenv("SPIRIT_REQUIRE_SIGNED"))
	return v == "1" || strings.EqualFold(v, "true")
}

// signatureNotice tells, on stderr, of a root pinned on first use and of
// expired metadata accepted by --allow-expired-index.
func (f *Factory) signatureNotice(ix *verify.Index) {
	if ix.FirstUse {
		termtext.Fprintf(f.IO.ErrOut, "Notice: trusting the signed index %s on first use: root key %s (root version %d) is now pinned\n",
			catalog.IndexName(mustSource(f.RegistrySource())), ix.RootKeyID(), ix.RootVersion)
	}
	if ix.Expired {
		termtext.Fprintf(f.IO.ErrOut, "Warning: the signed index metadata expired %s ago (at %s); used anyway because of --allow-expired-index: it may be stale or frozen by an attacker\n",
			roundDuration(f.Now().Sub(ix.Expires)), ix.Expires.Format(time.RFC3339))
	}
}

func mustSource(s string) *catalog.Source {
	src, err := catalog.ParseSource(s)
	if err != nil {
		return &catalog.Source{Kind: catalog.KindDir, Dir: s}
	}
	return src
}

func roundDuration(d time.Duration) string {
	if d > time.Hour {
		return d.Round(time.Hour).String()
	}
	return d.Round(time.Second).String()
}

// signatureError adds the hint that fits a refused signed index.
func signatureError(err error) error {
	switch {
	case errors.Is(err, verify.ErrFreeze):
		return withHint(err, "the index must be signed again (spirit registry sign); for an old offline mirror, --allow-expired-index accepts it with a warning")
	case errors.Is(err, verify.ErrRollback):
		return withHint(err, "the index or a mirror in front of it serves older metadata than you saw before; nothing was installed. Try again later or use another mirror")
	case errors.Is(err, verify.ErrWrongKey):
		return withHint(err, "the metadata is not signed by the root you pinned; if the maintainers really changed keys, pin their new root with spirit extension marketplace trust --root FILE")
	case errors.Is(err, verify.ErrStripped):
		return withHint(err, "the index was signed when you first used it; to accept it unsigned, remove its pinned root with spirit extension marketplace trust --forget")
	case errors.Is(err, verify.ErrUnsigned):
		return withHint(err, "use a signed index, or drop --require-signed (SPIRIT_REQUIRE_SIGNED)")
	}
	return withHint(err, "the index was changed after it was signed; nothing was installed. Report it to the index's maintainers")
}

// signatureLine is the line list and detail print on stderr about a signed
// index; "" for an unsigned one.
func signatureLine(ix *verify.Index) string {
	if ix == nil {
		return ""
	}
	s := fmt.Sprintf("signed index: root key %s (root version %d), timestamp version %d valid until %s",
		ix.RootKeyID(), ix.RootVersion, ix.TimestampVersion, ix.Expires.Format(time.RFC3339))
	if ix.Expired {
		s += " (EXPIRED)"
	}
	return s
}

// MarketplaceTrustOptions are the inputs of `marketplace trust`.
type MarketplaceTrustOptions struct {
	f      *Factory
	Root   string
	Forget bool
}

func newCmdMarketplaceTrust(f *Factory, runF func(*MarketplaceTrustOptions) error) *cobra.Command {
	opts := &MarketplaceTrustOptions{f: f}
	cmd := &cobra.Command{
		Use:   "trust --root FILE",
		Short: "Pin the TUF root a signed marketplace index is verified against",
		Long: `Pin root.json (from the index's maintainers, obtained out of band) as the trusted root of
the index that --registry (or SPIRIT_REGISTRY) names. Every later read of that index
follows the root chain from it, and refuses metadata it does not sign. Without it, the
first use of a signed index pins its current root (trust on first use) with a notice.

--forget removes what is pinned for the index (and the versions seen): the next use
trusts it on first use again, or accepts it unsigned.`,
		Example: `  spirit --registry https://example.org/registry/ extension marketplace trust --root ./root.json
  spirit --registry ./mirror extension marketplace trust --root ./root.json --json
  spirit --registry ./mirror extension marketplace trust --forget`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if (opts.Root == "") == !opts.Forget {
				return usageErrorf("give either --root FILE or --forget")
			}
			if runF != nil {
				return runF(opts)
			}
			return runMarketplaceTrust(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Root, "root", "", "root.json to pin")
	cmd.Flags().BoolVar(&opts.Forget, "forget", false, "remove the pinned root of the index")
	return cmd
}

type trustJSON struct {
	Registry    string   `json:"registry"`
	Store       string   `json:"store"`
	RootVersion int64    `json:"rootVersion,omitempty"`
	RootKeyIDs  []string `json:"rootKeyIds,omitempty"`
	Forgotten   bool     `json:"forgotten,omitempty"`
}

func runMarketplaceTrust(opts *MarketplaceTrustOptions) error {
	f := opts.f
	p, err := f.Paths()
	if err != nil {
		return err
	}
	src, err := catalog.ParseSource(f.RegistrySource())
	if err != nil {
		return usageErrorf("--registry: %v", err)
	}
	store := catalog.TrustStore(p.TrustDir(), src)
	out := trustJSON{Registry: catalog.IndexName(src), Store: store}
	if opts.Forget {
		if err := rmtree.Remove(store); err != nil {
			return err
		}
		_ = os.Remove(store + ".unsigned.json")
		out.Forgotten = true
		if f.Global.JSON {
			return writeJSON(f.IO.Out, out)
		}
		termtext.Fprintf(f.IO.ErrOut, "forgot the pinned root of %s\n", out.Registry)
		return nil
	}
	data, err := os.ReadFile(opts.Root)
	if err != nil {
		return withHint(err, "--root names the index's root.json (its tuf/root.json, or one its maintainers published)")
	}
	root, err := verify.Pin(store, data)
	if err != nil {
		return withHint(fmt.Errorf("%s is not a valid self-signed TUF root: %w", opts.Root, err), "use the root.json from the index's tuf/ folder or its maintainers")
	}
	out.RootVersion = root.Signed.Version
	out.RootKeyIDs = root.Signed.Roles["root"].KeyIDs
	if f.Global.JSON {
		return writeJSON(f.IO.Out, out)
	}
	ids := make([]string, len(out.RootKeyIDs))
	for i, id := range out.RootKeyIDs {
		ids[i] = verify.Short(id)
	}
	termtext.Fprintf(f.IO.ErrOut, "pinned root version %d (root key %s) for %s\n", out.RootVersion, strings.Join(ids, ", "), out.Registry)
	return nil
}

// newCmdRegistryKeys is `registry keys init|rotate`.
func newCmdRegistryKeys(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "keys <command>",
		Short: "Make and rotate the signing keys of a signed index (TUF)",
		Args:  cobra.NoArgs,
		RunE:  groupRunE,
	}
	cmd.AddCommand(newCmdRegistryKeysInit(f, nil), newCmdRegistryKeysRotate(f, nil))
	return cmd
}

// RegistryKeysOptions are the inputs of `registry keys init` and `rotate`.
type RegistryKeysOptions struct {
	IO     *iostreams.IOStreams
	JSON   bool
	KeyDir string
	Root   string
	Role   string
	Now    func() time.Time
}

type keyJSON struct {
	Role    string `json:"role"`
	KeyID   string `json:"keyId"`
	Private string `json:"private"`
	Public  string `json:"public"`
}

func newCmdRegistryKeysInit(f *Factory, runF func(*RegistryKeysOptions) error) *cobra.Command {
	opts := &RegistryKeysOptions{IO: f.IO}
	return &cobra.Command{
		Use:   "init KEYDIR",
		Short: "Make the ed25519 keys of the four TUF roles: root, targets, snapshot, timestamp",
		Long: `Make one ed25519 key per role in KEYDIR (made 0700): <role>.key, the private key
(PKCS #8 PEM, 0600), and <role>.pub. Existing keys are never overwritten. The root key
ids are printed: publish them (or the root.json the first signing writes) so users can
pin the index with spirit extension marketplace trust.

Keep root.key offline; the timestamp and snapshot keys are the ones a scheduled job needs.`,
		Example: "  spirit registry keys init ./keys\n  spirit registry keys init ./keys --json",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.KeyDir, opts.JSON = args[0], f.Global.JSON
			if runF != nil {
				return runF(opts)
			}
			return runRegistryKeysInit(opts)
		},
	}
}

func runRegistryKeysInit(opts *RegistryKeysOptions) error {
	keys, err := sign.InitKeys(opts.KeyDir)
	if errors.Is(err, sign.ErrKeysExist) {
		return withHint(err, "use another folder, or spirit registry keys rotate to replace one key")
	}
	if err != nil {
		return err
	}
	out := []keyJSON{}
	for _, k := range keys {
		out = append(out, keyJSON{Role: k.Role, KeyID: k.ID, Private: sign.KeyFile(opts.KeyDir, k.Role), Public: sign.PubFile(opts.KeyDir, k.Role)})
	}
	if opts.JSON {
		return writeJSON(opts.IO.Out, struct {
			KeyDir string    `json:"keyDir"`
			Keys   []keyJSON `json:"keys"`
		}{opts.KeyDir, out})
	}
	for _, k := range out {
		if k.Role == "root" {
			termtext.Fprintf(opts.IO.Out, "%s\n", k.KeyID)
		}
	}
	termtext.Fprintf(opts.IO.ErrOut, "made the root, targets, snapshot and timestamp keys in %s (printed: the root key id)\n", opts.KeyDir)
	return nil
}

func newCmdRegistryKeysRotate(f *Factory, runF func(*RegistryKeysOptions) error) *cobra.Command {
	opts := &RegistryKeysOptions{IO: f.IO, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "rotate KEYDIR --role ROLE",
		Short: "Replace the key of one role; clients follow the new root version",
		Long: `Make a new key for ROLE (root, targets, snapshot or timestamp) in KEYDIR, keep the old
private key as <role>.key.retired-<keyid>, and write root version N+1 (tuf/N+1.root.json and
tuf/root.json) naming it, signed by the old root key and, for the root role, the new one.
Clients that pinned an older root follow the chain. When KEYDIR holds the other keys the
index is signed again at once; otherwise run spirit registry sign where they are.`,
		Example: "  spirit registry keys rotate ./keys --role timestamp --root ./registry-repo\n  spirit registry keys rotate ./keys --role root --json",
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.KeyDir, opts.JSON = args[0], f.Global.JSON
			if opts.Role == "" {
				return usageErrorf("--role is required: one of %s", strings.Join(sign.Roles, ", "))
			}
			if runF != nil {
				return runF(opts)
			}
			return runRegistryKeysRotate(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Role, "role", "", "role whose key to replace: root, targets, snapshot or timestamp")
	cmd.Flags().StringVar(&opts.Root, "root", ".", "registry repository (the folder that holds registry/), or the index folder")
	_ = cmd.RegisterFlagCompletionFunc("role", cobra.FixedCompletions(sign.Roles, cobra.ShellCompDirectiveNoFileComp))
	return cmd
}

func runRegistryKeysRotate(opts *RegistryKeysOptions) error {
	res, err := sign.RotateKey(sign.Options{IndexDir: registryFolder(opts.Root), KeyDir: opts.KeyDir, Now: opts.Now}, opts.Role)
	if res == nil {
		return signError(err)
	}
	if opts.JSON {
		if jerr := writeJSON(opts.IO.Out, res); jerr != nil {
			return jerr
		}
	} else {
		termtext.Fprintf(opts.IO.ErrOut, "rotated the %s key: %s → %s; wrote root version %d\n", res.Role, verify.Short(res.OldKeyID), verify.Short(res.NewKeyID), res.RootVersion)
		if res.Signed == nil {
			termtext.Fprintf(opts.IO.ErrOut, "the index is not signed with the new key yet: run spirit registry sign where the other keys are\n")
		}
		termtext.Fprintf(opts.IO.Out, "%s\n", strings.Join(res.RootKeyIDs, "\n"))
	}
	return signError(err)
}

// signError adds the hint that fits a signing failure.
func signError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, sign.ErrNoKey):
		return withHint(err, "make keys with spirit registry keys init KEYDIR, or point at the folder that holds them")
	case errors.Is(err, sign.ErrKeyNotInRoot):
		return withHint(err, "this KEYDIR is not the one the index was signed with; replace a key with spirit registry keys rotate")
	case errors.Is(err, sign.ErrNoIndex):
		return withHint(err, "run spirit registry build first, or pass --root")
	case errors.Is(err, sign.ErrNoRoot):
		return withHint(err, "sign it first with spirit registry sign KEYDIR")
	}
	return err
}

// RegistrySignOptions are the inputs of `registry sign`.
type RegistrySignOptions struct {
	IO              *iostreams.IOStreams
	JSON            bool
	KeyDir          string
	Root            string
	TimestampExpiry time.Duration
	Now             func() time.Time
}

func newCmdRegistrySign(f *Factory, runF func(*RegistrySignOptions) error) *cobra.Command {
	opts := &RegistrySignOptions{IO: f.IO, Now: f.Now}
	cmd := &cobra.Command{
		Use:   "sign KEYDIR",
		Short: "Sign an index (TUF metadata in tuf/), or refresh its timestamp and snapshot",
		Long: `Write the TUF metadata of the index beside catalog.json, in tuf/: root.json (made from
KEYDIR the first time), targets.json (catalog.json and every detail.json and README.md,
re-signed only when they changed), and a new snapshot.json and timestamp.json. The index
itself is not rebuilt or changed: run it on a schedule so the timestamp never expires.
Only the keys a run needs are read: with an unchanged index, the snapshot and timestamp
keys.`,
		Example: `  spirit registry sign ./keys --root ./registry-repo
  spirit registry sign "$KEYDIR" --timestamp-expiry 48h --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.KeyDir, opts.JSON = args[0], f.Global.JSON
			if opts.TimestampExpiry < time.Minute {
				return usageErrorf("--timestamp-expiry must be at least 1m")
			}
			if runF != nil {
				return runF(opts)
			}
			return runRegistrySign(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Root, "root", ".", "registry repository (the folder that holds registry/), or the index folder")
	cmd.Flags().DurationVar(&opts.TimestampExpiry, "timestamp-expiry", sign.DefaultTimestampExpiry, "how long the new timestamp is valid")
	return cmd
}

func runRegistrySign(opts *RegistrySignOptions) error {
	res, err := signIndex(registryFolder(opts.Root), opts.KeyDir, opts.TimestampExpiry, opts.Now)
	if err != nil {
		return err
	}
	return reportSigned(opts.IO, opts.JSON, res)
}

func signIndex(indexDir, keyDir string, expiry time.Duration, now func() time.Time) (*sign.Result, error) {
	res, err := sign.Sign(sign.Options{IndexDir: indexDir, KeyDir: keyDir, TimestampExpiry: expiry, Now: now})
	return res, signError(err)
}

func reportSigned(ios *iostreams.IOStreams, asJSON bool, res *sign.Result) error {
	if asJSON {
		return writeJSON(ios.Out, res)
	}
	termtext.Fprintf(ios.ErrOut, "signed %s: root version %d, targets %d, snapshot %d, timestamp %d valid until %s\n",
		plural(res.Targets, "file"), res.RootVersion, res.TargetsVersion, res.SnapshotVersion, res.TimestampVersion,
		res.TimestampExpires.Format(time.RFC3339))
	return nil
}

// signAfterBuild signs the index a build wrote (registry build --sign).
func signAfterBuild(ctx context.Context, ios *iostreams.IOStreams, asJSON bool, root, keyDir string, expiry time.Duration, now func() time.Time) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	res, err := signIndex(registryFolder(root), keyDir, expiry, now)
	if err != nil {
		return fmt.Errorf("registry build --sign: %w", err)
	}
	if asJSON {
		return nil
	}
	return reportSigned(ios, false, res)
}
