package main

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/plugin"
)

// computedKeys are the outputs the provider adds to the inputs; Diff leaves
// them out when it has only old outputs to compare with.
var computedKeys = []resource.PropertyKey{
	"generation", "createdAt", "assetHash", "assetText", "archiveNames", "targetUrn", "targetId",
}

// Check returns the inputs with a default name for a Thing (kept from olds,
// else derived from the random seed), and the check failures: checkFail
// names a property to fail, and Blob and Ref check their inputs' kinds.
func (p *provider) Check(_ context.Context, req plugin.CheckRequest) (plugin.CheckResponse, error) {
	defer p.enter()()
	typ := p.canon(req.Type)
	if err := knownType(typ); err != nil {
		return plugin.CheckResponse{}, err
	}
	news := req.News.Copy()
	if news == nil {
		news = resource.PropertyMap{}
	}
	failures := kindFailures(typ, news)
	if v := plain(news[inCheckFail]); v.IsString() && v.StringValue() != "" {
		failures = append(failures, plugin.CheckFailure{
			Property: resource.PropertyKey(v.StringValue()),
			Reason:   fmt.Sprintf("testprov: %s failed the check on purpose (checkFail)", v.StringValue()),
		})
	}
	if typ == typeThing {
		if v, ok := news["name"]; !ok || v.IsNull() {
			news["name"] = autoName(req)
		}
	}
	return plugin.CheckResponse{Properties: news, Failures: failures}, nil
}

// autoName returns the old name when olds has one, else the resource's name
// with 8 hex digits derived from the random seed ("web-1a2b3c4d").
func autoName(req plugin.CheckRequest) resource.PropertyValue {
	if v, ok := req.Olds["name"]; ok && !v.IsNull() {
		return v
	}
	seed := req.RandomSeed
	if len(seed) == 0 {
		seed = make([]byte, 32)
		_, _ = rand.Read(seed)
	}
	sum := sha256.Sum256(seed)
	return resource.NewStringProperty(req.Name + "-" + hex.EncodeToString(sum[:4]))
}

// Diff compares the old inputs with the new: a changed name or key
// replaces the resource (delete-before-replace when the new dbr input is
// true), any other change updates it; the detailed diff names each key.
func (p *provider) Diff(_ context.Context, req plugin.DiffRequest) (plugin.DiffResponse, error) {
	defer p.enter()()
	if err := knownType(p.canon(req.Type)); err != nil {
		return plugin.DiffResponse{}, err
	}
	olds := req.OldInputs
	if len(olds) == 0 {
		olds = req.OldOutputs.Copy()
		for _, k := range computedKeys {
			delete(olds, k)
		}
	}
	replaces := func(k resource.PropertyKey) bool { return k == "name" || k == "key" }
	return diffMaps(olds, req.NewInputs, replaces, isTrue(req.NewInputs, "dbr")), nil
}
