// Package problem holds the one report type shared by every validator and
// reader of outside documents: manifest problems, registry problems and
// catalog warnings are all a Problem, so a front end prints and encodes
// them one way.
//
// The JSON form is a public contract: the fields appear in the order
// pointer, file, message, severity, detail, hint, and only those that are set
// (pointer also when it is the whole document, see Problem.InDocument).
package problem

import (
	"encoding/json"
	"strings"
)

// Severity of a Problem.
type Severity string

// The severities. Warnings do not fail an operation unless it is strict.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// Problem is one thing wrong with an input: where (a pointer into a
// document, a file, or both), what, and how bad.
type Problem struct {
	// Pointer names the part of a document: a JSON pointer into a
	// manifest ("" for the whole document) or a path such as
	// "catalog.items[3]".
	Pointer string
	// InDocument says that Pointer locates the problem in a JSON document,
	// so that it is written even when it is "" (the whole document).
	InDocument bool
	// File is the file the problem is about, when known.
	File    string
	Message string
	// Severity is "" where every problem is of one kind (catalog warnings).
	Severity Severity
	// Detail says more where the message is terse (where JSON is broken, say).
	Detail string
	// Hint says how to fix it, where the message (often the apps' exact
	// text) does not: the allowed values, the expected type, the key a
	// misspelled one may have meant.
	Hint string
}

// Error returns the message, so that a *Problem can travel as an error.
func (p *Problem) Error() string { return p.Message }

// String is the line a human reads: the message, after the pointer when
// the message does not already name it, after "warning: " for a warning.
func (p Problem) String() string {
	s := p.Message
	if p.Pointer != "" && !strings.Contains(s, p.Pointer) {
		s = p.Pointer + ": " + s
	}
	if p.Severity == SeverityWarning {
		s = "warning: " + s
	}
	return s
}

// jsonForm is the encoded shape; pointer is set apart to keep "" when
// InDocument.
type jsonForm struct {
	Pointer  *string  `json:"pointer,omitempty"`
	File     string   `json:"file,omitempty"`
	Message  string   `json:"message"`
	Severity Severity `json:"severity,omitempty"`
	Detail   string   `json:"detail,omitempty"`
	Hint     string   `json:"hint,omitempty"`
}

// MarshalJSON writes the fields that are set, in the documented order.
func (p Problem) MarshalJSON() ([]byte, error) {
	j := jsonForm{File: p.File, Message: p.Message, Severity: p.Severity, Detail: p.Detail, Hint: p.Hint}
	if p.Pointer != "" || p.InDocument {
		j.Pointer = &p.Pointer
	}
	return json.Marshal(j)
}

// UnmarshalJSON reads what MarshalJSON writes; a "pointer" key, even
// empty, sets InDocument.
func (p *Problem) UnmarshalJSON(data []byte) error {
	var j jsonForm
	if err := json.Unmarshal(data, &j); err != nil {
		return err
	}
	*p = Problem{File: j.File, Message: j.Message, Severity: j.Severity, Detail: j.Detail, Hint: j.Hint}
	if j.Pointer != nil {
		p.Pointer, p.InDocument = *j.Pointer, true
	}
	return nil
}
