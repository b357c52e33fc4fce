package ekstoken

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"time"
)

// processTimeout bounds a credential_process run.
const processTimeout = time.Minute

// processWaitDelay bounds the wait for a killed credential_process's
// output to close.
const processWaitDelay = 2 * time.Second

// processOutput is what a credential_process prints (AWS's documented
// format, Version 1).
type processOutput struct {
	Version         int    `json:"Version"`
	AccessKeyID     string `json:"AccessKeyId"`
	SecretAccessKey string `json:"SecretAccessKey"`
	SessionToken    string `json:"SessionToken"`
	Expiration      string `json:"Expiration"`
}

// fromProcess runs profile's credential_process and reads the credentials
// it prints. The command runs through the shell (sh -c; cmd.exe /C on
// Windows) as the AWS SDK for Go, which Pulumi's aws plugin uses, runs it:
// the aws CLI splits it itself instead, and every command written for the
// CLI (no variables, double quotes around words with blanks) means the
// same to the shell. Its stdin and stderr are runner's, so that a tool may
// prompt; its stdout is never shown, since it holds secrets.
func (l *loader) fromProcess(profile, command string) (Credentials, error) {
	what := fmt.Sprintf("credential_process of profile %s", profile)
	ctx, cancel := context.WithTimeout(l.ctx, processTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	if runtime.GOOS == "windows" {
		cmd = exec.CommandContext(ctx, "cmd.exe", "/C", command)
	}
	var out bytes.Buffer
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, &out, os.Stderr
	// Killing the shell leaves its children, which may hold its output
	// open: stop waiting for that output shortly after the kill.
	cmd.WaitDelay = processWaitDelay
	if err := cmd.Run(); err != nil {
		var exit *exec.ExitError
		switch {
		case ctx.Err() == context.DeadlineExceeded:
			return Credentials{}, fmt.Errorf("%s did not finish within %s", what, processTimeout)
		case errors.As(err, &exit):
			return Credentials{}, fmt.Errorf("%s failed (%s; its error output is above)", what, exit.ProcessState)
		}
		return Credentials{}, fmt.Errorf("running the %s: %w", what, err)
	}
	return parseProcessOutput(what, out.Bytes(), time.Now())
}

// parseProcessOutput checks a credential_process's output; errors never
// quote it.
func parseProcessOutput(what string, out []byte, now time.Time) (Credentials, error) {
	var p processOutput
	if err := json.Unmarshal(out, &p); err != nil {
		return Credentials{}, fmt.Errorf("%s printed no JSON object (%d bytes); it must print {\"Version\": 1, \"AccessKeyId\": ..., \"SecretAccessKey\": ...}", what, len(out))
	}
	switch {
	case p.Version != 1:
		return Credentials{}, fmt.Errorf("%s printed Version %d; only Version 1 is known", what, p.Version)
	case p.AccessKeyID == "" || p.SecretAccessKey == "":
		return Credentials{}, fmt.Errorf("%s printed no AccessKeyId or no SecretAccessKey", what)
	}
	if p.Expiration != "" {
		exp, err := time.Parse(time.RFC3339, p.Expiration)
		if err != nil {
			return Credentials{}, fmt.Errorf("%s printed an Expiration that is not an RFC 3339 time", what)
		}
		if !now.Before(exp) {
			return Credentials{}, fmt.Errorf("%s printed credentials that expired at %s", what, exp.UTC().Format(time.RFC3339))
		}
	}
	return Credentials{AccessKeyID: p.AccessKeyID, SecretAccessKey: p.SecretAccessKey, SessionToken: p.SessionToken}, nil
}
