// Package random is the resource plugin for random values, with the type
// tokens and property names of Pulumi's random provider: RandomString,
// RandomPassword, RandomId and RandomInteger.
//
// Random values have no existence outside the state that records them: Read
// returns the recorded state unchanged, Delete only forgets, and every input
// change replaces the value (as in Pulumi). A Read without an ID (the engine
// recovering a create that a crash interrupted) answers "not there", which
// lets the engine create the value again: nothing outside can be left behind.
package random

import (
	"context"
	"errors"
	"fmt"

	"github.com/runnerhq/runner/engine/resource"
)

// The type tokens served by the plugin.
const (
	StringType   = "random:index/randomString:RandomString"
	PasswordType = "random:index/randomPassword:RandomPassword"
	IDType       = "random:index/randomId:RandomId"
	IntegerType  = "random:index/randomInteger:RandomInteger"
)

// Plugin creates random values. It holds no state and is safe for
// concurrent use.
type Plugin struct{ resource.ReplaceOnly }

var _ resource.Plugin = Plugin{}

// Package returns "random".
func (Plugin) Package() string { return "random" }

// Check validates inputs and fills Pulumi's defaults.
func (Plugin) Check(_ context.Context, req resource.CheckRequest) (resource.PropertyMap, error) {
	news := req.News.Copy(4)
	var err error
	switch req.Type {
	case StringType, PasswordType:
		err = checkString(news)
	case IDType:
		err = checkID(news)
	case IntegerType:
		err = checkInteger(news)
	default:
		return nil, errUnknownType(req.Type)
	}
	if err == nil {
		err = checkKeepers(news)
	}
	if err != nil {
		return nil, fmt.Errorf("checking %s: %w", req.Type, err)
	}
	return news, nil
}

// Create draws the random value with crypto/rand (or, for a RandomInteger
// with a seed, from the seed). With Preview set the value is Computed.
func (Plugin) Create(ctx context.Context, req resource.CreateRequest) (resource.CreateResponse, error) {
	if err := ctx.Err(); err != nil {
		return resource.CreateResponse{}, err
	}
	var (
		id   string
		outs resource.PropertyMap
		err  error
	)
	switch req.Type {
	case StringType, PasswordType:
		id, outs, err = createString(req.Inputs, req.Type == PasswordType, req.Preview)
	case IDType:
		id, outs, err = createID(req.Inputs, req.Preview)
	case IntegerType:
		id, outs, err = createInteger(req.Inputs, req.Preview)
	default:
		return resource.CreateResponse{}, errUnknownType(req.Type)
	}
	if err != nil {
		return resource.CreateResponse{}, fmt.Errorf("creating %s: %w", req.Type, err)
	}
	if req.Preview {
		id = ""
	}
	return resource.CreateResponse{ID: id, Outputs: outs}, nil
}

// Read returns the recorded state: a random value cannot be read back from
// anywhere, it exists as long as the state says so. With no ID it reports
// the value as absent so that the engine creates it again.
func (Plugin) Read(_ context.Context, req resource.ReadRequest) (resource.ReadResponse, error) {
	if req.ID == "" {
		return resource.ReadResponse{}, nil
	}
	return resource.ReadResponse{ID: req.ID, Inputs: req.Inputs, Outputs: req.Outputs}, nil
}

func errUnknownType(t string) error {
	return fmt.Errorf("the random plugin has no resource type %q; it has %s, %s, %s and %s",
		t, StringType, PasswordType, IDType, IntegerType)
}

func checkKeepers(m resource.PropertyMap) error {
	v, _ := resource.Unsecret(m["keepers"])
	switch v.(type) {
	case nil, map[string]any, resource.Computed:
		return nil
	}
	return errors.New(`property "keepers" must be an object`)
}
