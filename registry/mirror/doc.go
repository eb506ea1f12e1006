// Package mirror copies a marketplace index into a folder that serves
// installs with no other network: catalog.json, every detail.json, the
// READMEs and the npm tarball of every selected version. Point
// --registry at the folder, or serve it with any static web server.
//
// Rules it keeps:
//
//   - Every tarball is verified against its version's integrity (the
//     strongest SRI algorithm, and the shasum when given) by the same code
//     that verifies installs, before it is kept. A version whose tarball
//     fails is left out of the mirror and reported; nothing of it is
//     written.
//   - The tarballUrl of every mirrored version is relative
//     (tarballs/<extensionId>/<file>.tgz), so the folder can move or be
//     served from any base URL; with BaseURL they are absolute instead. The integrity and shasum stay as the
//     source gave them: an install from the mirror checks the same digest
//     as one from the source.
//   - Incremental: a tarball already in the mirror that verifies against
//     the version's integrity is not downloaded again, and files whose
//     bytes would not change are not rewritten, so a second run with the
//     same source writes nothing. Files the source no longer lists are
//     removed after the new catalog is in place, unless KeepRemoved, which
//     also keeps their items and versions in the catalog. Only files an
//     earlier run recorded in the folder's record of outputs
//     (internal/outputs) are ever removed; other files in the folder stay.
//   - Order of writes: tarballs, then READMEs, then details (each version
//     a detail names is already in place), then catalog.json, each through
//     a temporary file and a rename; removals come last. A run killed at
//     any point leaves a mirror every catalog item of which installs.
//   - Selection: Channels and Hosts keep the versions of those channels
//     and supporting one of those hosts; IDs keeps those extensions
//     (unknown ids are an error). An item left with no version is left
//     out. Blocked items are kept, so that their status carries, without
//     tarballs.
//   - Extension ids and tarball file names must be safe path segments; an
//     item with an unsafe id is left out with a warning.
package mirror
