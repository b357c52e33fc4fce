package state

import "testing"

func TestOrigin(t *testing.T) {
	r1, r2 := &Resource{URN: "a"}, &Resource{URN: "b"}
	stamped := func() *Snapshot {
		s := &Snapshot{Resources: []*Resource{r1, r2}}
		s.SetOrigin("v1")
		return s
	}
	tests := []struct {
		name string
		snap func() *Snapshot
		want string
	}{
		{"as read", stamped, "v1"},
		{"nil", func() *Snapshot { return nil }, ""},
		{"never stamped", func() *Snapshot { return &Snapshot{} }, ""},
		{"a copy of the struct", func() *Snapshot { c := *stamped(); return &c }, ""},
		{"a resource added", func() *Snapshot { s := stamped(); s.Resources = append(s.Resources, &Resource{}); return s }, ""},
		{"a resource removed", func() *Snapshot { s := stamped(); s.Resources = s.Resources[1:]; return s }, ""},
		{"a pending operation added", func() *Snapshot {
			s := stamped()
			s.PendingOperations = append(s.PendingOperations, PendingOperation{Resource: r1})
			return s
		}, ""},
		{"stamped again", func() *Snapshot { s := stamped(); s.Resources = s.Resources[:1]; s.SetOrigin("v2"); return s }, "v2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.snap().Origin(); got != tt.want {
				t.Fatalf("Origin() = %q, want %q", got, tt.want)
			}
		})
	}
}
