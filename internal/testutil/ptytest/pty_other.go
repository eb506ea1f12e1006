//go:build !linux

package ptytest

import (
	"os/exec"
	"time"
)

// Open returns ErrUnsupported.
func Open(cols, rows int) (*PTY, error) { return nil, ErrUnsupported }

// Resize returns ErrUnsupported.
func (p *PTY) Resize(cols, rows int) error { return ErrUnsupported }

// Start returns ErrUnsupported.
func (p *PTY) Start(cmd *exec.Cmd) error { return ErrUnsupported }

// Wait returns ErrUnsupported.
func (p *PTY) Wait(timeout time.Duration) ([]byte, error) { return nil, ErrUnsupported }
