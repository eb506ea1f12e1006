// Package site writes the marketplace web site of an index: plain static
// files that work from file:// and from any static host (GitHub Pages).
//
// The site is index.html, listing every listed extension (featured first,
// then by display name), index.json with the same data for tools and
// assets/index-data.js, which hands that JSON to the page's search and
// filters (a script file rather than a fetch, so that it also works from
// file://), plus one page per extension under x/<extensionId>.html with its
// rendered README, versions, capabilities and install commands.
//
// Rules it keeps:
//
//   - Hidden and blocked items are left out; deprecated items and revoked
//     versions are marked.
//   - Every string from the index or a README is untrusted. READMEs are
//     rendered by goldmark and the HTML sanitized by bluemonday (no script,
//     no event handlers, no javascript: URLs, images only over https);
//     everything else is escaped by html/template. Links of an entry are
//     kept only when they are http or https URLs. A Content-Security-Policy
//     meta tag allows scripts and styles from the site's own files only.
//   - No external fonts, scripts or trackers; the list is rendered in the
//     HTML, so with JavaScript off the page is the full list.
//   - Output is deterministic: the same index gives the same bytes. Files
//     are replaced atomically and only when their bytes change; pages of
//     extensions no longer listed are removed after every file is written.
//     Only files an earlier run recorded in the folder's record of outputs
//     (internal/outputs) are ever removed; other files in the folder stay.
//   - An extension whose id is not a safe file name is left out with a
//     warning; a detail or README that cannot be read leaves the page
//     without it, with a warning.
package site
