package install

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Limits of a source, as the package doc states them.
const (
	MaxEntries   = 10_000
	MaxFileSize  = 100 << 20
	MaxTotalSize = 500 << 20
	MaxRatio     = 100
	// ratioFloor is the size above which the compression ratio is checked.
	ratioFloor = 1 << 20
	maxNameLen = 4096
	maxSegLen  = 255
)

// Format is the kind of a source.
type Format string

// The formats.
const (
	FormatZip Format = "zip"
	FormatTgz Format = "tgz"
	FormatDir Format = "dir"
)

// Errors about a source as a whole.
var (
	ErrEmptyZip          = errors.New("The extension ZIP is empty.")
	ErrMissingManifest   = errors.New("The extension ZIP is missing package.json.")
	ErrMultipleManifests = errors.New("The extension ZIP contains multiple package.json.")
	ErrMissingRoot       = errors.New("The extension tarball is missing the package/ root directory.")
	ErrMissingTarJSON    = errors.New("The extension tarball is missing package/package.json.")
	ErrMissingDirJSON    = errors.New("The prepared extension directory is missing package.json.")
	ErrUnknownFormat     = errors.New("unknown source format: expected a directory, a .zip or a .tgz")
	ErrCorrupt           = errors.New("corrupt archive")
)

// CorruptError is an archive that cannot be read as its format: not a
// ZIP, not gzip, not a tarball. It matches ErrCorrupt.
type CorruptError struct {
	// Archive names the archive: its path, or the label of a download
	// read as it streams.
	Archive string
	// Detail says what is wrong ("not a valid ZIP: …").
	Detail string
}

func (e *CorruptError) Error() string { return "corrupt archive " + e.Archive + ": " + e.Detail }

// Is matches ErrCorrupt.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

// ErrUnsafe is wrapped by every *EntryError: an archive rule was broken.
var ErrUnsafe = errors.New("unsafe archive")

// The archive rules; an *EntryError wraps one of them.
var (
	ErrBadName          = errors.New("invalid name")
	ErrControlChar      = errors.New("name contains a NUL or control character")
	ErrBackslash        = errors.New("name contains a backslash")
	ErrAbsolute         = errors.New("name is an absolute path")
	ErrDriveLetter      = errors.New("name starts with a drive letter")
	ErrTraversal        = errors.New(`name contains a ".." segment`)
	ErrDuplicate        = errors.New("duplicate name")
	ErrCaseCollision    = errors.New("name collides with another one when case is ignored")
	ErrFileDirCollision = errors.New("name is both a file and a directory")
	ErrSymlink          = errors.New("symbolic links are not allowed")
	ErrHardlink         = errors.New("hard links are not allowed")
	ErrSpecial          = errors.New("devices, FIFOs and other special files are not allowed")
	ErrTooManyEntries   = fmt.Errorf("more than %d entries", MaxEntries)
	ErrFileTooLarge     = fmt.Errorf("file larger than %d MiB", MaxFileSize>>20)
	ErrTotalTooLarge    = fmt.Errorf("more than %d MiB in total", MaxTotalSize>>20)
	ErrRatio            = fmt.Errorf("compressed more than %d:1", MaxRatio)
	ErrSizeMismatch     = errors.New("entry size differs from its header")
	ErrEncrypted        = errors.New("encrypted entries are not supported")
	ErrWindowsReserved  = errors.New("name has a segment Windows reserves for a device (CON, PRN, AUX, NUL, COM0-9, LPT0-9, with any extension)")
	ErrWindowsChar      = errors.New(`name contains a character Windows forbids in names (< > : " | ? *)`)
	ErrTrailingDot      = errors.New("name has a segment that ends in a dot or a space, which Windows drops")
	ErrPathTooLong      = errors.New("path too long for the apps' install folder on Windows")
)

// EntryError says which entry broke which archive rule.
type EntryError struct {
	Name string // the entry's name as written in the archive
	Err  error  // one of the rule errors (ErrTraversal, ErrSymlink, …)
}

