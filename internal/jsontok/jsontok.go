// Package jsontok reads the tokens of one JSON document (RFC 8259). It is
// the one tokenizer under spirit's JSON readers (registry's jq-like values,
// jsjson's JavaScript values, manifest's schema values), which build their
// values from its tokens. It keeps, byte for byte, what those readers
// promise:
//
//   - The grammar, the error messages and the error offsets are those of
//     encoding/json's decoder: "invalid character ',' looking for beginning
//     of object key string" at the offset of the ',', "unexpected end of
//     JSON input" at the end of the data wherever the data stops inside the
//     value. A reader may word an error its own way from the Cause.
//   - Strings decode as encoding/json decodes them: bytes that are not
//     UTF-8, and \u escapes of lone surrogates, become U+FFFD.
//   - Numbers are handed over as their literal, as written.
//   - Nesting is limited by the reader, and refused at the bracket that
//     passes the limit, so that hostile input cannot exhaust the stack.
//
// The scanner builds nothing: a token is a kind and the offsets of its
// bytes. Decode drives a reader's Builder over a whole document.
package jsontok

import (
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Kind is what a token is.
type Kind uint8

// The kinds of token.
const (
	End         Kind = iota // the end of the data, after the top-level value
	BeginObject             // {
	EndObject               // }
	BeginArray              // [
	EndArray                // ]
	Name                    // the name of an object member, a string
	String                  // a string value
	Number                  // a number, its literal in the token's bytes
	True
	False
	Null
)

// Token is one token: its kind and the offsets of its bytes in the data (a
// string's bytes include its quotes).
type Token struct {
	Kind       Kind
	Start, End int
	escaped    bool // a string with a backslash
	nonASCII   bool // a string with a byte from 0x80
}

// Cause says what kind of syntax error a SyntaxError is.
type Cause uint8

// The causes of a SyntaxError.
const (
	// UnexpectedEnd: the data ends inside the value.
	UnexpectedEnd Cause = iota + 1
	// BadByte: a byte the grammar does not allow where it stands.
	BadByte
	// BadStringByte: a control character (below U+0020) inside a string.
	BadStringByte
	// BadEscape: a backslash escape that JSON does not have, or a \u
	// without four hexadecimal digits.
	BadEscape
	// AfterValue: something other than white space after the top-level
	// value.
	AfterValue
	// TooDeep: nesting deeper than the limit.
	TooDeep
)

// SyntaxError says why and where the data is not one JSON value.
type SyntaxError struct {
	Cause Cause
	// Offset is the byte the error is about; the length of the data for
	// UnexpectedEnd.
	Offset int
	// Byte is the byte at Offset (none for UnexpectedEnd).
	Byte byte
	// StringStart is the offset of the opening quote of the string a
	// BadStringByte or BadEscape is in.
	StringStart int

	context  string
	maxDepth int
}

// Error words the error as encoding/json does (TooDeep, which it does not
// have, as "nesting is deeper than N levels").
func (e *SyntaxError) Error() string {
	switch e.Cause {
	case UnexpectedEnd:
		return "unexpected end of JSON input"
	case TooDeep:
		return fmt.Sprintf("nesting is deeper than %d levels", e.maxDepth)
	}
	return "invalid character " + QuoteByte(e.Byte) + " " + e.context
}

// QuoteByte quotes c as encoding/json's error messages do: 'x', '\n',
// '\”, '"'.
func QuoteByte(c byte) string {
	switch c {
	case '\'':
		return `'\''`
	case '"':
		return `'"'`
	}
	s := strconv.Quote(string(rune(c)))
	return "'" + s[1:len(s)-1] + "'"
}

// what the scanner reads next
type state uint8

const (
	wantValue      state = iota // a value: at the start, after ':', after ',' in an array
	wantValueOrEnd              // after '['
	wantNameOrEnd               // after '{'
	wantName                    // after ',' in an object
	wantColon                   // after a name
	afterMember                 // ',' or '}'
	afterElement                // ',' or ']'
	afterTop                    // the end of the data
	done                        // End was returned
)

// Scanner reads the tokens of data one by one, checking the grammar.
type Scanner struct {
	data     []byte
	pos      int
	maxDepth int
	depth    int
	// objects has bit d set when the container at depth d+1 is an object,
	// for the first 512 depths; deeper ones are in more.
	objects [8]uint64
	more    []uint64
	state   state
	after   state // the state after a value in the open container
	err     *SyntaxError
}

// NewScanner returns a scanner of data that refuses nesting deeper than
// maxDepth.
func NewScanner(data []byte, maxDepth int) *Scanner {
	return &Scanner{data: data, maxDepth: maxDepth, after: afterTop}
}

// Next returns the next token. After the top-level value it returns End,
// or an AfterValue error when anything but white space follows. After an
// error it returns the same error.
func (s *Scanner) Next() (Token, error) {
	if s.err != nil {
		return Token{}, s.err
	}
	s.skipSpace()
	if s.pos >= len(s.data) {
		if s.state != afterTop && s.state != done {
			return s.end()
		}
		s.state = done
		return Token{Kind: End, Start: s.pos, End: s.pos}, nil
	}
	c := s.data[s.pos]
	switch s.state {
	case wantColon:
		if c != ':' {
			return s.fail(BadByte, "after object key")
		}
		s.pos++
		s.skipSpace()
	case afterMember, afterElement:
		closer, end, context := byte('}'), EndObject, "after object key:value pair"
		if s.state == afterElement {
			closer, end, context = ']', EndArray, "after array element"
		}
		switch c {
		case ',':
			s.pos++
			s.skipSpace()
			if end == EndObject {
				return s.name()
			}
			return s.value()
		case closer:
			return s.close(end)
		}
		return s.fail(BadByte, context)
	case afterTop, done:
		return s.fail(AfterValue, "after top-level value")
	case wantValueOrEnd:
		if c == ']' {
			return s.close(EndArray)
		}
	case wantNameOrEnd:
		if c == '}' {
			return s.close(EndObject)
		}
		return s.name()
	case wantName:
		return s.name()
	}
	return s.value()
}

// Skip reads the rest of the value that t begins (t is the token Next
// returned last) and returns the offset just after the value.
func (s *Scanner) Skip(t Token) (int, error) {
	if t.Kind != BeginObject && t.Kind != BeginArray {
		return t.End, nil
	}
	depth := s.depth - 1
	for {
		t, err := s.Next()
		if err != nil {
			return 0, err
		}
		if s.depth == depth {
			return t.End, nil
		}
	}
}

// Bytes returns the bytes of t: a number's literal, a string with its quotes.
func (s *Scanner) Bytes(t Token) []byte { return s.data[t.Start:t.End] }

func (s *Scanner) skipSpace() {
	data, i := s.data, s.pos
	for i < len(data) && data[i] <= ' ' && spaces&(1<<data[i]) != 0 {
		i++
	}
	s.pos = i
}

// spaces has the bits of the bytes of JSON's white space.
const spaces = 1<<' ' | 1<<'\t' | 1<<'\n' | 1<<'\r'

// objectBit returns the word and the bit of objects for depth d+1.
func (s *Scanner) objectBit(d int) (*uint64, uint64) {
	if i := d / 64; i < len(s.objects) {
		return &s.objects[i], 1 << (d % 64)
	}
	i := d/64 - len(s.objects)
	for i >= len(s.more) {
		s.more = append(s.more, 0)
	}
	return &s.more[i], 1 << (d % 64)
}

func (s *Scanner) open(kind Kind) (Token, error) {
	if s.depth >= s.maxDepth {
		s.err = &SyntaxError{Cause: TooDeep, Offset: s.pos, Byte: s.data[s.pos], maxDepth: s.maxDepth}
		return Token{}, s.err
	}
	word, bit := s.objectBit(s.depth)
	if kind == BeginObject {
		*word |= bit
		s.state, s.after = wantNameOrEnd, afterMember
	} else {
		*word &^= bit
		s.state, s.after = wantValueOrEnd, afterElement
	}
	s.depth++
	s.pos++
	return Token{Kind: kind, Start: s.pos - 1, End: s.pos}, nil
}

func (s *Scanner) close(kind Kind) (Token, error) {
	s.depth--
	s.pos++
	s.after = afterTop
	if s.depth > 0 {
		s.after = afterElement
		if word, bit := s.objectBit(s.depth - 1); *word&bit != 0 {
			s.after = afterMember
		}
	}
	s.state = s.after
	return Token{Kind: kind, Start: s.pos - 1, End: s.pos}, nil
}

// end is the error for data that stops inside the value.
func (s *Scanner) end() (Token, error) {
	s.err = &SyntaxError{Cause: UnexpectedEnd, Offset: len(s.data)}
	return Token{}, s.err
}

// fail is the error about the byte at s.pos.
func (s *Scanner) fail(cause Cause, context string) (Token, error) {
	s.err = &SyntaxError{Cause: cause, Offset: s.pos, Byte: s.data[s.pos], context: context}
	return Token{}, s.err
}

func (s *Scanner) name() (Token, error) {
	if s.pos >= len(s.data) {
		return s.end()
	}
	if s.data[s.pos] != '"' {
		return s.fail(BadByte, "looking for beginning of object key string")
	}
	t, err := s.str()
	t.Kind = Name
	s.state = wantColon
	return t, err
}

func (s *Scanner) value() (Token, error) {
	if s.pos >= len(s.data) {
		return s.end()
	}
	s.state = s.after
	switch c := s.data[s.pos]; c {
	case '{':
		return s.open(BeginObject)
	case '[':
		return s.open(BeginArray)
	case '"':
		t, err := s.str()
		t.Kind = String
		return t, err
	case 't':
		return s.literal(True, "true")
	case 'f':
		return s.literal(False, "false")
	case 'n':
		return s.literal(Null, "null")
	default:
		if c == '-' || (c >= '0' && c <= '9') {
			return s.number()
		}
		return s.fail(BadByte, "looking for beginning of value")
	}
}

func (s *Scanner) literal(kind Kind, word string) (Token, error) {
	start := s.pos
	for i := 1; i < len(word); i++ {
		s.pos = start + i
		if s.pos >= len(s.data) {
			return s.end()
		}
		if s.data[s.pos] != word[i] {
			return s.fail(BadByte, "in literal "+word+" (expecting "+QuoteByte(word[i])+")")
		}
	}
	s.pos = start + len(word)
	return Token{Kind: kind, Start: start, End: s.pos}, nil
}

// number reads a number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *Scanner) number() (Token, error) {
	start := s.pos
	if s.data[s.pos] == '-' {
		s.pos++
	}
	if err := s.digit("in numeric literal"); err != nil {
		return Token{}, err
	}
	if s.data[s.pos-1] != '0' {
		s.digits()
	}
	if s.pos < len(s.data) && s.data[s.pos] == '.' {
		s.pos++
		if err := s.digit("after decimal point in numeric literal"); err != nil {
			return Token{}, err
		}
		s.digits()
	}
	if s.pos < len(s.data) && (s.data[s.pos] == 'e' || s.data[s.pos] == 'E') {
		s.pos++
		if s.pos < len(s.data) && (s.data[s.pos] == '+' || s.data[s.pos] == '-') {
			s.pos++
		}
		if err := s.digit("in exponent of numeric literal"); err != nil {
			return Token{}, err
		}
		s.digits()
	}
	return Token{Kind: Number, Start: start, End: s.pos}, nil
}

