package mpi

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"
)

// Every rank sends two messages to rank 0, one eager and one rendezvous.
// Rank 0 takes one with a matched probe (Mprobe or an Improbe loop), then
// posts an AnySource receive that could match it, and only then receives
// the probed message: Mrecv gets exactly what was probed, the competing
// receive something else, and one sender's messages still come in order.
func TestMprobeCompetingReceives(t *testing.T) {
	for _, n := range worldSizes {
		large := DefaultEagerLimit + 1
		if n == 64 {
			large = 4096
		}
		sizes := []int{100, large}
		runT(t, n, func(c *Comm) error {
			var sends []*Request
			for seq, size := range sizes {
				out := make([]byte, size)
				pattern(out, c.Rank(), 0, seq)
				q, err := Isend(c, out, 0, 1)
				if err != nil {
					return err
				}
				sends = append(sends, q)
			}
			if c.Rank() == 0 {
				if err := mprobeReceiver(c, sizes); err != nil {
					return err
				}
			}
			_, err := Waitall(sends)
			return err
		})
	}
}

func mprobeReceiver(c *Comm, sizes []int) error {
	next := make([]int, c.Size()) // each source's next sequence number
	check := func(what string, st Status, buf []byte) error {
		s := st.Source
		if s < 0 || s >= c.Size() || next[s] >= len(sizes) {
			return fmt.Errorf("%s: status %+v", what, st)
		}
		seq := next[s]
		next[s]++
		if st.Tag != 1 || st.Bytes != sizes[seq] {
			return fmt.Errorf("%s: status %+v, want seq %d of %d bytes", what, st, seq, sizes[seq])
		}
		return checkPattern(buf[:st.Bytes], s, 0, seq)
	}
	maxSize := slices.Max(sizes)
	for k := 0; k < c.Size(); k++ {
		var m *Message
		var pst Status
		var err error
		if k%2 == 0 {
			m, pst, err = c.Mprobe(AnySource, 1)
		} else {
			for ok := false; !ok && err == nil; {
				ok, m, pst, err = c.Improbe(AnySource, AnyTag)
			}
		}
		if err != nil {
			return err
		}
		in, other := make([]byte, maxSize), make([]byte, maxSize)
		q, err := Irecv(c, other, AnySource, 1)
		if err != nil {
			return err
		}
		var st Status
		if k%3 == 0 {
			var mq *Request
			if mq, err = Imrecv(m, in); err == nil {
				st, err = mq.Wait()
			}
		} else {
			st, err = Mrecv(m, in)
		}
		if err != nil {
			return err
		}
		if st != pst {
			return fmt.Errorf("Mrecv status %+v, probe said %+v", st, pst)
		}
		if err := check("Mrecv", st, in); err != nil {
			return err
		}
		ost, err := q.Wait()
		if err != nil {
			return err
		}
		if err := check("competing Irecv", ost, other); err != nil {
			return err
		}
	}
	return nil
}

// The null and no-process messages, reuse, truncation, and an Improbe
// that finds nothing.
func TestMprobeEdges(t *testing.T) {
	if _, err := Mrecv[int](nil, nil); !errors.Is(err, ErrRequest) {
		t.Fatalf("Mrecv of the null message: %v", err)
	}
	runT(t, 2, func(c *Comm) error {
		if c.Rank() == 1 {
			if err := Send(c, []int32{1, 2, 3}, 0, 4); err != nil {
				return err
			}
			return Send(c, []int32{9}, 0, 5)
		}
		ok, m, _, err := c.Improbe(1, 6)
		if ok || m != nil || err != nil {
			return fmt.Errorf("Improbe with no message of tag 6: %v %v %v", ok, m, err)
		}
		m, st, err := c.Mprobe(ProcNull, 0)
		if err != nil || m == nil || st.Source != ProcNull {
			return fmt.Errorf("Mprobe(ProcNull): %v %+v %v", m, st, err)
		}
		if st, err := Mrecv(m, []int32{0}); err != nil || st.Source != ProcNull || st.Bytes != 0 {
			return fmt.Errorf("Mrecv of the no-process message: %+v %v", st, err)
		}
		if _, err := Mrecv(m, []int32{0}); !errors.Is(err, ErrRequest) {
			return fmt.Errorf("second Mrecv of a message: %v", err)
		}
		if _, _, err := c.Mprobe(2, 0); !errors.Is(err, ErrRank) {
			return fmt.Errorf("Mprobe of rank 2 of 2: %v", err)
		}
		if _, _, _, err := c.Improbe(0, -3); !errors.Is(err, ErrTag) {
			return fmt.Errorf("Improbe with tag -3: %v", err)
		}
		m, st, err = c.Mprobe(1, 4)
		if err != nil || st.Bytes != 12 {
			return fmt.Errorf("Mprobe: %+v %v", st, err)
		}
		small := make([]int32, 2)
		if st, err := Mrecv(m, small); !errors.Is(err, ErrTruncate) || st.Bytes != 8 || small[1] != 2 {
			return fmt.Errorf("Mrecv into a short buffer: %+v %v %v", st, err, small)
		}
		// The truncated message is gone: the next one is tag 5's.
		st, err = Recv(c, small, 1, AnyTag)
		if err != nil || st.Tag != 5 || small[0] != 9 {
			return fmt.Errorf("after the truncated Mrecv: %+v %v", st, err)
		}
		return nil
	})
}

