package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestEKSToken(t *testing.T) {
	now := func() time.Time { return time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC) }
	for _, kv := range os.Environ() {
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "AWS_") {
			t.Setenv(k, "")
			os.Unsetenv(k)
		}
	}
	home := t.TempDir()
	for k, v := range map[string]string{"AWS_ACCESS_KEY_ID": "AKID", "AWS_SECRET_ACCESS_KEY": "SECRET", "HOME": home,
		"AWS_EC2_METADATA_DISABLED": "true", "AWS_CONFIG_FILE": filepath.Join(home, "config"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(home, "credentials")} {
		t.Setenv(k, v)
	}
	var out bytes.Buffer
	err := EKSToken(context.Background(), &out, EKSTokenOptions{ClusterName: "mara-dev", Region: "us-east-1", Now: now})
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Kind   string
		Status struct{ Token, ExpirationTimestamp string }
	}
	if err := json.Unmarshal(out.Bytes(), &doc); err != nil || doc.Kind != "ExecCredential" ||
		!strings.HasPrefix(doc.Status.Token, "k8s-aws-v1.") || doc.Status.ExpirationTimestamp != "2026-11-03T10:14:00Z" {
		t.Fatalf("%v %s", err, out.String())
	}
	if strings.Contains(out.String(), "SECRET") {
		t.Fatal("the secret key is in the output")
	}

	os.Unsetenv("AWS_ACCESS_KEY_ID")
	t.Setenv("AWS_PROFILE", "")
	err = EKSToken(context.Background(), &out, EKSTokenOptions{ClusterName: "mara-dev", Region: "us-east-1", Now: now})
	var verr *ValidationError
	if !errors.As(err, &verr) || !strings.Contains(err.Error(), "no AWS credentials: set AWS_ACCESS_KEY_ID") {
		t.Fatalf("without credentials: %v", err)
	}
	err = EKSToken(context.Background(), &out, EKSTokenOptions{ClusterName: "mara-dev", Region: "us-east-1", Profile: "ops", Now: now})
	if !errors.As(err, &verr) || !strings.Contains(err.Error(), "the config profile (ops) could not be found") {
		t.Fatalf("a --profile found nowhere: %v", err)
	}
}
