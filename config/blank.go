package config

import (
	"bytes"
	"reflect"
	"strings"

	"gopkg.in/yaml.v3"
)

// maxAlign bounds the work of keepBlankLines (lines of the old file times
// lines of the new one); bigger files are written without their blank lines.
const maxAlign = 4_000_000

// keepBlankLines puts back the blank lines of orig that yaml.v3 drops when
// it writes out, so that saving a file (MARA's example has many blank
// lines) keeps its layout and the line numbers its users know. The lines
// of orig and out are aligned by their longest common subsequence; a run
// of blank lines returns between two lines that are still neighbours. If
// the result would read differently from out, out is returned unchanged.
func keepBlankLines(orig, out []byte) []byte {
	src := strings.Split(string(orig), "\n")
	dst := strings.Split(string(out), "\n")
	// The non-blank lines of orig and how many blank lines follow each
	// (index -1: blank lines at the top).
	var lines []string
	blanksAfter := map[int]int{}
	for _, l := range src {
		if strings.TrimSpace(l) == "" {
			blanksAfter[len(lines)-1]++
			continue
		}
		lines = append(lines, strings.TrimRight(l, " \t\r"))
	}
	if len(blanksAfter) == 0 || len(lines)*len(dst) > maxAlign {
		return out
	}
	match := align(lines, dst) // dst index -> lines index, or -1
	matched := make([]bool, len(lines))
	for _, i := range match {
		if i >= 0 {
			matched[i] = true
		}
	}
	// A changed line stands for the unmatched line of orig that follows
	// the line before it.
	for j := 1; j < len(dst); j++ {
		if prev := match[j-1]; match[j] < 0 && prev >= 0 && prev+1 < len(lines) && !matched[prev+1] {
			match[j] = prev + 1
			matched[prev+1] = true
		}
	}
	var b bytes.Buffer
	for j, l := range dst {
		b.WriteString(l)
		if j < len(dst)-1 {
			b.WriteByte('\n')
		}
		i := match[j]
		if i < 0 || blanksAfter[i] == 0 || j+1 >= len(dst) || i+1 >= len(lines) {
			continue
		}
		// Still neighbours: the next line is orig's next line.
		if match[j+1] == i+1 {
			b.WriteString(strings.Repeat("\n", blanksAfter[i]))
		}
	}
	if !sameYAML(out, b.Bytes()) {
		return out
	}
	return b.Bytes()
}

// align returns, for each line of b, the index of the line of a it is
// paired with in a longest common subsequence (-1 when none).
func align(a, b []string) []int {
	n, m := len(a), len(b)
	// lcs[i][j] is the LCS length of a[i:] and b[j:].
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			switch {
			case a[i] == strings.TrimRight(b[j], " \t\r"):
				lcs[i][j] = lcs[i+1][j+1] + 1
			case lcs[i+1][j] >= lcs[i][j+1]:
				lcs[i][j] = lcs[i+1][j]
			default:
				lcs[i][j] = lcs[i][j+1]
			}
		}
	}
	match := make([]int, m)
	for j := range match {
		match[j] = -1
	}
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case a[i] == strings.TrimRight(b[j], " \t\r"):
			match[j] = i
			i++
			j++
		case lcs[i+1][j] >= lcs[i][j+1]:
			i++
		default:
			j++
		}
	}
	return match
}

// sameYAML reports whether two documents hold the same values.
func sameYAML(a, b []byte) bool {
	var x, y any
	if yaml.Unmarshal(a, &x) != nil || yaml.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
