package runner

import (
	"errors"
	"fmt"
	"testing"

	"github.com/runnerhq/runner/engine/resource"
)

// TestIsValidationConfig checks a plugin's missing or refused configuration
// is a validation error (exit code 3), and another plugin failure is not.
func TestIsValidationConfig(t *testing.T) {
	tests := []struct {
		err  error
		want bool
	}{
		{fmt.Errorf("up vpc: %w", &resource.MissingConfigError{Package: "aws"}), true},
		{fmt.Errorf("up vpc: %w", &resource.ConfigureError{Package: "aws", Err: errors.New("no credentials")}), true},
		{fmt.Errorf("up vpc: %w", errors.New("the aws plugin's create failed")), false},
	}
	for _, tt := range tests {
		if got := IsValidation(tt.err); got != tt.want {
			t.Errorf("IsValidation(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}
