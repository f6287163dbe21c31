package main

import (
	"fmt"

	"github.com/gompi/gompi/mpi"
)

// exchange: ranks 0 and 1 send each other windows of eager messages of
// several sizes at once, more than a shared-memory ring holds, each from
// one buffer that the sender overwrites as soon as its blocking Send
// returns; the receiver checks every byte. It prints "exchange ok" on
// each of the two ranks. A transport that kept a reference to the buffer
// after Send (the engine lends shared memory the user's buffer), or a
// sender stuck waiting for room, shows.
func exchange(c *mpi.Comm) error {
	me := c.Rank()
	if me > 1 {
		return nil
	}
	peer := 1 - me
	const window = 24
	for round, size := range []int{8, 1000, 40000, 100000} {
		rbufs := make([][]byte, window)
		reqs := make([]*mpi.Request, window)
		for w := range rbufs {
			rbufs[w] = make([]byte, size)
			q, err := mpi.Irecv(c, rbufs[w], peer, w)
			if err != nil {
				return err
			}
			reqs[w] = q
		}
		sbuf := make([]byte, size)
		for w := 0; w < window; w++ {
			fillExchange(sbuf, me, round, w)
			if err := mpi.Send(c, sbuf, peer, w); err != nil {
				return err
			}
		}
		if _, err := mpi.Waitall(reqs); err != nil {
			return err
		}
		want := make([]byte, size)
		for w, b := range rbufs {
			fillExchange(want, peer, round, w)
			for i := range b {
				if b[i] != want[i] {
					return fmt.Errorf("rank %d: message %d of %d bytes from rank %d: byte %d is %d, want %d", me, w, size, peer, i, b[i], want[i])
				}
			}
		}
	}
	fmt.Printf("rank %d: exchange ok\n", me)
	return nil
}

// fillExchange writes the content of message w of round round from rank.
func fillExchange(b []byte, rank, round, w int) {
	for i := range b {
		b[i] = byte(i*7 + rank*31 + round*13 + w*5 + i>>9)
	}
}
