// Package npm is a client of the npm registry protocol: it parses package
// specs, reads packuments, chooses a version as npm does and downloads
// tarballs whose integrity it verifies while they stream.
//
// The rules it keeps:
//
//   - Specs are "npm:NAME[@RANGE|@TAG]", "NAME@RANGE" and "@scope/name[@…]".
//     Names follow npm's rules for new packages (lowercase, URL-safe, at most
//     214 bytes). A range is what npm's semver package reads as one
//     (ParseRange: node-semver's grammar, loose off; a differential test
//     holds the two equal); anything else that is a valid tag name is a
//     dist-tag; an empty range means the
//     "latest" tag.
//   - Version choice is npm's: a tag names its version; for a range, the
//     "latest" tag wins when it satisfies the range, else the highest
//     satisfying version that is not deprecated, else the highest
//     deprecated one. A prerelease is chosen only when the range names a
//     prerelease of the same major.minor.patch.
//   - Packuments are requested abbreviated
//     (Accept: application/vnd.npm.install-v1+json) and fetched full when
//     the registry refuses that or the chosen version lacks its dist
//     fields. They are cached with their ETag and revalidated with
//     If-None-Match. FullPackument always asks for the full document.
//   - The registry is Config.Registry, else npm_config_registry or
//     NPM_CONFIG_REGISTRY, else the project .npmrc, else ~/.npmrc, else
//     https://registry.npmjs.org/. "@scope:registry" in an .npmrc wins for
//     its scope, as in npm. Credentials ("//host/path/:_authToken",
//     ":_auth", ":username" + ":_password", top-level "_auth" for the
//     default registry, user:password in a registry URL) are sent only to
//     the host, port and path prefix they are configured for, over https,
//     or over plain http only to this machine (a loopback host) where the
//     configuration does not say https; Config.Registry (a flag, a lock
//     file) never widens that, and a plain http registry that a credential
//     covers but may not reach is a *ConfigError. They never appear in a
//     returned value, an error or a progress label. "${ENV}" in
//     an .npmrc is expanded from the environment.
//   - Proxies come from HTTPS_PROXY, HTTP_PROXY and NO_PROXY
//     (http.ProxyFromEnvironment).
//   - Integrity: the strongest algorithm listed in dist.integrity must
//     match, and dist.shasum too when present, both computed while the
//     tarball streams; a tarball verified only by sha1 is refused unless
//     Config.AllowSHA1, and one with no digest at all is refused. On any
//     mismatch the download is deleted.
//   - Registry signatures are checked as npm's `audit signatures` checks
//     them: the registry's keys come from GET <registry>/-/npm/v1/keys
//     (per registry, so a scope's registry has its own; cached for
//     KeysLifetime under CacheDir), and every entry of a version's
//     dist.signatures must be an ECDSA P-256 signature, by one of those
//     keys that had not expired when the version was published (time in
//     the packument; the full document is fetched when the abbreviated one
//     lacks it), over "<name>@<version>:<integrity>". A version without
//     signatures from a registry with keys is refused (*SignatureError).
//     A registry whose endpoint answers 4xx has no keys and nothing is
//     verified (Resolved.Signature says so); one that published keys
//     before and none now is refused until its cached keys are deleted.
//     dist.attestations is read (Provenance) but its Sigstore bundle is
//     not verified.
//   - Tarballs are cached under CacheDir, content-addressed by the digest
//     that verified them, and re-verified when read from the cache; a cached
//     tarball costs no request. Offline, only the cache is used and an
//     error names what is missing.
//   - Every request has a connect timeout, a timeout for the response
//     headers and an idle timeout on the body; network errors and 5xx
//     responses are tried 3 times with a growing pause; a tarball larger
//     than MaxTarballSize (100 MiB by default) is refused.
//
// The package never prints: it returns values and typed errors, and
// reports download progress through the optional Progress interface.
package npm
