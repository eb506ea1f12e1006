// Package catalog is spirit's marketplace client. It reads a marketplace
// registry — catalog.json, each extension's detail.json and README — from
// an https base URL, a local folder (a path or file://) or a git repository
// (git+https://…, cloned shallow), and prepares installs from it. It never
// prints and never installs by itself: the install package does that.
//
// # Rules it keeps
//
//   - URLs must be https; plain http is accepted only for loopback hosts
//     (localhost, 127.0.0.0/8, ::1). Relative references (detailPath,
//     readmePath, a relative tarballUrl) are resolved against the registry
//     base and may not leave it.
//   - Every response is capped: Limits.Catalog for catalog.json,
//     Limits.JSON (512 KiB) for detail.json, Limits.Readme (2 MiB) for a
//     README and Limits.Tarball (50 MiB) for a tarball, checked against
//     Content-Length and again while the body streams. The wait for response
//     headers and the whole body read are both bounded by timeouts.
//   - Parsing is tolerant per item: a catalog item or a detail version that
//     breaks a field rule (an extensionId is made only of letters, digits
//     and @ / . _ + -, as it may reach a shell through completion) is
//     skipped with a Warning; only a document whose
//     root is broken (not an object, schemaVersion ≠ 1, no items/versions
//     array) fails.
//   - HTTP responses are cached on disk under the cache directory. A copy
//     younger than MaxAge is used without a request; an older one is
//     revalidated with If-None-Match/If-Modified-Since; when the network
//     fails the cached copy is used and a Warning says how old it is.
//   - Listing status: blocked is never installable, hidden is not listed,
//     deprecated is listed and warned about. Review status: unverified needs
//     an acknowledgement, revoked is refused unless explicitly allowed.
//     Host support is checked before any download.
//   - Versions are ordered by semver; a channel selects the highest version
//     of that channel. A tarball must match the strongest SRI algorithm its
//     integrity lists; sha1 alone is refused unless allowed.
//   - An installed extension is matched to a catalog item by its id equal
//     to the item's packageName, else its extensionId (else the marketplace
//     id recorded at install).
package catalog
