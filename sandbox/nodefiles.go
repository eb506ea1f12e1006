package sandbox

import (
	"bytes"
	"debug/elf"
	"debug/macho"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// maxNodeFiles bounds the libraries followed from Node's executable.
const maxNodeFiles = 64

// systemLibDirs hold the system's programs and libraries, which every
// sandbox shows (or, for Seatbelt, allows) anyway.
var systemLibDirs = []string{"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/System"}

// nodeFiles returns the files Node needs to run besides the system: its
// executable (node, links already resolved) and the shared libraries it
// loads from outside the system directories, found the way the dynamic
// loader finds them (ELF RUNPATH/RPATH with $ORIGIN; Mach-O @rpath,
// @loader_path, @executable_path and absolute names), each with its links
// resolved. Never a directory: Node's install prefix may be ~/.local or ~
// itself, which holds the data directory, the keyring, ~/.ssh. A file that
// cannot be read as ELF or Mach-O (a static Node, a script) contributes
// itself only.
func nodeFiles(node string) []string {
	files := []string{node}
	for i := 0; i < len(files) && len(files) < maxNodeFiles; i++ {
		for _, lib := range libraries(files[i], node) {
			real, err := filepath.EvalSymlinks(lib)
			if err != nil || isSystemPath(real) || slices.Contains(files, real) {
				continue
			}
			if fi, err := os.Stat(real); err != nil || !fi.Mode().IsRegular() {
				continue
			}
			files = append(files, real)
		}
	}
	if len(files) > maxNodeFiles {
		files = files[:maxNodeFiles]
	}
	return files
}

// isSystemPath reports whether p lies in a system directory.
func isSystemPath(p string) bool {
	return slices.ContainsFunc(systemLibDirs, func(d string) bool { return within(p, d) })
}

// libraries returns the candidate paths of the libraries file loads that
// the loader would find outside its default (system) search.
func libraries(file, exe string) []string {
	data, err := readHead(file)
	if err != nil {
		return nil
	}
	switch {
	case bytes.HasPrefix(data, []byte(elf.ELFMAG)):
		return elfLibraries(file)
	case len(data) >= 4:
		return machoLibraries(file, exe)
	}
	return nil
}

func readHead(file string) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, 4)
	n, _ := f.Read(buf)
	return buf[:n], nil
}

// elfLibraries resolves each DT_NEEDED name in the file's RUNPATH (or, when
// it has none, RPATH) directories.
func elfLibraries(file string) []string {
	f, err := elf.Open(file)
	if err != nil {
		return nil
	}
	defer f.Close()
	dyn, err := dynStrings(f)
	if err != nil {
		return nil
	}
	needed, dirs := dyn[elf.DT_NEEDED], dyn[elf.DT_RUNPATH]
	if len(dirs) == 0 {
		dirs = dyn[elf.DT_RPATH]
	}
	origin := filepath.Dir(file)
	var search []string
	for _, d := range dirs {
		for _, one := range strings.Split(d, ":") {
			one = strings.ReplaceAll(strings.ReplaceAll(one, "${ORIGIN}", origin), "$ORIGIN", origin)
			if filepath.IsAbs(one) {
				search = append(search, one)
			}
		}
	}
	var out []string
	for _, name := range needed {
		if strings.Contains(name, "/") {
			if filepath.IsAbs(name) {
				out = append(out, name)
			}
			continue
		}
		for _, d := range search {
			p := filepath.Join(d, name)
			if _, err := os.Stat(p); err == nil {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// dynStrings returns the DT_NEEDED, DT_RUNPATH and DT_RPATH strings of f,
// by tag. elf.File.DynString reads the whole string table for each tag
// asked, and Node's (which names every symbol V8 exports) is ~4.5 MB:
// 13.5 MB of garbage at every extension start. Here only the dynamic
// section is read, and each string at its offset.
func dynStrings(f *elf.File) (map[elf.DynTag][]string, error) {
	ds := f.SectionByType(elf.SHT_DYNAMIC)
	if ds == nil || int(ds.Link) >= len(f.Sections) {
		return nil, errors.New("no dynamic section")
	}
	data, err := ds.Data()
	if err != nil {
		return nil, err
	}
	strtab := f.Sections[ds.Link]
	size := 16
	if f.Class == elf.ELFCLASS32 {
		size = 8
	}
	out := map[elf.DynTag][]string{}
	for len(data) >= size {
		var tag elf.DynTag
		var val uint64
		if size == 16 {
			tag, val = elf.DynTag(f.ByteOrder.Uint64(data)), f.ByteOrder.Uint64(data[8:])
		} else {
			tag, val = elf.DynTag(int32(f.ByteOrder.Uint32(data))), uint64(f.ByteOrder.Uint32(data[4:]))
		}
		data = data[size:]
		switch tag {
		case elf.DT_NULL:
			return out, nil
		case elf.DT_NEEDED, elf.DT_RUNPATH, elf.DT_RPATH:
			if s, ok := cString(strtab, val); ok {
				out[tag] = append(out[tag], s)
			}
		}
	}
	return out, nil
}

// maxDynString bounds one string read from an ELF string table.
const maxDynString = 4096

// cString reads the NUL-terminated string at off in the string table s.
func cString(s *elf.Section, off uint64) (string, bool) {
	if off >= s.Size {
		return "", false
	}
	var b []byte
	buf := make([]byte, 256)
	for len(b) < maxDynString {
		n, err := s.ReadAt(buf, int64(off)+int64(len(b)))
		if i := bytes.IndexByte(buf[:n], 0); i >= 0 {
			return string(append(b, buf[:i]...)), true
		}
		b = append(b, buf[:n]...)
		if err != nil || n == 0 {
			return "", false
		}
	}
	return "", false
}

// machoLibraries resolves the install names of the libraries a Mach-O file
// (or each architecture of a universal one) loads.
func machoLibraries(file, exe string) []string {
	var files []*macho.File
	if fat, err := macho.OpenFat(file); err == nil {
		defer fat.Close()
		for _, a := range fat.Arches {
			files = append(files, a.File)
		}
	} else if f, err := macho.Open(file); err == nil {
		defer f.Close()
		files = append(files, f)
	}
	var out []string
	for _, f := range files {
		libs, _ := f.ImportedLibraries()
		var rpaths []string
		for _, l := range f.Loads {
			if r, ok := l.(*macho.Rpath); ok {
				rpaths = append(rpaths, machoExpand(r.Path, file, exe))
			}
		}
		for _, name := range libs {
			if rest, ok := strings.CutPrefix(name, "@rpath/"); ok {
				for _, r := range rpaths {
					p := filepath.Join(r, rest)
					if _, err := os.Stat(p); err == nil {
						out = append(out, p)
						break
					}
				}
				continue
			}
			if p := machoExpand(name, file, exe); filepath.IsAbs(p) {
				out = append(out, p)
			}
		}
	}
	return out
}

// machoExpand replaces @loader_path and @executable_path in name.
func machoExpand(name, loader, exe string) string {
	if rest, ok := strings.CutPrefix(name, "@loader_path"); ok {
		return filepath.Join(filepath.Dir(loader), rest)
	}
	if rest, ok := strings.CutPrefix(name, "@executable_path"); ok {
		return filepath.Join(filepath.Dir(exe), rest)
	}
	return name
}
