package cli

import (
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/spiritagents/spirit/install"
	"github.com/spiritagents/spirit/internal/safeid"
	"github.com/spiritagents/spirit/manifest"
)

// completions are the shell completions of arguments, by command path (the
// part after "spirit "). Each entry completes the argument at its index;
// the functions read only local state (installed manifests, the cached
// catalog), never the network, so a TAB is instant and works offline.
var completions = map[string][]completer{
	"extension remove":              {installedIDs},
	"extension info":                {installedIDs},
	"extension rollback":            {installedIDs},
	"extension permissions":         {installedIDs},
	"extension update":              {installedIDs},
	"extension enable":              {installedIDs},
	"extension disable":             {installedIDs},
	"extension logs":                {installedIDs},
	"extension settings get":        {installedIDs, settingKeys},
	"extension settings set":        {installedIDs, settingKeys},
	"extension settings unset":      {installedIDs, settingKeys},
	"extension secrets set":         {installedIDs, secretKeys},
	"extension secrets delete":      {installedIDs, secretKeys},
	"extension secrets status":      {installedIDs},
	"extension call":                {toolNames},
	"extension marketplace install": {marketplaceIDs},
	"extension marketplace detail":  {marketplaceIDs},
	"extension marketplace readme":  {marketplaceIDs},
}

// completer lists the candidates for one argument; args are the ones
// before it.
type completer func(ctx context.Context, f *Factory, args []string) []string

// applyCompletions wires completions into the commands of the tree that
// have an entry and no completion of their own.
func applyCompletions(root *cobra.Command, f *Factory) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		path := strings.TrimPrefix(c.CommandPath(), root.Name()+" ")
		list, ok := completions[path]
		if !ok || c.ValidArgsFunction != nil {
			return
		}
		c.ValidArgsFunction = func(cmd *cobra.Command, args []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
			if len(args) >= len(list) {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			var out []cobra.Completion
			for _, s := range list[len(args)](cmd.Context(), f, args) {
				// A candidate goes into the shell's command line as it is,
				// and bash inserts the common prefix of several unquoted:
				// one with any character a shell might read ($, `, ;,
				// blanks, controls…; an index is untrusted) is left out,
				// not escaped.
				if !safeid.Valid(s) {
					continue
				}
				if strings.HasPrefix(s, toComplete) {
					out = append(out, s)
				}
			}
			return out, cobra.ShellCompDirectiveNoFileComp
		}
	}
	walk(root)
}

// installedList is the host's installs, or nil when they cannot be read.
func installedList(f *Factory) []install.Installed {
	p, err := f.Paths()
	if err != nil {
		return nil
	}
	list, err := install.List(p)
	if err != nil {
		return nil
	}
	return list
}

func installedIDs(ctx context.Context, f *Factory, _ []string) []string {
	var ids []string
	for _, in := range installedList(f) {
		ids = append(ids, in.ID)
	}
	return ids
}

// installedManifest is the manifest of the install named by id, or nil.
func installedManifest(f *Factory, id string) *manifest.Manifest {
	for _, in := range installedList(f) {
		if in.ID == id {
			return in.Manifest
		}
	}
	return nil
}

func settingKeys(ctx context.Context, f *Factory, args []string) []string {
	var keys []string
	if m := installedManifest(f, args[0]); m != nil {
		for _, s := range m.SettingsSchema {
			keys = append(keys, s.Key)
		}
	}
	return keys
}

func secretKeys(ctx context.Context, f *Factory, args []string) []string {
	var keys []string
	if m := installedManifest(f, args[0]); m != nil {
		for _, s := range m.SecretSlots {
			keys = append(keys, s.Key)
		}
	}
	return keys
}

// toolNames are the ID/TOOL names `call` accepts, for every installed
// extension that runs tools.
func toolNames(ctx context.Context, f *Factory, _ []string) []string {
	var names []string
	for _, in := range installedList(f) {
		if in.Manifest == nil || in.Manifest.Main == "" {
			continue
		}
		for _, t := range in.Manifest.Tools() {
			names = append(names, in.ID+"/"+t.Name)
		}
	}
	return names
}

// marketplaceIDs are the extension ids of the cached catalog of the
// configured index (nothing is fetched).
func marketplaceIDs(ctx context.Context, f *Factory, _ []string) []string {
	c, _, err := f.marketplace(&marketplaceOptions{Offline: true})
	if err != nil {
		return nil
	}
	cat, err := c.Catalog(ctx)
	if err != nil {
		return nil
	}
	var ids []string
	for _, it := range cat.Items {
		ids = append(ids, it.ExtensionID)
	}
	return ids
}