func (e *EntryError) Error() string {
	return fmt.Sprintf("unsafe archive entry %q: %v", e.Name, e.Err)
}

// Unwrap returns the rule and ErrUnsafe.
func (e *EntryError) Unwrap() []error { return []error{e.Err, ErrUnsafe} }

func entryErr(name string, err error) error { return &EntryError{Name: name, Err: err} }

// DetectFormat says whether src is a directory, a ZIP or a gzip tarball, by
// looking at the file itself (the magic bytes), not only at its name.
func DetectFormat(src string) (Format, error) {
	fi, err := os.Stat(src)
	if err != nil {
		return "", err
	}
	if fi.IsDir() {
		return FormatDir, nil
	}
	f, err := os.Open(src)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var magic [4]byte
	n, _ := io.ReadFull(f, magic[:])
	switch {
	case n >= 2 && magic[0] == 0x1f && magic[1] == 0x8b:
		return FormatTgz, nil
	case n == 4 && string(magic[:2]) == "PK":
		return FormatZip, nil
	}
	lower := strings.ToLower(src)
	switch {
	case strings.HasSuffix(lower, ".zip"):
		return FormatZip, nil
	case strings.HasSuffix(lower, ".tgz"), strings.HasSuffix(lower, ".tar.gz"):
		return FormatTgz, nil
	}
	return "", fmt.Errorf("%w: %s", ErrUnknownFormat, src)
}

// cleanName applies the name rules to raw and returns the name relative to
// the archive root, without a trailing slash.
func cleanName(raw string) (string, error) {
	if !utf8.ValidString(raw) {
		return "", entryErr(raw, fmt.Errorf("%w: not valid UTF-8", ErrBadName))
	}
	for _, r := range raw {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return "", entryErr(raw, ErrControlChar)
		}
	}
	if strings.Contains(raw, `\`) {
		return "", entryErr(raw, ErrBackslash)
	}
	name := strings.TrimPrefix(raw, "./")
	name = strings.TrimSuffix(name, "/")
	if strings.HasPrefix(name, "/") {
		return "", entryErr(raw, ErrAbsolute)
	}
	if len(name) >= 2 && name[1] == ':' && (name[0]|0x20 >= 'a' && name[0]|0x20 <= 'z') {
		return "", entryErr(raw, ErrDriveLetter)
	}
	if name == "" || len(name) > maxNameLen {
		return "", entryErr(raw, fmt.Errorf("%w: empty or longer than %d bytes", ErrBadName, maxNameLen))
	}
	for seg := range strings.SplitSeq(name, "/") {
		switch {
		case seg == "..":
			return "", entryErr(raw, ErrTraversal)
		case seg == "" || seg == ".":
			return "", entryErr(raw, fmt.Errorf("%w: empty or %q segment", ErrBadName, "."))
		case len(seg) > maxSegLen:
			return "", entryErr(raw, fmt.Errorf("%w: a segment is longer than %d bytes", ErrBadName, maxSegLen))
		}
	}
	// Windows rules, on every OS: a package that installs here must
	// install in a Windows user's tree too.
	for seg := range strings.SplitSeq(name, "/") {
		switch {
		case strings.ContainsAny(seg, `<>:"|?*`):
			return "", entryErr(raw, ErrWindowsChar)
		case strings.HasSuffix(seg, ".") || strings.HasSuffix(seg, " "):
			return "", entryErr(raw, fmt.Errorf("%w: %q", ErrTrailingDot, seg))
		case windowsReserved(seg):
			return "", entryErr(raw, fmt.Errorf("%w: %q", ErrWindowsReserved, seg))
		}
	}
	return name, nil
}

