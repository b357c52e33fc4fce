package plugincache

import (
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
)

// Limits bound what an install downloads and unpacks, generously for real
// plugins (Pulumi's kubernetes plugin unpacks to about 440 MB), so that a
// hostile or broken mirror cannot fill the disk or the memory.
type Limits struct {
	Download int64 // bytes of the archive
	File     int64 // bytes of one unpacked file
	Unpacked int64 // bytes of every unpacked file together
	Entries  int   // entries of the archive
}

// DefaultLimits are the limits of an install whose options set none.
var DefaultLimits = Limits{Download: 1 << 30, File: 1 << 30, Unpacked: 2 << 30, Entries: 10000}

// limits returns o's limits, each unset one at its default.
func (o InstallOptions) limits() Limits {
	l := o.Limits
	if l.Download <= 0 {
		l.Download = DefaultLimits.Download
	}
	if l.File <= 0 {
		l.File = DefaultLimits.File
	}
	if l.Unpacked <= 0 {
		l.Unpacked = DefaultLimits.Unpacked
	}
	if l.Entries <= 0 {
		l.Entries = DefaultLimits.Entries
	}
	return l
}

// LimitError is a download or an archive over one of the Limits; nothing
// was installed.
type LimitError struct {
	What  string // "the download", "the entry x", ...
	Limit string // the limit, in words
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%s is over %s; refused, nothing was installed (a broken or hostile archive or mirror)", e.What, e.Limit)
}

// InsecureHTTPError is a plain-http URL off this machine, at the start or
// at a redirect; nothing was downloaded from it.
type InsecureHTTPError struct {
	URL      string
	Redirect bool
}

func (e *InsecureHTTPError) Error() string {
	where := "the plugin source"
	if e.Redirect {
		where = "a redirect of the plugin download to"
	}
	return fmt.Sprintf("%s %s is plain http:// to another machine, where anyone on the way can change the plugin; use https, or pass --insecure-http if you trust the network", where, e.URL)
}

// checkScheme refuses u unless it is https, or http to a loopback
// address (or insecure is set).
func checkScheme(u *url.URL, insecure, redirect bool) error {
	switch u.Scheme {
	case "https":
		return nil
	case "http":
		if insecure || loopback(u.Hostname()) {
			return nil
		}
		return &InsecureHTTPError{URL: u.Redacted(), Redirect: redirect}
	}
	return fmt.Errorf("the plugin download went to %s, which is not http(s); refused", u.Redacted())
}

// loopback reports whether host names this machine: localhost, or a
// loopback IP address (no name is resolved).
func loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// guardedClient returns a copy of c whose redirects are each checked by
// checkScheme (and limited to 10, as Go's default).
func guardedClient(c *http.Client, insecure bool) *http.Client {
	g := *c
	next := c.CheckRedirect
	g.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return fmt.Errorf("stopped after 10 redirects")
		}
		if err := checkScheme(req.URL, insecure, true); err != nil {
			return err
		}
		if next != nil {
			return next(req, via)
		}
		return nil
	}
	return &g
}
