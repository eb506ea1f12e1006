package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spiritagents/spirit/internal/jsjson"
)

// maxArgsFile bounds --args @FILE and --args - (a tool's arguments are one
// JSON message; the runtime refuses larger frames anyway).
const maxArgsFile = 64 << 20

// toolArguments builds a tool's arguments from --args (inline JSON, @FILE,
// or - for standard input) and the -f key=value (string) and -F key=value
// (JSON value) fields, which are set on top of the --args object in the
// order given. Without fields the --args bytes are passed on as they are.
func toolArguments(args string, rawFields, fields []string, stdin io.Reader) (json.RawMessage, error) {
	src := "--args"
	var data []byte
	switch {
	case args == "-":
		src = "--args - (standard input)"
		b, err := io.ReadAll(io.LimitReader(stdin, maxArgsFile+1))
		if err != nil {
			return nil, fmt.Errorf("reading the tool arguments from standard input: %w", err)
		}
		data = b
	case strings.HasPrefix(args, "@"):
		src = "--args " + args
		f, err := os.Open(args[1:])
		if err != nil {
			return nil, usageErrorf("--args %s: %v", args, err)
		}
		defer f.Close()
		b, err := io.ReadAll(io.LimitReader(f, maxArgsFile+1))
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", args[1:], err)
		}
		data = b
	default:
		data = []byte(args)
	}
	if len(data) > maxArgsFile {
		return nil, usageErrorf("%s is larger than %d MiB", src, maxArgsFile>>20)
	}
	data = bytes.TrimSpace(data)
	if !json.Valid(data) {
		return nil, withHint(usageErrorf("%s is not valid JSON: %s", src, jsonSyntaxAt(data)), `the arguments are one JSON object, e.g. --args '{"text":"hi"}', or use -f key=value`)
	}
	if len(rawFields) == 0 && len(fields) == 0 {
		return data, nil
	}
	parsed, err := jsjson.Parse(data)
	if err != nil {
		return nil, err
	}
	obj, ok := parsed.(jsjson.Object)
	if !ok {
		return nil, usageErrorf("%s must be a JSON object to add -f/-F fields to", src)
	}
	set := func(flag, kv string, value func(string) (any, error)) error {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return usageErrorf("%s %q: want key=value", flag, kv)
		}
		val, err := value(v)
		if err != nil {
			return err
		}
		obj = obj.Set(k, val)
		return nil
	}
	for _, kv := range rawFields {
		if err := set("-f", kv, func(v string) (any, error) { return v, nil }); err != nil {
			return nil, err
		}
	}
	for _, kv := range fields {
		if err := set("-F", kv, func(v string) (any, error) {
			val, err := jsjson.Parse([]byte(v))
			if err != nil {
				return nil, withHint(usageErrorf("-F %q: the value is not JSON", kv), "use -f key=value for a string")
			}
			return val, nil
		}); err != nil {
			return nil, err
		}
	}
	// Ordered as JavaScript orders the properties of the object the tool
	// receives; written as JSON.stringify writes it.
	return jsjson.Marshal(obj)
}

// jsonSyntaxAt says where data stops being JSON.
func jsonSyntaxAt(data []byte) string {
	var v any
	err := json.Unmarshal(data, &v)
	if se, ok := err.(*json.SyntaxError); ok {
		line, col := 1, 1
		for _, c := range data[:min(max(int(se.Offset)-1, 0), len(data))] { // up to the byte that is wrong
			if c == '\n' {
				line, col = line+1, 1
			} else {
				col++
			}
		}
		return fmt.Sprintf("line %d, column %d: %v", line, col, err)
	}
	if err != nil {
		return err.Error()
	}
	return "not one JSON value"
}
