package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sync"
)

// Stream is a download read as it arrives, under the same rules as
// DownloadFile: the overall deadline, the idle timeout, the size cap, and
// another try when the body breaks off, which asks for the whole file
// again and skips the bytes already delivered (so the bytes read are one
// continuous copy; a reader that hashes them catches a server that sends
// different ones the second time). Read is called from one goroutine at a
// time; Close ends it and may be called from any goroutine, more than
// once, to unblock a Read.
type Stream struct {
	c       *Client
	ctx     context.Context // the overall deadline
	parent  context.Context // the caller's
	cancel  context.CancelFunc
	u       *url.URL
	auth    func(*url.URL) string
	d       Download
	total   int64      // announced size, -1 when unknown
	mu      sync.Mutex // guards resp against Close from another goroutine
	resp    *Response
	tee     io.Writer
	n       int64 // bytes delivered
	pending error // a body error that came with bytes, for the next Read
	tries   int
	err     error // sticky
}

// OpenStream starts d.URL (Dir and Pattern are not used). It returns once
// the first response's headers are in: a status other than 200, or an
// announced size above the cap, fails here.
func (c *Client) OpenStream(ctx context.Context, d Download) (*Stream, error) {
	u, auth, err := c.prepare(d.URL)
	if err != nil {
		return nil, err
	}
	if d.Limit <= 0 {
		d.Limit = c.limits.MaxDownload
	}
	dctx, cancel := c.withDeadline(ctx, Redact(u.String()))
	s := &Stream{c: c, ctx: dctx, parent: ctx, cancel: cancel, u: u, auth: auth, d: d, total: -1}
	if err := s.open(); err != nil {
		cancel()
		return nil, err
	}
	if d.Tee != nil {
		s.tee = d.Tee(s.total)
	}
	return s, nil
}

// Size is the size the server announced, -1 when unknown.
func (s *Stream) Size() int64 { return s.total }

func (s *Stream) open() error {
	s.tries++
	resp, err := s.c.get(s.ctx, s.parent, s.u, s.d.Header, s.auth)
	if err != nil {
		return err
	}
	if resp.Status != http.StatusOK {
		resp.Body.Close()
		return &HTTPError{Status: resp.Status, Text: resp.StatusText, URL: resp.URL}
	}
	if n := resp.ContentLength(); n > s.d.Limit {
		resp.Body.Close()
		return fmt.Errorf("%w: %s is %d bytes, the limit is %d", ErrTooLarge, resp.URL, n, s.d.Limit)
	} else if s.tries == 1 {
		s.total = n
	}
	s.mu.Lock()
	s.resp = resp
	s.mu.Unlock()
	return nil
}

// Read returns the next bytes of the body; io.EOF at its end.
func (s *Stream) Read(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	if len(p) == 0 {
		return 0, nil
	}
	for {
		var n int
		err := s.pending
		if err != nil {
			s.pending = nil
		} else {
			n, err = s.resp.Body.Read(p)
		}
		s.n += int64(n)
		if s.n > s.d.Limit {
			s.err = fmt.Errorf("%w: %s is larger than the limit of %d bytes", ErrTooLarge, s.resp.URL, s.d.Limit)
			return 0, s.err
		}
		if n > 0 && s.tee != nil {
			s.tee.Write(p[:n])
		}
		if err == nil || err == io.EOF {
			if err == io.EOF {
				s.err = io.EOF
			}
			return n, err
		}
		if n > 0 {
			// Deliver what came; the error is handled at the next Read.
			s.pending = err
			return n, nil
		}
		if err = s.retry(err); err != nil {
			s.err = err
			return 0, err
		}
	}
}

// retry opens the download again after the body broke off with err, and
// skips the bytes already delivered; it returns the error to report when
// it cannot.
func (s *Stream) retry(err error) error {
	switch {
	case s.parent.Err() != nil:
		return s.parent.Err()
	case errors.Is(err, ErrDeadline) || s.ctx.Err() != nil:
		if cause := context.Cause(s.ctx); cause != nil {
			return cause
		}
		return err
	}
	broke := fmt.Errorf("GET %s: %w", s.resp.URL, err)
	s.resp.Body.Close()
	if s.tries >= s.c.limits.Tries {
		return fmt.Errorf("%w (after %d tries)", broke, s.tries)
	}
	if err := sleep(s.ctx, s.parent, s.c.limits.RetryDelay<<(s.tries-1)); err != nil {
		return err
	}
	if err := s.open(); err != nil {
		return err
	}
	if _, err := io.CopyN(io.Discard, s.resp.Body, s.n); err != nil {
		return s.retry(err)
	}
	return nil
}

// Close ends the download.
func (s *Stream) Close() error {
	s.cancel()
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.resp.Body.Close()
}
