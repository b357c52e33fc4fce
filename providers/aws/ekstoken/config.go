package ekstoken

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/runnerhq/runner/internal/boundedfile"
)

// sharedConfig is what the AWS shared files hold: the credentials file's
// sections by profile name and the config file's sections by their full
// name ("default", "profile NAME", "sso-session NAME").
type sharedConfig struct {
	credFile, cfgFile string
	creds, cfg        map[string]map[string]string
}

// loadSharedConfig reads the credentials file ($AWS_SHARED_CREDENTIALS_FILE,
// else ~/.aws/credentials) and the config file ($AWS_CONFIG_FILE, else
// ~/.aws/config); a missing file has no sections.
func loadSharedConfig(env func(string) string) (*sharedConfig, error) {
	home := env("HOME")
	c := &sharedConfig{
		credFile: firstOf(env("AWS_SHARED_CREDENTIALS_FILE"), filepath.Join(home, ".aws", "credentials")),
		cfgFile:  firstOf(env("AWS_CONFIG_FILE"), filepath.Join(home, ".aws", "config")),
	}
	var err error
	if c.creds, err = readINI(c.credFile); err != nil {
		return nil, err
	}
	if c.cfg, err = readINI(c.cfgFile); err != nil {
		return nil, err
	}
	return c, nil
}

// profile returns the settings of profile name: its config file section
// ("profile NAME", or "default" for the default profile) overlaid with its
// credentials file section, whose values win as with the aws CLI. found
// says whether either file has the profile.
func (c *sharedConfig) profile(name string) (settings map[string]string, found bool) {
	settings = map[string]string{}
	sections := []map[string]string{c.cfg["profile "+name]}
	if name == "default" {
		sections = []map[string]string{c.cfg["profile default"], c.cfg["default"]}
	}
	sections = append(sections, c.creds[name])
	for _, s := range sections {
		if s == nil {
			continue
		}
		found = true
		for k, v := range s {
			settings[k] = v
		}
	}
	return settings, found
}

// ssoSession returns the settings of the config file's [sso-session name].
func (c *sharedConfig) ssoSession(name string) (map[string]string, bool) {
	s, ok := c.cfg["sso-session "+name]
	return s, ok
}

func firstOf(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// readINI returns the sections of an AWS shared file (a missing file has
// none). Section names have their blanks collapsed; keys are lower-cased.
// The indented lines under a key without a value (nested settings such as
// s3's) are skipped.
func readINI(path string) (map[string]map[string]string, error) {
	data, err := boundedfile.ReadFile(path, boundedfile.AWSShared)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if boundedfile.IsRefused(err) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("reading AWS credentials: %w", err)
	}
	sections := map[string]map[string]string{}
	var cur map[string]string
	nested := false
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	for sc.Scan() {
		raw := sc.Text()
		line := strings.TrimSpace(raw)
		indented := line != "" && (raw[0] == ' ' || raw[0] == '\t')
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case line[0] == '[' && strings.HasSuffix(line, "]"):
			name := strings.Join(strings.Fields(line[1:len(line)-1]), " ")
			if sections[name] == nil {
				sections[name] = map[string]string{}
			}
			cur, nested = sections[name], false
		case cur == nil, nested && indented:
		default:
			if k, v, ok := strings.Cut(line, "="); ok {
				v = strings.TrimSpace(v)
				cur[strings.ToLower(strings.TrimSpace(k))] = v
				nested = v == ""
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading AWS credentials from %s: %w", path, err)
	}
	return sections, nil
}
