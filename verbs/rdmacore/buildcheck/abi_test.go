//go:build linux

package buildcheck

import (
	"debug/dwarf"
	"debug/elf"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestABIMatchesRdmaCoreHeaders checks abi.h, the project's copy of the
// rdma-core ABI, against the real <infiniband/verbs.h> and
// <rdma/rdma_cma.h>: each is compiled on its own with debug information
// (the two cannot share a translation unit: the names are the same), and
// for every struct and union abi.h declares the compiler's own answers are
// compared: sizeof, and every field's offset, size and kind, nested and
// anonymous members included; and every enumerator's value.
func TestABIMatchesRdmaCoreHeaders(t *testing.T) {
	cc := cCompiler(t)
	dir := t.TempDir()
	real, err := compileProbe(cc, dir, "real", "#include <infiniband/verbs.h>\n#include <rdma/rdma_cma.h>\n")
	if errors.Is(err, errNoHeaders) {
		t.Skipf("the rdma-core headers are not installed (apt-get install libibverbs-dev librdmacm-dev): %v", err)
	}
	if err != nil {
		t.Fatal(err)
	}
	header, err := filepath.Abs(filepath.Join("..", "abi.h"))
	if err != nil {
		t.Fatal(err)
	}
	ours, err := compileProbe(cc, dir, "ours", "#include \""+header+"\"\n")
	if err != nil {
		t.Fatal(err)
	}
	want, err := readABI(real, "")
	if err != nil {
		t.Fatal(err)
	}
	got, err := readABI(ours, "abi.h")
	if err != nil {
		t.Fatal(err)
	}
	// A floor, so that a probe that silently yields nothing cannot pass.
	if len(got.records) < 25 || len(got.enums) < 150 {
		t.Fatalf("read only %d records and %d enumerators from abi.h", len(got.records), len(got.enums))
	}
	problems := compareABI(got, want)
	sort.Strings(problems)
	for _, problem := range problems {
		t.Error(problem)
	}
	if len(problems) > 0 {
		return
	}
	t.Logf("abi.h: %d structs/unions (%d fields) and %d enumerators match rdma-core's headers",
		len(got.records), got.fieldCount(), len(got.enums))
}

var errNoHeaders = errors.New("header not found")

func cCompiler(t *testing.T) string {
	t.Helper()
	cc := os.Getenv("CC")
	if cc == "" {
		cc = "gcc"
	}
	if _, err := exec.LookPath(cc); err != nil {
		t.Skipf("no C compiler (%s): %v", cc, err)
	}
	return cc
}

// compileProbe builds a program that includes src and keeps the debug
// information of every type it declares, used or not.
func compileProbe(cc, dir, name, src string) (string, error) {
	c := filepath.Join(dir, name+".c")
	if err := os.WriteFile(c, []byte(src+"int main(void) { return 0; }\n"), 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, name)
	out, err := exec.Command(cc, "-g", "-O0", "-fno-eliminate-unused-debug-types", "-o", bin, c).CombinedOutput()
	if err != nil {
		if strings.Contains(string(out), "No such file or directory") {
			return "", fmt.Errorf("%w: %s", errNoHeaders, strings.TrimSpace(string(out)))
		}
		return "", fmt.Errorf("%s %s: %v\n%s", cc, c, err, out)
	}
	return bin, nil
}

// abiField is one member as the compiler laid it out. Path names nested
// members (wr.rdma.rkey); members of anonymous unions keep their own name.
type abiField struct {
	Path         string
	Offset, Size int64
	BitOffset    int64
	BitSize      int64
	Kind         string
}

type abiRecord struct {
	Size   int64
	Fields []abiField
}

type abiLayout struct {
	records map[string]abiRecord // "struct ibv_qp", "union ibv_gid"
	enums   map[string]int64     // enumerator name -> value
}

func (l abiLayout) fieldCount() int {
	n := 0
	for _, r := range l.records {
		n += len(r.Fields)
	}
	return n
}

// readABI collects the complete named structs and unions and the
// enumerators of a probe's debug information; with onlyFile set, only
// those declared in a file of that base name.
func readABI(bin, onlyFile string) (abiLayout, error) {
	l := abiLayout{records: map[string]abiRecord{}, enums: map[string]int64{}}
	f, err := elf.Open(bin)
	if err != nil {
		return l, err
	}
	defer f.Close()
	d, err := f.DWARF()
	if err != nil {
		return l, fmt.Errorf("%s: %w", bin, err)
	}
	var files []*dwarf.LineFile
	r := d.Reader()
	for {
		e, err := r.Next()
		if err != nil {
			return l, err
		}
		if e == nil {
			break
		}
		switch e.Tag {
		case dwarf.TagCompileUnit:
			lr, err := d.LineReader(e)
			if err != nil || lr == nil {
				return l, fmt.Errorf("%s: no line table: %v", bin, err)
			}
			files = lr.Files()
			continue
		case dwarf.TagStructType, dwarf.TagUnionType, dwarf.TagEnumerationType:
		default:
			continue
		}
		if onlyFile != "" && !declaredIn(e, files, onlyFile) {
			continue
		}
		typ, err := d.Type(e.Offset)
		if err != nil {
			return l, err
		}
		switch typ := typ.(type) {
		case *dwarf.StructType:
			if typ.StructName != "" && !typ.Incomplete {
				var fields []abiField
				flattenFields(typ, "", 0, &fields)
				l.records[typ.Kind+" "+typ.StructName] = abiRecord{Size: typ.ByteSize, Fields: fields}
			}
		case *dwarf.EnumType:
			for _, v := range typ.Val {
				l.enums[v.Name] = v.Val
			}
		}
	}
	return l, nil
}

func declaredIn(e *dwarf.Entry, files []*dwarf.LineFile, base string) bool {
	i, ok := e.Val(dwarf.AttrDeclFile).(int64)
	if !ok || i < 0 || int(i) >= len(files) || files[i] == nil {
		return false
	}
	return filepath.Base(files[i].Name) == base
}

// flattenFields lists st's members in order, descending into members of
// anonymous struct or union type (named types are records of their own).
func flattenFields(st *dwarf.StructType, prefix string, base int64, out *[]abiField) {
	anonymous := 0
	for _, f := range st.Field {
		t := stripTypedefs(f.Type)
		path := prefix + f.Name
		if f.Name == "" { // C names its members directly; the path numbers it
			anonymous++
			path = fmt.Sprintf("%s(anonymous %s #%d)", prefix, typeKind(t), anonymous)
		}
		*out = append(*out, abiField{Path: path, Offset: base + f.ByteOffset, Size: t.Size(),
			BitOffset: f.DataBitOffset, BitSize: f.BitSize, Kind: typeKind(t)})
		if inner, ok := t.(*dwarf.StructType); ok && inner.StructName == "" {
			next := prefix
			if f.Name != "" {
				next = path + "."
			}
			flattenFields(inner, next, base+f.ByteOffset, out)
		}
	}
}

func stripTypedefs(t dwarf.Type) dwarf.Type {
	for {
		switch q := t.(type) {
		case *dwarf.TypedefType:
			t = q.Type
		case *dwarf.QualType:
			t = q.Type
		default:
			return t
		}
	}
}

// typeKind names a type by what decides its layout and meaning: pointers
// are all alike (abi.h types the ones it never calls as void *), integers
// are their signedness and width whatever the typedef (__be64, uint64_t).
func typeKind(t dwarf.Type) string {
	switch t := stripTypedefs(t).(type) {
	case *dwarf.PtrType:
		return "pointer"
	case *dwarf.StructType:
		if t.StructName == "" {
			return t.Kind + " {...}"
		}
		return t.Kind + " " + t.StructName
	case *dwarf.EnumType:
		return "enum " + t.EnumName
	case *dwarf.ArrayType:
		return fmt.Sprintf("[%d]%s", t.Count, typeKind(t.Type))
	case *dwarf.UcharType, *dwarf.UintType:
		return fmt.Sprintf("uint%d", t.Size()*8)
	case *dwarf.CharType, *dwarf.IntType:
		return fmt.Sprintf("int%d", t.Size()*8)
	default:
		return t.String()
	}
}

// compareABI lists every difference between the project's declarations
// (got) and rdma-core's (want), in words that say what to fix.
func compareABI(got, want abiLayout) []string {
	var problems []string
	for name, g := range got.records {
		w, ok := want.records[name]
		if !ok {
			problems = append(problems, fmt.Sprintf("%s: declared in abi.h but not in rdma-core's headers", name))
			continue
		}
		if g.Size != w.Size {
			problems = append(problems, fmt.Sprintf("%s: sizeof is %d in abi.h, %d in rdma-core", name, g.Size, w.Size))
		}
		problems = append(problems, compareFields(name, g.Fields, w.Fields)...)
	}
	for name, v := range got.enums {
		wv, ok := want.enums[name]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s: enumerator in abi.h but not in rdma-core's headers", name))
		case v != wv:
			problems = append(problems, fmt.Sprintf("%s = %d in abi.h, %d in rdma-core", name, v, wv))
		}
	}
	return problems
}

func compareFields(record string, got, want []abiField) []string {
	var problems []string
	byPath := map[string]abiField{}
	for _, f := range want {
		byPath[f.Path] = f
	}
	seen := map[string]bool{}
	for _, g := range got {
		seen[g.Path] = true
		w, ok := byPath[g.Path]
		if !ok {
			problems = append(problems, fmt.Sprintf("%s.%s: in abi.h but not in rdma-core", record, g.Path))
			continue
		}
		if g != w {
			problems = append(problems, fmt.Sprintf("%s.%s: abi.h has offset %d size %d %s (bits %d+%d), rdma-core has offset %d size %d %s (bits %d+%d)",
				record, g.Path, g.Offset, g.Size, g.Kind, g.BitOffset, g.BitSize, w.Offset, w.Size, w.Kind, w.BitOffset, w.BitSize))
		}
	}
	for _, w := range want {
		if !seen[w.Path] {
			problems = append(problems, fmt.Sprintf("%s.%s: missing from abi.h (offset %d size %d %s in rdma-core)", record, w.Path, w.Offset, w.Size, w.Kind))
		}
	}
	return problems
}
