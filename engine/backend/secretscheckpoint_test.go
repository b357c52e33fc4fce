package backend

import (
	"reflect"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/state"
)

// TestDescribeCheckpointIsTheLongWay checks that describing a checkpoint in
// one pass gives what converting it to an export and describing that
// gives, and that it leaves to the long way what it cannot be sure of.
func TestDescribeCheckpointIsTheLongWay(t *testing.T) {
	sig := state.SecretSig
	provider := `"secrets_providers":{"type":"passphrase","state":{"salt":"v1:abc=:v1:x:y"}}`
	resources := `"resources":[{"urn":"urn:pulumi:dev::p::t::a","type":"t","custom":true,"outputs":{"v":"x"}}]`
	cases := []struct {
		name, plain, journal string
		fast                 bool
	}{
		{"runner's compact checkpoint", `{"version":3,"checkpoint":{"stack":"organization/p/dev","latest":{"manifest":{"time":"t"},` + provider + `,` + resources + `}}}`, "", true},
		{"Pulumi's indented checkpoint, HTML characters", "{\n  \"version\": 3,\n  \"checkpoint\": {\n    \"stack\": \"s\",\n    \"latest\": {\n      \"secrets_providers\": {\n        \"type\": \"cloud\",\n        \"state\": {\n          \"url\": \"awskms://k?a=1&b=<2>\"\n        }\n      }\n    }\n  }\n}\n", "", true},
		{"no provider", `{"version":3,"checkpoint":{"stack":"s","latest":{` + resources + `}}}`, "", true},
		{"null latest", `{"version":3,"checkpoint":{"stack":"s","latest":null}}`, "", true},
		{"no latest", `{"version":1,"checkpoint":{"stack":"s"}}`, "", true},
		{"a provider with no state", `{"version":3,"checkpoint":{"latest":{"secrets_providers":{"type":"passphrase"}}}}`, "", true},
		{"a null provider state", `{"version":3,"checkpoint":{"latest":{"secrets_providers":{"type":"x","state":null}}}}`, "", true},
		{"a provider state that is a string", `{"version":3,"checkpoint":{"latest":{"secrets_providers":{"type":"x","state":"a&b"}}}}`, "", true},
		{"a secret in the journal", `{"version":3,"checkpoint":{"latest":{` + provider + `}}}`, `{"op":"x","outputs":{"s":{"4dabf18193072939515e22adb298388d":"` + sig + `","ciphertext":"c"}}}`, true},
		{"a secret in the state", `{"version":3,"checkpoint":{"latest":{` + provider + `,"resources":[{"outputs":{"s":{"4dabf18193072939515e22adb298388d":"` + sig + `","ciphertext":"c"}}}]}}}`, "", false},
		{"a secret in the old config", `{"version":3,"checkpoint":{"config":{"k":"` + sig + `"},"latest":{` + provider + `}}}`, "", false},
		{"a newer version", `{"version":4,"checkpoint":{"latest":{` + provider + `}}}`, "", false},
		{"features", `{"version":3,"features":["x"],"checkpoint":{"latest":{` + provider + `}}}`, "", false},
		{"no version", `{"checkpoint":{"latest":{` + provider + `}}}`, "", false},
		{"not JSON", `{"version":3,"checkpoint":`, "", false},
		{"latest not an object", `{"version":3,"checkpoint":{"latest":"x"}}`, "", false},
		{"a provider of the wrong shape", `{"version":3,"checkpoint":{"latest":{"secrets_providers":[1]}}}`, "", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var journal []byte
			if c.journal != "" {
				journal = []byte(c.journal)
			}
			long := describeTheLongWay("p", "/s.json", []byte(c.plain), journal)
			got, ok := describeCheckpoint("p", "/s.json", []byte(c.plain), journal)
			if ok != c.fast {
				t.Fatalf("answered in one pass: %v, want %v", ok, c.fast)
			}
			if !ok {
				return
			}
			if long.Unreadable != nil {
				t.Fatalf("the long way found it unreadable (%v) where one pass answered", long.Unreadable)
			}
			if !reflect.DeepEqual(got, long) {
				t.Errorf("one pass: %+v (state %s)\nlong way: %+v (state %s)", got, stateOf(got), long, stateOf(long))
			}
		})
	}
}

func stateOf(s StateSecrets) string {
	if s.Provider == nil {
		return "<no provider>"
	}
	return strings.TrimSpace(string(s.Provider.State))
}
