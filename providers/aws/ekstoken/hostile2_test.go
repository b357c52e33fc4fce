package ekstoken

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestProcessTimeoutWithBackgroundChild: a credential_process whose shell
// leaves a child holding its stdout (a tool that forks a helper, or
// "tool; sleep") must still stop at the deadline: the SDK kills the shell
// but waits on for that output, so kubectl waited forever. (Hostile
// tester's regression.)
func TestProcessTimeoutWithBackgroundChild(t *testing.T) {
	home := t.TempDir()
	writeFiles(t, home, map[string]string{".aws/config": "[profile slow]\ncredential_process = exec 2>/dev/null; sleep 20 & sleep 20\n"})
	isolate(t, home, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := Credentials(ctx, "slow", "us-east-1", time.Now())
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "did not finish in time") {
			t.Errorf("err = %v, want one saying the search for credentials did not finish", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Credentials still waits 10 s after its deadline: a child of the shell holds its output open")
	}
}

// TestCancelledSearchKeepsTheCancellation: Ctrl-C while the search waits
// on the instance metadata service, whose failure reads as "no
// credentials", must still end as cancelled (exit 130), not as "no AWS
// credentials" (exit 3).
func TestCancelledSearchKeepsTheCancellation(t *testing.T) {
	hang := make(chan struct{})
	defer close(hang)
	imds := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-hang:
		case <-r.Context().Done():
		}
	}))
	defer imds.Close()
	isolate(t, t.TempDir(), map[string]string{"AWS_EC2_METADATA_DISABLED": "false", "AWS_EC2_METADATA_SERVICE_ENDPOINT": imds.URL})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	_, err := Credentials(ctx, "", "us-east-1", time.Now())
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want one wrapping context.Canceled", err)
	}
}
