// Package jsjson encodes JSON the way JavaScript's JSON.stringify does, for
// the files spirit shares with the Spirit Agent apps: no HTML escaping of
// < > &, and U+2028/U+2029 written as they are.
package jsjson

import (
	"bytes"
	"encoding/json"
)

// Marshal encodes v compactly, as JSON.stringify(v) would.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	b = bytes.ReplaceAll(b, []byte(`\u2028`), []byte("\u2028"))
	b = bytes.ReplaceAll(b, []byte(`\u2029`), []byte("\u2029"))
	return b, nil
}
