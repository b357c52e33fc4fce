package pluginhost

import (
	"context"
	"errors"
	"fmt"
	"sort"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"github.com/runnerhq/runner/engine/pluginhost/wire"
	"github.com/runnerhq/runner/engine/resource"
	"google.golang.org/protobuf/types/known/structpb"
)

// diffResponse reads a plugin's Diff answer. DIFF_UNKNOWN leaves the
// comparison to the engine; detailedDiff counts only with hasDetailedDiff,
// an unknown kind reading as an update; Changed and Replaces are top-level
// keys.
func diffResponse(resp *pulumirpc.DiffResponse, req resource.DiffRequest) resource.DiffResponse {
	out := resource.DiffResponse{DeleteBeforeReplace: resp.GetDeleteBeforeReplace()}
	changed, replaces := map[string]bool{}, map[string]bool{}
	for _, r := range resp.GetReplaces() {
		replaces[topKey(r)] = true
	}
	if resp.GetHasDetailedDiff() {
		out.Detailed = make(map[string]resource.PropertyDiff, len(resp.GetDetailedDiff()))
		for path, d := range resp.GetDetailedDiff() {
			kind := resource.DiffKind(d.GetKind())
			if kind < resource.DiffAdd || kind > resource.DiffUpdateReplace {
				kind = resource.DiffUpdate
			}
			out.Detailed[path] = resource.PropertyDiff{Kind: kind, InputDiff: d.GetInputDiff()}
			changed[topKey(path)] = true
			if kind.Replaces() {
				replaces[topKey(path)] = true
			}
		}
	}
	out.Replaces = sortedKeys(replaces)
	switch resp.GetChanges() {
	case pulumirpc.DiffResponse_DIFF_NONE:
		return resource.DiffResponse{}
	case pulumirpc.DiffResponse_DIFF_UNKNOWN:
		out.Unknown = true
		return out
	}
	for _, k := range resp.GetDiffs() {
		changed[topKey(k)] = true
	}
	for k := range replaces {
		changed[k] = true
	}
	out.Changed = sortedKeys(changed)
	if len(out.Changed) == 0 {
		// DIFF_SOME without naming anything: the inputs that differ, or an
		// update naming no property if they look equal (Pulumi updates).
		out.Changed = resource.DiffKeys(req.OldInputs, req.NewInputs, req.IgnoreChanges)
		out.ChangedUnnamed = len(out.Changed) == 0
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	if len(m) == 0 {
		return nil
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// topKey returns the top-level property of a Pulumi property path:
// "tags.Name" and "tags[0]" give "tags", `["a.b"].c` gives "a.b"; a path
// that does not parse is kept whole.
func topKey(path string) string {
	if p, err := resource.ParsePropertyPath(path); err == nil && len(p) > 0 {
		if k, ok := p[0].(string); ok {
			return k
		}
	}
	return path
}

// checkConfig runs CheckConfig: secrets go as plain values and the same
// keys are marked secret in the answer; Unimplemented accepts news. It may
// run before or during Configure: only the handshake's flags are read (a
// legacy plugin gets no resource references).
func (p *plugin) checkConfig(ctx context.Context, req resource.CheckRequest) (resource.PropertyMap, error) {
	o := wire.Options{KeepUnknowns: true, KeepResources: p.hs.GetAcceptResources()}
	olds, err := wire.Marshal(withoutInternal(req.Olds), o)
	if err != nil {
		return nil, fmt.Errorf("the %s provider's old configuration cannot be sent: %w", p.pkg, err)
	}
	news, err := wire.Marshal(withoutInternal(req.News), o)
	if err != nil {
		return nil, fmt.Errorf("the %s provider's configuration cannot be sent: %w", p.pkg, err)
	}
	resp, err := p.rpc.CheckConfig(ctx, &pulumirpc.CheckRequest{Urn: string(req.URN), Name: req.URN.Name(),
		Type: "pulumi:providers:" + p.pkg, Olds: olds, News: news})
	if unimplemented(err) {
		return req.News, nil
	}
	if err != nil {
		return nil, p.refused(ctx, p.callError(ctx, "config check", req.URN, err), err)
	}
	ins, err := p.checked(resp, req, "config check")
	var cf *resource.CheckFailuresError
	if errors.As(err, &cf) {
		return nil, p.refused(ctx, err, nil)
	}
	if err != nil {
		return nil, err
	}
	ins = wire.Remark(ins, req.News)
	if v, ok := req.News[internalKey]; ok {
		ins[internalKey] = v // the engine's own, never sent
	}
	return ins, nil
}

// diffConfig runs DiffConfig; Unimplemented reads as an unknown diff.
func (p *plugin) diffConfig(ctx context.Context, req resource.DiffRequest) (resource.DiffResponse, error) {
	o := wire.Options{KeepUnknowns: true, KeepResources: p.hs.GetAcceptResources(), ElideAssetContents: true}
	var maps [3]*structpb.Struct
	for i, m := range []resource.PropertyMap{req.OldOutputs, req.OldInputs, req.NewInputs} {
		s, err := wire.Marshal(withoutInternal(m), o)
		if err != nil {
			return resource.DiffResponse{}, fmt.Errorf("the %s provider's configuration cannot be sent: %w", p.pkg, err)
		}
		maps[i] = s
	}
	resp, err := p.rpc.DiffConfig(ctx, &pulumirpc.DiffRequest{Id: req.ID, Urn: string(req.URN), Name: req.URN.Name(),
		Type: "pulumi:providers:" + p.pkg, Olds: maps[0], OldInputs: maps[1], News: maps[2], IgnoreChanges: req.IgnoreChanges})
	if unimplemented(err) {
		return resource.DiffResponse{Unknown: true}, nil
	}
	if err != nil {
		return resource.DiffResponse{}, p.callError(ctx, "config diff", req.URN, err)
	}
	return diffResponse(resp, req), nil
}
