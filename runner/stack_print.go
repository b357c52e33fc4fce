package runner

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/runnerhq/runner/engine/backend"
)

// writeJSON writes v as indented JSON, HTML characters as they are.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func when(t *time.Time) string {
	if t == nil || t.IsZero() {
		return "never"
	}
	return t.Local().Format("2006-01-02 15:04:05")
}

func printStackList(w io.Writer, list []StackListing) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tPROJECTS\tRESOURCES\tLAST UPDATE\tRESULT")
	for _, l := range list {
		name := l.Name
		if l.Current {
			name += "*"
		}
		var names []string
		for _, p := range l.Projects {
			switch {
			case p.Error != "":
				names = append(names, p.Name+"(unreadable)")
			case p.Resources > 0:
				names = append(names, p.Name)
			}
		}
		projects := strings.Join(names, ",")
		if projects == "" {
			projects = "-"
		}
		result := l.LastResult
		if result == "" {
			result = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\n", name, projects, l.Resources, when(l.LastUpdate), result)
	}
	return tw.Flush()
}

// printOutputs prints the outputs (of one project when one is set; only
// key's when key is set), as JSON with asJSON.
func printOutputs(w io.Writer, outs []ProjectOutputs, key string, one, asJSON bool, stack string) error {
	if asJSON {
		return printOutputsJSON(w, outs, key, one)
	}
	if key != "" {
		found := false
		for _, o := range outs {
			v, ok := o.Outputs[key]
			if !ok {
				continue
			}
			found = true
			if one {
				fmt.Fprintln(w, text(v))
			} else {
				fmt.Fprintf(w, "%s: %s\n", o.Project, text(v))
			}
		}
		if !found {
			return fmt.Errorf("no project of stack %s has the output %q", stack, key)
		}
		return nil
	}
	if len(outs) == 0 {
		fmt.Fprintf(w, "Stack %s has no deployed project.\n", stack)
		return nil
	}
	fmt.Fprintf(w, "Outputs of stack %s\n", stack)
	for _, o := range outs {
		fmt.Fprintf(w, "\n%s\n", o.Project)
		keys := make([]string, 0, len(o.Outputs))
		for k := range o.Outputs {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		for _, k := range keys {
			v := text(o.Outputs[k])
			if lines := strings.Split(strings.TrimRight(v, "\n"), "\n"); len(lines) > 1 {
				v = fmt.Sprintf("%s … (%d lines)", lines[0], len(lines))
			}
			fmt.Fprintf(tw, "  %s\t%s\n", k, v)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	return nil
}

func printOutputsJSON(w io.Writer, outs []ProjectOutputs, key string, one bool) error {
	doc := map[string]any{}
	for _, o := range outs {
		if key != "" {
			if v, ok := o.Outputs[key]; ok {
				doc[o.Project] = v
			}
			continue
		}
		doc[o.Project] = o.Outputs
	}
	if one && len(outs) == 1 {
		return writeJSON(w, doc[outs[0].Project])
	}
	return writeJSON(w, doc)
}

func text(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func printHistory(w io.Writer, entries []backend.HistoryEntry) error {
	if len(entries) == 0 {
		fmt.Fprintln(w, "No operations yet.")
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "WHEN\tPROJECT\tOPERATION\tRESULT\tCHANGES\tDURATION\tBY")
	for _, e := range entries {
		start := e.StartTime
		by := e.User
		if e.Host != "" {
			by += "@" + e.Host
		}
		project := e.Project
		if project == "" {
			project = "(stack)" // the stack's own record: a run across its projects, or one killed before or between them
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", when(&start), project, e.Kind, e.Result,
			changesText(e.Changes), e.EndTime.Sub(e.StartTime).Round(time.Millisecond), by)
	}
	return tw.Flush()
}

func changesText(c map[string]int) string {
	var parts []string
	for _, k := range []string{"create", "import", "read", "update", "replace", "delete", "read-discard", "same", "refresh"} {
		if c[k] > 0 {
			sign := map[string]string{"create": "+", "import": "←", "read": "<", "update": "~", "replace": "±", "delete": "-",
				"read-discard": "x", "same": "=", "refresh": "↻"}[k]
			parts = append(parts, fmt.Sprintf("%s%d", sign, c[k]))
		}
	}
	if len(parts) == 0 {
		return "-"
	}
	return strings.Join(parts, " ")
}

func printTags(w io.Writer, tags map[string]string) error {
	keys := make([]string, 0, len(tags))
	for k := range tags {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tVALUE")
	for _, k := range keys {
		fmt.Fprintf(tw, "%s\t%s\n", k, tags[k])
	}
	return tw.Flush()
}
