// Package silentbus is a D-Bus peer for tests that accepts every connection
// and never answers: a keyring waiting for a prompt nobody sees, seen from
// the client.
package silentbus

import (
	"net"
	"sync"
)

// Listen listens on the Unix socket path; the client's D-Bus address is
// "unix:path=" + path. stop closes the listener and every connection.
func Listen(path string) (stop func(), err error) {
	ln, err := net.Listen("unix", path)
	if err != nil {
		return nil, err
	}
	var mu sync.Mutex
	var conns []net.Conn
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	return func() {
		ln.Close()
		<-done
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	}, nil
}
