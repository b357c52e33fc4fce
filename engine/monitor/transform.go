package monitor

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	pulumirpc "github.com/pulumi/pulumi/sdk/v3/proto/go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/emptypb"

	"github.com/runnerhq/runner/engine/resource"
)

// transforms are a program run's transforms, kept as Pulumi's engine keeps
// them: the stack's (RegisterStackTransform), applied to every later
// registration; each resource's own (the transforms option), applied to
// it and to its descendants; the stack's invoke transforms, applied to
// every later invoke. A transform is a callback into the program
// (Pulumi's Callbacks service), whose connection is kept for the run.
type transforms struct {
	// used is set once the program registers any transform: until then a
	// registration pays one atomic load for them.
	used atomic.Bool

	mu      sync.Mutex
	stack   []callback
	invoke  []callback
	own     map[resource.URN][]callback   // a resource's own transforms, which its descendants get too
	parents map[resource.URN]resource.URN // the parent of each resource registered since used was set
	// pending holds a remote component's own transforms until its
	// provider registers it through this monitor (Pulumi's
	// pendingTransforms), by parent::type::name.
	pending map[string][]callback
	conns   map[string]*grpc.ClientConn // by the callback server's target
	closed  bool
}

// callback is a function of the program, called through its Callbacks
// service.
type callback struct {
	client pulumirpc.CallbacksClient
	token  string
}

// call calls the callback with request, decoding its answer into resp.
func (c callback) call(ctx context.Context, req, resp proto.Message) error {
	b, err := proto.Marshal(req)
	if err != nil {
		return fmt.Errorf("encoding the request: %w", err)
	}
	ans, err := c.client.Invoke(ctx, &pulumirpc.CallbackInvokeRequest{Token: c.token, Request: b})
	if err != nil {
		return err
	}
	if err := proto.Unmarshal(ans.GetResponse(), resp); err != nil {
		return fmt.Errorf("decoding the program's answer: %w", err)
	}
	return nil
}

// callback returns the callback cb names, dialling its server the first
// time the run names it.
func (t *transforms) callback(cb *pulumirpc.Callback) (callback, error) {
	if cb.GetTarget() == "" {
		return callback{}, fmt.Errorf("the callback %q names no server (target)", cb.GetToken())
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed {
		return callback{}, fmt.Errorf("the program's run has ended")
	}
	conn, ok := t.conns[cb.GetTarget()]
	if !ok {
		var err error
		conn, err = grpc.NewClient(cb.GetTarget(), grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithDefaultCallOptions(grpc.MaxCallRecvMsgSize(maxMessage), grpc.MaxCallSendMsgSize(maxMessage)))
		if err != nil {
			return callback{}, fmt.Errorf("connecting to the program's callbacks at %s: %w", cb.GetTarget(), err)
		}
		if t.conns == nil {
			t.conns = map[string]*grpc.ClientConn{}
		}
		t.conns[cb.GetTarget()] = conn
	}
	return callback{client: pulumirpc.NewCallbacksClient(conn), token: cb.GetToken()}, nil
}

// close closes the connections to the program's callbacks.
func (t *transforms) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.closed = true
	for _, c := range t.conns {
		_ = c.Close() // the program's run is over
	}
	t.conns = nil
}

// RegisterStackTransform adds a transform that every later registration
// of the run goes through.
func (m *monitor) RegisterStackTransform(_ context.Context, cb *pulumirpc.Callback) (*emptypb.Empty, error) {
	return m.addStackCallback(cb, false)
}

// RegisterStackInvokeTransform adds a transform that every later invoke
// of the run goes through.
func (m *monitor) RegisterStackInvokeTransform(_ context.Context, cb *pulumirpc.Callback) (*emptypb.Empty, error) {
	return m.addStackCallback(cb, true)
}

