// Package bucket is the backend that keeps state in an object store (S3
// and stores that speak its protocol) in Pulumi's DIY layout, so that the
// Pulumi CLI logged in to the same bucket reads runner's stacks and runner
// reads the stacks Pulumi wrote:
//
//	.pulumi/meta.yaml                                     version: 1 (the project layout)
//	.pulumi/stacks/<project>/<stack>.json                 the committed state: a version 3 checkpoint
//	.pulumi/stacks/<project>/<stack>.json.bak             the checkpoint it replaced
//	.pulumi/history/<project>/<stack>/<stack>-<ns>.history.json  one update record per operation
//	.pulumi/locks/organization/<project>/<stack>/runner.json     the project's lock (Pulumi sees it as a lock)
//	.runner/stacks/<stack>/lock.json                      the stack-wide lock (runner only)
//	.runner/stacks/<stack>/tags.json                      the stack's tags
//	.runner/stacks/<stack>/secrets.json                   what each checkpoint records of its secrets, by its ETag (secretsindex.go)
//	.runner/stacks/<stack>/<project>/journal/<op>/<seq>.jsonl  journal segments of an operation
//	.runner/probe/<id>                                    the conditional-write probe (removed after)
//
// Locks are objects created with a conditional write (If-None-Match: *),
// renewed by a heartbeat (If-Match on the ETag the holder last wrote) and
// released by a conditional delete of the holder's own object; their age
// is judged by the store's clock (the response's Date against the lock's
// Last-Modified). A commit is fenced: it checks that the operation's lock
// is still its own and writes the checkpoint with If-Match on the ETag of
// the checkpoint the operation began from. A journal segment is one PUT
// per group commit (If-None-Match: *), so a killed run leaves the old
// checkpoint and its journal, or the new checkpoint: the next run, from
// any machine, folds the journal with backend.Fold.
package bucket

import (
	"context"
	"errors"
	"time"
)

// Objects is the object store a Store keeps its files in. Keys are
// relative to the store's prefix. Implementations are safe for concurrent
// use.
type Objects interface {
	// Get returns the object at key; an error wrapping ErrNotExist when
	// there is none.
	Get(ctx context.Context, key string) (*Object, error)
	// Put writes data at key, under cond; it returns the new ETag. An unmet
	// condition (IfMatch on a key that has no object included) is an
	// error wrapping ErrPrecondition.
	Put(ctx context.Context, key string, data []byte, cond Cond) (string, error)
	// Delete removes key; with ifMatch set, only while its ETag is ifMatch
	// (else ErrPrecondition, where the store honours it). A missing key is
	// not an error, but with ifMatch set it may be one wrapping ErrNotExist
	// (as S3 answers a conditional DELETE of a missing key).
	Delete(ctx context.Context, key, ifMatch string) error
	// DeleteMany removes keys (missing ones are not an error).
	DeleteMany(ctx context.Context, keys []string) error
	// List returns the objects whose key begins with prefix, sorted by key.
	List(ctx context.Context, prefix string) ([]ObjectInfo, error)
	// Describe names the store for messages (a URL with no secret).
	Describe() string
}

// Object is an object as read.
type Object struct {
	Data []byte
	ETag string
	// Modified is when it was last written, by the store's clock.
	Modified time.Time
	// Now is the store's clock when it answered (its Date header); zero
	// when unknown.
	Now time.Time
}

// ObjectInfo is an object as listed.
type ObjectInfo struct {
	Key      string
	ETag     string
	Modified time.Time
	Size     int64
}

// Cond is the condition of a Put: IfNoneMatch creates only (no object at
// the key), IfMatch replaces only the object whose ETag it is.
type Cond struct {
	IfNoneMatch bool
	IfMatch     string
}

// The errors of an Objects implementation (wrapped).
var (
	ErrNotExist     = errors.New("no such object")
	ErrPrecondition = errors.New("the object changed (a conditional write was refused)")
)
