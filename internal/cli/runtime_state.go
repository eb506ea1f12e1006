package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/spiritagents/spirit/exthost"
	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/internal/termtext"
	"github.com/spiritagents/spirit/manifest"
)

// SettingsOptions are the inputs of `spirit extension settings`.
type SettingsOptions struct {
	f      *Factory
	Action string // get | set | unset
	ID     string
	Key    string
	Value  string
	Dev    []string
}

func newCmdSettings(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "settings <command>",
		Short: "Read and change extension settings",
		Long: `Read and change an extension's settings values. Values are checked against the
extension's settingsSchema with the Spirit Agent apps' messages, and stored in
the apps' file, extension-state/ext-<id>.json.`,
		Args: cobra.NoArgs,
		RunE: groupRunE,
	}
	cmd.AddCommand(
		newCmdSettingsAction(f, "get", "get ID [KEY]", "Print an extension's settings, or one of them", cobra.RangeArgs(1, 2), nil,
			"  spirit extension settings get my-ext\n  spirit extension settings get my-ext endpoint --json"),
		newCmdSettingsAction(f, "set", "set ID KEY VALUE", "Set a setting (VALUE is parsed by the setting's type)", cobra.ExactArgs(3), nil,
			"  spirit extension settings set my-ext endpoint https://api.example.com\n  spirit extension settings set my-ext retries 3"),
		newCmdSettingsAction(f, "unset", "unset ID KEY", "Clear a setting back to its default", cobra.ExactArgs(2), nil,
			"  spirit extension settings unset my-ext endpoint"),
	)
	return cmd
}

func newCmdSettingsAction(f *Factory, action, use, short string, args cobra.PositionalArgs, runF func(*SettingsOptions) error, example string) *cobra.Command {
	opts := &SettingsOptions{f: f, Action: action}
	cmd := &cobra.Command{
		Use:     use,
		Short:   short,
		Example: example,
		Args:    args,
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := installedID(cmd.Context(), f, args[0])
			if err != nil {
				return err
			}
			opts.ID = id
			if len(args) > 1 {
				opts.Key = args[1]
			}
			if len(args) > 2 {
				opts.Value = args[2]
			}
			if runF != nil {
				return runF(opts)
			}
			return runSettings(opts)
		},
	}
	cmd.Flags().StringArrayVar(&opts.Dev, "dev", nil, devFlagUsage)
	return cmd
}

// SettingsReport is the --json output of `settings`. Its fields are a public contract.
type SettingsReport struct {
	ID     string         `json:"id"`
	Values map[string]any `json:"values"`
}

// SettingReport is the --json output of `settings get ID KEY`.
type SettingReport struct {
	ID    string `json:"id"`
	Key   string `json:"key"`
	Set   bool   `json:"set"`
	Value any    `json:"value,omitempty"`
}

// parseSettingValue reads VALUE by the setting's type; a value that does not
// parse is passed on as a string, so the schema check names the problem.
func parseSettingValue(def manifest.Setting, s string) any {
	switch def.Type {
	case "boolean":
		if b, err := strconv.ParseBool(s); err == nil {
			return b
		}
	case "number":
		if n, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
			return n
		}
	}
	return s
}

func lookupExtension(f *Factory, id string, dev []string) (*install.Installed, *exthost.Host, error) {
	h, err := newHost(f, 0, dev)
	if err != nil {
		return nil, nil, err
	}
	ext, err := h.Extension(id)
	if err != nil {
		_ = h.Close()
		return nil, nil, hostError(err)
	}
	return ext, h, nil
}

func runSettings(opts *SettingsOptions) error {
	f := opts.f
	ext, h, err := lookupExtension(f, opts.ID, opts.Dev)
	if err != nil {
		return err
	}
	defer closeHost(f, h)
	m := ext.Manifest
	st := h.Settings()
	switch opts.Action {
	case "set", "unset":
		var v any
		if opts.Action == "set" {
			def, ok := m.Setting(opts.Key)
			if !ok {
				return withHint(&exthost.SettingError{Key: opts.Key, Message: "The extension does not declare the setting: " + opts.Key},
					"see its settings with: spirit extension settings get "+ext.ID)
			}
			v = parseSettingValue(def, opts.Value)
		}
		values, err := st.SetAll(m, []string{opts.Key}, map[string]any{opts.Key: v})
		if err != nil {
			return err
		}
		if f.Global.JSON {
			return writeJSON(f.IO.Out, SettingsReport{ID: ext.ID, Values: values})
		}
		return nil
	}
	values := st.GetAll(m)
	if _, err := st.GetAllChecked(m); err != nil {
		termtext.Fprintf(f.IO.ErrOut, "warning: the stored value is refused (%v); the default is shown, and the extension's settings.get fails until it is set again\n", err)
	}
	if opts.Key != "" {
		if _, ok := m.Setting(opts.Key); !ok {
			return &exthost.SettingError{Key: opts.Key, Message: "The extension does not declare the setting: " + opts.Key}
		}
		v, ok := values[opts.Key]
		if f.Global.JSON {
			return writeJSON(f.IO.Out, SettingReport{ID: ext.ID, Key: opts.Key, Set: ok, Value: v})
		}
		if ok {
			return printValue(f.IO.Out, v)
		}
		return nil
	}
	if f.Global.JSON {
		return writeJSON(f.IO.Out, SettingsReport{ID: ext.ID, Values: values})
	}
	tw := tabwriter.NewWriter(f.IO.Out, 0, 4, 2, ' ', 0)
	for _, def := range m.SettingsSchema {
		v, ok := values[def.Key]
		shown := "(unset)"
		if ok {
			b, _ := json.Marshal(v)
			shown = string(b)
		}
		termtext.Fprintf(tw, "%s\t%s\t%s\n", def.Key, def.Type, shown)
	}
	return tw.Flush()
}

