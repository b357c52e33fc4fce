package engine_test

import "testing"

func TestEngineVersionIsRecordedInTheManifest(t *testing.T) {
	tests := []struct{ set, want string }{
		{set: "v1.2.3", want: "v1.2.3"},
		{set: "", want: "dev"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			e := newEnv(t)
			e.opts.EngineVersion = tt.set
			e.mustUp(chain("s"))
			if got := e.snap().Manifest.Version; got != tt.want {
				t.Errorf("manifest version %q, want %q", got, tt.want)
			}
		})
	}
}
