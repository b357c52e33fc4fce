package view

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/runnerhq/runner/runner/event"
)

// Plain keeps each project's lines together and prints them as one block
// when the project ends, then a summary table. It is the view for logs and
// pipes; Live wraps it for terminals.
type Plain struct {
	mu     sync.Mutex
	w      *stickyWriter
	blocks map[string]*strings.Builder
	color  bool
	// ShowDurations prints step and project durations (off in golden tests
	// and with --no-durations, for logs that compare equal across runs
	// when projects and steps run one at a time).
	ShowDurations bool
}

// NewPlain returns a plain view writing to w, with ANSI colour when color is set.
func NewPlain(w io.Writer, color bool) *Plain {
	return &Plain{w: &stickyWriter{w: w}, blocks: map[string]*strings.Builder{}, color: color, ShowDurations: true}
}

// Emit adds e to its project's block, or prints a finished block or the summary.
func (p *Plain) Emit(e event.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if out := p.render(e); out != "" {
		fmt.Fprint(p.w, out)
	}
}

// Err returns the first error of writing the view, nil when all of it was
// written.
func (p *Plain) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.w.error("the output to stdout")
}

// render returns what must be printed now for e ("" while a block grows).
func (p *Plain) render(e event.Event) string {
	if !p.color {
		e = withoutEscapes(e)
	}
	switch e.Type {
	case event.ConfigDefaulted:
		return fmt.Sprintf("Defaults taken for the keys %s does not set (up saves them there): %s\n", e.File, strings.Join(e.Keys, ", "))
	case event.Warning:
		if e.Project == "" { // of the run, not of a project's block
			return p.paint(yellow, "warning: "+e.Message) + "\n"
		}
		p.block(e.Project).WriteString(p.line(e))
		return ""
	case event.OperationStart:
		return p.paint(bold, fmt.Sprintf("%s of stack %s: %s\n\n", titleOp(e.Operation), e.Stack, e.Message))
	case event.ProjectStart:
		b := &strings.Builder{}
		p.blocks[e.Project] = b
		fmt.Fprintf(b, "%s\n", p.paint(bold, fmt.Sprintf("── %s · %s ", e.Project, e.Operation)+strings.Repeat("─", max(3, 48-len(e.Project)-len(e.Operation)))))
		return ""
	case event.StepDone, event.StepFailed, event.Log, event.Outputs:
		b := p.block(e.Project)
		b.WriteString(p.line(e))
		return ""
	case event.ProjectDone:
		b := p.block(e.Project)
		b.WriteString(p.footer(e))
		b.WriteString("\n")
		delete(p.blocks, e.Project)
		return b.String()
	case event.ProjectSkipped:
		delete(p.blocks, e.Project)
		return p.paint(yellow, fmt.Sprintf("── %s · skipped: %s\n\n", e.Project, e.Message))
	case event.Summary:
		return p.summary(e)
	}
	return ""
}

func (p *Plain) block(project string) *strings.Builder {
	b, ok := p.blocks[project]
	if !ok {
		b = &strings.Builder{}
		p.blocks[project] = b
	}
	return b
}

// line renders one step, log line, warning or output listing of a block.
func (p *Plain) line(e event.Event) string {
	switch e.Type {
	case event.StepDone:
		sym, col := opSymbol(e.Op)
		s := fmt.Sprintf("  %s %-8s %s", sym, e.Op, urnLabel(e.URN, e.Resource))
		if len(e.Keys) > 0 && e.Op != "create" && e.Op != "create-replacement" && e.Op != "import" {
			s += " [" + strings.Join(e.Keys, ", ") + "]"
		}
		if p.ShowDurations && e.Op != "same" && e.DurationMS > 0 {
			s += fmt.Sprintf(" (%s)", fmtDuration(time.Duration(e.DurationMS)*time.Millisecond))
		}
		return p.paint(col, s) + "\n"
	case event.StepFailed:
		return p.paint(red, fmt.Sprintf("  ✗ %-8s %s: %s", e.Op, urnLabel(e.URN, e.Resource), e.Error)) + "\n"
	case event.Log:
		return "  " + e.Message + "\n"
	case event.Warning:
		if e.Severity == event.SeverityError {
			return p.paint(red, "  error: "+e.Message) + "\n"
		}
		return p.paint(yellow, "  warning: "+e.Message) + "\n"
	case event.Outputs:
		if len(e.Outputs) == 0 {
			return ""
		}
		keys := make([]string, 0, len(e.Outputs))
		for k := range e.Outputs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var b strings.Builder
		b.WriteString("  outputs:\n")
		for _, k := range keys {
			fmt.Fprintf(&b, "    %s: %s\n", k, outputText(e.Outputs[k]))
		}
		return b.String()
	}
	return ""
}

// footer is the last line of a project's block.
func (p *Plain) footer(e event.Event) string {
	counts := countsText(e.Counts)
	if e.Operation == "preview" {
		counts = planText(e.Counts)
	}
	took := ""
	if p.ShowDurations {
		took = " in " + fmtDuration(time.Duration(e.DurationMS)*time.Millisecond)
	}
	if e.Result == "failed" {
		return p.paint(red, fmt.Sprintf("  ✗ failed%s: %s", took, e.Error)) + "\n"
	}
	if e.Result == "cancelled" {
		return p.paint(yellow, fmt.Sprintf("  ! cancelled%s", took)) + "\n"
	}
	return p.paint(green, fmt.Sprintf("  ✓ %s%s: %s", e.Result, took, counts)) + "\n"
}

