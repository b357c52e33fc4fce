package bucket

import "testing"

func TestCheckpointProvider(t *testing.T) {
	tests := []struct {
		name, data, salt string
		fails            bool
	}{
		{"as written", `{"version":3,"checkpoint":{"stack":"s","latest":{"manifest":{},"secrets_providers":{"type":"passphrase","state":{"salt":"v1:a"}},"resources":[]}}}`, "v1:a", false},
		{"after the resources", `{"checkpoint":{"latest":{"resources":[{"urn":"u","inputs":{"secrets_providers":{"type":"passphrase","state":{"salt":"v1:no"}}}}],"secrets_providers":{"type":"passphrase","state":{"salt":"v1:b"}}}}}`, "v1:b", false},
		{"no provider", `{"version":3,"checkpoint":{"stack":"s","latest":{"manifest":{},"resources":[]}}}`, "", false},
		{"no latest", `{"version":3,"checkpoint":{"stack":"s"}}`, "", false},
		{"not an object", `[1,2]`, "", true},
		{"cut short", `{"checkpoint":{"latest":{"manifest":{"ti`, "", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := checkpointProvider([]byte(tt.data))
			if (err != nil) != tt.fails || p.PassphraseSalt() != tt.salt {
				t.Fatalf("checkpointProvider = %v, %v; want salt %q, error %v", p, err, tt.salt, tt.fails)
			}
		})
	}
}