func printValue(w io.Writer, v any) error {
	if s, ok := v.(string); ok {
		_, err := fmt.Fprintln(w, s)
		return err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, string(b))
	return err
}

// SecretsOptions are the inputs of `spirit extension secrets`.
type SecretsOptions struct {
	f      *Factory
	Action string // set | delete | status
	ID     string
	Key    string
	Dev    []string
}

func newCmdSecrets(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "secrets <command>",
		Short: "Store, delete and check extension secrets",
		Long: `Manage an extension's secrets in the system keyring (service SpiritAgent, account
extension::<id>::secret::<key>, as the desktop app), or where no keyring
answers in spirit's file store, {dataDir}/spirit-keyring/secrets.json (mode
0600; encrypted when SPIRIT_KEYRING_PASSWORD is set). SPIRIT_KEYRING_BACKEND
chooses: system or file. Only the slots the extension declares in secretSlots
are accepted. With --dev, the folder's secrets are its own. See
docs/secrets.md.

A value is never taken from the command line: "set" reads it from standard
input, or asks for it without echo at a terminal.`,
		Args: cobra.NoArgs,
		RunE: groupRunE,
	}
	cmd.AddCommand(
		newCmdSecretsAction(f, "set", "set ID KEY", "Store a secret (value from stdin or a masked prompt)", cobra.ExactArgs(2), nil,
			"  spirit extension secrets set my-ext api-key\n  printf %s \"$TOKEN\" | spirit extension secrets set my-ext api-key"),
		newCmdSecretsAction(f, "delete", "delete ID KEY", "Delete a secret", cobra.ExactArgs(2), nil,
			"  spirit extension secrets delete my-ext api-key"),
		newCmdSecretsAction(f, "status", "status ID", "Show which secret slots have a value", cobra.ExactArgs(1), nil,
			"  spirit extension secrets status my-ext --json"),
	)
	return cmd
}

func newCmdSecretsAction(f *Factory, action, use, short string, args cobra.PositionalArgs, runF func(*SecretsOptions) error, example string) *cobra.Command {
	opts := &SecretsOptions{f: f, Action: action}
	cmd := &cobra.Command{
		Use:     use,
		Short:   short,
		Example: example,
		Args:    args,
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := installedID(cmd.Context(), f, args[0])
			if err != nil {
				return err
			}
			opts.ID = id
			if len(args) > 1 {
				opts.Key = strings.TrimSpace(args[1])
			}
			if runF != nil {
				return runF(opts)
			}
			return runSecrets(opts)
		},
	}
	cmd.Flags().StringArrayVar(&opts.Dev, "dev", nil, devFlagUsage)
	return cmd
}

// SecretStatusReport is the --json output of `secrets status`. Its fields are a public contract.
type SecretStatusReport struct {
	ID    string          `json:"id"`
	Slots map[string]bool `json:"slots"`
}

func runSecrets(opts *SecretsOptions) error {
	f := opts.f
	ext, h, err := lookupExtension(f, opts.ID, opts.Dev)
	if err != nil {
		return err
	}
	defer closeHost(f, h)
	m := ext.Manifest
	sec := h.Secrets()
	if opts.Key != "" {
		if _, ok := m.SecretSlot(opts.Key); !ok {
			return withHint(&exthost.UndeclaredSecretError{Key: opts.Key}, "see its slots with: spirit extension secrets status "+ext.ID)
		}
	}
	switch opts.Action {
	case "set":
		value, err := readSecretValue(f, opts.Key)
		if err != nil {
			return err
		}
		if strings.TrimSpace(value) == "" {
			return usageErrorf("the secret value is empty; to remove it use: spirit extension secrets delete %s %s", ext.ID, opts.Key)
		}
		if err := sec.Set(m, opts.Key, value); err != nil {
			return hostError(err)
		}
		termtext.Fprintf(f.IO.ErrOut, "Stored secret %s of %s.\n", opts.Key, ext.ID)
		return nil
	case "delete":
		if err := sec.Delete(m, opts.Key); err != nil {
			return hostError(err)
		}
		termtext.Fprintf(f.IO.ErrOut, "Deleted secret %s of %s.\n", opts.Key, ext.ID)
		return nil
	}
	status, err := sec.Status(m)
	if err != nil {
		return hostError(err)
	}
	if f.Global.JSON {
		return writeJSON(f.IO.Out, SecretStatusReport{ID: ext.ID, Slots: status})
	}
	if len(m.SecretSlots) == 0 {
		termtext.Fprintf(f.IO.ErrOut, "%s declares no secret slots.\n", ext.ID)
		return nil
	}
	tw := tabwriter.NewWriter(f.IO.Out, 0, 4, 2, ' ', 0)
	for _, s := range m.SecretSlots {
		state := "not set"
		if status[s.Key] {
			state = "set"
		}
		termtext.Fprintf(tw, "%s\t%s\t%s\n", s.Key, state, s.Title)
	}
	return tw.Flush()
}

// readSecretValue reads the value from a masked prompt at a terminal, else
// all of standard input (one trailing newline dropped).
func readSecretValue(f *Factory, key string) (string, error) {
	if f.IO.IsStdinTTY() {
		return f.IO.Prompter().Password("Value for %s: ", key)
	}
	b, err := io.ReadAll(io.LimitReader(f.IO.In, 1<<20))
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r"), nil
}
