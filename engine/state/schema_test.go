package state_test

import (
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/state"
)

// TestValidateSchemaPulumiFields: the fields the Pulumi CLI (v3.274) writes
// on a resource beyond its published schema validate; a wrongly typed one
// does not. `pulumi stack export` of a YAML program carries stackTrace.
func TestValidateSchemaPulumiFields(t *testing.T) {
	const doc = `{"version":3,"deployment":{"manifest":{"time":"2026-01-01T00:00:00Z","magic":"m","version":"v3.274.1"},
		"resources":[{"urn":"urn:pulumi:dev::p::pulumi:pulumi:Stack::p-dev","custom":false,"type":"pulumi:pulumi:Stack",FIELD}]}}`
	for _, tc := range []struct {
		field string
		ok    bool
	}{
		{`"stackTrace":[{"pc":1}]`, true},
		{`"hideDiff":["a.b"]`, true},
		{`"replaceWith":["urn:pulumi:dev::p::t::n"]`, true},
		{`"replacementTrigger":{"x":1}`, true},
		{`"replacementTrigger":"v"`, true},
		{`"resourceHooks":{"before-create":["h"]}`, true},
		{`"extensionRef":"e"`, true},
		{`"stackTrace":"main.go:1"`, false},
		{`"hideDiffs":["a"]`, false}, // not a field Pulumi writes
		{`"resourceHooks":["h"]`, false},
	} {
		err := state.ValidateSchema([]byte(strings.Replace(doc, "FIELD", tc.field, 1)))
		if (err == nil) != tc.ok {
			t.Errorf("%s: ValidateSchema = %v, want ok %v", tc.field, err, tc.ok)
		}
	}
}