// In virtual time an AnySource Mprobe is Probe: the target's answer,
// whatever the host's order, so the sources come in the order of their
// arrival on the target and Mprobe+Mrecv predicts what Probe+Recv does,
// repeatably. The same holds for an Improbe loop against an Iprobe loop.
func TestMprobeVirtualEqualsProbe(t *testing.T) {
	const n = 9
	run := func(kind string) (float64, []int) {
		var order []int
		fn := func(c *Comm) error {
			if c.Rank() != 0 {
				// Later ranks send earlier on the target.
				c.Elapse(time.Duration(n-c.Rank()) * 10 * time.Microsecond)
				return Send(c, make([]float64, 10*c.Rank()), 0, c.Rank())
			}
			buf := make([]float64, 10*n)
			for k := 1; k < n; k++ {
				var st Status
				var err error
				switch kind {
				case "probe":
					if st, err = c.Probe(AnySource, AnyTag); err == nil {
						st, err = Recv(c, buf, st.Source, st.Tag)
					}
				case "mprobe":
					var m *Message
					if m, _, err = c.Mprobe(AnySource, AnyTag); err == nil {
						st, err = Mrecv(m, buf)
					}
				case "iprobe":
					for ok := false; !ok && err == nil; {
						ok, st, err = c.Iprobe(AnySource, AnyTag)
					}
					if err == nil {
						st, err = Recv(c, buf, st.Source, st.Tag)
					}
				case "improbe":
					var m *Message
					for ok := false; !ok && err == nil; {
						ok, m, _, err = c.Improbe(AnySource, AnyTag)
					}
					if err == nil {
						st, err = Mrecv(m, buf)
					}
				}
				if err != nil {
					return err
				}
				order = append(order, st.Source)
			}
			return nil
		}
		return virtualTime(t, n, fn), order
	}
	for _, pair := range [][2]string{{"probe", "mprobe"}, {"iprobe", "improbe"}} {
		want, wantOrder := run(pair[0])
		for rep := 0; rep < 2; rep++ {
			got, order := run(pair[1])
			if got != want || !slices.Equal(order, wantOrder) {
				t.Fatalf("%s predicts %g s, sources %v; %s %g s, sources %v", pair[1], got, order, pair[0], want, wantOrder)
			}
		}
		if !slices.Equal(wantOrder, []int{8, 7, 6, 5, 4, 3, 2, 1}) {
			t.Fatalf("%s: sources in order %v, want the target's arrival order", pair[0], wantOrder)
		}
	}
}

// In virtual time a matched probe does not take a message that an
// AnySource receive posted before it gets on the target: rank 1's first
// message arrives first, so the receive takes it, and Mprobe(1) waits for
// rank 1's second one, whatever the host's order.
func TestMprobeLeavesDeferredReceiveItsMessage(t *testing.T) {
	for rep := 0; rep < 3; rep++ {
		virtualTime(t, 3, func(c *Comm) error {
			switch c.Rank() {
			case 1:
				if err := Send(c, []int{1}, 0, 0); err != nil {
					return err
				}
				c.Elapse(50 * time.Microsecond)
				return Send(c, []int{2}, 0, 0)
			case 2:
				c.Elapse(20 * time.Microsecond) // after rank 1's first
				return Send(c, []int{3}, 0, 0)
			}
			first := make([]int, 1)
			q, err := Irecv(c, first, AnySource, 0)
			if err != nil {
				return err
			}
			m, _, err := c.Mprobe(1, 0)
			if err != nil {
				return err
			}
			got := make([]int, 1)
			if _, err := Mrecv(m, got); err != nil {
				return err
			}
			st, err := q.Wait()
			if err != nil {
				return err
			}
			if st.Source != 1 || first[0] != 1 || got[0] != 2 {
				return fmt.Errorf("receive got %d from %d, Mrecv %d; want 1 from 1, then 2", first[0], st.Source, got[0])
			}
			_, err = Recv(c, got, 2, 0)
			return err
		})
	}
}