// windowsReserved reports whether Windows opens a device for a file named
// seg: CON, PRN, AUX, NUL, CONIN$, CONOUT$, COM0-9 and LPT0-9 (also with
// the superscript digits ¹ ² ³), in any case, alone or followed by an
// extension ("nul.tar.gz") and with spaces before it ("CON .txt").
func windowsReserved(seg string) bool {
	base, _, _ := strings.Cut(seg, ".")
	base = strings.TrimRight(base, " ")
	switch strings.ToUpper(base) {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$":
		return true
	}
	if len(base) < 4 || !strings.EqualFold(base[:3], "COM") && !strings.EqualFold(base[:3], "LPT") {
		return false
	}
	switch base[3:] {
	case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "\u00b9", "\u00b2", "\u00b3":
		return true
	}
	return false
}

// The longest folder the apps install a package into on Windows, but for
// the package's own folder: %APPDATA% of a user whose profile folder has
// the longest local account name (20 characters), then
// SpiritAgent\extensions\desktop\ (desktop is longer than cli). The
// package is in pkg-<base64url(id)>\ below it.
const windowsAppsRoot = `C:\Users\ABCDEFGHIJKLMNOPQRST\AppData\Roaming\SpiritAgent\extensions\desktop\`

// Windows path limits, in UTF-16 code units and without the final NUL:
// MAX_PATH (260) for a file, and 12 fewer for a folder (room for an 8.3
// name, as CreateDirectory requires).
const (
	windowsMaxFile = 259
	windowsMaxDir  = 247
)

// WindowsNameLimit is the longest entry name (relative to the package
// root, in UTF-16 code units; "/" becomes one "\") that the package of id
// may hold: the apps' folder of the package (82 units plus the length of
// base64url(id)) and the name must stay within MAX_PATH. For a folder
// entry the limit is 12 less. An id of 14 bytes leaves 158 for a file.
func WindowsNameLimit(id string) int {
	return windowsMaxFile - windowsPrefixLen(id)
}

func windowsPrefixLen(id string) int {
	return len(windowsAppsRoot) + len("pkg-") + base64.RawURLEncoding.EncodedLen(len(id)) + len(`\`)
}

// utf16Len is the length of s in UTF-16 code units, as Windows counts a path.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return n
}

// nameSet finds duplicate, case-colliding and file-vs-directory names, and
// keeps the longest file and folder names for the Windows path rule.
type nameSet struct {
	seen              map[string]nameInfo
	longFile, longDir longName
}

// longName is the longest name seen of a kind, and its entry as written.
type longName struct {
	raw string
	len int // in UTF-16 code units
}

// checkLength refuses the longest file or folder name when, below the
// apps' folder of the package id on Windows, it passes MAX_PATH.
func (s *nameSet) checkLength(id string) error {
	prefix := windowsPrefixLen(id)
	for _, c := range []struct {
		n   longName
		max int
		of  string
	}{{s.longFile, windowsMaxFile, "file"}, {s.longDir, windowsMaxDir, "folder"}} {
		if c.n.len > 0 && prefix+c.n.len > c.max {
			return entryErr(c.n.raw, fmt.Errorf(`%w: %d characters; a %s name in the package %s may have at most %d `+
				`(the apps' folder %%APPDATA%%\SpiritAgent\extensions\desktop\pkg-<base64url(id)>\ takes %d of the %d characters `+
				`of a %s path, for a 20-character user name)`,
				ErrPathTooLong, c.n.len, c.of, id, c.max-prefix, prefix, c.max, c.of))
		}
	}
	return nil
}

type nameInfo struct {
	name string
	dir  bool
}

func foldName(s string) string { return strings.ToLower(norm.NFC.String(s)) }

// add registers name (a file, or a directory when dir) and its parents.
func (s *nameSet) add(raw, name string, dir bool) error {
	if s.seen == nil {
		s.seen = map[string]nameInfo{}
	}
	for i := 0; i < len(name); i++ {
		if name[i] == '/' {
			if err := s.put(raw, name[:i], true); err != nil {
				return err
			}
		}
	}
	return s.put(raw, name, dir)
}

