package pluginhost

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"github.com/runnerhq/runner/engine/pluginhost/wire"
	"github.com/runnerhq/runner/engine/resource"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// internalKey holds the engine's own provider inputs; never sent.
const internalKey = "__internal"

// configure sends Configure once per process (the first caller's request;
// later callers share its outcome) and waits for it.
func (p *plugin) configure(ctx context.Context, req resource.ConfigureRequest) error {
	p.cfgOnce.Do(func() { go p.runConfigure(req) })
	return p.waitConfigured(ctx)
}

// runConfigure runs on the pool's context, not a caller's: every caller
// waits for it with its own context (waitConfigured), and it goes on while
// any may still need it.
func (p *plugin) runConfigure(req resource.ConfigureRequest) {
	defer close(p.configured)
	ctx := p.pool.ctx
	if p.cfgErr = p.wait(ctx); p.cfgErr != nil {
		return
	}
	inputs := withoutInternal(req.Inputs)
	p.pool.redact.addSecrets(inputs)
	args, err := wire.Marshal(inputs, wire.Options{KeepUnknowns: true, KeepSecrets: true, KeepResources: true})
	if err != nil {
		p.cfgErr = fmt.Errorf("the %s provider's configuration cannot be sent: %w", p.pkg, err)
		return
	}
	typ := "pulumi:providers:" + p.pkg
	urn, name := string(req.URN), req.URN.Name()
	resp, err := p.rpc.Configure(ctx, &pulumirpc.ConfigureRequest{
		Variables: variables(p.pkg, inputs), Args: args,
		AcceptSecrets: true, AcceptResources: true, SendsOldInputs: true, SendsOldInputsToDelete: true,
		Id: &req.ID, Urn: &urn, Name: &name, Type: &typ,
	})
	if err != nil {
		p.cfgErr = p.refused(ctx, p.callError(ctx, "configure", req.URN, err), err)
		return
	}
	if p.handshake {
		p.acceptSecrets, p.acceptResources, p.supportsPreview = p.hs.GetAcceptSecrets(), p.hs.GetAcceptResources(), true
		p.acceptOutputs = p.hs.GetAcceptOutputs()
	} else {
		p.acceptSecrets, p.acceptResources = resp.GetAcceptSecrets(), resp.GetAcceptResources()
		p.acceptOutputs = resp.GetAcceptOutputs()
		p.supportsPreview = resp.GetSupportsPreview()
	}
}

// variables is Configure's deprecated variables map: "<pkg>:config:<key>"
// to the value as a string (non-strings as JSON, secrets unwrapped), without
// version.
func variables(pkg string, inputs resource.PropertyMap) map[string]string {
	vars := make(map[string]string, len(inputs))
	for k, v := range inputs {
		if k == "version" {
			continue
		}
		vars[pkg+":config:"+k] = configString(v)
	}
	return vars
}

