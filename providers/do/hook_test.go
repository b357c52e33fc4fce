package do

import (
	"strings"
	"testing"
	"time"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/projects/docean"
	"github.com/runnerhq/runner/providers"
)

func TestWarnExpired(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name, at, want string
	}{
		{"expired", "2026-11-27T12:00:00Z", "expired at 2026-11-27T12:00:00Z"},
		{"expires now", "2026-11-28T12:00:00Z", "expired at"},
		{"within a day", "2026-11-29T02:00:00Z", "expires at 2026-11-29T02:00:00Z"},
		{"days left", "2026-12-04T12:00:00Z", ""},
		{"none", "", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var log strings.Builder
			in := providers.HookInput{Runtime: providers.Runtime{Stack: "dev"}, Log: &log,
				Outputs: resource.PropertyMap{docean.ExpiresAtOutput: resource.Secret{Element: c.at}}}
			warnExpired(in, now)
			if c.want == "" && log.Len() > 0 || c.want != "" && !strings.Contains(log.String(), c.want) {
				t.Errorf("warned %q, want %q", log.String(), c.want)
			}
			if c.want != "" && !strings.Contains(log.String(), "--stack dev -p do up --refresh") {
				t.Errorf("the warning names no command that renews the token: %q", log.String())
			}
		})
	}
}
