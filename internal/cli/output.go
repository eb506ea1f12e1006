package cli

import (
	"encoding/json"
	"io"
)

// writeJSON prints v as indented JSON with a trailing newline. Struct tags of
// the values printed here are a public contract.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
