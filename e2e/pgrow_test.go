package e2e

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestPostgresHandEditedRowNamesWhatIsMissing: a snapshot row edited by
// hand into {"version": 3} without its "deployment" object makes preview
// fail saying what is missing; it said "the deployment has version 3;
// only version 3 is supported".
func TestPostgresHandEditedRowNamesWhatIsMissing(t *testing.T) {
	dir, srv, db, env := pgWorkspace(t)
	pgOK(t, dir, env, srv, "--non-interactive", "up", "--yes")
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, srv.URL(db, true))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `UPDATE runner_snapshots SET data = convert_to('{"version": 3, "checkpoint": {}}', 'UTF8') WHERE project = 'network'`); err != nil {
		t.Fatal(err)
	}
	r := run(t, dir, "", env, "--non-interactive", "preview")
	out := r.Stdout + r.Stderr
	if r.Code == 0 || !strings.Contains(out, `no "deployment" object`) || strings.Contains(out, "only version 3") {
		t.Errorf("preview over a row without a deployment exited %d, want a failure naming the missing object:\n%s", r.Code, out)
	}
	noPassword(t, srv, "preview's output", out)
}
