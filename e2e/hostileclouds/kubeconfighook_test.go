package hostileclouds

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A hand-edited $KUBECONFIG with its clusters list written twice: the eks
// hook merged the cluster into the first list, which kubectl does not
// read, and exited 0; a second YAML document was silently dropped. Now
// up fails at the eks project naming the file and the lines, and leaves
// the file as it was.
func TestEKSHookRefusesAnAmbiguousKubeconfig(t *testing.T) {
	for _, tc := range []struct{ name, file, want string }{
		{"a key twice", "apiVersion: v1\nkind: Config\nclusters:\n- name: a\n  cluster: {server: 'https://a'}\nclusters: []\n",
			"line 6: the key clusters is written twice, on lines 3 and 6"},
		{"two documents", "apiVersion: v1\nkind: Config\n---\nmy: notes\n", "line 3: a second YAML document starts there"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			kc := filepath.Join(e.home, "kubeconfig")
			if err := os.WriteFile(kc, []byte(tc.file), 0o600); err != nil {
				t.Fatal(err)
			}
			e.extra = []string{"KUBECONFIG=" + kc}
			e.maraStack()
			r := e.run("", "-p", "aws", "up", "--yes")
			out := r.Stdout + r.Stderr
			if r.Code != 1 || !strings.Contains(out, "the kubeconfig "+kc+" "+tc.want) || !strings.Contains(out, "it was left as it was") {
				t.Fatalf("up exit %d, want 1 naming %s and %q:\n%s", r.Code, kc, tc.want, out)
			}
			if got, _ := os.ReadFile(kc); string(got) != tc.file {
				t.Errorf("the kubeconfig changed:\n%s", got)
			}
		})
	}
}
