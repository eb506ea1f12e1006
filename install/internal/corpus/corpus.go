// Package corpus builds the archives that the install tests use: good
// extension packages and a corpus of malicious or broken ZIPs and tarballs,
// each with the exact error spirit must refuse it with. The output is
// deterministic (fixed times), so the files checked into testdata/install
// can be compared with a fresh run.
package corpus

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"fmt"
	"io/fs"
	"strings"
	"time"
)

// ID is the extension id of every corpus package.
const ID = "corpus-ext"

// epoch is the fixed modification time of every entry.
var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// File is one archive entry.
type File struct {
	Name string
	Body string
	Mode fs.FileMode // 0 means 0644; may carry type bits (symlink, device…)
	// Size, when not 0, is the size written in the header instead of len(Body).
	Size int64
	// Link is the target of a tar link entry.
	Link string
	// Type, when not 0, is the raw tar type flag.
	Type byte
	// Method is the ZIP compression method (default Deflate).
	Method uint16
	// Flags are raw ZIP flags (0x1 marks an encrypted entry).
	Flags uint16
	// CSize, when not 0, is the compressed size written in a raw ZIP header.
	CSize int64
}

// Manifest returns a valid package.json for id at version.
func Manifest(id, version, displayName string) string {
	return fmt.Sprintf(`{
  "name": %q,
  "version": %q,
  "main": "dist/index.js",
  "spiritExtension": {
    "displayName": %q,
    "supportedHosts": ["cli", "desktop"],
    "requestedCapabilities": ["tool-definitions", "tool-execution"],
    "contributes": {
      "tools": [
        { "name": "echo", "description": "Echo the input.", "inputSchema": { "type": "object" } }
      ]
    }
  }
}
`, id, version, displayName)
}

// Package returns the files of a good package of id at version, under root
// ("" or "package/"), plus n extra files.
func Package(root, id, version string, n int) []File {
	files := []File{
		{Name: root + "package.json", Body: Manifest(id, version, "Corpus extension")},
		{Name: root + "dist/index.js", Body: fmt.Sprintf("export function activate() { return { version: %q }; }\n", version)},
		{Name: root + "bin/run.sh", Body: "#!/bin/sh\necho " + version + "\n", Mode: 0o755},
		{Name: root + "README.md", Body: "# " + id + " " + version + "\n"},
	}
	for i := range n {
		files = append(files, File{Name: fmt.Sprintf("%sdata/%03d/file-%04d.txt", root, i%50, i), Body: strings.Repeat(fmt.Sprintf("%s line %d\n", version, i), 8)})
	}
	return files
}

// Zip builds a ZIP archive of files.
func Zip(files []File) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, f := range files {
		mode := f.Mode
		if mode == 0 {
			mode = 0o644
		}
		h := &zip.FileHeader{Name: f.Name, Method: zip.Deflate, Modified: epoch}
		if f.Method != 0 || f.Size != 0 || f.Flags != 0 {
			h.Method = f.Method
		}
		h.SetMode(mode)
		if f.Size != 0 || f.Flags != 0 {
			// A raw entry whose header says what the test wants.
			h.Flags = f.Flags
			h.UncompressedSize64 = uint64(f.Size)
			h.CompressedSize64 = uint64(len(f.Body))
			if f.Size < 0 {
				h.UncompressedSize64 = uint64(len(f.Body))
			}
			if f.CSize != 0 {
				h.CompressedSize64 = uint64(f.CSize)
			}
			w, err := zw.CreateRaw(h)
			if err != nil {
				panic(err)
			}
			w.Write([]byte(f.Body))
			continue
		}
		w, err := zw.CreateHeader(h)
		if err != nil {
			panic(err)
		}
		w.Write([]byte(f.Body))
	}
	if err := zw.Close(); err != nil {
		panic(err)
	}
	return buf.Bytes()
}