func (s *nameSet) put(raw, name string, dir bool) error {
	key := foldName(name)
	old, ok := s.seen[key]
	if !ok {
		s.seen[key] = nameInfo{name, dir}
		long := &s.longFile
		if dir {
			long = &s.longDir
		}
		if n := utf16Len(name); n > long.len {
			*long = longName{raw: raw, len: n}
		}
		return nil
	}
	switch {
	case old.dir != dir:
		return entryErr(raw, ErrFileDirCollision)
	case old.name != name:
		return entryErr(raw, ErrCaseCollision)
	case !dir:
		return entryErr(raw, ErrDuplicate)
	}
	return nil
}

// sink receives the checked entries of the package root.
type sink interface {
	mkdir(name string) error
	file(name string, exec bool, r io.Reader) error
}

// extraction is one run of reading a source into a sink.
type extraction struct {
	ctx      context.Context
	progress Progress
	names    nameSet
	entries  int
	total    int64
	manifest []byte // package.json bytes, kept while writing
	digest   io.Writer
	abort    func() // stops the source, when it is a download
}

func (x *extraction) count(raw string) error {
	x.entries++
	if x.entries > MaxEntries {
		return entryErr(raw, ErrTooManyEntries)
	}
	return x.ctx.Err()
}

func (x *extraction) addSize(raw string, size int64) error {
	if size < 0 {
		return entryErr(raw, ErrSizeMismatch)
	}
	if size > MaxFileSize {
		return entryErr(raw, ErrFileTooLarge)
	}
	x.total += size
	if x.total > MaxTotalSize {
		return entryErr(raw, ErrTotalTooLarge)
	}
	return nil
}

// copyFile sends one file to the sink through a LimitedReader of its
// declared size, and keeps package.json.
func (x *extraction) copyFile(s sink, raw, rel string, exec bool, size int64, r io.Reader) error {
	lr := &io.LimitedReader{R: r, N: size + 1}
	var src io.Reader = &exactReader{lr: lr, size: size, name: raw}
	if rel == "package.json" {
		data, err := io.ReadAll(src)
		if err != nil {
			return err
		}
		x.manifest = data
		src = strings.NewReader(string(data))
	}
	return s.file(rel, exec, src)
}

// exactReader fails when the entry holds more or fewer bytes than declared.
type exactReader struct {
	lr   *io.LimitedReader
	size int64
	read int64
	name string
}

func (e *exactReader) Read(p []byte) (int, error) {
	n, err := e.lr.Read(p)
	e.read += int64(n)
	if e.read > e.size {
		return n, entryErr(e.name, ErrSizeMismatch)
	}
	if (err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF)) && e.read != e.size {
		return n, entryErr(e.name, ErrSizeMismatch)
	}
	if err != nil && err != io.EOF {
		var ee *EntryError
		if !errors.As(err, &ee) {
			err = fmt.Errorf("%w: %s: %v", ErrCorrupt, e.name, err)
		}
	}
	return n, err
}

// extracted is what an extraction found: the package.json bytes and the
// names, for the rules that need the package's id.
type extracted struct {
	manifest []byte
	names    *nameSet
}

// checkLength applies the Windows path rule for the package id.
func (e extracted) checkLength(id string) error { return e.names.checkLength(id) }

// extract reads src (of format) into s and returns what it found.
// When digest is not nil, a tarball's bytes are written to it as they are
// read, all of them, including what follows the end of the archive.
func extract(ctx context.Context, src string, format Format, s sink, p Progress, digest io.Writer) (extracted, error) {
	x := &extraction{ctx: ctx, progress: p, digest: digest}
	var err error
	switch format {
	case FormatZip:
		err = x.zip(src, s)
	case FormatTgz:
		err = x.tgz(src, s)
	case FormatDir:
		err = x.dir(src, s)
	default:
		err = fmt.Errorf("%w: %s", ErrUnknownFormat, src)
	}
	if err != nil {
		return extracted{}, err
	}
	return extracted{x.manifest, &x.names}, nil
}

