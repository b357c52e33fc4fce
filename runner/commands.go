package runner

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/runnerhq/runner/runner/graph"
	"github.com/runnerhq/runner/runner/orchestrate"
)

// The functions of this file are the commands of the CLI: each takes the
// global options and the command's own, does the work and prints through
// Output, so that cmd/runner only turns flags into options.

// ListProviders prints the providers (`runner providers`).
func ListProviders(opts Options) error {
	type row struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Projects    int    `json:"projects"`
		Default     bool   `json:"default"`
	}
	var rows []row
	reg, err := registry(opts)
	if err != nil {
		return err
	}
	for _, p := range reg.All() {
		rows = append(rows, row{p.Name, p.Description, len(p.Projects), p.Name == reg.Default()})
	}
	return OutputOf(opts).Listing(rows, func(w io.Writer) error {
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tPROJECTS\tDESCRIPTION")
		for _, r := range rows {
			name := r.Name
			if r.Default {
				name += " (default)"
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\n", name, r.Projects, r.Description)
		}
		return tw.Flush()
	})
}

// ShowOptions are the flags of `runner show`.
type ShowOptions struct {
	// Format is tree, dot, mermaid or json ("": tree, or json with --json).
	Format string
}

// ShowOrder prints the execution order of the provider's projects (`runner show`).
func ShowOrder(opts Options, o ShowOptions) error {
	p, err := provider(opts, opts.Provider)
	if err != nil {
		return err
	}
	g, err := graph.Build(p)
	if err != nil {
		return err
	}
	format := o.Format
	if format == "" && opts.JSON {
		format = "json"
	}
	out, err := graph.Render(g, format)
	var fe *graph.FormatError
	if errors.As(err, &fe) {
		return Usage(err)
	}
	if err != nil {
		return err
	}
	_, err = OutputOf(opts).W.Write(out)
	return err
}

// ValidateConfig checks the environment file and the stack config for the
// provider, asks for what is missing on a terminal, and prints the result
// (`runner validate`).
func ValidateConfig(ctx context.Context, opts Options) error {
	s, err := Open(opts)
	if err != nil {
		return err
	}
	// The plugins first, as `terraform validate` wants `terraform init`:
	// no answer is asked for a provider that cannot run yet, but every
	// config problem is listed with the missing plugins.
	if err := s.checkPluginsAndConfig(ctx, "validate"); err != nil {
		return err
	}
	rep, err := s.Validate(ctx)
	if err != nil {
		return err
	}
	doc := map[string]any{"stack": s.StackName, "provider": s.Provider.Name, "file": s.ConfigPath, "valid": true,
		"asked": rep.Asked, "defaulted": rep.Defaulted, "defaults": rep.Defaults, "warnings": rep.Warnings}
	return OutputOf(opts).Object(doc, func(w io.Writer) error {
		for _, warn := range rep.Warnings {
			fmt.Fprintf(s.IO().Err, "warning: %s\n", warn)
		}
		switch n := len(rep.Asked) + len(rep.Defaulted); {
		case len(rep.Asked) > 0:
			fmt.Fprintf(w, "Saved %d value(s) to %s\n", n, s.ConfigPath)
		case n > 0: // defaults alone: validate writes nothing
			var vals []string
			for _, k := range rep.Defaulted {
				vals = append(vals, fmt.Sprintf("%s (%s)", k, rep.Defaults[k]))
			}
			fmt.Fprintf(w, "%s take their defaults; the first `runner up` saves them to %s\n", strings.Join(vals, ", "), s.ConfigPath)
		}
		_, err := fmt.Fprintf(w, "The config of stack %s is complete and valid for provider %s (%d questions).\n", s.StackName, s.Provider.Name, len(s.Provider.Questions))
		return err
	})
}

// RunOperation opens the stack for the operation and runs it across the
// provider's projects (`runner preview|up|refresh|destroy`). When projects
// failed, the error is a *ReportedError: the summary named them.
func RunOperation(ctx context.Context, opts Options, o OpOptions) error {
	if err := o.check(); err != nil {
		return err // a usage error comes before a stack that does not exist
	}
	s, err := OpenFor(o.Operation, opts)
	var nse *NoStackError
	if errors.As(err, &nse) && o.Operation == orchestrate.Preview {
		return noStackPreview(ctx, opts, err)
	}
	if err != nil {
		return err
	}
	_, err = s.Operate(ctx, o)
	var upstream *orchestrate.UndeployedUpstreamError
	var downstream *orchestrate.DeployedDownstreamError
	switch {
	case errors.As(err, &upstream), errors.As(err, &downstream):
		return Invalid(err) // refused before any project ran
	case errors.Is(err, orchestrate.ErrFailed):
		return &ReportedError{Err: err}
	}
	return err
}
