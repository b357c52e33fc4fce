package plugincache

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/runnerhq/runner/internal/boundedfile"
)

// InstallOptions are how Install reaches the network and reports.
type InstallOptions struct {
	// Client makes the requests (nil: http.DefaultClient).
	Client *http.Client
	// Sources, when set, replace the spec's Server and Pulumi's default
	// sources: URL templates tried in order, in Spec.Server's syntax.
	Sources []string
	// APIBase is GitHub's API for Latest ("": https://api.github.com).
	APIBase string
	// Getenv reads PULUMI_HOME, HOME and GITHUB_TOKEN (nil: os.Getenv).
	Getenv func(string) string
	// Progress receives one line per step (nil: silent).
	Progress func(msg string)
	// GOOS and GOARCH choose the asset's platform ("": this machine's).
	GOOS, GOARCH string
	// Limits bound the download and the unpacked archive (zero fields:
	// DefaultLimits).
	Limits Limits
	// InsecureHTTP allows plain http:// to other machines (loopback is
	// always allowed), at the start and at every redirect.
	InsecureHTTP bool
}

func (o InstallOptions) getenv(k string) string {
	if o.Getenv == nil {
		return os.Getenv(k)
	}
	return o.Getenv(k)
}

func (o InstallOptions) say(format string, args ...any) {
	if o.Progress != nil {
		o.Progress(fmt.Sprintf(format, args...))
	}
}

func (o InstallOptions) platform() (string, string) {
	goos, goarch := o.GOOS, o.GOARCH
	if goos == "" {
		goos = runtime.GOOS
	}
	if goarch == "" {
		goarch = runtime.GOARCH
	}
	return goos, goarch
}

func (o InstallOptions) fetcher() fetcher {
	c := o.Client
	if c == nil {
		c = http.DefaultClient
	}
	return fetcher{client: guardedClient(c, o.InsecureHTTP), insecure: o.InsecureHTTP, limit: o.limits().Download,
		token: o.getenv("GITHUB_TOKEN"), hosts: map[string]bool{}}
}

// ChecksumError is a downloaded asset whose SHA-256 is not the one
// expected; nothing was installed.
type ChecksumError struct {
	Asset, Source, Got, Want string
}

func (e *ChecksumError) Error() string {
	return fmt.Sprintf("the SHA-256 of %s downloaded from %s is %s, but the plugin's checksum is %s; nothing was installed (a corrupt download or a tampered mirror)", e.Asset, e.Source, e.Got, e.Want)
}

// Install downloads the plugin's release asset and unpacks it into the
// cache in Pulumi's layout, under the directory's lock: a .partial marker
// first, the tar extracted into the final directory, the marker removed
// last. A plugin already installed is not downloaded again (the result's
// AlreadyInstalled says so); what a killed install left is removed and the
// install redone. The sources are tried in order until one serves the
// asset; a checksum mismatch stops at once and installs nothing.
func Install(ctx context.Context, spec Spec, opts InstallOptions) (Installed, error) {
	if err := checkName(spec.Name); err != nil {
		return Installed{}, err
	}
	v, err := parseVersion(spec.Version)
	if err != nil {
		return Installed{}, fmt.Errorf("plugin %s: %w", spec.Name, err)
	}
	spec.Version = v.String()
	cache, err := Dir(opts.getenv)
	if err != nil {
		return Installed{}, err
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return Installed{}, fmt.Errorf("creating the plugin cache %s: %w", cache, err)
	}
	final := filepath.Join(cache, dirName(spec.Name, v))
	unlock, err := lock(ctx, final, opts.say)
	if err != nil {
		return Installed{}, err
	}
	defer unlock()
	if complete(final, spec.Name) {
		opts.say("plugin %s %s is already installed in %s", spec.Name, spec.Version, final)
		in := describe(entry{Name: spec.Name, Version: v, Path: filepath.Join(final, Binary(spec.Name)), Dir: final})
		in.AlreadyInstalled = true
		return in, nil
	}
	if err := clean(final, opts.say); err != nil {
		return Installed{}, err
	}
	tmp, err := download(ctx, spec, cache, opts)
	if err != nil {
		return Installed{}, err
	}
	defer os.Remove(tmp)
	if err := unpack(tmp, final, spec.Name, opts.limits()); err != nil {
		return Installed{}, err
	}
	opts.say("installed plugin %s %s in %s", spec.Name, spec.Version, final)
	return describe(entry{Name: spec.Name, Version: v, Path: filepath.Join(final, Binary(spec.Name)), Dir: final}), nil
}