// Tgz builds a gzip-compressed tarball of files.
func Tgz(files []File) []byte {
	var raw bytes.Buffer
	tw := tar.NewWriter(&raw)
	for _, f := range files {
		mode := f.Mode
		if mode == 0 {
			mode = 0o644
		}
		h := &tar.Header{Name: f.Name, Mode: int64(mode.Perm()), Size: int64(len(f.Body)), ModTime: epoch, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
		if strings.HasSuffix(f.Name, "/") {
			h.Typeflag, h.Size = tar.TypeDir, 0
		}
		if f.Type != 0 {
			h.Typeflag, h.Linkname = f.Type, f.Link
			if f.Type != tar.TypeReg {
				h.Size = 0
			}
		}
		if f.Size != 0 {
			// Only the header: the body never follows (the reader must stop first).
			h.Size = f.Size
			if err := tw.WriteHeader(h); err != nil {
				panic(err)
			}
			break
		}
		if err := tw.WriteHeader(h); err != nil {
			panic(err)
		}
		tw.Write([]byte(f.Body))
	}
	tw.Flush()
	if len(files) == 0 || files[len(files)-1].Size == 0 {
		tw.Close()
	}
	var out bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&out, gzip.BestCompression)
	zw.ModTime = epoch
	zw.Write(raw.Bytes())
	zw.Close()
	return out.Bytes()
}

// Archive stands for the archive's path in a Case's Want: an error that
// names the archive names it by the path it was read from.
const Archive = "ARCHIVE"

// Case is one malicious or broken archive and the exact error it must get.
type Case struct {
	Name string // file name, with its .zip or .tgz extension
	Data []byte
	Want string // the exact error message, with Archive for the archive's path
}

func good(root string) []File { return Package(root, ID, "9.9.9", 2) }

func with(root string, extra ...File) []File { return append(good(root), extra...) }

