package runner

import (
	"context"
	"errors"
	"fmt"

	"github.com/runnerhq/runner/engine/backend"
	"github.com/runnerhq/runner/internal/boundedfile"
)

// The functions below are the `runner stack` commands: the command line
// turns each one's flags into its options and calls it. Output goes to the
// options' IO, as JSON with Options.JSON; a command that ends with one
// sentence returns it for the command line to print.

// openStack opens the workspace and resolves the stack the command is
// about (--stack, else the selected one).
func openStack(opts Options) (*Stacks, string, error) {
	s, err := OpenStacks(opts)
	if err != nil {
		return nil, "", err
	}
	stack, err := s.Stack()
	return s, stack, err
}

// openExistingStack is openStack for a command that reads or tags a
// stack: one with neither a config file nor state is a *NoStackError
// (exit 3), as preview and destroy refuse it, and nothing is written.
func openExistingStack(opts Options) (*Stacks, string, error) {
	s, stack, err := openStack(opts)
	if err != nil {
		return nil, "", err
	}
	if err := mustExist(opts, s.Workspace, stack); err != nil {
		return nil, "", err
	}
	return s, stack, nil
}

// needProject refuses a command that works on one project without one.
func needProject(command, project string) error {
	if project == "" {
		return Usage(fmt.Errorf("stack %s needs --project NAME", command))
	}
	return nil
}

// StackInit is `runner stack init NAME`.
func StackInit(_ context.Context, opts Options, name string) (string, error) {
	s, err := OpenStacks(opts)
	if err != nil {
		return "", err
	}
	path, err := s.Init(name)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Created stack %s (%s) and selected it.", name, path), nil
}

// StackSelect is `runner stack select NAME`: a stack that does not exist
// (no config file and no state) is refused, as Pulumi refuses it, unless
// create, which creates it as `stack init` does.
func StackSelect(_ context.Context, opts Options, name string, create bool) (string, error) {
	s, err := OpenStacks(opts)
	if err != nil {
		return "", err
	}
	err = mustExist(opts, s.Workspace, name)
	var none *NoStackError
	if errors.As(err, &none) && create {
		path, err := s.Init(name)
		if err != nil {
			return "", err
		}
		return fmt.Sprintf("Created stack %s (%s) and selected it.", name, path), nil
	}
	if errors.As(err, &none) {
		return "", Invalid(fmt.Errorf("%w; or create and select it with `runner stack select --create %s`", none, name))
	}
	if err != nil {
		return "", err
	}
	if err := s.Select(name); err != nil {
		return "", err
	}
	return fmt.Sprintf("Selected stack %s.", name), nil
}

// StackList is `runner stack ls`. A project whose state cannot be read is
// listed, marked unreadable, and the error is an *UnreadableStateError
// (with JSON, a *ReportedError around it: stdout holds the listing only,
// each project carrying its "error", and the warning went to stderr).
func StackList(ctx context.Context, opts Options) error {
	s, err := OpenStacks(opts)
	if err != nil {
		return err
	}
	list, err := s.List(ctx)
	var unreadable *UnreadableStateError
	if err != nil && !errors.As(err, &unreadable) {
		return err
	}
	tio := s.IO()
	if opts.JSON {
		if werr := writeJSON(tio.Out, list); werr != nil || unreadable == nil {
			return werr
		}
		fmt.Fprintf(tio.Err, "warning: %s\n", unreadable)
		return &ReportedError{Err: unreadable}
	}
	if perr := printStackList(tio.Out, list); perr != nil {
		return perr
	}
	return err
}

// StackOutputOptions are the flags of `runner stack output [KEY]`.
type StackOutputOptions struct {
	Key         string // only this output ("" for all)
	Project     string // only this project's ("" for every project's)
	ShowSecrets bool
}

// StackOutput is `runner stack output`.
func StackOutput(ctx context.Context, opts Options, o StackOutputOptions) error {
	s, stack, err := openExistingStack(opts)
	if err != nil {
		return err
	}
	outs, err := s.Outputs(ctx, stack, o.Project, o.ShowSecrets)
	if err != nil {
		return err
	}
	return printOutputs(s.IO().Out, outs, o.Key, o.Project != "", opts.JSON, stack)
}

// StackExportOptions are the flags of `runner stack export`.
type StackExportOptions struct {
	Project     string
	File        string // "" for the standard output
	ShowSecrets bool
}

