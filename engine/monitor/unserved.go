package monitor

import (
	"regexp"
	"strings"
)

// sdkRefusal is how the SDKs refuse a feature the monitor answers false
// to (SupportsFeature): they blame the Pulumi CLI, which runner replaces.
var sdkRefusal = regexp.MustCompile(`(?i)the Pulumi CLI does not support ([^.\n]+)\. Please update the Pulumi CLI\.?`)

// Unserved rewrites, in a program's message, an SDK's refusal of a
// feature runner does not serve ("The Pulumi CLI does not support resource
// hooks. Please update the Pulumi CLI") as what it is: runner does not
// support it yet, and no Pulumi CLI update helps.
func Unserved(msg string) string {
	if !strings.Contains(msg, "does not support") {
		return msg
	}
	return sdkRefusal.ReplaceAllString(msg, "runner does not support $1 yet (the Pulumi SDK's message names the Pulumi CLI, which runner replaces; updating it does not help)")
}
