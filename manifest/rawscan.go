package manifest

import "github.com/spiritagents/spirit/internal/jsontok"

// rawMember returns the bytes of the value of key in the JSON object data,
// the last one when the key repeats (JSON.parse keeps the last), or nil
// when data is not an object or has no such key. Keys are compared after
// unescaping, as JSON.parse compares them. data is a value decodeJSON
// accepted; on other bytes rawMember returns nil or some value, never
// panics. It reads the bytes once and builds nothing, where
// json.Unmarshal into a map[string]json.RawMessage checks and copies them.
func rawMember(data []byte, key string) []byte {
	s := jsontok.NewScanner(data, MaxDepth)
	if t, err := s.Next(); err != nil || t.Kind != jsontok.BeginObject {
		return nil
	}
	var found []byte
	for {
		name, err := s.Next()
		if err != nil {
			return nil
		}
		if name.Kind == jsontok.EndObject {
			return found
		}
		v, err := s.Next()
		if err != nil {
			return nil
		}
		end, err := s.Skip(v)
		if err != nil {
			return nil
		}
		if s.TextIs(name, key) {
			found = data[v.Start:end]
		}
	}
}

// rawElements returns the bytes of each element of the JSON array data, or
// nil when data is not an array. Like rawMember it never panics.
func rawElements(data []byte) [][]byte {
	s := jsontok.NewScanner(data, MaxDepth)
	if t, err := s.Next(); err != nil || t.Kind != jsontok.BeginArray {
		return nil
	}
	out := [][]byte{}
	for {
		v, err := s.Next()
		if err != nil {
			return nil
		}
		if v.Kind == jsontok.EndArray {
			return out
		}
		end, err := s.Skip(v)
		if err != nil {
			return nil
		}
		out = append(out, data[v.Start:end])
	}
}
