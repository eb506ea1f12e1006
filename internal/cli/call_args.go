package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
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
	obj, err := orderedObject(data)
	if err != nil {
		return nil, usageErrorf("%s must be a JSON object to add -f/-F fields to: %v", src, err)
	}
	set := func(flag, kv string, value func(string) (json.RawMessage, error)) error {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			return usageErrorf("%s %q: want key=value", flag, kv)
		}
		raw, err := value(v)
		if err != nil {
			return err
		}
		obj.set(k, raw)
		return nil
	}
	for _, kv := range rawFields {
		if err := set("-f", kv, func(v string) (json.RawMessage, error) { return json.Marshal(v) }); err != nil {
			return nil, err
		}
	}
	for _, kv := range fields {
		if err := set("-F", kv, func(v string) (json.RawMessage, error) {
			if !json.Valid([]byte(v)) {
				return nil, withHint(usageErrorf("-F %q: the value is not JSON", kv), "use -f key=value for a string")
			}
			return json.RawMessage(v), nil
		}); err != nil {
			return nil, err
		}
	}
	return obj.marshal(), nil
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

// jsonObject is a JSON object that keeps its keys in order.
type jsonObject struct {
	keys   []string
	values map[string]json.RawMessage
}

func orderedObject(data []byte) (*jsonObject, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("it is not an object")
	}
	o := &jsonObject{values: map[string]json.RawMessage{}}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		o.set(t.(string), v)
	}
	return o, nil
}

func (o *jsonObject) set(k string, v json.RawMessage) {
	if _, ok := o.values[k]; !ok {
		o.keys = append(o.keys, k)
	}
	o.values[k] = v
}

func (o *jsonObject) marshal() json.RawMessage {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(o.values[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}
