// Package install installs, lists, removes and rolls back Spirit Agent
// extensions in one host's install tree, the same tree the Spirit Agent apps
// use (see package paths): pkg-<base64url(id)>/ per extension and the
// reference's extensions.json, plus spirit's own state under .spirit/.
//
// # Sources
//
// A ZIP follows the reference rule: exactly one package.json anywhere in the
// archive; its folder is the package root and entries outside it are
// dropped. A tarball (.tgz, the npm layout) must have a package/ root; other
// top-level entries are dropped. A directory is copied as it is. The
// package.json is validated with the manifest package, and supportedHosts
// must include the host, before the install goes further.
//
// # Archive rules
//
// Every entry of an archive (and every file of a directory source) is
// checked before its bytes are written, and the first broken rule refuses
// the whole source:
//
//   - a name must be valid UTF-8 with no NUL or other control character and
//     no backslash; it must not be absolute ("/x") or start with a drive
//     letter ("C:"); no segment may be empty, "." or ".."; a segment is at
//     most 255 bytes and a name at most 4096; one leading "./" is dropped;
//   - Windows names, refused on every OS so that a package that installs
//     here installs in a Windows user's tree too (golang.org/x/mod/zip
//     keeps the same rules for modules): no segment may be a device name
//     (CON, PRN, AUX, NUL, CONIN$, CONOUT$, COM0-9, LPT0-9 and COM/LPT with
//     ¹ ² ³; in any case, alone, with any extension as in "nul.tar.gz", or
//     with spaces before one), end in a dot or a space, or hold one of
//     < > : " | ? * (":" would name an alternate data stream);
//   - the path of every file and folder must fit in MAX_PATH below the
//     apps' folder of the package on Windows,
//     %APPDATA%\SpiritAgent\extensions\desktop\pkg-<base64url(id)>\, taken
//     for a 20-character user name: 82 characters plus the encoded id. A
//     file name (relative to the package root, in UTF-16 code units) may
//     then have at most 259 − 82 − len(base64url(id)) units, 158 for a
//     14-byte id (WindowsNameLimit), and a folder 12 fewer (room for an 8.3
//     name, as CreateDirectory needs). This rule needs the id, so it is
//     checked once package.json is read, still before the commit;
//   - two names must not be equal, equal after Unicode case folding and NFC
//     normalisation, or be a file in one entry and a directory in another;
//   - only regular files and directories: symbolic links, hard links,
//     devices, FIFOs, sockets and any other entry type are refused (a
//     pax global header is skipped);
//   - at most MaxEntries entries, no file over MaxFileSize, at most
//     MaxTotalSize in all; an entry over one MiB may not be compressed more
//     than MaxRatio:1 (for a tarball, the gzip stream read so far);
//   - bytes are copied through a LimitedReader of the declared size, so an
//     entry that holds more (or fewer) bytes than its header says is refused;
//   - files are written through an os.Root opened on the staging directory,
//     created exclusively, with mode 0644, or 0755 where the archive marks
//     the file executable; directories get 0755.
//
// The sha512 integrity is computed on the bytes unpacked, in the same pass:
// a tarball as it streams (to its last byte), a ZIP while it is copied into
// the transaction directory, from which it is then unpacked (a ZIP larger
// than MaxTotalSize plus 100 MiB is refused before the copy).
//
// ZIP names are all checked before anything is written. A tarball is a
// stream, so its archive-wide rules (collisions, counts, totals) can only be
// checked as entries arrive: a refusal then discards the staging directory,
// and nothing outside it has been touched.
//
// # Atomicity
//
// Mutating operations hold an advisory file lock on .spirit/lock, so they
// are serialised across processes. An install is staged under
// .spirit/staging (the same filesystem as the target), validated, and only
// then swapped into place: on Linux the new and the old directory are
// exchanged with one renameat2(RENAME_EXCHANGE), elsewhere by two renames
// whose gap is repaired by the next command. The old install is kept under
// .spirit/generations for Rollback. The records (extensions.json and
// .spirit/installed.json) are written last, each as a temporary file
// renamed over the old one. A kill at any moment therefore leaves the old or
// the new version complete; leftovers in .spirit/staging and .spirit/trash
// are removed by the next mutating command.
//
// extensions.json keeps the reference's exact format: the same fields, 2-space
// indentation, a trailing newline, entries sorted by id with English ICU-like
// collation. Everything richer (version, source, integrity) lives in
// .spirit/installed.json.
package install
