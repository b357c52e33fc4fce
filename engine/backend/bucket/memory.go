package bucket

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Memory is an Objects in memory, with conditional writes as S3 has them
// (tests and benchmarks). IgnoreConditions makes it behave as a store that
// ignores them, for the probe's tests.
type Memory struct {
	IgnoreConditions bool

	mu      sync.Mutex
	objects map[string]memObject
	etags   atomic.Int64
}

type memObject struct {
	data     []byte
	etag     string
	modified time.Time
}

// NewMemory returns an empty in-memory store.
func NewMemory() *Memory { return &Memory{objects: map[string]memObject{}} }

// Describe names the store.
func (m *Memory) Describe() string { return "memory://" }

// Get returns the object at key.
func (m *Memory) Get(_ context.Context, key string) (*Object, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.objects[key]
	if !ok {
		return nil, fmt.Errorf("reading %s: %w", key, ErrNotExist)
	}
	return &Object{Data: append([]byte(nil), o.data...), ETag: o.etag, Modified: o.modified, Now: time.Now()}, nil
}

// Put writes data at key under cond.
func (m *Memory) Put(_ context.Context, key string, data []byte, cond Cond) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, exists := m.objects[key]
	if !m.IgnoreConditions && (cond.IfNoneMatch && exists || cond.IfMatch != "" && (!exists || o.etag != cond.IfMatch)) {
		return "", fmt.Errorf("writing %s: %w", key, ErrPrecondition)
	}
	etag := fmt.Sprintf("%q", fmt.Sprint(m.etags.Add(1)))
	m.objects[key] = memObject{data: append([]byte(nil), data...), etag: etag, modified: time.Now()}
	return etag, nil
}

// Delete removes key, only while its ETag is ifMatch when that is set.
func (m *Memory) Delete(_ context.Context, key, ifMatch string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	o, ok := m.objects[key]
	if !ok && ifMatch != "" && !m.IgnoreConditions {
		return fmt.Errorf("deleting %s: %w", key, ErrNotExist)
	}
	if !ok {
		return nil
	}
	if ifMatch != "" && o.etag != ifMatch && !m.IgnoreConditions {
		return fmt.Errorf("deleting %s: %w", key, ErrPrecondition)
	}
	delete(m.objects, key)
	return nil
}

// DeleteMany removes keys.
func (m *Memory) DeleteMany(ctx context.Context, keys []string) error {
	for _, k := range keys {
		if err := m.Delete(ctx, k, ""); err != nil {
			return err
		}
	}
	return nil
}

// List returns the objects under prefix, sorted by key.
func (m *Memory) List(_ context.Context, prefix string) ([]ObjectInfo, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []ObjectInfo
	for k, o := range m.objects {
		if strings.HasPrefix(k, prefix) {
			out = append(out, ObjectInfo{Key: k, ETag: o.etag, Modified: o.modified, Size: int64(len(o.data))})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	return out, nil
}

// Counter counts the requests made of an Objects (benchmarks). With Log
// set, it also keeps each request ("GET key", "LIST prefix", ...), in order.
type Counter struct {
	Objects
	Gets, Puts, Deletes, Lists atomic.Int64
	Log                        bool

	mu       sync.Mutex
	requests []string
}

func (c *Counter) note(method, key string) {
	if !c.Log {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.requests = append(c.requests, method+" "+key)
}

// Requests returns the requests logged since the last call (Log), and
// forgets them.
func (c *Counter) Requests() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := c.requests
	c.requests = nil
	return out
}

// Total is the number of requests so far (a DeleteMany counts one).
func (c *Counter) Total() int64 {
	return c.Gets.Load() + c.Puts.Load() + c.Deletes.Load() + c.Lists.Load()
}

// Get counts and forwards.
func (c *Counter) Get(ctx context.Context, key string) (*Object, error) {
	c.Gets.Add(1)
	c.note("GET", key)
	return c.Objects.Get(ctx, key)
}

// Put counts and forwards.
func (c *Counter) Put(ctx context.Context, key string, data []byte, cond Cond) (string, error) {
	c.Puts.Add(1)
	c.note(condName("PUT", cond), key)
	return c.Objects.Put(ctx, key, data, cond)
}

// Delete counts and forwards.
func (c *Counter) Delete(ctx context.Context, key, ifMatch string) error {
	c.Deletes.Add(1)
	c.note(map[bool]string{true: "DELETE (If-Match)", false: "DELETE"}[ifMatch != ""], key)
	return c.Objects.Delete(ctx, key, ifMatch)
}

// DeleteMany counts and forwards.
func (c *Counter) DeleteMany(ctx context.Context, keys []string) error {
	c.Deletes.Add(1)
	c.note("DELETE many", strings.Join(keys, " "))
	return c.Objects.DeleteMany(ctx, keys)
}

// List counts and forwards.
func (c *Counter) List(ctx context.Context, prefix string) ([]ObjectInfo, error) {
	c.Lists.Add(1)
	c.note("LIST", prefix)
	return c.Objects.List(ctx, prefix)
}

func condName(method string, cond Cond) string {
	switch {
	case cond.IfNoneMatch:
		return method + " (If-None-Match)"
	case cond.IfMatch != "":
		return method + " (If-Match)"
	}
	return method
}
