package jsjson

import "testing"

func TestMarshal(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{name: "html characters", in: "<a & b>", want: `"<a & b>"`},
		{name: "line separators", in: "a\u2028b\u2029c", want: "\"a\u2028b\u2029c\""},
		{name: "escapes", in: "q\"\\\n\t\x01", want: `"q\"\\\n\t\u0001"`},
		{name: "number", in: 2.5, want: `2.5`},
		{name: "object", in: map[string]any{"k": true}, want: `{"k":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Marshal(tt.in)
			if err != nil || string(got) != tt.want {
				t.Errorf("got %s, %v; want %s", got, err, tt.want)
			}
		})
	}
}
