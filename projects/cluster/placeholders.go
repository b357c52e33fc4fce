package cluster

import (
	"errors"

	"github.com/runnerhq/runner/engine"
)

// notWritten is a placeholder of a program being written in this session.
func notWritten(name string) engine.Program {
	return func(*engine.Context) error { return errors.New("the " + name + " program is not written yet") }
}

// The layers' programs (placeholders, each replaced by its own file).
var (
	Secrets           = notWritten("secrets")
	IngressNamespace  = notWritten("ingress-controller-namespace")
	IngressController = notWritten("ingress-controller")
	Logstore          = notWritten("logstore")
	Logagent          = notWritten("logagent")
	Certmgr           = notWritten("certmgr")
	Prometheus        = notWritten("prometheus")
	Observability     = notWritten("observability")
)

// FromProject re-exports the kubeconfig and cluster name of project (eks).
func FromProject(project string) engine.Program { return notWritten("kubeconfig") }
