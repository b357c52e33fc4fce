package monitor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"regexp"
	"strings"
	"sync"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/runnerhq/runner/engine/resource"
	"github.com/runnerhq/runner/engine/source"
)

// pkgRef is a package a program registered (RegisterPackage): the plugin
// name, version and download URL, and the parameterization that makes
// the plugin serve another package (nil: none).
type pkgRef struct {
	name, version, url string
	pz                 *resource.Parameterization
}

// packages are the program's registered packages by reference.
type packages struct {
	mu    sync.Mutex
	byRef map[string]pkgRef
}

// RegisterPackage registers a package (a generated SDK's, most often a
// parameterized one) and returns the reference its resources, invokes,
// reads and calls name it by. The same package registered again gets the
// same reference.
func (m *monitor) RegisterPackage(_ context.Context, req *pulumirpc.RegisterPackageRequest) (*pulumirpc.RegisterPackageResponse, error) {
	if req.GetName() == "" {
		return nil, status.Error(codes.InvalidArgument, "RegisterPackage needs the plugin's name")
	}
	if req.GetExtension() != nil {
		return nil, status.Errorf(codes.Unimplemented, "package %s: extension packages are not supported by runner yet", req.GetName())
	}
	if err := semver(req.GetVersion()); err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "package %s: its version %v", req.GetName(), err)
	}
	p := pkgRef{name: req.GetName(), version: req.GetVersion(), url: req.GetDownloadUrl()}
	h := sha256.New()
	for _, s := range []string{p.name, p.version, p.url} {
		h.Write([]byte(s + "\x00"))
	}
	if pr := req.GetParameterization(); pr != nil {
		if pr.GetName() == "" || semver(pr.GetVersion()) != nil || pr.GetVersion() == "" {
			return nil, status.Errorf(codes.InvalidArgument,
				"package %s: its parameterization needs a name and a semantic version (got %q, %q)", p.name, pr.GetName(), pr.GetVersion())
		}
		p.pz = &resource.Parameterization{Base: p.name, BaseVersion: p.version,
			Name: pr.GetName(), Version: pr.GetVersion(), Value: pr.GetValue()}
		for _, s := range []string{"param", pr.GetName(), pr.GetVersion()} {
			h.Write([]byte(s + "\x00"))
		}
		h.Write(pr.GetValue())
	}
	ref := hex.EncodeToString(h.Sum(nil)[:16])
	m.pkgs.mu.Lock()
	defer m.pkgs.mu.Unlock()
	if m.pkgs.byRef == nil {
		m.pkgs.byRef = map[string]pkgRef{}
	}
	if p.pz != nil {
		for other, q := range m.pkgs.byRef {
			if other != ref && q.pz != nil && q.pz.Name == p.pz.Name {
				return nil, status.Errorf(codes.InvalidArgument, "package %s is registered twice, differently (%s %s and %s %s, or another value): "+
					"a parameterized package's name must be unique in a program", p.pz.Name, q.name, q.version, p.name, p.version)
			}
		}
	}
	m.pkgs.byRef[ref] = p
	return &pulumirpc.RegisterPackageResponse{Ref: ref}, nil
}

// semverPattern is a semantic version (major.minor.patch, pre-release and
// build optional).
var semverPattern = regexp.MustCompile(`^v?(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$`)

// semver checks a version ("" is none).
func semver(v string) error {
	if v == "" || semverPattern.MatchString(v) {
		return nil
	}
	return errors.New(v + " is not a semantic version (major.minor.patch)")
}

// pkgRef returns the package a reference names; what names it must name
// one the program registered.
func (m *monitor) pkgRef(what, ref string) (pkgRef, error) {
	m.pkgs.mu.Lock()
	p, ok := m.pkgs.byRef[ref]
	m.pkgs.mu.Unlock()
	if !ok {
		return p, status.Errorf(codes.InvalidArgument,
			"%s names package reference %q, which the program did not register (RegisterPackage)", what, ref)
	}
	return p, nil
}

// plugin returns the version and download URL the package's plugin is
// asked for: for a parameterized package, the package's version.
func (p pkgRef) plugin() (version, url string) {
	if p.pz != nil {
		return p.pz.Version, p.url
	}
	return p.version, p.url
}

// resolvePackage gives a registration the package its reference names
// ("": none): its plugin's version and download URL, and its
// parameterization. A provider resource of a parameterized package
// records it in its inputs, as Pulumi's engine does.
func (m *monitor) resolvePackage(ref string, reg *source.Registration) error {
	if ref == "" {
		return nil
	}
	p, err := m.pkgRef(string(reg.URN), ref)
	if err != nil {
		return err
	}
	reg.Version, reg.PluginDownloadURL = p.plugin()
	reg.Parameterization = p.pz
	if strings.HasPrefix(reg.Type, providerTypePrefix) && p.pz != nil {
		reg.Inputs = reg.Inputs.Copy(0)
		resource.SetParameterization(reg.Inputs, p.pz)
		reg.Parameterization = nil // an explicit provider finds it in its inputs
	}
	return nil
}

// providerTypePrefix starts the type of a provider resource.
const providerTypePrefix = "pulumi:providers:"