// StackExport is `runner stack export`.
func StackExport(ctx context.Context, opts Options, o StackExportOptions) error {
	if err := needProject("export", o.Project); err != nil {
		return err
	}
	s, stack, err := openExistingStack(opts)
	if err != nil {
		return err
	}
	if o.File != "" {
		return s.ExportFile(ctx, stack, o.Project, o.ShowSecrets, o.File)
	}
	data, err := s.Export(ctx, stack, o.Project, o.ShowSecrets)
	if err != nil {
		return err
	}
	_, err = s.IO().Out.Write(data)
	return err
}

// StackImportOptions are the flags of `runner stack import`.
type StackImportOptions struct {
	Project string
	File    string // "-" for the standard input
}

// StackImport is `runner stack import`.
func StackImport(ctx context.Context, opts Options, o StackImportOptions) (string, error) {
	if err := needProject("import", o.Project); err != nil {
		return "", err
	}
	s, stack, err := openStack(opts)
	if err != nil {
		return "", err
	}
	var data []byte
	if o.File == "-" {
		data, err = boundedfile.ReadAll(ctx, s.IO().In, "", boundedfile.Kind{Name: "the state on the standard input", Limit: boundedfile.State.Limit})
	} else {
		data, err = boundedfile.Read(ctx, o.File, boundedfile.State)
	}
	if boundedfile.IsRefused(err) || errors.Is(err, context.Canceled) {
		return "", Invalid(err)
	}
	if err != nil {
		return "", Usage(fmt.Errorf("reading the file to import: %w", err))
	}
	if data, err = backend.AsExport(o.File, data); err != nil {
		return "", Invalid(err)
	}
	if err := s.Import(ctx, stack, o.Project, data); err != nil {
		return "", err
	}
	return fmt.Sprintf("Imported the state of project %s on stack %s.", o.Project, stack), nil
}

// StackHistory is `runner stack history`: the operations on the stack (of
// project only, when set), newest first.
func StackHistory(ctx context.Context, opts Options, project string) error {
	s, stack, err := openExistingStack(opts)
	if err != nil {
		return err
	}
	entries, err := s.History(ctx, stack, project)
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(s.IO().Out, entries)
	}
	return printHistory(s.IO().Out, entries)
}

// StackTags is `runner stack tag ls`.
func StackTags(ctx context.Context, opts Options) error {
	s, stack, err := openExistingStack(opts)
	if err != nil {
		return err
	}
	tags, err := s.backend.Tags(ctx, stack)
	if err != nil {
		return err
	}
	if opts.JSON {
		return writeJSON(s.IO().Out, tags)
	}
	return printTags(s.IO().Out, tags)
}

// StackSetTag is `runner stack tag set NAME VALUE`.
func StackSetTag(ctx context.Context, opts Options, name, value string) error {
	s, stack, err := openExistingStack(opts)
	if err != nil {
		return err
	}
	return s.backend.SetTag(ctx, stack, name, value)
}

// StackRemoveTag is `runner stack tag rm NAME`.
func StackRemoveTag(ctx context.Context, opts Options, name string) error {
	s, stack, err := openExistingStack(opts)
	if err != nil {
		return err
	}
	return s.backend.RemoveTag(ctx, stack, name)
}

// StackUnlockOptions are the flags of `runner stack unlock`.
type StackUnlockOptions struct {
	Project string // only this project's lock (and the stack's own)
	Force   bool   // clear locks whose holder may still run
}

// StackUnlock is `runner stack unlock`: the locks of Project, or, without
// it, every stale lock of the stack. What it cleared comes back even with
// an error.
func StackUnlock(ctx context.Context, opts Options, o StackUnlockOptions) (string, error) {
	s, stack, err := openStack(opts)
	if err != nil {
		return "", err
	}
	if o.Project != "" {
		return s.Unlock(ctx, stack, o.Project, o.Force)
	}
	return s.UnlockAll(ctx, stack, o.Force)
}

// StackRepair is `runner stack repair [--project NAME]`: without a project,
// every project of the stack.
func StackRepair(ctx context.Context, opts Options, project string) (string, error) {
	s, stack, err := openStack(opts)
	if err != nil {
		return "", err
	}
	return s.Repair(ctx, stack, project)
}
