//go:build !unix

package mcp

import "io"

// pollable returns r: only Unix pipes and sockets are switched to the
// runtime's poller.
func pollable(r io.Reader) (io.Reader, func() error) { return r, func() error { return nil } }
