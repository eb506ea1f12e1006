package site

import (
	"bytes"
	"fmt"
	"regexp"
	"time"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	gmext "github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"
)

// Renderer turns untrusted Markdown into safe HTML. It is safe for
// concurrent use.
type Renderer struct {
	md     goldmark.Markdown
	policy *bluemonday.Policy
}

// NewRenderer returns the README renderer of the site: GitHub-flavoured
// Markdown, raw HTML passed to the sanitizer rather than dropped (READMEs
// often use it for layout), and a sanitizer policy of its own: formatting elements,
// links (http, https, mailto and relative) and images over https only; no
// style, id, event handler or form attribute.
func NewRenderer() *Renderer {
	p := bluemonday.NewPolicy()
	p.AllowStandardURLs()
	p.AllowElements("h1", "h2", "h3", "h4", "h5", "h6", "p", "br", "hr", "blockquote", "pre", "code",
		"em", "strong", "b", "i", "del", "s", "sub", "sup", "kbd", "ul", "ol", "li", "dl", "dt", "dd",
		"table", "thead", "tbody", "tfoot", "tr", "th", "td", "details", "summary", "div", "span")
	p.AllowAttrs("title", "dir", "lang").Globally()
	p.AllowAttrs("href").OnElements("a")
	p.AllowAttrs("src").Matching(regexp.MustCompile(`^https://`)).OnElements("img")
	p.AllowAttrs("alt").OnElements("img")
	p.AllowAttrs("width", "height").Matching(regexp.MustCompile(`^[0-9]+[%]?$`)).OnElements("img")
	p.AllowAttrs("align").Matching(regexp.MustCompile(`^(?i:left|right|center)$`)).OnElements("p", "div", "img", "th", "td")
	p.AllowAttrs("start").Matching(regexp.MustCompile(`^[0-9]+$`)).OnElements("ol")
	p.AllowAttrs("class").Matching(regexp.MustCompile(`^language-[A-Za-z0-9_+-]{1,40}$`)).OnElements("code")
	p.RequireNoReferrerOnLinks(true)
	p.RequireNoFollowOnFullyQualifiedLinks(true)
	p.AddTargetBlankToFullyQualifiedLinks(true)
	return &Renderer{
		md:     goldmark.New(goldmark.WithExtensions(gmext.GFM), goldmark.WithRendererOptions(html.WithUnsafe())),
		policy: p,
	}
}

// Render returns the sanitized HTML of the Markdown src.
func (r *Renderer) Render(src []byte) ([]byte, error) {
	var buf bytes.Buffer
	if err := r.md.Convert(src, &buf); err != nil {
		return nil, err
	}
	return r.policy.SanitizeBytes(buf.Bytes()), nil
}

// Limits of the README shapes that are rendered: goldmark's time grows with
// the square of the input for deeply nested blockquotes and for many
// unclosed link destinations, so a hostile README of a few hundred
// kilobytes would take minutes. Beyond these a README is shown as text.
const (
	// MaxQuoteDepth is the deepest blockquote nesting rendered.
	MaxQuoteDepth = 32
	// MaxLinkOpeners is the most "](" sequences rendered.
	MaxLinkOpeners = 4096
	// DefaultRenderTimeout bounds one README's rendering.
	DefaultRenderTimeout = 10 * time.Second
)

// ComplexityError says why a README is not rendered as Markdown.
type ComplexityError struct{ Reason string }

func (e *ComplexityError) Error() string { return e.Reason }

// checkShape refuses the input shapes known to make rendering slow.
func checkShape(src []byte) error {
	if n := bytes.Count(src, []byte("](")); n > MaxLinkOpeners {
		return &ComplexityError{fmt.Sprintf("%d link destinations (more than %d)", n, MaxLinkOpeners)}
	}
	for line := range bytes.Lines(src) {
		depth := 0
		for _, c := range line {
			if c == '>' {
				depth++
			} else if c != ' ' && c != '\t' {
				break
			}
		}
		if depth > MaxQuoteDepth {
			return &ComplexityError{fmt.Sprintf("blockquotes nested %d deep (more than %d)", depth, MaxQuoteDepth)}
		}
	}
	return nil
}

// RenderBounded renders src as Render does, after refusing the shapes that
// make rendering slow, and gives up after timeout (0 → DefaultRenderTimeout)
// with a *ComplexityError. The abandoned rendering runs on in the
// background until it ends; the shape checks make that rare.
func (r *Renderer) RenderBounded(src []byte, timeout time.Duration) ([]byte, error) {
	if err := checkShape(src); err != nil {
		return nil, err
	}
	if timeout <= 0 {
		timeout = DefaultRenderTimeout
	}
	type result struct {
		html []byte
		err  error
	}
	done := make(chan result, 1)
	go func() {
		html, err := r.Render(src)
		done <- result{html, err}
	}()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case res := <-done:
		return res.html, res.err
	case <-timer.C:
		return nil, &ComplexityError{fmt.Sprintf("rendering took longer than %s", timeout)}
	}
}
