package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// The provider's configuration keys; values arrive as strings.
const (
	keyStore = "store" // required: the directory of the resource files
	keyZone  = "zone"  // optional: a change replaces the provider
	keyToken = "token" // optional, may be secret
)

// storeDescription describes the store key in a missing-key error.
const storeDescription = "the directory where testprov keeps one JSON file per resource"

// zonePattern is what a zone must look like: CheckConfig fails otherwise.
var zonePattern = regexp.MustCompile(`^[a-z0-9-]*$`)

// CheckConfig checks that store, zone and token are strings (or unknown) and
// that zone is lower-case letters, digits and dashes; it returns the inputs
// unchanged. A missing store is Configure's error, not a check failure.
func (p *provider) CheckConfig(_ context.Context, req plugin.CheckConfigRequest) (plugin.CheckConfigResponse, error) {
	var failures []plugin.CheckFailure
	for _, k := range []resource.PropertyKey{keyStore, keyZone, keyToken} {
		v, ok := req.News[k]
		if !ok || v.IsNull() {
			continue
		}
		v = unwrapSecret(v)
		switch {
		case v.IsComputed():
		case !v.IsString():
			failures = append(failures, plugin.CheckFailure{Property: k,
				Reason: fmt.Sprintf("testprov: %s must be a string, not %s", k, v.TypeString())})
		case k == keyZone && !zonePattern.MatchString(v.StringValue()):
			failures = append(failures, plugin.CheckFailure{Property: k,
				Reason: fmt.Sprintf("testprov: zone %q must be lower-case letters, digits and dashes", v.StringValue())})
		}
	}
	return plugin.CheckConfigResponse{Properties: req.News, Failures: failures}, nil
}

// DiffConfig compares the old configuration (inputs, else outputs) with the
// new: a changed zone replaces the provider, any other changed key updates it.
func (p *provider) DiffConfig(_ context.Context, req plugin.DiffConfigRequest) (plugin.DiffConfigResponse, error) {
	olds := req.OldInputs
	if len(olds) == 0 {
		olds = req.OldOutputs
	}
	return diffMaps(olds, req.NewInputs, func(k resource.PropertyKey) bool { return k == keyZone }, false), nil
}

// Configure takes the store directory (creating it) and fails with Pulumi's
// ConfigureErrorMissingKeys detail when store is missing.
func (p *provider) Configure(_ context.Context, req plugin.ConfigureRequest) (plugin.ConfigureResponse, error) {
	v := unwrapSecret(req.Inputs[keyStore])
	if !v.IsString() || v.StringValue() == "" {
		if v.IsComputed() {
			return plugin.ConfigureResponse{}, status.Error(codes.InvalidArgument,
				"testprov: the store directory is unknown: Configure needs a known value")
		}
		return plugin.ConfigureResponse{}, missingStore()
	}
	dir, err := filepath.Abs(v.StringValue())
	if err != nil {
		return plugin.ConfigureResponse{}, status.Errorf(codes.InvalidArgument, "testprov: store %q: %v", v.StringValue(), err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return plugin.ConfigureResponse{}, status.Errorf(codes.InvalidArgument,
			"testprov: create the store directory: %v", err)
	}
	p.mu.Lock()
	p.store = dir
	p.mu.Unlock()
	return plugin.ConfigureResponse{}, nil
}

// missingStore is the gRPC error of a Configure without store, with the
// ConfigureErrorMissingKeys detail Pulumi's engine turns into a message.
func missingStore() error {
	st := status.New(codes.InvalidArgument, "required configuration keys were missing")
	withDetail, err := st.WithDetails(&pulumirpc.ConfigureErrorMissingKeys{
		MissingKeys: []*pulumirpc.ConfigureErrorMissingKeys_MissingKey{
			{Name: keyStore, Description: storeDescription},
		},
	})
	if err != nil {
		return st.Err()
	}
	return withDetail.Err()
}

// unwrapSecret returns the value inside a secret, or v itself.
func unwrapSecret(v resource.PropertyValue) resource.PropertyValue {
	for v.IsSecret() {
		v = v.SecretValue().Element
	}
	return v
}