// summary renders the final table and the list of failures.
func (p *Plain) summary(e event.Event) string {
	var b strings.Builder
	cols := []string{"create", "update", "replace", "delete", "same"}
	header := []string{"PROJECT", "OPERATION", "RESULT", "CREATE", "UPDATE", "REPLACE", "DELETE", "SAME", "DURATION"}
	rows := [][]string{header}
	for _, r := range e.Projects {
		row := []string{r.Project, r.Operation, r.Result}
		for _, c := range cols {
			row = append(row, fmt.Sprint(r.Counts[c]))
		}
		d := "-"
		if p.ShowDurations && r.Result != "skipped" && r.Result != "cancelled" {
			d = fmtDuration(time.Duration(r.DurationMS) * time.Millisecond)
		}
		rows = append(rows, append(row, d))
	}
	b.WriteString(p.paint(bold, "Summary") + "\n")
	b.WriteString(table(rows))
	var failures []string
	for _, r := range e.Projects {
		if r.Error != "" {
			failures = append(failures, fmt.Sprintf("  %s: %s", r.Project, r.Error))
		}
	}
	if len(failures) > 0 {
		b.WriteString("\n" + p.paint(red, "Failures:") + "\n" + strings.Join(failures, "\n") + "\n")
	}
	if e.Message != "" {
		b.WriteString("\n" + e.Message + "\n")
	}
	for _, u := range e.URLs {
		b.WriteString("URL: " + u + "\n")
	}
	if e.File != "" {
		fmt.Fprintf(&b, "The plan is in %s; `runner up --plan %s` executes it.\n", e.File, e.File)
	}
	return b.String()
}

// table aligns rows in columns separated by two spaces.
func table(rows [][]string) string {
	width := make([]int, len(rows[0]))
	for _, r := range rows {
		for i, c := range r {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	var b strings.Builder
	for _, r := range rows {
		for i, c := range r {
			if i == len(r)-1 {
				b.WriteString(c)
				break
			}
			b.WriteString(c + strings.Repeat(" ", width[i]-len([]rune(c))+2))
		}
		b.WriteString("\n")
	}
	return b.String()
}

func countsText(c map[string]int) string {
	var parts []string
	for _, k := range []string{"create", "import", "read", "update", "replace", "delete", "read-discard", "same", "refresh"} {
		if c[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c[k], pastTense(k)))
		}
	}
	if len(parts) == 0 {
		return "no changes"
	}
	return strings.Join(parts, ", ")
}

// planText describes a preview's counts: "2 to create, 1 to update".
func planText(c map[string]int) string {
	var parts []string
	for _, k := range []string{"create", "import", "read", "update", "replace", "delete", "read-discard"} {
		if c[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d to %s", c[k], strings.TrimPrefix(k, "read-")))
		}
	}
	if c["same"] > 0 {
		parts = append(parts, fmt.Sprintf("%d unchanged", c["same"]))
	}
	if len(parts) == 0 {
		return "no changes"
	}
	return strings.Join(parts, ", ")
}

func pastTense(op string) string {
	switch op {
	case "create":
		return "created"
	case "import":
		return "imported"
	case "update":
		return "updated"
	case "replace":
		return "replaced"
	case "delete":
		return "deleted"
	case "same":
		return "unchanged"
	case "refresh":
		return "refreshed"
	case "read-discard":
		return "discarded"
	}
	return op
}

func opSymbol(op string) (string, string) {
	switch op {
	case "create", "create-replacement":
		return "+", green
	case "import":
		return "←", green
	case "update":
		return "~", yellow
	case "replace", "delete-replaced", "read-replacement":
		return "±", magenta
	case "delete":
		return "-", red
	case "read-discard", "discard-replaced":
		return "-", ""
	case "refresh", "read":
		return "↻", ""
	}
	return " ", ""
}

// urnLabel shows a step as "type name", shorter than the whole URN.
func urnLabel(urn, typ string) string {
	name := urn
	if i := strings.LastIndex(urn, "::"); i >= 0 {
		name = urn[i+2:]
	}
	if typ == "" {
		return name
	}
	return typ + " " + name
}

func titleOp(op string) string {
	if op == "" {
		return ""
	}
	return strings.ToUpper(op[:1]) + op[1:]
}

func fmtDuration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return d.Round(time.Second).String()
}

const (
	bold    = "\x1b[1m"
	red     = "\x1b[31m"
	green   = "\x1b[32m"
	yellow  = "\x1b[33m"
	magenta = "\x1b[35m"
	reset   = "\x1b[0m"
)

func (p *Plain) paint(code, s string) string {
	if !p.color || code == "" {
		return s
	}
	return code + s + reset
}

// outputText shows an output value on one line: a multi-line string (a PEM
// certificate, say) as its first line and its line count.
func outputText(v any) string {
	if s, ok := v.(string); ok {
		lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
		if len(lines) > 1 {
			return fmt.Sprintf("%s … (%d lines)", lines[0], len(lines))
		}
		return s
	}
	if v == nil {
		return "null"
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
