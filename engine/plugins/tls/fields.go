package tls

import (
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/runnerhq/runner/engine/resource"
)

// subjectFields maps Pulumi's subject properties to their setters.
var subjectFields = map[string]func(*pkix.Name, []string){
	"commonName":         func(n *pkix.Name, v []string) { n.CommonName = v[0] },
	"serialNumber":       func(n *pkix.Name, v []string) { n.SerialNumber = v[0] },
	"organization":       func(n *pkix.Name, v []string) { n.Organization = v },
	"organizationalUnit": func(n *pkix.Name, v []string) { n.OrganizationalUnit = v },
	"streetAddresses":    func(n *pkix.Name, v []string) { n.StreetAddress = v },
	"locality":           func(n *pkix.Name, v []string) { n.Locality = v },
	"province":           func(n *pkix.Name, v []string) { n.Province = v },
	"country":            func(n *pkix.Name, v []string) { n.Country = v },
	"postalCode":         func(n *pkix.Name, v []string) { n.PostalCode = v },
}

// subject reads the subject object: commonName, organization,
// organizationalUnit, streetAddresses (a list), locality, province,
// country, postalCode and serialNumber.
func subject(m resource.PropertyMap) (pkix.Name, error) {
	var name pkix.Name
	v, _ := resource.Unsecret(m["subject"])
	if v == nil {
		return name, nil
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return name, fmt.Errorf(`property "subject" must be an object`)
	}
	sub := resource.PropertyMap(obj)
	for k := range obj {
		set, ok := subjectFields[k]
		if !ok {
			return name, fmt.Errorf(`property "subject.%s" is not a subject field; use commonName, organization, organizationalUnit, streetAddresses, locality, province, country, postalCode or serialNumber`, k)
		}
		var vals []string
		if k == "streetAddresses" {
			list, err := sub.StringList(k)
			if err != nil {
				return name, fmt.Errorf(`in "subject": %w`, err)
			}
			vals = list
		} else {
			s, err := sub.String(k, "")
			if err != nil {
				return name, fmt.Errorf(`in "subject": %w`, err)
			}
			vals = []string{s}
		}
		if len(vals) > 0 && vals[0] != "" {
			set(&name, vals)
		}
	}
	return name, nil
}

// keyUsages and extKeyUsages are the allowedUses values Pulumi accepts.
var keyUsages = map[string]x509.KeyUsage{
	"digital_signature":  x509.KeyUsageDigitalSignature,
	"content_commitment": x509.KeyUsageContentCommitment,
	"key_encipherment":   x509.KeyUsageKeyEncipherment,
	"data_encipherment":  x509.KeyUsageDataEncipherment,
	"key_agreement":      x509.KeyUsageKeyAgreement,
	"cert_signing":       x509.KeyUsageCertSign,
	"crl_signing":        x509.KeyUsageCRLSign,
	"encipher_only":      x509.KeyUsageEncipherOnly,
	"decipher_only":      x509.KeyUsageDecipherOnly,
}

var extKeyUsages = map[string]x509.ExtKeyUsage{
	"any_extended":                      x509.ExtKeyUsageAny,
	"server_auth":                       x509.ExtKeyUsageServerAuth,
	"client_auth":                       x509.ExtKeyUsageClientAuth,
	"code_signing":                      x509.ExtKeyUsageCodeSigning,
	"email_protection":                  x509.ExtKeyUsageEmailProtection,
	"ipsec_end_system":                  x509.ExtKeyUsageIPSECEndSystem,
	"ipsec_tunnel":                      x509.ExtKeyUsageIPSECTunnel,
	"ipsec_user":                        x509.ExtKeyUsageIPSECUser,
	"timestamping":                      x509.ExtKeyUsageTimeStamping,
	"ocsp_signing":                      x509.ExtKeyUsageOCSPSigning,
	"microsoft_server_gated_crypto":     x509.ExtKeyUsageMicrosoftServerGatedCrypto,
	"netscape_server_gated_crypto":      x509.ExtKeyUsageNetscapeServerGatedCrypto,
	"microsoft_commercial_code_signing": x509.ExtKeyUsageMicrosoftCommercialCodeSigning,
	"microsoft_kernel_code_signing":     x509.ExtKeyUsageMicrosoftKernelCodeSigning,
}

// snake turns "certSigning" into "cert_signing"; Pulumi's documentation
// spells the values both ways.
func snake(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}

// uses reads allowedUses into key usages and extended key usages.
func uses(m resource.PropertyMap) (x509.KeyUsage, []x509.ExtKeyUsage, error) {
	list, err := m.StringList("allowedUses")
	if err != nil {
		return 0, nil, err
	}
	var ku x509.KeyUsage
	var eku []x509.ExtKeyUsage
	for _, u := range list {
		s := snake(u)
		if k, ok := keyUsages[s]; ok {
			ku |= k
		} else if e, ok := extKeyUsages[s]; ok {
			eku = append(eku, e)
		} else {
			return 0, nil, fmt.Errorf(`property "allowedUses": %q is not a key usage; use values such as key_encipherment, digital_signature, server_auth, client_auth, cert_signing or crl_signing`, u)
		}
	}
	return ku, eku, nil
}

// names reads dnsNames, ipAddresses and uris.
func names(m resource.PropertyMap) ([]string, []net.IP, []*url.URL, error) {
	dns, err := m.StringList("dnsNames")
	if err != nil {
		return nil, nil, nil, err
	}
	ipStrs, err := m.StringList("ipAddresses")
	if err != nil {
		return nil, nil, nil, err
	}
	var ips []net.IP
	for _, s := range ipStrs {
		ip := net.ParseIP(s)
		if ip == nil {
			return nil, nil, nil, fmt.Errorf(`property "ipAddresses": %q is not an IP address`, s)
		}
		ips = append(ips, ip)
	}
	uriStrs, err := m.StringList("uris")
	if err != nil {
		return nil, nil, nil, err
	}
	var uris []*url.URL
	for _, s := range uriStrs {
		u, err := url.Parse(s)
		if err != nil {
			return nil, nil, nil, fmt.Errorf(`property "uris": %q is not a URI`, s)
		}
		uris = append(uris, u)
	}
	return dns, ips, uris, nil
}

// checkKnown runs check unless one of keys holds an unknown value.
func checkKnown(m resource.PropertyMap, check func() error, keys ...string) error {
	for _, k := range keys {
		if !m.Known(k) {
			return nil
		}
	}
	return check()
}
