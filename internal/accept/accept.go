// Package accept is the accept loop shared by gompi's listeners: the
// exchange gompirun serves and the TCP transport of the ranks. Both face
// connections from anyone who can reach them before the job's token is
// checked, so both must survive what such connections can do: run the
// process out of descriptors (EMFILE) or hold handshakes open.
package accept

import (
	"errors"
	"net"
	"sync"
	"time"
)

// Backoff after a failed Accept, doubling from minBackoff to maxBackoff
// while failures last, as net/http's Server does.
const (
	minBackoff = 5 * time.Millisecond
	maxBackoff = time.Second
)

// Loop accepts connections on ln until ln is closed, and hands each to
// handle in a goroutine of its own. A failed Accept other than a closed
// listener (EMFILE or ENFILE under a connection flood, ECONNABORTED, ...)
// is waited out and retried: a loop that returned on it would leave the
// listener open but never accept again, and the job would fail later for
// no visible reason.
//
// At most maxPending connections are between Accept and their call to
// release (the end of their handshake) at once; beyond that, new
// connections wait in the kernel's backlog until one finishes or times out,
// so a flood of idle connections holds a bounded number of descriptors and
// goroutines. handle must call release once its handshake is done, failed
// or not; later calls do nothing. onError, if not nil, is told of every
// failed Accept that is retried.
func Loop(ln net.Listener, maxPending int, onError func(error), handle func(c net.Conn, release func())) {
	slots := make(chan struct{}, maxPending)
	backoff := time.Duration(0)
	for {
		slots <- struct{}{}
		c, err := ln.Accept()
		if err != nil {
			<-slots
			if errors.Is(err, net.ErrClosed) {
				return
			}
			if onError != nil {
				onError(err)
			}
			backoff = min(max(2*backoff, minBackoff), maxBackoff)
			time.Sleep(backoff)
			continue
		}
		backoff = 0
		var once sync.Once
		release := func() { once.Do(func() { <-slots }) }
		go handle(c, release)
	}
}
