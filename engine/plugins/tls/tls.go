// Package tls is the resource plugin for keys and certificates, with the
// type tokens and property names of Pulumi's tls provider: PrivateKey,
// SelfSignedCert, CertRequest and LocallySignedCert.
//
// Like Pulumi's, these resources exist only in state: every input change
// replaces them, Read returns the recorded state (with readyForRenewal
// brought up to date for certificates), Delete only forgets, and a Read
// without an ID (a create interrupted by a crash) answers "not there" so
// that the engine creates the value again.
package tls

import (
	"context"
	"fmt"
	"time"

	"github.com/runnerhq/runner/engine/resource"
)

// The type tokens served by the plugin.
const (
	PrivateKeyType        = "tls:index/privateKey:PrivateKey"
	SelfSignedCertType    = "tls:index/selfSignedCert:SelfSignedCert"
	CertRequestType       = "tls:index/certRequest:CertRequest"
	LocallySignedCertType = "tls:index/locallySignedCert:LocallySignedCert"
)

// Plugin creates keys and certificates. It holds no state and is safe for
// concurrent use.
type Plugin struct{ resource.ReplaceOnly }

var _ resource.Plugin = Plugin{}

// Package returns "tls".
func (Plugin) Package() string { return "tls" }

// kind is what the plugin does for one type token.
type kind struct {
	check  func(resource.PropertyMap) error
	create func(resource.PropertyMap) (string, resource.PropertyMap, error)
	// unknown lists the outputs a preview cannot predict; secret ones are
	// marked secret.
	unknown, secret []string
}

var kinds = map[string]kind{
	PrivateKeyType: {checkPrivateKey, createPrivateKey,
		[]string{"privateKeyPem", "privateKeyPemPkcs8", "privateKeyOpenssh", "publicKeyPem", "publicKeyOpenssh", "publicKeyFingerprintMd5", "publicKeyFingerprintSha256"},
		[]string{"privateKeyPem", "privateKeyPemPkcs8", "privateKeyOpenssh"}},
	SelfSignedCertType: {checkSelfSigned, createSelfSigned,
		[]string{"certPem", "validityStartTime", "validityEndTime", "readyForRenewal", "keyAlgorithm"}, nil},
	CertRequestType: {checkCertRequest, createCertRequest,
		[]string{"certRequestPem", "keyAlgorithm"}, nil},
	LocallySignedCertType: {checkLocallySigned, createLocallySigned,
		[]string{"certPem", "validityStartTime", "validityEndTime", "readyForRenewal", "caKeyAlgorithm"}, nil},
}

func kindOf(t string) (kind, error) {
	k, ok := kinds[t]
	if !ok {
		return kind{}, fmt.Errorf("the tls plugin has no resource type %q; it has %s, %s, %s and %s",
			t, PrivateKeyType, SelfSignedCertType, CertRequestType, LocallySignedCertType)
	}
	return k, nil
}

// Check validates inputs (skipping unknown ones) and fills defaults.
func (Plugin) Check(_ context.Context, req resource.CheckRequest) (resource.PropertyMap, error) {
	k, err := kindOf(req.Type)
	if err != nil {
		return nil, err
	}
	news := req.News.Copy(8)
	if err := k.check(news); err != nil {
		return nil, fmt.Errorf("checking %s: %w", req.Type, err)
	}
	return news, nil
}

// Create generates the key, request or certificate. With Preview set the
// generated outputs are unknown, those the inputs determine predicted.
func (Plugin) Create(ctx context.Context, req resource.CreateRequest) (resource.CreateResponse, error) {
	k, err := kindOf(req.Type)
	if err != nil {
		return resource.CreateResponse{}, err
	}
	if req.Preview {
		outs := req.Inputs.Copy(8)
		for _, key := range k.unknown {
			outs[key] = resource.Computed{}
		}
		for _, key := range k.secret {
			outs[key] = resource.Secret{Element: resource.Computed{}}
		}
		predict(req.Type, req.Inputs, outs)
		return resource.CreateResponse{Outputs: outs}, nil
	}
	if err := ctx.Err(); err != nil {
		return resource.CreateResponse{}, err
	}
	if resource.ContainsComputed(map[string]any(req.Inputs)) {
		return resource.CreateResponse{}, fmt.Errorf("creating %s: the inputs still hold unknown values", req.Type)
	}
	id, outs, err := k.create(req.Inputs)
	if err != nil {
		return resource.CreateResponse{}, fmt.Errorf("creating %s: %w", req.Type, err)
	}
	return resource.CreateResponse{ID: id, Outputs: outs}, nil
}

// Read returns the recorded state; a certificate's readyForRenewal is set
// when its end, less earlyRenewalHours, has passed. Without an ID it
// reports the resource as absent.
func (Plugin) Read(_ context.Context, req resource.ReadRequest) (resource.ReadResponse, error) {
	if req.ID == "" {
		return resource.ReadResponse{}, nil
	}
	outs := req.Outputs
	if end, err := outs.String("validityEndTime", ""); err == nil && end != "" {
		outs = outs.Copy(8)
		outs["readyForRenewal"] = readyForRenewal(end, req.Inputs, time.Now())
	}
	return resource.ReadResponse{ID: req.ID, Inputs: req.Inputs, Outputs: outs}, nil
}

func readyForRenewal(end string, in resource.PropertyMap, now time.Time) bool {
	t, err := time.Parse(time.RFC3339, end)
	if err != nil {
		return false
	}
	early, _ := in.Int("earlyRenewalHours", 0)
	return !now.Before(t.Add(-time.Duration(early) * time.Hour))
}

func required(m resource.PropertyMap, keys ...string) error {
	for _, k := range keys {
		if v, ok := m[k]; !ok || v == nil {
			return fmt.Errorf("property %q is required", k)
		}
	}
	return nil
}
