package embedtest

import (
	"encoding/json"
	"fmt"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// listedPackage is what `go list -export -json` says about a package.
type listedPackage struct {
	ImportPath string
	Name       string
	Export     string
	Module     *struct{ Path string }
}

// TestPublicAPIUsesOnlyPublicTypes fails when an exported identifier of a
// public package (one another module may import) names a type of an
// internal package in its signature, fields or methods: such a type cannot
// be named from another module, so the identifier is half usable there.
func TestPublicAPIUsesOnlyPublicTypes(t *testing.T) {
	pkgs, exports := listModule(t)
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		f, ok := exports[path]
		if !ok || f == "" {
			return nil, fmt.Errorf("no export data for %s", path)
		}
		return os.Open(f)
	})
	checked := 0
	for _, p := range pkgs {
		if p.Name == "main" || isInternal(p.ImportPath) {
			continue
		}
		pkg, err := imp.Import(p.ImportPath)
		if err != nil {
			t.Fatalf("import %s: %v", p.ImportPath, err)
		}
		checked++
		for _, leak := range internalLeaks(pkg) {
			t.Errorf("%s", leak)
		}
	}
	if checked < 10 {
		t.Fatalf("checked %d public packages; go list found too few", checked)
	}
}

// TestInternalLeaksFindsOne shows the walker can fail: a package whose
// exported function returns an internal type is reported.
func TestInternalLeaksFindsOne(t *testing.T) {
	in := types.NewPackage("example.com/m/internal/x", "x")
	obj := types.NewTypeName(token.NoPos, in, "Secret", nil)
	secret := types.NewNamed(obj, types.NewStruct(nil, nil), nil)
	pub := types.NewPackage("example.com/m/pub", "pub")
	res := types.NewTuple(types.NewVar(token.NoPos, pub, "", types.NewSlice(secret)))
	fn := types.NewFunc(token.NoPos, pub, "Get", types.NewSignatureType(nil, nil, nil, nil, res, false))
	pub.Scope().Insert(fn)
	leaks := internalLeaks(pub)
	if len(leaks) != 1 || !strings.Contains(leaks[0], "pub.Get") || !strings.Contains(leaks[0], "internal/x.Secret") {
		t.Fatalf("leaks = %q, want one naming pub.Get and internal/x.Secret", leaks)
	}
}

// listModule returns this module's packages and the export data of every
// package they depend on (the standard library's included).
func listModule(t *testing.T) ([]listedPackage, map[string]string) {
	t.Helper()
	repo, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-export", "-deps", "-json=ImportPath,Name,Export,Module", "./...")
	cmd.Dir = repo
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -export: %v", err)
	}
	self := modulePath(t, repo)
	var pkgs []listedPackage
	exports := map[string]string{}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p listedPackage
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		exports[p.ImportPath] = p.Export
		if p.Module != nil && p.Module.Path == self {
			pkgs = append(pkgs, p)
		}
	}
	return pkgs, exports
}

func modulePath(t *testing.T, dir string) string {
	t.Helper()
	cmd := exec.Command("go", "list", "-m")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	return strings.TrimSpace(string(out))
}

func isInternal(path string) bool {
	return strings.HasSuffix(path, "/internal") || strings.Contains(path, "/internal/") ||
		strings.HasPrefix(path, "internal/")
}

// internalLeaks lists, for each exported identifier of pkg, the internal
// types its declaration mentions.
func internalLeaks(pkg *types.Package) []string {
	var leaks []string
	scope := pkg.Scope()
	for _, name := range scope.Names() {
		obj := scope.Lookup(name)
		if !obj.Exported() {
			continue
		}
		what := pkg.Name() + "." + name
		report := func(where string, n *types.TypeName) {
			leaks = append(leaks, fmt.Sprintf("%s%s mentions %s.%s, a type of an internal package", what, where, n.Pkg().Path(), n.Name()))
		}
		switch obj := obj.(type) {
		case *types.TypeName:
			if alias, ok := obj.Type().(*types.Alias); ok {
				walk(alias.Rhs(), "", report)
				continue
			}
			named, ok := obj.Type().(*types.Named)
			if !ok {
				continue
			}
			walk(named.Underlying(), "", report)
			for i := range named.NumMethods() {
				m := named.Method(i)
				if m.Exported() {
					walk(m.Type(), "."+m.Name(), report)
				}
			}
		default:
			walk(obj.Type(), "", report)
		}
	}
	sort.Strings(leaks)
	return leaks
}

// walk calls report for each named type of an internal package that typ
// mentions, looking through composite types, signatures and the exported
// fields and methods of unnamed structs and interfaces. A named type of
// another package is not entered: if it is public, its own check covers it.
func walk(typ types.Type, where string, report func(string, *types.TypeName)) {
	seen := map[types.Type]bool{}
	var visit func(types.Type, string)
	visit = func(typ types.Type, where string) {
		if typ == nil || seen[typ] {
			return
		}
		seen[typ] = true
		switch t := typ.(type) {
		case *types.Alias:
			if obj := t.Obj(); obj.Pkg() != nil && isInternal(obj.Pkg().Path()) {
				report(where, obj)
				return
			}
			visit(types.Unalias(t), where)
		case *types.Named:
			if obj := t.Obj(); obj.Pkg() != nil && isInternal(obj.Pkg().Path()) {
				report(where, obj)
			}
			if args := t.TypeArgs(); args != nil {
				for i := range args.Len() {
					visit(args.At(i), where)
				}
			}
		case *types.Pointer:
			visit(t.Elem(), where)
		case *types.Slice:
			visit(t.Elem(), where)
		case *types.Array:
			visit(t.Elem(), where)
		case *types.Map:
			visit(t.Key(), where)
			visit(t.Elem(), where)
		case *types.Chan:
			visit(t.Elem(), where)
		case *types.Signature:
			if tp := t.TypeParams(); tp != nil {
				for i := range tp.Len() {
					visit(tp.At(i).Constraint(), where)
				}
			}
			for _, tuple := range []*types.Tuple{t.Params(), t.Results()} {
				for i := range tuple.Len() {
					visit(tuple.At(i).Type(), where)
				}
			}
		case *types.Struct:
			for i := range t.NumFields() {
				if f := t.Field(i); f.Exported() || f.Embedded() {
					visit(f.Type(), where+"."+f.Name())
				}
			}
		case *types.Interface:
			for i := range t.NumMethods() {
				if m := t.Method(i); m.Exported() {
					visit(m.Type(), where+"."+m.Name())
				}
			}
			for i := range t.NumEmbeddeds() {
				visit(t.EmbeddedType(i), where)
			}
		case *types.Union:
			for i := range t.Len() {
				visit(t.Term(i).Type(), where)
			}
		}
	}
	visit(typ, where)
}

// TestEmbeddingCoversEveryPublicPackage fails when a public package of
// the module is imported by neither file of the external module
// (testdata/embed.go.txt, testdata/public.go.txt): a new public package is
// compiled from another module as soon as it exists.
func TestEmbeddingCoversEveryPublicPackage(t *testing.T) {
	pkgs, _ := listModule(t)
	imported := map[string]bool{}
	for _, name := range []string{"testdata/embed.go.txt", "testdata/public.go.txt"} {
		f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			imported[path] = true
		}
	}
	for _, p := range pkgs {
		if p.Name != "main" && !isInternal(p.ImportPath) && !imported[p.ImportPath] {
			t.Errorf("%s is public but testdata/public.go.txt does not import it: add a use of it there", p.ImportPath)
		}
	}
}
