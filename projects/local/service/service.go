// Package service is the local environment's HTTPS application: a small
// server on 127.0.0.1 with a certificate issued by the environment's own CA,
// whose /admin path asks for HTTP basic auth. runner runs it as a hidden
// subcommand, so nothing else has to be installed.
package service

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"time"
)

// Config is the service's configuration file, written by the app project.
// The admin password is kept only as a salted SHA-256 digest: in the file
// AdminPasswordFile names (read at each login, so a new password needs no
// restart and the configuration itself holds no secret), or inline.
type Config struct {
	Stack               string `json:"stack"`
	Listen              string `json:"listen"`
	CertFile            string `json:"certFile"`
	KeyFile             string `json:"keyFile"`
	AdminUser           string `json:"adminUser"`
	AdminPasswordSalt   string `json:"adminPasswordSalt"`
	AdminPasswordSHA256 string `json:"adminPasswordSha256,omitempty"`
	AdminPasswordFile   string `json:"adminPasswordFile,omitempty"`
	Greeting            string `json:"greeting,omitempty"`
}

// PasswordDigest returns the hex SHA-256 of salt followed by password, the
// form in which Config keeps the admin password.
func PasswordDigest(salt, password string) string {
	sum := sha256.Sum256([]byte(salt + password))
	return hex.EncodeToString(sum[:])
}

// LoadConfig reads and checks a configuration file.
func LoadConfig(path string) (Config, error) {
	var c Config
	b, err := os.ReadFile(path)
	if err != nil {
		return c, fmt.Errorf("reading the service configuration: %w", err)
	}
	if err := json.Unmarshal(b, &c); err != nil {
		return c, fmt.Errorf("the service configuration %s is not valid JSON: %w", path, err)
	}
	switch {
	case c.Listen == "":
		return c, fmt.Errorf("the service configuration %s has no listen address", path)
	case c.CertFile == "" || c.KeyFile == "":
		return c, fmt.Errorf("the service configuration %s names no certificate or key file", path)
	case c.AdminPasswordSHA256 == "" && c.AdminPasswordFile == "":
		return c, fmt.Errorf("the service configuration %s has no admin password digest (adminPasswordSha256 or adminPasswordFile)", path)
	}
	return c, nil
}

// Handler returns the service's routes: / and /healthz answer 200; /admin
// needs basic auth with the admin user and password.
func Handler(c Config) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("/admin", func(w http.ResponseWriter, r *http.Request) {
		user, pass, ok := r.BasicAuth()
		if !ok || !c.authorized(user, pass) {
			w.Header().Set("WWW-Authenticate", `Basic realm="runner local environment", charset="UTF-8"`)
			http.Error(w, "authentication required", http.StatusUnauthorized)
			return
		}
		fmt.Fprintf(w, "admin of stack %s: welcome, %s\n", c.Stack, user)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/" {
			http.NotFound(w, r)
			return
		}
		greeting := c.Greeting
		if greeting == "" {
			greeting = "runner local environment"
		}
		fmt.Fprintf(w, "%s (stack %s): ok\n", greeting, c.Stack)
	})
	return mux
}

func (c Config) authorized(user, pass string) bool {
	wantUser := c.AdminUser
	if wantUser == "" {
		wantUser = "admin"
	}
	want := c.AdminPasswordSHA256
	if c.AdminPasswordFile != "" {
		b, err := os.ReadFile(c.AdminPasswordFile)
		if err != nil {
			log.Printf("reading the admin password digest: %v", err)
			return false
		}
		want = strings.TrimSpace(string(b))
	}
	if want == "" {
		return false
	}
	u := subtle.ConstantTimeCompare([]byte(user), []byte(wantUser))
	p := subtle.ConstantTimeCompare([]byte(PasswordDigest(c.AdminPasswordSalt, pass)), []byte(want))
	return u&p == 1
}

// Serve runs the service until ctx ends, then shuts down gracefully.
func Serve(ctx context.Context, c Config) error {
	cert, err := tls.LoadX509KeyPair(c.CertFile, c.KeyFile)
	if err != nil {
		return fmt.Errorf("loading the service certificate: %w", err)
	}
	l, err := net.Listen("tcp", c.Listen)
	if err != nil {
		return fmt.Errorf("listening on %s: %w", c.Listen, err)
	}
	srv := &http.Server{
		Handler:           Handler(c),
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12},
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          log.New(os.Stderr, "service: ", log.LstdFlags),
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.ServeTLS(l, "", "") }()
	log.Printf("serving https://%s/ for stack %s", c.Listen, c.Stack)
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
		shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if err := srv.Shutdown(shut); err != nil {
			return err
		}
		if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}
}
