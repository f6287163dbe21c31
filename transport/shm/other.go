//go:build !linux

package shm

import (
	"errors"

	"github.com/gompi/gompi/transport"
)

// Transport is unavailable outside Linux.
type Transport struct{}

var errUnsupported = errors.New("shm: the shared-memory transport needs Linux")

// Open reports that the transport is unavailable.
func Open(Config) (*Transport, error) { return nil, errUnsupported }

// Send implements transport.Transport.
func (*Transport) Send(*transport.Frame) error { return errUnsupported }

// Close implements transport.Transport.
func (*Transport) Close() error { return nil }

// Completions reports no completions.
func (*Transport) Completions() (owed, handled int64) { return 0, 0 }

// Join reports that the transport is unavailable.
func (*Transport) Join([]bool) error { return errUnsupported }

// CheckEnv has nothing to check where the transport is unavailable.
func CheckEnv() error { return nil }
