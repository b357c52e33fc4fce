package providertest_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/runnerhq/runner/engine/pluginhost/providertest"
)

func TestThingLifecycle(t *testing.T) {
	r, store, eng := configured(t)
	ctx := context.Background()
	secret := map[string]any{sigKey: providertest.SecretSig, "value": "hunter2"}
	id, outs := create(t, r.client, providertest.TypeThing, "web",
		map[string]any{"size": 1.0, "password": secret, "warn": "careful"})
	if outs["generation"] != 1.0 || outs["createdAt"] == nil || outs["size"] != 1.0 {
		t.Errorf("Create outputs %v", outs)
	}
	for _, want := range []string{"DEBUG testprov: creating " + thingURN("web"), "WARNING careful", "INFO testprov: created " + id} {
		if !slices.Contains(eng.messages(), want) {
			t.Errorf("engine logs %q, want %q", eng.messages(), want)
		}
	}
	res, ok, err := store.Resource(id)
	if err != nil || !ok || res["type"] != providertest.TypeThing {
		t.Fatalf("stored %v %v %v", res, ok, err)
	}
	if pw := res["inputs"].(map[string]any)["password"]; providertest.Unwrap(pw) != "hunter2" {
		t.Errorf("stored password %v, want the secret hunter2", pw)
	}

	read, err := r.client.Read(ctx, &pulumirpc.ReadRequest{Id: id, Urn: thingURN("web")})
	if err != nil || read.Id != id || read.Inputs.AsMap()["size"] != 1.0 || read.Properties.AsMap()["generation"] != 1.0 {
		t.Fatalf("Read = %v, %v", read, err)
	}
	upd, err := r.client.Update(ctx, &pulumirpc.UpdateRequest{
		Id: id, Urn: thingURN("web"), Olds: read.Properties, OldInputs: read.Inputs,
		News: props(t, map[string]any{"size": 2.0, "name": outs["name"]}),
	})
	if err != nil || upd.Properties.AsMap()["generation"] != 2.0 || upd.Properties.AsMap()["createdAt"] != outs["createdAt"] {
		t.Fatalf("Update = %v, %v; want generation 2 and the same createdAt", upd, err)
	}
	if _, err := r.client.Delete(ctx, &pulumirpc.DeleteRequest{Id: id, Urn: thingURN("web")}); err != nil {
		t.Fatalf("Delete: %v", err)
	}
	if _, err := r.client.Delete(ctx, &pulumirpc.DeleteRequest{Id: id, Urn: thingURN("web")}); err != nil {
		t.Errorf("Delete of a deleted resource: %v", err)
	}
	gone, err := r.client.Read(ctx, &pulumirpc.ReadRequest{Id: id, Urn: thingURN("web")})
	if err != nil || gone.Id != "" {
		t.Errorf("Read after Delete = %v, %v; want an empty id", gone, err)
	}
	if all, err := store.Resources(); err != nil || len(all) != 0 {
		t.Errorf("store after Delete: %v %v", all, err)
	}
	if store.MaxInFlight() < 1 {
		t.Errorf("maxInFlight %d", store.MaxInFlight())
	}
}

func TestPreview(t *testing.T) {
	r, store, _ := configured(t)
	resp, err := r.client.Create(context.Background(), &pulumirpc.CreateRequest{
		Urn: thingURN("p"), Properties: props(t, map[string]any{"size": 1.0}), Preview: true,
	})
	if err != nil || resp.Id != "" {
		t.Fatalf("preview Create = %v, %v", resp, err)
	}
	if g := resp.Properties.AsMap()["generation"]; g != "3eeb2bf0-c639-47a8-9e75-3b44932eb421" {
		t.Errorf("preview generation %v, want the unknown number", g)
	}
	if all, _ := store.Resources(); len(all) != 0 {
		t.Errorf("preview stored %v", all)
	}
}

func TestInitErrorThenUpdate(t *testing.T) {
	r, store, _ := configured(t)
	ctx := context.Background()
	_, err := r.client.Create(ctx, &pulumirpc.CreateRequest{
		Urn: thingURN("i"), Properties: props(t, map[string]any{"initError": true, "name": "i"}),
	})
	var init *pulumirpc.ErrorResourceInitFailed
	for _, d := range status.Convert(err).Details() {
		if d, ok := d.(*pulumirpc.ErrorResourceInitFailed); ok {
			init = d
		}
	}
	if init == nil || init.Id == "" || !slices.Equal(init.Reasons, []string{"init failed on purpose"}) ||
		init.Properties.AsMap()["generation"] != 1.0 || init.Inputs.AsMap()["name"] != "i" {
		t.Fatalf("Create with initError: %v, want an ErrorResourceInitFailed detail", err)
	}
	if res, ok, _ := store.Resource(init.Id); !ok || res["initFailed"] != true {
		t.Errorf("stored %v, want initFailed", res)
	}
	if _, err := r.client.Update(ctx, &pulumirpc.UpdateRequest{
		Id: init.Id, Urn: thingURN("i"), Olds: init.Properties, News: init.Inputs,
	}); err != nil {
		t.Fatalf("Update after the init error: %v", err)
	}
	if res, _, _ := store.Resource(init.Id); res["initFailed"] != nil {
		t.Errorf("initFailed not cleared: %v", res)
	}
}

