package cli

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/rogpeppe/go-internal/testscript"
)

// scriptCmds are extra commands for the scripts:
//
//	mkzip OUT.zip DIR [PREFIX]   zip DIR's files, each name under PREFIX (default none)
//	mktgz OUT.tgz DIR [PREFIX]   gzip tarball of DIR's files under PREFIX (default "package")
func scriptCmds() map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	cmds := map[string]func(ts *testscript.TestScript, neg bool, args []string){
		"mkzip": func(ts *testscript.TestScript, neg bool, args []string) {
			out, dir, prefix := archiveArgs(ts, neg, args, "")
			f, err := os.Create(out)
			ts.Check(err)
			zw := zip.NewWriter(f)
			walkFiles(ts, dir, func(name string, data []byte) {
				w, err := zw.Create(path.Join(prefix, name))
				ts.Check(err)
				_, err = w.Write(data)
				ts.Check(err)
			})
			ts.Check(zw.Close())
			ts.Check(f.Close())
		},
		"mktgz": func(ts *testscript.TestScript, neg bool, args []string) {
			out, dir, prefix := archiveArgs(ts, neg, args, "package")
			f, err := os.Create(out)
			ts.Check(err)
			gz := gzip.NewWriter(f)
			tw := tar.NewWriter(gz)
			walkFiles(ts, dir, func(name string, data []byte) {
				ts.Check(tw.WriteHeader(&tar.Header{Name: path.Join(prefix, name), Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}))
				_, err := tw.Write(data)
				ts.Check(err)
			})
			ts.Check(tw.Close())
			ts.Check(gz.Close())
			ts.Check(f.Close())
		},
	}
	addSecretScriptCmds(cmds)
	return cmds
}

func archiveArgs(ts *testscript.TestScript, neg bool, args []string, defPrefix string) (out, dir, prefix string) {
	if neg {
		ts.Fatalf("unsupported: ! with an archive command")
	}
	if len(args) < 2 || len(args) > 3 {
		ts.Fatalf("usage: OUT DIR [PREFIX]")
	}
	prefix = defPrefix
	if len(args) == 3 {
		prefix = args[2]
	}
	return ts.MkAbs(args[0]), ts.MkAbs(args[1]), prefix
}

func walkFiles(ts *testscript.TestScript, dir string, fn func(name string, data []byte)) {
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		defer f.Close()
		data, err := io.ReadAll(f)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		fn(filepath.ToSlash(rel), data)
		return nil
	})
	ts.Check(err)
}
