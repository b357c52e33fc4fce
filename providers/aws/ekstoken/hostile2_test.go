package ekstoken

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestProcessTimeoutWithBackgroundChild: a credential_process whose shell
// leaves a child holding its stdout (a tool that forks a helper, or
// "tool; sleep") must still stop at the timeout: the wait for its output
// outlived the kill, so kubectl waited forever. (Hostile tester's
// regression.)
func TestProcessTimeoutWithBackgroundChild(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	l := &loader{ctx: ctx, env: func(string) string { return "" }}
	done := make(chan error, 1)
	go func() {
		_, err := l.fromProcess("slow", "exec 2>/dev/null; sleep 20 & sleep 20")
		done <- err
	}()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "did not finish") {
			t.Errorf("err = %v, want a timeout saying the credential_process did not finish", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("fromProcess still waits 10 s after its deadline: a child of the shell holds its output open")
	}
}
