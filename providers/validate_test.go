package providers

import "testing"

func TestAPITokenAndNodeCount(t *testing.T) {
	tok, nodes := APIToken("a Linode API token"), NodeCount(100)
	for _, c := range []struct {
		check func(string) error
		v     string
		want  string
	}{
		{tok, "dop_v1_" + "0123456789abcdef0123456789abcdef", ""},
		{tok, "short", "must be a Linode API token: 20 to 200 letters, digits, _ or -"},
		{tok, "has a space in it, which no header carries", "must be a Linode API token: 20 to 200 letters, digits, _ or -"},
		{nodes, "3", ""},
		{nodes, "100", ""},
		{nodes, "0", `must be a whole number of nodes from 1 to 100, not "0"`},
		{nodes, "101", `must be a whole number of nodes from 1 to 100, not "101"`},
		{nodes, "three", `must be a whole number of nodes from 1 to 100, not "three"`},
	} {
		err := c.check(c.v)
		if got := ""; err != nil {
			got = err.Error()
			if got != c.want {
				t.Errorf("%q: %q, want %q", c.v, got, c.want)
			}
		} else if c.want != "" {
			t.Errorf("%q accepted, want %q", c.v, c.want)
		}
	}
}
