package backend

import (
	"context"
	"fmt"
	neturl "net/url"
	"sort"
	"strings"
)

// Opener opens the backend a URL names (the whole URL, scheme included).
type Opener func(ctx context.Context, url string) (Store, error)

// Registry maps URL schemes ("file") to the backends that serve them. It is
// built where the program starts, one entry per backend:
//
//	backend.Registry{"file": backend.OpenFileURL}
type Registry map[string]Opener

// UnknownSchemeError is a backend URL whose scheme no entry of the registry
// serves.
type UnknownSchemeError struct {
	URL, Scheme string
	// Known lists the schemes the registry serves, sorted.
	Known []string
}

func (e *UnknownSchemeError) Error() string {
	known := make([]string, len(e.Known))
	for i, s := range e.Known {
		known[i] = s + "://"
	}
	return fmt.Sprintf("opening the backend %s: no backend serves the scheme %s://; the known schemes are %s",
		RedactURL(e.URL), e.Scheme, strings.Join(known, ", "))
}

// Schemes lists the schemes r serves, sorted.
func (r Registry) Schemes() []string {
	out := make([]string, 0, len(r))
	for s := range r {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// Open opens the backend url names by its scheme; a URL without one
// ("state", "/var/runner") is a folder, as file://. A scheme r does not
// serve is an *UnknownSchemeError listing those it does.
func (r Registry) Open(ctx context.Context, url string) (Store, error) {
	scheme := "file"
	if s, _, ok := strings.Cut(url, "://"); ok {
		scheme = s
	}
	open, ok := r[scheme]
	if !ok {
		return nil, &UnknownSchemeError{URL: RedactURL(url), Scheme: scheme, Known: r.Schemes()}
	}
	return open(ctx, url)
}

// OpenFileURL is the Opener of the folder backend (file://<dir>).
func OpenFileURL(_ context.Context, url string) (Store, error) {
	f, err := Open(url)
	if err != nil {
		return nil, err
	}
	return f, nil
}

// UnavailableError is a backend that cannot be used as its URL names it:
// the server cannot be reached, refuses the credentials, lacks the
// database or bucket, or holds what this runner cannot read. Nothing was
// changed. URL is redacted (no password).
type UnavailableError struct {
	URL string
	// Problem says what went wrong; Hint what to do about it.
	Problem error
	Hint    string
}

func (e *UnavailableError) Error() string {
	msg := fmt.Sprintf("opening the backend %s: %v", e.URL, e.Problem)
	if e.Hint != "" {
		msg += "; " + e.Hint
	}
	return msg
}

func (e *UnavailableError) Unwrap() error { return e.Problem }

// RedactURL returns url with any password in it (user information, or a
// password or sslpassword parameter) replaced by "xxxxx", for messages.
// A URL that does not parse is reduced to its scheme.
func RedactURL(raw string) string {
	u, err := neturl.Parse(raw)
	if err != nil {
		if s, _, ok := strings.Cut(raw, "://"); ok {
			return s + "://(a URL that does not parse)"
		}
		return "(a URL that does not parse)"
	}
	q := u.Query()
	changed := false
	for k := range q {
		if strings.EqualFold(k, "password") || strings.EqualFold(k, "sslpassword") {
			q.Set(k, "xxxxx")
			changed = true
		}
	}
	if changed {
		u.RawQuery = q.Encode()
	}
	return u.Redacted()
}
