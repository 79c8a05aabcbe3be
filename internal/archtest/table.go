package archtest

import "strings"

// table is a Markdown table: its header cells and its body rows.
type table struct {
	header []string
	rows   [][]string
	start  int // line number of the header, from 1
}

// tables returns the Markdown tables of text: runs of lines starting with
// "|" whose second line is the separator row.
func tables(text string) []table {
	lines := strings.Split(text, "\n")
	var out []table
	for i := 0; i < len(lines); i++ {
		if !isRow(lines[i]) || i+1 >= len(lines) || !isSeparator(lines[i+1]) {
			continue
		}
		t := table{header: cells(lines[i]), start: i + 1}
		j := i + 2
		for ; j < len(lines) && isRow(lines[j]); j++ {
			t.rows = append(t.rows, cells(lines[j]))
		}
		out = append(out, t)
		i = j - 1
	}
	return out
}

// isRow reports whether line is a table row.
func isRow(line string) bool {
	return strings.HasPrefix(strings.TrimSpace(line), "|")
}

// isSeparator reports whether line is a header separator such as |---|:--|.
func isSeparator(line string) bool {
	c := cells(line)
	if !isRow(line) || len(c) == 0 {
		return false
	}
	for _, s := range c {
		if strings.Trim(s, ":-") != "" || !strings.Contains(s, "-") {
			return false
		}
	}
	return true
}

// cells splits a row into its trimmed cells.
func cells(line string) []string {
	s := strings.TrimSpace(line)
	s = strings.TrimPrefix(s, "|")
	s = strings.TrimSuffix(s, "|")
	parts := strings.Split(s, "|")
	for i, p := range parts {
		parts[i] = strings.TrimSpace(p)
	}
	return parts
}

// equalCells compares header cells without regard to case.
func equalCells(got, want []string) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if !strings.EqualFold(got[i], want[i]) {
			return false
		}
	}
	return true
}
