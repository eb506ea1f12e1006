// Package registry builds and checks a marketplace index laid out like the
// official SpiritAgents/registry repository: hand-written
// registry/extensions/**/entry.json files go in, and
// registry/extensions/<extensionId>/detail.json plus registry/catalog.json
// come out, byte for byte as the official bash + jq builder writes them.
//
// Rules this package keeps:
//
//   - Entries are checked with the reference's rules and messages, but every
//     problem of every entry is reported, not only the first bad file's.
//     Entries are also checked against the embedded official JSON Schemas;
//     those problems are warnings unless the caller asks for strictness.
//   - npm metadata is read from full packuments only (never the abbreviated
//     document), for exactly the versions an entry lists; values are
//     normalised as the reference's jq does, with jq's tostring semantics.
//   - Output bytes are jq 1.6's: two-space indentation, keys in the
//     reference's order, jq's string escapes and number forms, and files
//     ending in "}\n\n".
//   - Nothing is written until every entry has been fetched and built. Files
//     are written through a temporary file and a rename; stale detail.json
//     files are removed only then, and catalog.json last. A failure leaves
//     the previous index as it was.
//   - The package never prints; it returns values, *ProblemsError for
//     problems found, and reports progress through an optional Progress.
package registry
