package adi

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestAVX2KernelsVEXOnly: no instruction in npb-go's amd64 assembly that
// touches an X or Y register is legacy-SSE encoded (MOVQ DX, X0 rather
// than VMOVQ DX, X0). Within an AVX2 kernel the upper halves of the Y
// registers are in use, and on Intel processors a legacy SSE instruction
// then costs a state transition or a merge. SP's kernels loaded their
// constants with such a MOVQ, and on a Xeon they ran several times slower
// than the Go loops (BenchmarkDissRow) while the kernels without one ran
// as expected; AMD's EPYC showed nothing (npb-go/README.md has the
// figures). The kernels end with VZEROUPPER, so the Go code around them
// (legacy SSE) is not affected.
func TestAVX2KernelsVEXOnly(t *testing.T) {
	var files []string
	err := filepath.WalkDir("../..", func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (strings.HasSuffix(path, "_amd64.s") || strings.HasSuffix(path, "_amd64.h")) {
			files = append(files, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no amd64 assembly found under npb-go")
	}
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, bad := range legacyVectorInstructions(string(src)) {
			t.Errorf("%s: %s", f, bad)
		}
	}
}

var (
	vecReg    = regexp.MustCompile(`^\(?[XYZ]([0-9]|1[0-5])\)?$`)
	macroHead = regexp.MustCompile(`^#define\s+\w+\(([^)]*)\)`)
)

// legacyVectorInstructions returns the statements of a Go assembly source
// that are not VEX encoded (no V prefix) yet name a vector register: X0-X15,
// Y0-Y15, or a macro parameter that the macro also gives a V instruction.
func legacyVectorInstructions(src string) []string {
	var bad []string
	lines := strings.Split(src, "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		var params []string
		block := []string{line}
		if m := macroHead.FindStringSubmatch(line); m != nil {
			for _, p := range strings.Split(m[1], ",") {
				params = append(params, strings.TrimSpace(p))
			}
			block = block[:0]
			for strings.HasSuffix(strings.TrimSpace(stripComment(lines[i])), `\`) && i+1 < len(lines) {
				i++
				block = append(block, lines[i])
			}
		}
		var stmts [][]string // mnemonic, operands...
		for _, l := range block {
			l = strings.TrimSuffix(strings.TrimSpace(stripComment(l)), `\`)
			for _, s := range strings.Split(l, ";") {
				s = strings.TrimSpace(s)
				if s == "" || strings.HasPrefix(s, "#") || strings.HasSuffix(s, ":") {
					continue
				}
				f := strings.Fields(s)
				if strings.Contains(f[0], "(") {
					continue // a macro's use: its body is checked at its #define
				}
				st := []string{f[0]}
				for _, op := range strings.Split(strings.TrimSpace(strings.TrimPrefix(s, f[0])), ",") {
					st = append(st, strings.TrimSpace(op))
				}
				stmts = append(stmts, st)
			}
		}
		vecParam := map[string]bool{}
		for _, st := range stmts {
			if strings.HasPrefix(st[0], "V") {
				for _, op := range st[1:] {
					for _, p := range params {
						if op == p {
							vecParam[p] = true
						}
					}
				}
			}
		}
		for _, st := range stmts {
			if strings.HasPrefix(st[0], "V") || st[0] == "TEXT" || st[0] == "DATA" || st[0] == "GLOBL" {
				continue
			}
			for _, op := range st[1:] {
				if vecReg.MatchString(op) || vecParam[op] {
					bad = append(bad, st[0]+" "+strings.Join(st[1:], ", "))
					break
				}
			}
		}
	}
	return bad
}

func stripComment(l string) string {
	if i := strings.Index(l, "//"); i >= 0 {
		return l[:i]
	}
	return l
}
