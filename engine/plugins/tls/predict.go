package tls

import "github.com/runnerhq/runner/engine/resource"

// predict fills, in a preview's outputs, the outputs that the inputs
// determine although the plugin generates them: the algorithm of a known
// key, and whether a certificate created now is already due for renewal.
// What stays unknown (keys, PEM, times) is new at every create.
func predict(typ string, in, outs resource.PropertyMap) {
	algorithm := func(out, key string) {
		if !known(in, key) {
			return
		}
		if k, err := parsePrivateKey(in, key); err == nil {
			outs[out] = algorithmName(k.Public())
		}
	}
	switch typ {
	case SelfSignedCertType:
		algorithm("keyAlgorithm", "privateKeyPem")
	case CertRequestType:
		algorithm("keyAlgorithm", "privateKeyPem")
	case LocallySignedCertType:
		algorithm("caKeyAlgorithm", "caPrivateKeyPem")
	}
	if typ == SelfSignedCertType || typ == LocallySignedCertType {
		if known(in, "validityPeriodHours") && known(in, "earlyRenewalHours") {
			hours, err1 := in.Int("validityPeriodHours", 0)
			early, err2 := in.Int("earlyRenewalHours", 0)
			if err1 == nil && err2 == nil {
				// A certificate is due once now passes its end less
				// earlyRenewalHours; it starts now.
				outs["readyForRenewal"] = early >= hours
			}
		}
	}
}
