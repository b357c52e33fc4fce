package do

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	projcluster "github.com/runnerhq/runner/projects/cluster"
	"github.com/runnerhq/runner/projects/docean"
	"github.com/runnerhq/runner/providers"
)

// questions are MARA's DigitalOcean settings with MARA's defaults, in
// the order MARA asked them (the token, the host name, the Kubernetes
// version, the region, the node size and count), then the registry's
// subscription tier, which MARA read but never asked. MARA looked
// versions, regions and sizes up with doctl; runner checks the shape of
// each answer instead (a later version may ask DigitalOcean's API).
func questions() []providers.Question {
	return []providers.Question{
		{Key: docean.TokenKey, Message: "DigitalOcean API token", Secret: true, SetBy: []string{docean.TokenEnv},
			Help: "a personal access token with read and write scope; DIGITALOCEAN_TOKEN in the environment or the environment file is used instead when set", Validate: providers.APIToken("a DigitalOcean API token (such as dop_v1_ and 64 hex digits)")},
		{Key: "kic-helm:fqdn", Message: "Host name of the ingress controller (its DNS A record is made in this domain of your account)",
			Help:     "such as mara.example.com: the record mara in the domain example.com, which must be in your DigitalOcean account",
			Validate: func(v string) error { _, _, err := docean.SplitFQDN(v); return err }},
		{Key: docean.VersionKey, Message: "Kubernetes version of DOKS", Help: "a DOKS version slug, " + oldestMinor + " or later, such as " + docean.DefaultVersion,
			Default: providers.Constant(docean.DefaultVersion), Validate: version},
		{Key: docean.RegionKey, Message: "DigitalOcean region", Help: "the region slug of the cluster and registry, such as sfo3 or nyc1",
			Default: providers.Constant(docean.DefaultRegion), Validate: providers.Matches(`^[a-z]{3}[0-9]$`, "a DigitalOcean region slug such as sfo3 or nyc1")},
		{Key: docean.SizeKey, Message: "Droplet size of the nodes", Default: providers.Constant(docean.DefaultSize),
			Validate: providers.Matches(`^[a-z0-9]+(-[a-z0-9]+)+$`, "a Droplet size slug such as s-4vcpu-8gb")},
		{Key: docean.NodeCountKey, Message: "Number of nodes", Default: providers.Constant(docean.DefaultNodeCount), Validate: providers.NodeCount(512)},
		{Key: docean.TierKey, Message: "Subscription tier of the container registry (a new one; an existing registry keeps its own)",
			Help:    "MARA's example config sets it as " + docean.TierAliasKey + ", which runner reads too",
			Default: providers.Constant(docean.DefaultTier), DefaultFrom: tierAlias, Choices: docean.Tiers},
	}
}

// tierAlias is the tier MARA's example config's key holds, the default of
// MARA's own key ("" when unset).
func tierAlias(get func(string) (string, bool)) string {
	v, _ := get(docean.TierAliasKey)
	return strings.TrimSpace(v)
}

// validate checks the config as a whole: the Kubernetes projects'
// settings.
func validate(get func(string) (string, bool)) error {
	var errs []error
	if err := projcluster.CheckSettings(get); err != nil {
		errs = append(errs, err)
	}
	// The example config's tier key, and the two keys' agreement (the
	// question checks MARA's key's own value, which is left out here when
	// it is no tier, so as not to name it twice).
	tierOf := func(k string) (string, error) {
		v, _ := get(k)
		v = strings.TrimSpace(v)
		if k == docean.TierKey && !slices.Contains(docean.Tiers, v) {
			v = ""
		}
		return v, nil
	}
	if _, err := docean.Tier(tierOf); err != nil {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// oldestMinor is the oldest Kubernetes minor version DOKS still runs
// (2026-11); older versions are refused.
const oldestMinor = "1.31"

var versionRE = regexp.MustCompile(`^1\.(\d+)\.\d+-do\.\d+$`)

// version accepts a DOKS version slug of a minor version DOKS supports.
func version(v string) error {
	m := versionRE.FindStringSubmatch(v)
	if m == nil {
		return fmt.Errorf("must be a DOKS version slug such as %s, not %q", docean.DefaultVersion, v)
	}
	minor, _ := strconv.Atoi(m[1])
	oldest, _ := strconv.Atoi(strings.TrimPrefix(oldestMinor, "1."))
	if minor < oldest {
		return fmt.Errorf("must be a version DOKS still supports (%s or later, such as %s): %s is past DOKS support", oldestMinor, docean.DefaultVersion, v)
	}
	return nil
}
