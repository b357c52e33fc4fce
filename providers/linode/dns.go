package linode

import (
	"context"
	"fmt"

	"github.com/runnerhq/runner/projects/cluster"
	"github.com/runnerhq/runner/providers"
)

// dnsNotice is the ingress-controller project's on_success hook on
// linode. runner makes no DNS record on Linode (nor did MARA, whose
// Harbor instance had Linode's own name for it), so it names the records
// to make: kic-helm:fqdn (Bank of Sirius) and harbor.<it> (Harbor, whose
// Let's Encrypt certificate is issued once that name reaches the load
// balancer).
func dnsNotice(_ context.Context, in providers.HookInput) error {
	fqdn, _ := in.Config[cluster.FQDNKey].(string)
	if fqdn == "" {
		return nil
	}
	at := "the ingress controller's load balancer"
	if ip := providers.Plain(in.Outputs, cluster.LBIPOutput); ip != "" {
		at += " " + ip
	} else {
		at += " (its address is not known yet: see `runner stack output --project " + in.Project + "`)"
	}
	_, err := fmt.Fprintf(in.Log, "runner makes no DNS record on Linode: point %s and harbor.%s at %s; Harbor's certificate is issued once harbor.%s resolves there\n",
		fqdn, fqdn, at, fqdn)
	return err
}
