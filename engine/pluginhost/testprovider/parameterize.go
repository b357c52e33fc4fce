package main

import (
	"context"
	"encoding/base64"
	"strings"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// parameterization is what Parameterize made of the provider: it serves
// package name at version, its types named <name>:index:Thing and so on.
type parameterization struct {
	name, version string
	value         []byte
}

// Parameterize renames the provider's package (value form, as an engine
// sends it for a program's RegisterPackage): afterwards <name>:index:Thing
// is testprov's Thing, and GetSchema answers the renamed package. The
// value must not be empty (the engine records it in the provider's
// state). The args form is refused: the plugin is not meant for
// `pulumi package add`.
func (p *provider) Parameterize(_ context.Context, req plugin.ParameterizeRequest) (plugin.ParameterizeResponse, error) {
	v, ok := req.Parameters.(*plugin.ParameterizeValue)
	if !ok {
		return plugin.ParameterizeResponse{}, status.Error(codes.InvalidArgument,
			"testprov: Parameterize takes a value (name, version and bytes), not command-line arguments")
	}
	if v.Name == "" || v.Name == "testprov" || !tokens.IsName(v.Name) || len(v.Value) == 0 {
		return plugin.ParameterizeResponse{}, status.Errorf(codes.InvalidArgument,
			"testprov: Parameterize needs a package name other than testprov (got %q) and a non-empty value", v.Name)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.param != nil && p.param.name != v.Name {
		return plugin.ParameterizeResponse{}, status.Errorf(codes.FailedPrecondition,
			"testprov: already parameterized as %s; one process serves one parameterization", p.param.name)
	}
	p.param = &parameterization{name: v.Name, version: v.Version.String(), value: v.Value}
	return plugin.ParameterizeResponse{Name: v.Name, Version: v.Version}, nil
}

// canon returns the type testprov knows typ as: a parameterized package's
// token with its prefix back to testprov.
func (p *provider) canon(typ tokens.Type) string {
	p.mu.Lock()
	param := p.param
	p.mu.Unlock()
	s := string(typ)
	if param != nil && strings.HasPrefix(s, param.name+":") {
		return "testprov:" + strings.TrimPrefix(s, param.name+":")
	}
	return s
}

// renamed returns the schema spec of a parameterized provider: its name,
// version, tokens and the parameterization that tells its base plugin.
func (p *provider) renamed(schema map[string]any) map[string]any {
	p.mu.Lock()
	param := p.param
	p.mu.Unlock()
	if param == nil {
		return schema
	}
	schema["name"], schema["version"] = param.name, param.version
	schema["parameterization"] = map[string]any{
		"baseProvider": map[string]any{"name": "testprov", "version": version},
		"parameter":    base64.StdEncoding.EncodeToString(param.value),
	}
	res := map[string]any{}
	for tok, spec := range schema["resources"].(map[string]any) {
		res[param.name+":"+strings.TrimPrefix(tok, "testprov:")] = spec
	}
	schema["resources"] = res
	return schema
}

// funcEcho is the package's function: it returns its arguments.
const funcEcho = "testprov:index:echo"

// Invoke serves echo (under the package's parameterized name too).
func (p *provider) Invoke(_ context.Context, req plugin.InvokeRequest) (plugin.InvokeResponse, error) {
	if p.canon(tokens.Type(req.Tok)) != funcEcho {
		return plugin.InvokeResponse{}, status.Errorf(codes.InvalidArgument, "testprov: unknown function %q (testprov has %s)", req.Tok, funcEcho)
	}
	return plugin.InvokeResponse{Properties: req.Args}, nil
}
