package main

import (
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
)

// completionFlag is the flag urfave/cli's shell completion appends; it must
// stay last.
const completionFlag = "--generate-bash-completion"

// commandLine is a command line put in the order urfave/cli understands.
type commandLine struct {
	// argv is the program name, the command path, every flag in the order
	// given, then the positional arguments (behind `--` when one of them
	// looks like a flag).
	argv []string
	// flags holds the flags in the order given.
	flags []givenFlag
	// missing is a flag that takes a value given as the last word, with
	// no value after it ("" when none); urfave/cli would take the
	// command's first argument as its value.
	missing string
	// command names the command for messages ("runner config set").
	command string
}

// givenFlag is one flag of the command line.
type givenFlag struct {
	name  string
	value string // "" for a bool flag given as --name
}

// normalize puts every flag of args right after the command path.
//
// urfave/cli, like Go's flag package, reads a command's flags only up to
// its first positional argument and the global flags only before the
// command. Users type `runner up --provider aws` and `runner config set
// app:port 8080 --stack dev`, so the command line is walked once here: words
// naming commands form the path, flags are collected wherever they stand
// (with their values: a flag that takes one eats the next word, a bool flag
// never does), and `--` ends the flags. Every command also defines the
// global flags, so the command at the end of the path reads all of them; a
// flag given twice keeps its later value.
func normalize(app *cli.App, args []string) commandLine {
	if len(args) == 0 {
		return commandLine{argv: args}
	}
	rest, completing := args[1:], false
	if n := len(rest); n > 0 && rest[n-1] == completionFlag {
		rest, completing = rest[:n-1], true
	}
	path := []string{args[0]}
	cur := &cli.Command{Flags: app.Flags, Subcommands: app.Commands}
	var flags, positional []string
	var given []givenFlag
	missing := ""
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		switch {
		case a == "--":
			positional = append(positional, rest[i+1:]...)
			i = len(rest)
		case isFlag(a):
			a = attachedValue(cur, a)
			name, value, inline := splitFlag(a)
			flags = append(flags, a)
			switch {
			case inline || !takesValue(cur, name):
			case i+1 < len(rest):
				i++
				value = rest[i]
				flags = append(flags, value)
			case !completing:
				missing = a
			}
			given = append(given, givenFlag{name: name, value: value})
		case len(positional) == 0 && cur.Command(a) != nil:
			cur = cur.Command(a)
			path = append(path, a)
		default:
			positional = append(positional, a)
		}
	}
	cl := commandLine{flags: given, missing: missing, command: strings.Join(append([]string{"runner"}, path[1:]...), " ")}
	if cl.boolFlag("help") || cl.boolFlag("h") {
		positional = nil // help is about the command, whatever its arguments
	}
	cl.argv = append(append(path, flags...), positionalArgs(cur, positional)...)
	if completing {
		cl.argv = append(cl.argv, completionFlag)
	}
	return cl
}

// attachedValue rewrites a short flag written with its value attached
// (`-sdev`, as pflag and Pulumi's CLI accept it) as `-s=dev`; any other
// word is returned as it is.
func attachedValue(cmd *cli.Command, a string) string {
	if len(a) < 3 || a[1] == '-' || strings.Contains(a, "=") || findFlag(cmd, a[1:]) != nil || !takesValue(cmd, a[1:2]) {
		return a
	}
	return a[:2] + "=" + a[2:]
}

// positionalArgs puts `--` before the arguments of a command when one of
// them would otherwise be read as a flag.
func positionalArgs(cmd *cli.Command, args []string) []string {
	if len(cmd.Subcommands) > 0 {
		return args // a group's words name (unknown) subcommands
	}
	for _, a := range args {
		if isFlag(a) {
			return append([]string{"--"}, args...)
		}
	}
	return args
}

// isFlag reports whether a word is a flag (Go's flag package accepts one
// dash or two; a lone dash is an argument, often meaning stdin).
func isFlag(a string) bool {
	return len(a) > 1 && a[0] == '-'
}

// splitFlag returns the name of a flag word and the value it holds
// (--name=value).
func splitFlag(a string) (name, value string, inline bool) {
	name = strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
	return strings.Cut(name, "=")
}

// takesValue reports whether the flag name needs the next word as its
// value: a flag of cmd, or, on a command with subcommands, of the first
// subcommand that defines it (`runner --format dot show`). Unknown flags
// take no value; urfave/cli then rejects them.
func takesValue(cmd *cli.Command, name string) bool {
	f := findFlag(cmd, name)
	v, ok := f.(cli.DocGenerationFlag)
	return ok && v.TakesValue()
}

// findFlag looks name up among cmd's flags (the help flag included), then
// among its subcommands'.
func findFlag(cmd *cli.Command, name string) cli.Flag {
	for _, f := range append(cmd.Flags, cli.HelpFlag) {
		if f == nil {
			continue
		}
		for _, n := range f.Names() {
			if n == name {
				return f
			}
		}
	}
	for _, sub := range cmd.Subcommands {
		if f := findFlag(sub, name); f != nil {
			return f
		}
	}
	return nil
}

// boolFlag returns the last value given to the bool flag name (false when
// it is not given).
// given reports whether the command line gives one of the flags named.
func (cl commandLine) given(names ...string) bool {
	for _, f := range cl.flags {
		for _, n := range names {
			if f.name == n {
				return true
			}
		}
	}
	return false
}

func (cl commandLine) boolFlag(name string) bool {
	on := false
	for _, f := range cl.flags {
		if f.name != name {
			continue
		}
		on = f.value == ""
		if !on {
			on, _ = strconv.ParseBool(f.value)
		}
	}
	return on
}
