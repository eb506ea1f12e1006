package exthost

import (
	"encoding/json"
	"strings"
	"testing"
)

// toolText decodes a reply line exactly as encoding/json does (same text,
// same failures), whichever path it takes.
func FuzzToolText(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"text":"plain"}}`,
		`{"id":1,"result":{"text":"esc \" \\ \n \u00e9 \ud83d\ude00 \ud800"}}`,
		`{"id":1,"result":{"text":null}}`, `{"id":1,"result":null}`, `{"id":1}`,
		`{"id":1,"result":{"text":5}}`, `{"id":1,"result":{"TEXT":"case"}}`,
		`{"id":1,"result":{"text":"a","text":"b"}}`, "{\"id\":1,\"result\":{\"text\":\"bad \xff utf8\"}}",
		`{"id":1,"result":{"text":"x"}`, `[]`, `{"result":"str"}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, line string) {
		var want struct {
			Result struct {
				Text string `json:"text"`
			} `json:"result"`
		}
		werr := json.Unmarshal([]byte(line), &want)
		var got toolText
		gerr := got.decodeLine([]byte(line))
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("decodeLine(%q): error %v, encoding/json: %v", line, gerr, werr)
		}
		if werr == nil && got.Text != want.Result.Text {
			t.Fatalf("decodeLine(%q) = %q, encoding/json: %q", line, got.Text, want.Result.Text)
		}
	})
}

// A plain text is not copied out of the line: the result shares its bytes.
func TestToolTextSharesLine(t *testing.T) {
	line := []byte(`{"jsonrpc":"2.0","id":1,"result":{"text":"` + strings.Repeat("r", 1000) + `"}}`)
	var got toolText
	if err := got.decodeLine(line); err != nil || len(got.Text) != 1000 {
		t.Fatalf("decodeLine: %v, %d bytes", err, len(got.Text))
	}
	start := strings.Index(string(line), "rrr")
	line[start] = 'X'
	if got.Text[0] != 'X' {
		t.Error("the text was copied out of the line")
	}
}