// extractStream reads a .tgz from r as it arrives (a download of size
// bytes, -1 when unknown, named name) into s, as extract does, and reads r
// to its end (a download verifies its bytes there). abort stops r when
// the extraction fails.
func extractStream(ctx context.Context, r io.Reader, size int64, name string, s sink, p Progress, abort func()) (extracted, error) {
	x := &extraction{ctx: ctx, progress: p, digest: io.Discard, abort: abort}
	if err := x.tgzFrom(r, size, name, s); err != nil {
		return extracted{}, err
	}
	return extracted{x.manifest, &x.names}, nil
}

func (x *extraction) zip(src string, s sink) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if fi.Size() == 0 {
		return ErrEmptyZip
	}
	zr, err := zip.NewReader(f, fi.Size())
	if err != nil {
		return &CorruptError{Archive: src, Detail: fmt.Sprintf("not a valid ZIP: %v", err)}
	}
	if len(zr.File) > MaxEntries {
		return entryErr(zr.File[MaxEntries].Name, ErrTooManyEntries)
	}
	// Every name and header is checked before anything is written.
	type item struct {
		f    *zip.File
		name string
		dir  bool
	}
	items := make([]item, 0, len(zr.File))
	var manifests []string
	for _, zf := range zr.File {
		if err := x.count(zf.Name); err != nil {
			return err
		}
		name, err := cleanName(zf.Name)
		if err != nil {
			return err
		}
		mode := zf.Mode()
		dir := strings.HasSuffix(zf.Name, "/") || mode.IsDir()
		switch {
		case mode&fs.ModeSymlink != 0:
			return entryErr(zf.Name, ErrSymlink)
		case !dir && mode.Type() != 0:
			return entryErr(zf.Name, ErrSpecial)
		case zf.Flags&0x1 != 0:
			return entryErr(zf.Name, ErrEncrypted)
		}
		if !dir {
			if zf.UncompressedSize64 > MaxFileSize {
				return entryErr(zf.Name, ErrFileTooLarge)
			}
			if err := x.addSize(zf.Name, int64(zf.UncompressedSize64)); err != nil {
				return err
			}
			if zf.UncompressedSize64 > ratioFloor && zf.UncompressedSize64 > MaxRatio*zf.CompressedSize64 {
				return entryErr(zf.Name, ErrRatio)
			}
			if name == "package.json" || strings.HasSuffix(name, "/package.json") {
				manifests = append(manifests, name)
			}
		}
		items = append(items, item{zf, name, dir})
	}
	switch len(manifests) {
	case 0:
		return ErrMissingManifest
	case 1:
	default:
		return ErrMultipleManifests
	}
	root := path.Dir(manifests[0])
	prefix := root + "/"
	if root == "." {
		prefix = ""
	}
	var kept []item
	for _, it := range items {
		rel, ok := strings.CutPrefix(it.name, prefix)
		if !ok || rel == "" {
			continue
		}
		if err := x.names.add(it.f.Name, rel, it.dir); err != nil {
			return err
		}
		it.name = rel
		kept = append(kept, it)
	}
	var done int64
	for _, it := range kept {
		if err := x.ctx.Err(); err != nil {
			return err
		}
		if it.dir {
			if err := s.mkdir(it.name); err != nil {
				return err
			}
			continue
		}
		rc, err := it.f.Open()
		if err != nil {
			return fmt.Errorf("%w: %s: %v", ErrCorrupt, it.f.Name, err)
		}
		err = x.copyFile(s, it.f.Name, it.name, it.f.Mode()&0o111 != 0, int64(it.f.UncompressedSize64), rc)
		rc.Close()
		if err != nil {
			return err
		}
		done += int64(it.f.UncompressedSize64)
		progressExtracting(x.progress, done, x.total)
	}
	return nil
}

// ratioNamer turns the inflater's errRatio into an *EntryError naming the
// entry being read when the stream broke the ratio.
type ratioNamer struct {
	r    io.Reader
	name *string
}

func (r ratioNamer) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if errors.Is(err, errRatio) {
		err = entryErr(*r.name, ErrRatio)
	}
	return n, err
}

func (x *extraction) tgz(src string, s sink) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	return x.tgzFrom(f, fi.Size(), src, s)
}

