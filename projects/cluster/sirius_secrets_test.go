package cluster

import (
	"net/url"
	"strings"
	"testing"

	"github.com/runnerhq/runner/engine/resource"
)

// find returns the declared resource of type typ named name.
func find(t *testing.T, list []declared, typ, name string) declared {
	t.Helper()
	for _, d := range list {
		if d.Type == typ && d.Name == name {
			return d
		}
	}
	t.Fatalf("no %s named %q declared", typ, name)
	return declared{}
}

func TestSiriusKeepsPasswordsInSecrets(t *testing.T) {
	list, outputs, err := runSirius(siriusConfig(), siriusRefs(), false)
	if err != nil {
		t.Fatal(err)
	}
	passwords := []string{testAccountsPwd, url.UserPassword("u", testAccountsPwd).String()[2:], testLedgerPwd, testDemoPwd}
	leaks := func(where string, v any, isSecretResource bool) {
		resource.Walk(v, func(x any, secret bool) bool {
			s, ok := x.(string)
			if !ok {
				return true
			}
			for _, p := range passwords {
				if strings.Contains(s, p) && (!secret || !isSecretResource) {
					t.Errorf("%s holds a password (secret %v) in %q", where, secret, s)
				}
			}
			return true
		})
	}
	for _, d := range list {
		leaks(d.Type+" "+d.Name, map[string]any(d.inputs), d.Type == secretType)
	}
	leaks("the stack outputs", map[string]any(outputs), false)

	// The derived URI is the one secret value of the program's own and
	// gives the password back.
	creds := find(t, list, secretType, credentialsSecretName)
	data, isSecret := creds.inputs["stringData"].(resource.Secret)
	if !isSecret {
		t.Fatalf("stringData of %s is not secret: %#v", credentialsSecretName, creds.inputs["stringData"])
	}
	uri, err := url.Parse(data.Element.(map[string]any)["ACCOUNTS_DB_URI"].(string))
	if err != nil {
		t.Fatal(err)
	}
	if pwd, _ := uri.User.Password(); pwd != testAccountsPwd || uri.User.Username() != "admin" || uri.Host != "accounts-db:5432" || uri.Path != "/postgresdb" {
		t.Errorf("ACCOUNTS_DB_URI = %v, want admin with the configured password at accounts-db:5432/postgresdb", uri.Redacted())
	}
	if _, isSecret := find(t, list, secretType, jwtSecretName).inputs["stringData"].(resource.Secret); !isSecret {
		t.Error("the JWT key Secret's stringData is not secret")
	}
}

// envOf returns the environment entry name of the first container of the
// workload d.
func envOf(t *testing.T, d declared, name string) map[string]any {
	t.Helper()
	spec := d.inputs["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)
	for _, e := range spec["containers"].([]any)[0].(map[string]any)["env"].([]any) {
		if e := e.(map[string]any); e["name"] == name {
			return e
		}
	}
	t.Fatalf("%s has no environment variable %s", d.Name, name)
	return nil
}

func TestSiriusPasswordsComeFromTheSecretsProject(t *testing.T) {
	list, _, err := runSirius(siriusConfig(), siriusRefs(), false)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		typ, workload, env, secret, key string
	}{
		{statefulSetType, "accounts-db", "POSTGRES_PASSWORD", testGroupSecret, accountsPwdKey},
		{statefulSetType, "ledger-db", "POSTGRES_PASSWORD", testGroupSecret, ledgerPwdKey},
		{deploymentType, "balancereader", "SPRING_DATASOURCE_PASSWORD", testGroupSecret, ledgerPwdKey},
		{deploymentType, "frontend", "DEFAULT_PASSWORD", testGroupSecret, demoLoginPwdKey},
		{deploymentType, "frontend", "DEFAULT_USERNAME", credentialsSecretName, "DEMO_LOGIN_USERNAME"},
		{deploymentType, "userservice", "ACCOUNTS_DB_URI", credentialsSecretName, "ACCOUNTS_DB_URI"},
	}
	for _, tt := range tests {
		e := envOf(t, find(t, list, tt.typ, tt.workload), tt.env)
		ref, _ := e["valueFrom"].(map[string]any)["secretKeyRef"].(map[string]any)
		if ref["name"] != tt.secret || ref["key"] != tt.key {
			t.Errorf("%s %s = %v, want the key %s of Secret %s", tt.workload, tt.env, e, tt.key, tt.secret)
		}
	}
	for _, d := range list {
		if md, ok := d.inputs["metadata"].(map[string]any); ok && md["namespace"] != testNamespace {
			t.Errorf("%s %s is in namespace %v, want the secrets project's %s", d.Type, d.Name, md["namespace"], testNamespace)
		}
	}
}

func TestSiriusNeedsItsInputs(t *testing.T) {
	noPwd := siriusConfig()
	delete(noPwd, "sirius:accounts_pwd")
	noGroup := siriusRefs()
	noGroup[SecretsProject] = resource.PropertyMap{
		SecretsNamespacesOutput: map[string]any{"prometheus": "prometheus"},
		SecretsSecretsOutput:    map[string]any{"prometheus": "p"},
	}
	tests := []struct {
		name string
		cfg  map[string]any
		refs map[string]resource.PropertyMap
		want string
	}{
		{"no accounts password", noPwd, siriusRefs(), "runner config set --secret sirius:accounts_pwd"},
		{"no sirius group", siriusConfig(), noGroup, `no entry for the "sirius" group`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := runSirius(tt.cfg, tt.refs, false)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one holding %q", err, tt.want)
			}
		})
	}
}