// addStackCallback adds a stack transform (invoke: an invoke transform).
func (m *monitor) addStackCallback(cb *pulumirpc.Callback, invoke bool) (*emptypb.Empty, error) {
	c, err := m.tf.callback(cb)
	if err != nil {
		return nil, status.Errorf(codes.InvalidArgument, "registering a stack transform: %v", err)
	}
	m.tf.mu.Lock()
	if invoke {
		m.tf.invoke = append(m.tf.invoke, c)
	} else {
		m.tf.stack = append(m.tf.stack, c)
	}
	m.tf.mu.Unlock()
	m.tf.used.Store(true)
	return &emptypb.Empty{}, nil
}

// ownTransforms returns a registration's own transforms: those of its
// request, or, for a component a provider registers after a program
// asked for it (Construct), those the program gave it.
func (m *monitor) ownTransforms(req *pulumirpc.RegisterResourceRequest) ([]callback, error) {
	key := req.GetParent() + "::" + req.GetType() + "::" + req.GetName()
	m.tf.mu.Lock()
	pending, ok := m.tf.pending[key]
	if ok {
		delete(m.tf.pending, key)
	}
	m.tf.mu.Unlock()
	if ok {
		return pending, nil
	}
	own := make([]callback, 0, len(req.GetTransforms()))
	for _, cb := range req.GetTransforms() {
		c, err := m.tf.callback(cb)
		if err != nil {
			return nil, err
		}
		own = append(own, c)
	}
	if len(own) > 0 {
		m.tf.used.Store(true)
		if req.GetRemote() {
			m.tf.mu.Lock()
			if m.tf.pending == nil {
				m.tf.pending = map[string][]callback{}
			}
			m.tf.pending[key] = own
			m.tf.mu.Unlock()
		}
	}
	return own, nil
}

// chain returns the transforms a registration goes through, in Pulumi's
// order: its own, then each ancestor's from the nearest up, then the
// stack's.
func (t *transforms) chain(own []callback, parent resource.URN) []callback {
	t.mu.Lock()
	defer t.mu.Unlock()
	out := append([]callback(nil), own...)
	for p := parent; p != ""; p = t.parents[p] {
		out = append(out, t.own[p]...)
	}
	return append(out, t.stack...)
}

// record remembers a registered resource's parent and own transforms,
// for the transforms of its descendants.
func (t *transforms) record(urn, parent resource.URN, own []callback) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.parents == nil {
		t.parents, t.own = map[resource.URN]resource.URN{}, map[resource.URN][]callback{}
	}
	t.parents[urn] = parent
	if len(own) > 0 {
		t.own[urn] = own
	}
}

// transformInvoke passes an invoke through the stack's invoke transforms,
// rewriting its arguments and options.
func (m *monitor) transformInvoke(ctx context.Context, req *pulumirpc.ResourceInvokeRequest) error {
	m.tf.mu.Lock()
	chain := append([]callback(nil), m.tf.invoke...)
	m.tf.mu.Unlock()
	if len(chain) == 0 {
		return nil
	}
	args := req.GetArgs()
	opts := &pulumirpc.TransformInvokeOptions{Provider: req.GetProvider(), Version: req.GetVersion(),
		PluginDownloadUrl: req.GetPluginDownloadURL(), PluginChecksums: req.GetPluginChecksums()}
	for _, c := range chain {
		var resp pulumirpc.TransformInvokeResponse
		if err := c.call(ctx, &pulumirpc.TransformInvokeRequest{Token: req.GetTok(), Args: args, Options: opts}, &resp); err != nil {
			return invokeTransformFailed(req.GetTok(), err)
		}
		if resp.GetArgs() != nil {
			args = resp.GetArgs()
		}
		if resp.GetOptions() != nil {
			opts = resp.GetOptions()
		}
	}
	req.Args, req.Provider, req.Version = args, opts.GetProvider(), opts.GetVersion()
	req.PluginDownloadURL, req.PluginChecksums = opts.GetPluginDownloadUrl(), opts.GetPluginChecksums()
	return nil
}
