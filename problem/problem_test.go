package problem_test

import (
	"encoding/json"
	"testing"

	"github.com/spiritagents/spirit/problem"
)

// TestJSON pins the encoded shapes that the manifest, registry and catalog
// reports had before they shared this type: byte for byte.
func TestJSON(t *testing.T) {
	tests := []struct {
		name string
		p    problem.Problem
		want string
	}{
		{"manifest", problem.Problem{Pointer: "/name", InDocument: true, Message: "bad", Severity: problem.SeverityError},
			`{"pointer":"/name","message":"bad","severity":"error"}`},
		{"manifest, whole document", problem.Problem{InDocument: true, Message: "not JSON", Severity: problem.SeverityError, Detail: "line 1"},
			`{"pointer":"","message":"not JSON","severity":"error","detail":"line 1"}`},
		{"registry", problem.Problem{File: "registry/catalog.json", Message: "stale", Severity: problem.SeverityWarning},
			`{"file":"registry/catalog.json","message":"stale","severity":"warning"}`},
		{"registry, no file", problem.Problem{Message: "none", Severity: problem.SeverityError},
			`{"message":"none","severity":"error"}`},
		{"catalog", problem.Problem{Pointer: "catalog.items[3]", Message: "skipped"},
			`{"pointer":"catalog.items[3]","message":"skipped"}`},
		{"catalog, no pointer", problem.Problem{Message: "cached"}, `{"message":"cached"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.Marshal(tt.p)
			if err != nil || string(got) != tt.want {
				t.Fatalf("got %s, %v; want %s", got, err, tt.want)
			}
			var back problem.Problem
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatal(err)
			}
			if again, _ := json.Marshal(back); string(again) != tt.want {
				t.Errorf("round trip gave %s", again)
			}
		})
	}
}

func TestString(t *testing.T) {
	tests := []struct {
		name string
		p    problem.Problem
		want string
	}{
		{"registry warning", problem.Problem{Message: "m", Severity: problem.SeverityWarning}, "warning: m"},
		{"registry error", problem.Problem{File: "f", Message: "m", Severity: problem.SeverityError}, "m"},
		{"catalog", problem.Problem{Pointer: "catalog.items[0]", Message: "skipped"}, "catalog.items[0]: skipped"},
		{"pointer already named", problem.Problem{Pointer: "detail", Message: "detail is odd"}, "detail is odd"},
	}
	for _, tt := range tests {
		if got := tt.p.String(); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}
