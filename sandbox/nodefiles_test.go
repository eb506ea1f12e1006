package sandbox

import (
	"context"
	"debug/elf"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// TestNodeFilesFollowsRunpath builds a program under a fake home whose
// library lies in <prefix>/lib (found through RUNPATH $ORIGIN/../lib, as a
// Node built with a shared libnode is laid out): both files are given, the
// prefix never is, and a file next to them is not.
func TestNodeFilesFollowsRunpath(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("builds an ELF program with gcc: Linux only")
	}
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found: cannot build an ELF program with a library of its own")
	}
	home := t.TempDir()
	prefix := filepath.Join(home, ".local")
	for _, d := range []string{"bin", "lib", "src"} {
		if err := os.MkdirAll(filepath.Join(prefix, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	src := filepath.Join(prefix, "src")
	write := func(name, text string) {
		if err := os.WriteFile(filepath.Join(src, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("lib.c", "int answer(void) { return 42; }\n")
	write("main.c", "int answer(void);\nint main(void) { return answer() == 42 ? 0 : 1; }\n")
	lib := filepath.Join(prefix, "lib", "libanswer.so.1")
	bin := filepath.Join(prefix, "bin", "node")
	run := func(args ...string) {
		out, err := exec.Command("gcc", args...).CombinedOutput()
		if err != nil {
			t.Skipf("gcc cannot build here: %v\n%s", err, out)
		}
	}
	run("-shared", "-fPIC", "-o", lib, filepath.Join(src, "lib.c"), "-Wl,-soname,libanswer.so.1")
	if err := os.Symlink("libanswer.so.1", filepath.Join(prefix, "lib", "libanswer.so")); err != nil {
		t.Fatal(err)
	}
	run("-o", bin, filepath.Join(src, "main.c"), "-L"+filepath.Join(prefix, "lib"), "-lanswer", "-Wl,-rpath,$ORIGIN/../lib")
	if err := exec.Command(bin).Run(); err != nil {
		t.Fatalf("the built program does not run: %v", err)
	}
	real, _ := filepath.EvalSymlinks(bin)
	realLib, _ := filepath.EvalSymlinks(lib)
	got := nodeFiles(real)
	if !slices.Equal(got, []string{real, realLib}) {
		t.Fatalf("nodeFiles = %q, want the program and its library", got)
	}
}

// TestNodeFilesOfRealNode: the Node of this machine needs nothing beyond
// the system but its executable, wherever it is copied.
func TestNodeFilesOfRealNode(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node not found")
	}
	node, _ = filepath.EvalSymlinks(node)
	for _, f := range nodeFiles(node)[1:] {
		if !isSystemPath(f) {
			t.Errorf("nodeFiles(%s) gives %s, outside the system", node, f)
		}
	}
	if got := nodeFiles("/nonexistent/node"); !slices.Equal(got, []string{"/nonexistent/node"}) {
		t.Errorf("nodeFiles of a missing file = %q", got)
	}
}

// TestWrapNodeUnderHome checks the arguments of both sandboxes for a Node
// under the user's home: the executable is bound (or allowed) alone, never
// ~/.local or ~ around it.
func TestWrapNodeUnderHome(t *testing.T) {
	home := t.TempDir()
	for _, rel := range []string{".local/bin/node", "bin/node"} {
		node := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(node), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(node, []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		spec := Spec{ID: "x", Node: node, PackageDir: filepath.Join(home, ".local/share/SpiritAgent/extensions/cli/pkg-x"),
			UserHome: home, Hidden: []string{filepath.Join(home, ".local/share/SpiritAgent")}, PrivateDir: t.TempDir()}
		for _, kind := range []Kind{KindBwrap, KindLandlock} {
			c, err := Status{Kind: kind, Path: "/usr/bin/bwrap"}.Wrap(context.Background(), spec)
			if err != nil {
				if kind == KindLandlock && runtime.GOOS != "linux" {
					continue
				}
				t.Fatal(err)
			}
			args := " " + strings.Join(c.Args, " ") + " "
			if !strings.Contains(args, " "+node+" "+node+" ") && !strings.Contains(args, " --ro "+node+" ") {
				t.Errorf("%s, node %s: the executable is not made visible:\n%s", kind, rel, args)
			}
			for _, dir := range []string{home, filepath.Join(home, ".local"), filepath.Dir(node)} {
				if strings.Contains(args, " "+dir+" ") {
					t.Errorf("%s, node %s: %s is made visible:\n%s", kind, rel, dir, args)
				}
			}
		}
	}
}

// dynStrings reads what elf.File.DynString reads, for every ELF file at
// hand: the test binary, Node, the C library.
func TestDynStringsAgreesWithDebugElf(t *testing.T) {
	files := []string{os.Args[0], "/bin/sh"}
	if node, err := exec.LookPath("node"); err == nil {
		files = append(files, node)
	}
	for _, lib := range []string{"/lib/x86_64-linux-gnu/libc.so.6", "/lib/aarch64-linux-gnu/libc.so.6"} {
		if _, err := os.Stat(lib); err == nil {
			files = append(files, lib)
		}
	}
	checked := 0
	for _, file := range files {
		f, err := elf.Open(file)
		if err != nil {
			continue
		}
		got, _ := dynStrings(f) // nil without a dynamic section, as elfLibraries reads it
		for _, tag := range []elf.DynTag{elf.DT_NEEDED, elf.DT_RUNPATH, elf.DT_RPATH} {
			want, _ := f.DynString(tag)
			if !slices.Equal(got[tag], want) {
				t.Errorf("%s %v: dynStrings %q, DynString %q", file, tag, got[tag], want)
			}
		}
		if len(got[elf.DT_NEEDED]) > 0 {
			checked++
		}
		f.Close()
	}
	if checked == 0 {
		t.Skip("no dynamically linked ELF file found to compare with")
	}
}

// nodeFiles runs at every extension start: it must not read Node's whole
// string table (~4.5 MB, three times over with elf.File.DynString).
func TestNodeFilesAllocatesLittle(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("no node on PATH to read")
	}
	if real, err := filepath.EvalSymlinks(node); err == nil {
		node = real
	}
	nodeFiles(node)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	nodeFiles(node)
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 256<<10 {
		t.Fatalf("nodeFiles(%s) allocated %d KiB, want at most 256 KiB", node, n>>10)
	}
}