// Cases returns the corpus.
func Cases() []Case {
	zeros := func(n int) string { return strings.Repeat("\x00", n) }
	// many has 10,001 more entries under dir (for a tarball, outside the
	// package root, so the test does not wait for 10,000 slow file creations:
	// dropped entries count too).
	many := func(root, dir string) []File {
		fs := good(root)
		for i := range 10_001 {
			fs = append(fs, File{Name: fmt.Sprintf("%sm/%05d", dir, i)})
		}
		return fs
	}
	wrongHost := []File{
		{Name: "package.json", Body: strings.Replace(Manifest(ID, "9.9.9", "Corpus"), `["cli", "desktop"]`, `["desktop"]`, 1)},
		{Name: "dist/index.js", Body: "export function activate() {}\n"},
	}
	noMain := []File{{Name: "package.json", Body: Manifest(ID, "9.9.9", "Corpus")}}
	badJSON := []File{{Name: "package.json", Body: "{ not json"}}
	long := strings.Repeat("x", 300)
	// Too long for a ustar header: only a pax path record can carry it.
	paxName := "package/" + strings.Repeat("p", 200) + "/../../evil.js"

	// Windows: a reserved device name, a trailing dot or space, a path
	// too long below the apps' folder of corpus-ext (96 characters).
	const win = `name has a segment Windows reserves for a device (CON, PRN, AUX, NUL, COM0-9, LPT0-9, with any extension): `
	const dot = `name has a segment that ends in a dot or a space, which Windows drops: `
	const tooLong = "path too long for the apps' install folder on Windows: %d characters; a %s name in the package " + ID +
		` may have at most %d (the apps' folder %%APPDATA%%\SpiritAgent\extensions\desktop\pkg-<base64url(id)>\ takes 96 of the %d characters of a %s path, for a 20-character user name)`
	longPath := "dist/" + strings.Repeat("a", 200)             // 205 > 163 for a file
	longDir := "package/" + strings.Repeat("d", 155) + "/x.js" // the file fits (161), its folder (155 > 151) does not

	const e = `unsafe archive entry %q: `
	cs := []Case{
		{"zip-traversal.zip", Zip(with("", File{Name: "../evil.js", Body: "x"})), fmt.Sprintf(e+`name contains a ".." segment`, "../evil.js")},
		{"zip-traversal-nested.zip", Zip(with("", File{Name: "dist/../../evil.js", Body: "x"})), fmt.Sprintf(e+`name contains a ".." segment`, "dist/../../evil.js")},
		{"zip-absolute.zip", Zip(with("", File{Name: "/tmp/evil.js", Body: "x"})), fmt.Sprintf(e+"name is an absolute path", "/tmp/evil.js")},
		{"zip-drive-letter.zip", Zip(with("", File{Name: "C:/evil.js", Body: "x"})), fmt.Sprintf(e+"name starts with a drive letter", "C:/evil.js")},
		{"zip-backslash.zip", Zip(with("", File{Name: `..\evil.js`, Body: "x"})), fmt.Sprintf(e+"name contains a backslash", `..\evil.js`)},
		{"zip-nul.zip", Zip(with("", File{Name: "evil\x00.js", Body: "x"})), fmt.Sprintf(e+"name contains a NUL or control character", "evil\x00.js")},
		{"zip-newline.zip", Zip(with("", File{Name: "evil\n.js", Body: "x"})), fmt.Sprintf(e+"name contains a NUL or control character", "evil\n.js")},
		{"zip-invalid-utf8.zip", Zip(with("", File{Name: "evil\xff.js", Body: "x"})), fmt.Sprintf(e+"invalid name: not valid UTF-8", "evil\xff.js")},
		{"zip-dot-segment.zip", Zip(with("", File{Name: "dist/./x.js", Body: "x"})), fmt.Sprintf(e+`invalid name: empty or "." segment`, "dist/./x.js")},
		{"zip-empty-segment.zip", Zip(with("", File{Name: "dist//x.js", Body: "x"})), fmt.Sprintf(e+`invalid name: empty or "." segment`, "dist//x.js")},
		{"zip-long-segment.zip", Zip(with("", File{Name: long, Body: "x"})), fmt.Sprintf(e+"invalid name: a segment is longer than 255 bytes", long)},
		{"zip-case-collision.zip", Zip(with("", File{Name: "readme.md", Body: "x"})), fmt.Sprintf(e+"name collides with another one when case is ignored", "readme.md")},
		{"zip-unicode-collision.zip", Zip(with("", File{Name: "caf\u00e9.txt", Body: "x"}, File{Name: "cafe\u0301.txt", Body: "y"})), fmt.Sprintf(e+"name collides with another one when case is ignored", "cafe\u0301.txt")},
		{"zip-file-dir-collision.zip", Zip(with("", File{Name: "README.md/x.txt", Body: "x"})), fmt.Sprintf(e+"name is both a file and a directory", "README.md/x.txt")},
		{"zip-duplicate.zip", Zip(with("", File{Name: "dist/index.js", Body: "evil"})), fmt.Sprintf(e+"duplicate name", "dist/index.js")},
		{"zip-symlink.zip", Zip(with("", File{Name: "link", Body: "/etc/passwd", Mode: fs.ModeSymlink | 0o777})), fmt.Sprintf(e+"symbolic links are not allowed", "link")},
		{"zip-device.zip", Zip(with("", File{Name: "dev", Mode: fs.ModeDevice | fs.ModeCharDevice | 0o644})), fmt.Sprintf(e+"devices, FIFOs and other special files are not allowed", "dev")},
		{"zip-fifo.zip", Zip(with("", File{Name: "fifo", Mode: fs.ModeNamedPipe | 0o644})), fmt.Sprintf(e+"devices, FIFOs and other special files are not allowed", "fifo")},
		{"zip-too-many-entries.zip", Zip(many("", "")), fmt.Sprintf(e+"more than 10000 entries", "m/09994")},
		{"zip-file-too-large.zip", Zip(with("", File{Name: "big.bin", Body: "x", Size: 101 << 20, Method: zip.Store})), fmt.Sprintf(e+"file larger than 100 MiB", "big.bin")},
		{"zip-total-too-large.zip", Zip(with("",
			File{Name: "a.bin", Body: "a", Size: 99 << 20, CSize: 99 << 20, Method: zip.Store},
			File{Name: "b.bin", Body: "b", Size: 99 << 20, CSize: 99 << 20, Method: zip.Store},
			File{Name: "c.bin", Body: "c", Size: 99 << 20, CSize: 99 << 20, Method: zip.Store},
			File{Name: "d.bin", Body: "d", Size: 99 << 20, CSize: 99 << 20, Method: zip.Store},
			File{Name: "e.bin", Body: "e", Size: 99 << 20, CSize: 99 << 20, Method: zip.Store},
			File{Name: "f.bin", Body: "f", Size: 99 << 20, CSize: 99 << 20, Method: zip.Store},
		)), fmt.Sprintf(e+"more than 500 MiB in total", "f.bin")},
		{"zip-bomb-ratio.zip", Zip(with("", File{Name: "bomb.bin", Body: zeros(4 << 20)})), fmt.Sprintf(e+"compressed more than 100:1", "bomb.bin")},
		{"zip-size-lie.zip", Zip(with("", File{Name: "lie.txt", Body: "twenty bytes of data", Size: 50, Method: zip.Store})), fmt.Sprintf(e+"entry size differs from its header", "lie.txt")},
		{"zip-encrypted.zip", Zip(with("", File{Name: "secret.txt", Body: "xxxxxxxxxxxx", Size: -1, Flags: 0x1, Method: zip.Store})), fmt.Sprintf(e+"encrypted entries are not supported", "secret.txt")},
		{"zip-empty.zip", nil, "The extension ZIP is empty."},
		{"zip-garbage.zip", []byte("PK\x03\x04 this is not a zip archive at all"), "corrupt archive " + Archive + ": not a valid ZIP: zip: not a valid zip file"},
		{"zip-missing-manifest.zip", Zip([]File{{Name: "dist/index.js", Body: "x"}}), "The extension ZIP is missing package.json."},
		{"zip-multiple-manifests.zip", Zip(with("", File{Name: "node_modules/dep/package.json", Body: "{}"})), "The extension ZIP contains multiple package.json."},
		{"zip-bad-json.zip", Zip(badJSON), "The extension package.json is not valid JSON."},
		{"zip-wrong-host.zip", Zip(wrongHost), "This extension cannot be installed on the current host: current host is CLI, but the extension only supports Desktop."},
		{"zip-main-missing.zip", Zip(noMain), "The extension main file does not exist: dist/index.js"},

		{"tgz-traversal.tgz", Tgz(with("package/", File{Name: "package/../evil.js", Body: "x"})), fmt.Sprintf(e+`name contains a ".." segment`, "package/../evil.js")},
		{"tgz-pax-traversal.tgz", Tgz(with("package/", File{Name: paxName, Body: "x"})), fmt.Sprintf(e+`name contains a ".." segment`, paxName)},
		{"tgz-absolute.tgz", Tgz(with("package/", File{Name: "/etc/evil", Body: "x"})), fmt.Sprintf(e+"name is an absolute path", "/etc/evil")},
		{"tgz-control-char.tgz", Tgz(with("package/", File{Name: "package/evil\x1b[2J.js", Body: "x"})), fmt.Sprintf(e+"name contains a NUL or control character", "package/evil\x1b[2J.js")},
		{"tgz-symlink.tgz", Tgz(with("package/", File{Name: "package/link", Type: tar.TypeSymlink, Link: "/etc/passwd"})), fmt.Sprintf(e+"symbolic links are not allowed", "package/link")},
		{"tgz-symlink-dir.tgz", Tgz(append([]File{{Name: "package/dist", Type: tar.TypeSymlink, Link: "/tmp"}}, good("package/")...)), fmt.Sprintf(e+"symbolic links are not allowed", "package/dist")},
		{"tgz-hardlink.tgz", Tgz(with("package/", File{Name: "package/hard", Type: tar.TypeLink, Link: "/etc/passwd"})), fmt.Sprintf(e+"hard links are not allowed", "package/hard")},
		{"tgz-chardev.tgz", Tgz(with("package/", File{Name: "package/tty", Type: tar.TypeChar})), fmt.Sprintf(e+"devices, FIFOs and other special files are not allowed (type '3')", "package/tty")},
		{"tgz-blockdev.tgz", Tgz(with("package/", File{Name: "package/sda", Type: tar.TypeBlock})), fmt.Sprintf(e+"devices, FIFOs and other special files are not allowed (type '4')", "package/sda")},
		{"tgz-fifo.tgz", Tgz(with("package/", File{Name: "package/fifo", Type: tar.TypeFifo})), fmt.Sprintf(e+"devices, FIFOs and other special files are not allowed (type '6')", "package/fifo")},
		{"tgz-case-collision.tgz", Tgz(with("package/", File{Name: "package/Dist/index.js", Body: "x"})), fmt.Sprintf(e+"name collides with another one when case is ignored", "package/Dist/index.js")},
		{"tgz-duplicate.tgz", Tgz(with("package/", File{Name: "package/README.md", Body: "again"})), fmt.Sprintf(e+"duplicate name", "package/README.md")},
		{"tgz-dir-over-file.tgz", Tgz(with("package/", File{Name: "package/README.md/", Body: ""})), fmt.Sprintf(e+"name is both a file and a directory", "package/README.md/")},
		{"tgz-too-many-entries.tgz", Tgz(many("package/", "extra/")), fmt.Sprintf(e+"more than 10000 entries", "extra/m/09994")},
		{"tgz-file-too-large.tgz", Tgz(with("package/", File{Name: "package/big.bin", Size: 101 << 20})), fmt.Sprintf(e+"file larger than 100 MiB", "package/big.bin")},
		{"tgz-bomb-ratio.tgz", Tgz(with("package/", File{Name: "package/bomb.bin", Body: zeros(8 << 20)})), fmt.Sprintf(e+"compressed more than 100:1", "package/bomb.bin")},
		// Windows names, refused on every OS.
		{"zip-win-con.zip", Zip(with("", File{Name: "con.txt", Body: "x"})), fmt.Sprintf(e+win+`"con.txt"`, "con.txt")},
		{"zip-win-nul-ext.zip", Zip(with("", File{Name: "dist/Nul.tar.gz", Body: "x"})), fmt.Sprintf(e+win+`"Nul.tar.gz"`, "dist/Nul.tar.gz")},
		{"zip-win-com-superscript.zip", Zip(with("", File{Name: "COM\u00b9.js", Body: "x"})), fmt.Sprintf(e+win+"\"COM\u00b9.js\"", "COM\u00b9.js")},
		{"zip-win-lpt0-dir.zip", Zip(with("", File{Name: "lpt0/x.js", Body: "x"})), fmt.Sprintf(e+win+`"lpt0"`, "lpt0/x.js")},
		{"zip-win-ads.zip", Zip(with("", File{Name: "README.md:hidden", Body: "x"})), fmt.Sprintf(e+`name contains a character Windows forbids in names (< > : " | ? *)`, "README.md:hidden")},
		{"zip-win-trailing-dot.zip", Zip(with("", File{Name: "dist/index.js.", Body: "x"})), fmt.Sprintf(e+dot+`"index.js."`, "dist/index.js.")},
		{"zip-win-long-path.zip", Zip(with("", File{Name: longPath, Body: "x"})), fmt.Sprintf(e+tooLong, longPath, 205, "file", 163, 259, "file")},
		{"tgz-win-aux.tgz", Tgz(with("package/", File{Name: "package/AUX .js", Body: "x"})), fmt.Sprintf(e+win+`"AUX .js"`, "package/AUX .js")},
		{"tgz-win-conout.tgz", Tgz(with("package/", File{Name: "package/conout$", Body: "x"})), fmt.Sprintf(e+win+`"conout$"`, "package/conout$")},
		{"tgz-win-trailing-space.tgz", Tgz(with("package/", File{Name: "package/dir /x.js", Body: "x"})), fmt.Sprintf(e+dot+`"dir "`, "package/dir /x.js")},
		{"tgz-win-chars.tgz", Tgz(with("package/", File{Name: "package/what?.js", Body: "x"})), fmt.Sprintf(e+`name contains a character Windows forbids in names (< > : " | ? *)`, "package/what?.js")},
		{"tgz-win-long-dir.tgz", Tgz(with("package/", File{Name: longDir, Body: "x"})), fmt.Sprintf(e+tooLong, longDir, 155, "folder", 151, 247, "folder")},
		{"tgz-not-gzip.tgz", []byte("\x1f\x8bthis is not gzip"), "corrupt archive " + Archive + ": not a gzip file: gzip: invalid header"},
		{"tgz-missing-root.tgz", Tgz(good("pkg/")), "The extension tarball is missing the package/ root directory."},
		{"tgz-missing-manifest.tgz", Tgz([]File{{Name: "package/dist/index.js", Body: "x"}}), "The extension tarball is missing package/package.json."},
	}
	return cs
}

// Good returns the good packages by file name: a ZIP whose package root is
// a folder (with a file outside it that must be dropped), tarballs of two
// newer versions and one older.
func Good() map[string][]byte {
	zipFiles := append(Package(ID+"/", ID, "1.0.0", 20), File{Name: "outside.txt", Body: "dropped\n"})
	return map[string][]byte{
		ID + "-1.0.0.zip": Zip(zipFiles),
		ID + "-2.0.0.tgz": Tgz(Package("package/", ID, "2.0.0", 20)),
		ID + "-0.5.0.tgz": Tgz(Package("package/", ID, "0.5.0", 20)),
		"other-ext-1.0.0.tgz": Tgz([]File{
			{Name: "package/package.json", Body: Manifest("other-ext", "1.0.0", "Another extension")},
			{Name: "package/dist/index.js", Body: "export function activate() {}\n"},
		}),
	}
}
