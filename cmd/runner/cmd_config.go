package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/runnerhq/runner/config"
	"github.com/runnerhq/runner/runner"
	"github.com/runnerhq/runner/runner/term"
)

func configCommand(tio *term.IO) *cli.Command {
	pathFlag := &cli.BoolFlag{Name: "path", Usage: "the key is a path into a structured value: ns:key.field[0]"}
	return &cli.Command{
		Name:  "config",
		Usage: "read and change the shared stack config",
		Subcommands: []*cli.Command{
			{
				Name: "ls", Aliases: []string{"list"}, Usage: "list the config values",
				Flags: []cli.Flag{&cli.BoolFlag{Name: "show-secrets", Usage: "show secret values in plain text"}},
				Action: func(c *cli.Context) error {
					return configList(c, tio)
				},
			},
			{
				Name: "get", Usage: "print one value (a secret in plain text, as Pulumi does)", ArgsUsage: "KEY",
				Flags: []cli.Flag{pathFlag},
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return usageError("config get takes one KEY, such as app:port")
					}
					s, err := runner.Open(options(c, tio))
					if err != nil {
						return err
					}
					key := c.Args().First()
					var cr *config.Crypter
					if needsCrypter(s, key) {
						if cr, err = s.ReadCrypter(); err != nil {
							return err
						}
					}
					v, ok, err := s.Config.Typed(c.Context, key, c.Bool("path"), cr)
					if err != nil {
						return runner.Invalid(err)
					}
					if !ok {
						return fmt.Errorf("the config key %s is not set on stack %s", key, s.StackName)
					}
					switch x := v.(type) {
					case string:
						if !c.Bool("json") {
							fmt.Fprintln(tio.Out, x)
							return nil
						}
					case config.Secret:
						if !c.Bool("json") {
							fmt.Fprintln(tio.Out, x.Reveal())
							return nil
						}
					}
					return json.NewEncoder(tio.Out).Encode(reveal(v))
				},
			},
			{
				Name: "set", Usage: "set a value (read from stdin when VALUE is left out)", ArgsUsage: "KEY [VALUE]",
				Flags: []cli.Flag{pathFlag, &cli.BoolFlag{Name: "secret", Usage: "encrypt the value"}},
				Action: func(c *cli.Context) error {
					if c.NArg() < 1 || c.NArg() > 2 {
						return usageError("config set takes KEY and VALUE (or the value on stdin)")
					}
					key := c.Args().Get(0)
					var value string
					if c.NArg() == 2 {
						value = c.Args().Get(1)
					} else {
						if tio.StdinTTY {
							return usageError("config set %s: give the value as an argument, or pipe it in", key)
						}
						b, err := io.ReadAll(tio.In)
						if err != nil {
							return fmt.Errorf("reading the value from stdin: %w", err)
						}
						value = strings.TrimRight(string(b), "\r\n")
					}
					s, err := runner.Open(options(c, tio))
					if err != nil {
						return err
					}
					return s.SetConfig(c.Context, key, value, c.Bool("secret"), c.Bool("path"))
				},
			},
			{
				Name: "rm", Aliases: []string{"remove"}, Usage: "remove a value", ArgsUsage: "KEY",
				Flags: []cli.Flag{pathFlag},
				Action: func(c *cli.Context) error {
					if c.NArg() != 1 {
						return usageError("config rm takes one KEY")
					}
					s, err := runner.Open(options(c, tio))
					if err != nil {
						return err
					}
					return s.RemoveConfig(c.Args().First(), c.Bool("path"))
				},
			},
		},
	}
}

// needsCrypter reports whether reading key may decrypt something.
func needsCrypter(s *runner.Session, key string) bool {
	for _, e := range s.Config.Entries() {
		if strings.HasPrefix(key, e.Key) && (e.Secure || e.Structured) {
			return true
		}
	}
	return false
}

// reveal turns Secret values into their plaintext, for get.
func reveal(v any) any {
	switch x := v.(type) {
	case config.Secret:
		return x.Reveal()
	case map[string]any:
		m := map[string]any{}
		for k, e := range x {
			m[k] = reveal(e)
		}
		return m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			l[i] = reveal(e)
		}
		return l
	}
	return v
}

func configList(c *cli.Context, tio *term.IO) error {
	s, err := runner.Open(options(c, tio))
	if err != nil {
		return err
	}
	show := c.Bool("show-secrets")
	var cr *config.Crypter
	if show {
		if cr, err = s.ReadCrypter(); err != nil {
			return err
		}
	}
	type item struct {
		Value  any  `json:"value"`
		Secret bool `json:"secret"`
	}
	items := map[string]item{}
	var keys []string
	for _, e := range s.Config.Entries() {
		keys = append(keys, e.Key)
		var v any = e.Value
		switch {
		case e.Secure && show:
			got, _, err := s.Config.Get(c.Context, e.Key, false, cr)
			if err != nil {
				return runner.Invalid(err)
			}
			v = reveal(got)
		case e.Secure:
			v = "[secret]"
		case e.Structured && show:
			got, _, err := s.Config.Typed(c.Context, e.Key, false, cr)
			if err != nil {
				return runner.Invalid(err)
			}
			v = reveal(got)
		case e.Structured:
			// Secret leaves stay encrypted and show as [secret].
			got, _, err := s.Config.Typed(c.Context, e.Key, false, nil)
			if err != nil {
				return runner.Invalid(err)
			}
			v = got
		}
		items[e.Key] = item{Value: v, Secret: e.Secure}
	}
	if c.Bool("json") {
		enc := json.NewEncoder(tio.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(items)
	}
	tw := tabwriter.NewWriter(tio.Out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY\tVALUE")
	for _, k := range keys {
		v := items[k].Value
		text := fmt.Sprint(v)
		if _, ok := v.(string); !ok {
			b, _ := json.Marshal(v)
			text = string(b)
		}
		fmt.Fprintf(tw, "%s\t%s\n", k, text)
	}
	return tw.Flush()
}