// complete reports whether final is an installed plugin: the directory
// with its binary and no .partial marker.
func complete(final, name string) bool {
	if _, err := os.Lstat(final + ".partial"); err == nil {
		return false
	}
	return executable(filepath.Join(final, Binary(name)))
}

// clean removes what an install that did not finish left in final (the
// caller holds its lock).
func clean(final string, say func(string, ...any)) error {
	_, errDir := os.Lstat(final)
	_, errPartial := os.Lstat(final + ".partial")
	if errDir != nil && errPartial != nil {
		return nil
	}
	say("removing the unfinished install in %s", final)
	if err := os.RemoveAll(final); err != nil {
		return fmt.Errorf("removing the unfinished plugin install %s: %w", final, err)
	}
	if err := os.Remove(final + ".partial"); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("removing the marker %s.partial: %w", final, err)
	}
	return nil
}

// download fetches the asset from the first source that serves it into a
// temporary file of the cache and checks its checksum; it returns the
// file. Each failing source is named in the error.
func download(ctx context.Context, spec Spec, cache string, opts InstallOptions) (string, error) {
	goos, goarch := opts.platform()
	asset := Asset(spec.Name, spec.Version, goos, goarch)
	srcs, err := sources(spec, opts.Sources, goos, goarch)
	if err != nil {
		return "", err
	}
	f := opts.fetcher()
	for _, s := range srcs {
		if s.api != nil {
			if u, err := url.Parse(s.api.base); err == nil {
				f.hosts[u.Host] = true
			}
		}
	}
	var failures []string
	for _, s := range srcs {
		opts.say("downloading %s from %s", asset, s)
		tmp, sum, err := fetchTo(ctx, f, s, asset, cache)
		if err != nil {
			if ctx.Err() != nil {
				return "", ctx.Err()
			}
			var lim *LimitError
			var insecure *InsecureHTTPError
			if errors.As(err, &lim) || errors.As(err, &insecure) {
				return "", fmt.Errorf("plugin %s %s from %s: %w", spec.Name, spec.Version, s, err)
			}
			failures = append(failures, fmt.Sprintf("%s: %v", s, err))
			continue
		}
		if want, ok := spec.Checksums[goos+"-"+goarch]; ok && !strings.EqualFold(want, sum) {
			os.Remove(tmp)
			return "", &ChecksumError{Asset: asset, Source: s.String(), Got: sum, Want: strings.ToLower(want)}
		}
		return tmp, nil
	}
	return "", fmt.Errorf("plugin %s %s could not be downloaded (%s) from any source:\n  %s\nuse a mirror with --server URL, or check the name and version",
		spec.Name, spec.Version, asset, strings.Join(failures, "\n  "))
}

// fetchTo writes the asset from s into a new temporary file of dir and
// returns it with its SHA-256 (hex).
func fetchTo(ctx context.Context, f fetcher, s source, asset, dir string) (string, string, error) {
	body, err := f.open(ctx, s, asset)
	if err != nil {
		return "", "", err
	}
	defer body.Close()
	tmp, err := os.CreateTemp(dir, ".download-"+asset+"-*")
	if err != nil {
		return "", "", fmt.Errorf("creating a temporary file in %s: %w", dir, err)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), io.LimitReader(body, f.limit+1))
	if err == nil && n > f.limit {
		err = &LimitError{What: "the download of " + asset, Limit: boundedfile.Size(f.limit)}
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp.Name())
		var lim *LimitError
		if errors.As(err, &lim) {
			return "", "", err
		}
		return "", "", fmt.Errorf("reading the download: %w", err)
	}
	return tmp.Name(), hex.EncodeToString(h.Sum(nil)), nil
}
