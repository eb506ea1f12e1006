package site

import (
	"bytes"
	"regexp"

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
	p.AllowAttrs("width", "height").Matching(bluemonday.NumberOrPercent).OnElements("img")
	p.AllowAttrs("align").Matching(regexp.MustCompile(`^(?i:left|right|center)$`)).OnElements("p", "div", "img", "th", "td")
	p.AllowAttrs("start").Matching(bluemonday.Integer).OnElements("ol")
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
