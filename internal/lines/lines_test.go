package lines

import (
	"reflect"
	"testing"
)

func TestWriter(t *testing.T) {
	tests := []struct {
		name   string
		writes []string
		want   []string
	}{
		{"one write, two lines", []string{"a\nb\n"}, []string{"a", "b"}},
		{"a line split across writes", []string{"he", "llo\r", "\nwor", "ld"}, []string{"hello", "world"}},
		{"empty lines kept", []string{"\n\nx\n"}, []string{"", "", "x"}},
		{"nothing written", nil, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			w := NewWriter(func(l string) { got = append(got, l) })
			for _, s := range tt.writes {
				if n, err := w.Write([]byte(s)); n != len(s) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", s, n, err)
				}
			}
			w.Flush()
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("lines %q, want %q", got, tt.want)
			}
		})
	}
}
