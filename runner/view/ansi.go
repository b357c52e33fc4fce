package view

import (
	"regexp"

	"github.com/runnerhq/runner/runner/event"
)

// ansiRE matches terminal escape sequences: CSI (colours, cursor moves)
// and OSC (titles, links).
var ansiRE = regexp.MustCompile(`\x1b\[[0-9:;<=>?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)`)

// withoutEscapes returns e with the escape sequences taken out of what
// programs, hosts and plugins wrote (messages and errors): the Pulumi YAML
// host colours its diagnostics whatever NO_COLOR says, and a view without
// colour (NO_COLOR, no terminal, --json) shows none.
func withoutEscapes(e event.Event) event.Event {
	e.Message = ansiRE.ReplaceAllString(e.Message, "")
	e.Error = ansiRE.ReplaceAllString(e.Error, "")
	if len(e.Projects) > 0 {
		rows := make([]event.Row, len(e.Projects))
		for i, r := range e.Projects {
			r.Error = ansiRE.ReplaceAllString(r.Error, "")
			rows[i] = r
		}
		e.Projects = rows
	}
	return e
}
