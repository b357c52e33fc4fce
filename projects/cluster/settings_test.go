package cluster

import (
	"strings"
	"testing"
)

func TestCheckSettings(t *testing.T) {
	tests := []struct {
		name string
		cfg  map[string]string
		want []string // each in the error; none: no error
	}{
		{"MARA's example", map[string]string{"logstore:helm_timeout": "300", "prometheus:helm_repo_url": "https://https://prometheus-community.github.io/helm-charts",
			"logstore:master_replicas": "3", "kic:image_name": "nginx/nginx-ingress:2.4.2", "logstore:helm_repo_url": "https://charts.bitnami.com/bitnami"}, nil},
		{"unset and empty keys take defaults", map[string]string{"logstore:persistence": " "}, nil},
		{"every problem at once", map[string]string{"logstore:helm_timeout": "0", "logstore:persistence": "yes", "logstore:data_replicas": "none",
			"certmgr:certmgr_helm_repo_url": "charts.jetstack.io", "kic:image_name": "nginx/nginx-ingress:"},
			[]string{"logstore:helm_timeout must be a whole number of at least 1", "logstore:persistence is \"yes\"", "logstore:data_replicas",
				"certmgr:certmgr_helm_repo_url must be the URL", "kic:image_name"}},
		{"a namespace's timeout named once", map[string]string{"prometheus:helm_timeout": "5m"}, []string{"prometheus:helm_timeout"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckSettings(func(k string) (string, bool) { v, ok := tt.cfg[k]; return v, ok })
			if len(tt.want) == 0 {
				if err != nil {
					t.Fatalf("error %v, want none", err)
				}
				return
			}
			if err == nil {
				t.Fatalf("no error, want %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("the error does not say %q: %v", w, err)
				}
			}
			if n := strings.Count(err.Error(), "prometheus:helm_timeout"); n > 1 {
				t.Errorf("prometheus:helm_timeout named %d times: %v", n, err)
			}
		})
	}
}