// tgzFrom reads a .tgz of size bytes (for progress; -1 when unknown)
// named src from f. When it fails, x.abort (if set) is called before it
// waits for the decompressing goroutine, so that a read of a network
// body that goroutine may be blocked in ends.
func (x *extraction) tgzFrom(f io.Reader, size int64, src string, s sink) (err error) {
	var raw = f
	if x.digest != nil {
		raw = io.TeeReader(f, x.digest)
	}
	buf := bufio.NewReaderSize(raw, 1<<16)
	cr := &compressedCounter{r: buf}
	zr, err := newInflater(cr)
	if err != nil {
		return &CorruptError{Archive: src, Detail: fmt.Sprintf("not a gzip file: %v", err)}
	}
	defer func() {
		if err != nil && x.abort != nil {
			x.abort()
		}
		zr.close()
	}()
	current := ""
	tr := tar.NewReader(ratioNamer{r: zr, name: &current})
	sawRoot := false
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			var ee *EntryError
			if errors.As(err, &ee) {
				return err
			}
			return &CorruptError{Archive: src, Detail: fmt.Sprintf("not a valid tarball: %v", err)}
		}
		current = hdr.Name
		if err := x.count(hdr.Name); err != nil {
			return err
		}
		if hdr.Typeflag == tar.TypeXGlobalHeader {
			continue
		}
		name, err := cleanName(hdr.Name)
		if err != nil {
			return err
		}
		var dir bool
		switch hdr.Typeflag {
		case tar.TypeReg: // the reader already reports the old TypeRegA as TypeReg
		case tar.TypeDir:
			dir = true
		case tar.TypeSymlink:
			return entryErr(hdr.Name, ErrSymlink)
		case tar.TypeLink:
			return entryErr(hdr.Name, ErrHardlink)
		default:
			return entryErr(hdr.Name, fmt.Errorf("%w (type %q)", ErrSpecial, hdr.Typeflag))
		}
		if !dir {
			if err := x.addSize(hdr.Name, hdr.Size); err != nil {
				return err
			}
		}
		rel, ok := strings.CutPrefix(name, "package/")
		if !ok {
			if name == "package" && dir {
				sawRoot = true
			}
			continue // outside the package root: dropped
		}
		sawRoot = true
		if err := x.names.add(hdr.Name, rel, dir); err != nil {
			return err
		}
		if dir {
			if err := s.mkdir(rel); err != nil {
				return err
			}
			continue
		}
		if err := x.copyFile(s, hdr.Name, rel, hdr.Mode&0o111 != 0, hdr.Size, tr); err != nil {
			return err
		}
		progressExtracting(x.progress, cr.n.Load(), size)
	}
	switch {
	case !sawRoot:
		return ErrMissingRoot
	case x.manifest == nil:
		return ErrMissingTarJSON
	}
	if x.digest != nil {
		zr.close() // buf is ours again
		if _, err := io.Copy(io.Discard, buf); err != nil {
			return fmt.Errorf("%w: %s: %v", ErrCorrupt, src, err)
		}
	}
	return nil
}

func (x *extraction) dir(src string, s sink) error {
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == src {
			return nil
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		raw := filepath.ToSlash(rel)
		if err := x.count(raw); err != nil {
			return err
		}
		name, err := cleanName(raw)
		if err != nil {
			return err
		}
		switch t := d.Type(); {
		case t&fs.ModeSymlink != 0:
			return entryErr(raw, ErrSymlink)
		case d.IsDir():
			if err := x.names.add(raw, name, true); err != nil {
				return err
			}
			return s.mkdir(name)
		case t != 0:
			return entryErr(raw, ErrSpecial)
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if err := x.addSize(raw, fi.Size()); err != nil {
			return err
		}
		if err := x.names.add(raw, name, false); err != nil {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		return x.copyFile(s, raw, name, fi.Mode()&0o111 != 0, fi.Size(), f)
	})
	if err != nil {
		return err
	}
	if x.manifest == nil {
		return ErrMissingDirJSON
	}
	return nil
}