func TestHangTimesOutAndCancels(t *testing.T) {
	r, store, _ := configured(t)
	ctx := context.Background()
	in := props(t, map[string]any{"hang": true, "name": "h"})
	begin := time.Now()
	_, err := r.client.Create(ctx, &pulumirpc.CreateRequest{Urn: thingURN("h"), Properties: in, Timeout: 0.3})
	if status.Code(err) != codes.DeadlineExceeded || time.Since(begin) < 300*time.Millisecond {
		t.Errorf("hang with a 0.3s timeout: %v after %v", err, time.Since(begin))
	}
	done := make(chan error, 1)
	go func() {
		_, err := r.client.Create(ctx, &pulumirpc.CreateRequest{Urn: thingURN("h"), Properties: in})
		done <- err
	}()
	time.Sleep(200 * time.Millisecond)
	if _, err := r.client.Cancel(ctx, &emptypb.Empty{}); err != nil {
		t.Fatalf("Cancel: %v", err)
	}
	select {
	case err := <-done:
		if status.Code(err) != codes.Canceled {
			t.Errorf("hang after Cancel: %v, want Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Cancel did not end the hang")
	}
	if all, _ := store.Resources(); len(all) != 0 {
		t.Errorf("aborted creates stored %v", all)
	}
}

func TestCrashOnCreate(t *testing.T) {
	r, store, _ := configured(t)
	_, err := r.client.Create(context.Background(), &pulumirpc.CreateRequest{
		Urn: thingURN("c"), Properties: props(t, map[string]any{"crash": "create", "name": "c"}),
	})
	if err == nil {
		t.Fatal("Create with crash: create succeeded")
	}
	var exit *exec.ExitError
	<-r.exited
	if !errors.As(r.err, &exit) || exit.ExitCode() != 2 {
		t.Errorf("exit %v, want code 2", r.err)
	}
	if !strings.Contains(r.stderr.String(), "testprov: crashing on purpose") {
		t.Errorf("stderr %q", r.stderr)
	}
	if all, _ := store.Resources(); len(all) != 1 {
		t.Errorf("store after the crash %v, want the resource", all)
	}
}

func TestBlobAndRef(t *testing.T) {
	r, _, _ := configured(t)
	asset := func(text string) map[string]any {
		return map[string]any{sigKey: "c44067f5952c0a294b673a41bacd8c17", "text": text}
	}
	archive := map[string]any{sigKey: "0def7320c3a5731c473e5ecbe6d01bc7",
		"assets": map[string]any{"b.txt": asset("b"), "a/x.txt": asset("x")}}
	_, outs := create(t, r.client, providertest.TypeBlob, "b", map[string]any{"asset": asset("hello"), "archive": archive})
	sum := sha256.Sum256([]byte("hello"))
	if outs["assetHash"] != hex.EncodeToString(sum[:]) || outs["assetText"] != "hello" {
		t.Errorf("asset outputs %v %v", outs["assetHash"], outs["assetText"])
	}
	if names, _ := outs["archiveNames"].([]any); !slices.Equal(names, []any{"a/x.txt", "b.txt"}) {
		t.Errorf("archiveNames %v", outs["archiveNames"])
	}
	ref := map[string]any{sigKey: "5cf8f73096256a8f31e491e813e4eb8e", "urn": thingURN("web"), "id": "thing-1"}
	_, outs = create(t, r.client, providertest.TypeRef, "r", map[string]any{"target": ref})
	if outs["targetUrn"] != thingURN("web") || outs["targetId"] != "thing-1" {
		t.Errorf("ref outputs %v", outs)
	}
	_, outs = create(t, r.client, providertest.TypeRef, "s", map[string]any{"target": "thing-2"})
	if outs["targetId"] != "thing-2" {
		t.Errorf("string ref outputs %v", outs)
	}
}

func TestLargePayload(t *testing.T) {
	r, _, _ := configured(t)
	big := strings.Repeat("x", 6<<20)
	_, outs := create(t, r.client, providertest.TypeThing, "big", map[string]any{"data": big})
	if outs["data"] != big {
		t.Errorf("a 6 MiB input came back with %d bytes", len(outs["data"].(string)))
	}
}

func TestConcurrentCalls(t *testing.T) {
	r, store, _ := configured(t)
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			_, err := r.client.Create(context.Background(), &pulumirpc.CreateRequest{
				Urn: thingURN("n"), Properties: props(t, map[string]any{"sleepMs": 1500.0}),
			})
			if err != nil {
				t.Errorf("Create: %v", err)
			}
		})
	}
	wg.Wait()
	if n := store.MaxInFlight(); n < 16 {
		t.Errorf("maxInFlight %d, want 16", n)
	}
	if all, _ := store.Resources(); len(all) != 16 {
		t.Errorf("%d resources stored, want 16", len(all))
	}
}
