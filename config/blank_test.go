package config

import "testing"

func TestSaveKeepsBlankLines(t *testing.T) {
	for _, tc := range []struct {
		name, in, key, value, want string
	}{
		{"set between blank lines",
			"# head\n\nconfig:\n  a:x: 1\n\n  # b\n  a:y: 2\n\n\n  a:z: 3\n",
			"a:y", "5",
			"# head\n\nconfig:\n  a:x: 1\n\n  # b\n  a:y: \"5\"\n\n\n  a:z: 3\n"},
		{"new key at the end",
			"config:\n  a:x: 1\n\n  a:y: 2\n",
			"a:new", "v",
			"config:\n  a:x: 1\n\n  a:y: 2\n  a:new: v\n"},
		{"block scalar keeps its own blank line",
			"config:\n  a:text: |\n    one\n\n    two\n\n  a:y: 2\n",
			"a:y", "3",
			"config:\n  a:text: |\n    one\n\n    two\n\n  a:y: \"3\"\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := ParseStack("f.yaml", []byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if err := s.Set(ctx, tc.key, tc.value, false, false, nil); err != nil {
				t.Fatal(err)
			}
			got, err := s.Bytes()
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Fatalf("got:\n%s\nwant:\n%s", got, tc.want)
			}
		})
	}
}
