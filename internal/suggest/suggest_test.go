package suggest

import (
	"slices"
	"testing"
)

func TestClosest(t *testing.T) {
	tests := []struct {
		name       string
		word       string
		candidates []string
		want       []string
	}{
		{name: "one letter missing", word: "jsn", candidates: []string{"json", "jq", "host"}, want: []string{"json"}},
		{name: "case", word: "spiritextension", candidates: []string{"spiritExtension", "name"}, want: []string{"spiritExtension"}},
		{name: "swapped letters", word: "descripton", candidates: []string{"description", "displayName"}, want: []string{"description"}},
		{name: "prefix", word: "regis", candidates: []string{"registry", "host"}, want: []string{"registry"}},
		{name: "nearest first", word: "hostss", candidates: []string{"host", "hosts"}, want: []string{"hosts", "host"}},
		{name: "nothing close", word: "zzz", candidates: []string{"json", "host"}, want: []string{}},
		{name: "empty word", word: "", candidates: []string{"json"}, want: nil},
	}
	for _, tt := range tests {
		got := Closest(tt.word, tt.candidates, 2)
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}
