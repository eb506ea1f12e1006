package cli

import (
	"net/http"
	"os"
	"time"

	"github.com/spiritagents/spirit/fetch"
	"github.com/spiritagents/spirit/internal/iostreams"
	"github.com/spiritagents/spirit/npm"
	"github.com/spiritagents/spirit/paths"
)

// GlobalOptions are the flags every command shares.
type GlobalOptions struct {
	DataDir  string
	Host     string
	JSON     bool
	Registry string
	Verbose  bool
	// JQ is --jq: a jq program the JSON output is filtered through.
	JQ string
	// Sandbox is --sandbox of the commands that run extensions: auto or off.
	Sandbox string
	// RequireSigned and AllowExpiredIndex are the signed-index flags
	// (see signing_cmds.go).
	RequireSigned, AllowExpiredIndex bool
}

// Factory makes the dependencies of commands, lazily, so a test can replace
// any of them.
type Factory struct {
	IO     *iostreams.IOStreams
	Getenv func(string) string
	Now    func() time.Time
	// HTTPClient returns the client for registry, marketplace and npm traffic.
	HTTPClient func() *http.Client
	Global     GlobalOptions

	jq *jqFilter // set by --jq for the run
}

// NewFactory returns the Factory of a real process.
func NewFactory() *Factory {
	return &Factory{
		IO:         iostreams.System(),
		Getenv:     os.Getenv,
		Now:        time.Now,
		HTTPClient: newHTTPClient,
	}
}

// newHTTPClient returns the client of registry, marketplace and npm
// traffic (package fetch applies the timeouts on each request).
func newHTTPClient() *http.Client { return fetch.NewHTTPClient() }

// FetchLimits returns the limits of every download: the defaults of package
// fetch, with the overall deadline from SPIRIT_DOWNLOAD_TIMEOUT.
func (f *Factory) FetchLimits() (fetch.Limits, error) {
	if f.Getenv == nil {
		return fetch.Limits{}, nil
	}
	d, err := fetch.ParseTimeout(f.Getenv(fetch.TimeoutEnv))
	if err != nil {
		return fetch.Limits{}, usageErrorf("%s: %v", fetch.TimeoutEnv, err)
	}
	return fetch.Limits{Timeout: d}, nil
}

// npmClient returns an npm client configured as every command needs it:
// .npmrc files from HOME and the working directory, the environment, the
// run's HTTP client and the download limits of FetchLimits, so a streamed
// tarball ends by the same overall deadline as any other download. cfg
// gives the rest (registry, cache, offline, progress).
func (f *Factory) npmClient(cfg npm.Config) (*npm.Client, error) {
	lim, err := f.FetchLimits()
	if err != nil {
		return nil, err
	}
	if cfg.WorkDir == "" {
		cfg.WorkDir, _ = os.Getwd()
	}
	cfg.Getenv, cfg.HomeDir, cfg.HTTPClient, cfg.Limits = f.Getenv, f.Getenv("HOME"), f.HTTPClient(), lim
	return npm.NewClient(cfg)
}

// HostKind returns the host chosen with --host, SPIRIT_HOST, or cli.
func (f *Factory) HostKind() (paths.Host, error) {
	h := f.Global.Host
	if h == "" {
		h = f.Getenv("SPIRIT_HOST")
	}
	if h == "" {
		return paths.HostCLI, nil
	}
	host, err := paths.ParseHost(h)
	if err != nil {
		return "", usageErrorf("%v", err)
	}
	return host, nil
}

// Paths returns the install tree of the chosen host.
func (f *Factory) Paths() (*paths.Paths, error) {
	host, err := f.HostKind()
	if err != nil {
		return nil, err
	}
	dir, err := paths.ResolveDataDir(f.Global.DataDir, f.Getenv)
	if err != nil {
		return nil, err
	}
	return paths.New(dir, host), nil
}

// RegistrySource returns --registry, else SPIRIT_REGISTRY, else "" (the default index).
func (f *Factory) RegistrySource() string {
	if f.Global.Registry != "" {
		return f.Global.Registry
	}
	return f.Getenv("SPIRIT_REGISTRY")
}