// configString is a config value as a string: strings as they are, other
// values as JSON, secrets unwrapped.
func configString(v any) string {
	v, _ = resource.UnsecretDeep(v)
	if s, ok := v.(string); ok {
		return s
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// withoutInternal returns inputs without the engine's __internal key.
func withoutInternal(inputs resource.PropertyMap) resource.PropertyMap {
	if _, ok := inputs[internalKey]; !ok {
		return inputs
	}
	out := inputs.Copy(0)
	delete(out, internalKey)
	return out
}

// refused returns, as a *resource.ConfigureError, the error e of a
// CheckConfig or Configure in which the plugin refused its configuration
// (raw: the call's own error, whose status message is the plugin's); e
// itself when the plugin did not refuse: missing keys, its death, an
// interruption or a broken connection.
func (p *plugin) refused(ctx context.Context, e, raw error) error {
	var mc *resource.MissingConfigError
	if errors.As(e, &mc) || errors.Is(e, resource.ErrOutcomeUnknown) || ctx.Err() != nil {
		return e
	}
	cause := e
	if raw != nil {
		st, ok := status.FromError(raw)
		switch {
		case !ok:
		case st.Code() == codes.Unavailable || st.Code() == codes.Canceled || st.Code() == codes.DeadlineExceeded:
			return e
		default:
			cause = errors.New(p.pool.redact.apply(st.Message()))
		}
	}
	return &resource.ConfigureError{Package: p.pkg, Err: cause, Help: p.configureHelp(e)}
}

// configureHelp is what to tell a user whose configuration the plugin
// refused with e: when it named a property for every failure (a key it
// does not know, a value it refuses), those stack config keys; else the
// provider's own help (credentials, say).
func (p *plugin) configureHelp(e error) string {
	var cf *resource.CheckFailuresError
	if !errors.As(e, &cf) || len(cf.Failures) == 0 {
		return p.pool.opts.ConfigureHelp[p.pkg]
	}
	var keys []string
	for _, f := range cf.Failures {
		if f.Property == "" {
			return p.pool.opts.ConfigureHelp[p.pkg]
		}
		keys = append(keys, p.pkg+":"+f.Property)
	}
	return fmt.Sprintf("fix the stack config's %s (`runner config set KEY VALUE`, or `runner config rm KEY` for a key the plugin does not have)",
		strings.Join(keys, ", "))
}

// missingConfig turns ConfigureErrorMissingKeys into the engine's error.
func missingConfig(pkg string, mk *pulumirpc.ConfigureErrorMissingKeys) error {
	e := &resource.MissingConfigError{Package: pkg}
	for _, k := range mk.GetMissingKeys() {
		name := strings.TrimPrefix(strings.TrimPrefix(k.GetName(), pkg+":config:"), pkg+":")
		e.Keys = append(e.Keys, resource.MissingKey{Key: name, Description: k.GetDescription()})
	}
	return e
}

// unimplemented reports whether err says the call is not implemented, as
// Pulumi reads it: Unimplemented, or kubernetes' Unknown naming it.
func unimplemented(err error) bool {
	st := status.Convert(err)
	return st.Code() == codes.Unimplemented ||
		st.Code() == codes.Unknown && strings.Contains(st.Message(), "Unimplemented")
}

// configKey identifies a configuration: a hash of the checked inputs,
// secrets included (never shown), without __internal. Inputs holding
// unknown values never get one (handle.Configure answers for them).
func configKey(inputs resource.PropertyMap) string {
	h := sha256.New()
	hashValue(h, map[string]any(withoutInternal(inputs)))
	return hex.EncodeToString(h.Sum(nil))
}

type writer interface{ Write([]byte) (int, error) }

func hashValue(h writer, v any) {
	w := func(tag byte, s string) {
		h.Write([]byte{tag})
		h.Write([]byte(strconv.Itoa(len(s)) + ":" + s))
	}
	switch x := v.(type) {
	case nil:
		w('n', "")
	case bool:
		w('b', strconv.FormatBool(x))
	case float64:
		w('f', strconv.FormatUint(math.Float64bits(x), 16))
	case string:
		w('s', x)
	case resource.Secret:
		w('S', "")
		hashValue(h, x.Element)
	case resource.PropertyMap:
		hashValue(h, map[string]any(x))
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		w('m', strconv.Itoa(len(keys)))
		for _, k := range keys {
			w('k', k)
			hashValue(h, x[k])
		}
	case []any:
		w('l', strconv.Itoa(len(x)))
		for _, e := range x {
			hashValue(h, e)
		}
	default: // assets, archives, references: no secrets inside
		b, _ := json.Marshal(x)
		w('o', fmt.Sprintf("%T:%s", x, b))
	}
}

// launchConfig is PULUMI_CONFIG for a plugin started for inputs: the
// provider's config keys (without version and __internal) as strings.
func launchConfig(inputs resource.PropertyMap) string {
	m := map[string]string{}
	for k, v := range inputs {
		if k == "version" || k == internalKey || resource.ContainsComputed(v) {
			continue
		}
		m[k] = configString(v)
	}
	b, _ := json.Marshal(m) // a map of strings always marshals
	return string(b)
}