// digit reads the one digit the grammar needs at s.pos.
func (s *Scanner) digit(context string) error {
	if s.pos >= len(s.data) {
		_, err := s.end()
		return err
	}
	if c := s.data[s.pos]; c < '0' || c > '9' {
		_, err := s.fail(BadByte, context)
		return err
	}
	s.pos++
	return nil
}

func (s *Scanner) digits() {
	data, i := s.data, s.pos
	for i < len(data) && data[i] >= '0' && data[i] <= '9' {
		i++
	}
	s.pos = i
}

// inString classifies the bytes of a string: 0 for those that need no
// attention (printable ASCII but '"' and '\\').
var inString = func() (t [256]uint8) {
	for c := range t {
		switch {
		case c < 0x20:
			t[c] = 1
		case c == '"', c == '\\':
			t[c] = 2
		case c >= utf8.RuneSelf:
			t[c] = 3
		}
	}
	return t
}()

// str reads the string whose opening quote is at s.pos.
func (s *Scanner) str() (Token, error) {
	t := Token{Start: s.pos}
	s.pos++
	for {
		data, i := s.data, s.pos
		for i < len(data) && inString[data[i]] == 0 {
			i++
		}
		s.pos = i
		if s.pos >= len(s.data) {
			return s.end()
		}
		switch c := s.data[s.pos]; {
		case c == '"':
			s.pos++
			t.End = s.pos
			return t, nil
		case c == '\\':
			t.escaped = true
			if err := s.escape(t.Start); err != nil {
				return Token{}, err
			}
		case c < 0x20:
			return s.failString(BadStringByte, "in string literal", t.Start)
		default:
			t.nonASCII = true
			s.pos++
		}
	}
}

// escape reads the escape whose backslash is at s.pos.
func (s *Scanner) escape(quote int) error {
	s.pos++
	if s.pos >= len(s.data) {
		_, err := s.end()
		return err
	}
	switch s.data[s.pos] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		s.pos++
		return nil
	case 'u':
		for range 4 {
			s.pos++
			if s.pos >= len(s.data) {
				_, err := s.end()
				return err
			}
			if unhex(s.data[s.pos]) < 0 {
				_, err := s.failString(BadEscape, `in \u hexadecimal character escape`, quote)
				return err
			}
		}
		s.pos++
		return nil
	}
	_, err := s.failString(BadEscape, "in string escape code", quote)
	return err
}

func (s *Scanner) failString(cause Cause, context string, quote int) (Token, error) {
	t, err := s.fail(cause, context)
	s.err.StringStart = quote
	return t, err
}

func unhex(c byte) rune {
	switch {
	case c >= '0' && c <= '9':
		return rune(c - '0')
	case c >= 'a' && c <= 'f':
		return rune(c - 'a' + 10)
	case c >= 'A' && c <= 'F':
		return rune(c - 'A' + 10)
	}
	return -1
}
