package mpi

import (
	"errors"
	"reflect"
	"testing"
)

// TestDeadlockNamesUserCalls: a deadlock report names the call each rank's
// application made (Allreduce, Recv from 3 tag 7), not the library's own
// waits inside it (a collective's Waitall, a Recv's Wait).
func TestDeadlockNamesUserCalls(t *testing.T) {
	cases := []struct {
		name string
		fn   func(c *Comm) error
		want []string
	}{
		{"collectives", func(c *Comm) error {
			if c.Rank() == 0 {
				return Allreduce(c, []int{1}, make([]int, 1), Sum)
			}
			if c.Rank() == 1 {
				return Bcast(c, make([]int, 1), 2)
			}
			return c.Barrier()
		}, []string{"rank 0 in Allreduce", "rank 1 in Bcast (root 2)", "rank 2 in Barrier"}},
		{"point-to-point", func(c *Comm) error {
			var err error
			switch c.Rank() {
			case 0:
				_, err = Recv(c, make([]byte, 1), 2, 7)
			case 1:
				err = Send(c, make([]byte, 4*DefaultEagerLimit), 0, 5) // rendezvous: waits for 0
			case 2:
				_, err = Sendrecv(c, []byte{1}, 1, 0, make([]byte, 1), AnySource, AnyTag)
			}
			return err
		}, []string{"rank 0 in Recv from 2 tag 7", "rank 1 in Send to 0 tag 5", "rank 2 in Sendrecv to 1 from any source"}},
		{"requests and probes", func(c *Comm) error {
			var err error
			switch c.Rank() {
			case 0:
				_, err = c.Probe(1, AnyTag)
			case 1:
				var q *Request
				if q, err = Irecv(c, make([]byte, 1), 0, 3); err == nil {
					_, err = Waitall([]*Request{q})
				}
			case 2:
				_, err = c.Split(0, 0)
			}
			return err
		}, []string{"rank 0 in Probe from 1 any tag", "rank 1 in Waitall", "rank 2 in Comm.Split"}},
	}
	for _, tc := range cases {
		err := runBounded(3, tc.fn)
		var de *DeadlockError
		if !errors.As(err, &de) || !reflect.DeepEqual(de.Blocked, tc.want) {
			t.Errorf("%s: got %v; want a deadlock naming %q", tc.name, err, tc.want)
		}
	}
}

// TestUserCallPacking: a call survives its trip through rank.blockedIn,
// and a peer too large for its bits is named vaguely, never wrongly.
func TestUserCallPacking(t *testing.T) {
	for _, u := range []userCall{
		{callRecv, AnySource, AnyTag}, {callSend, 0, TagUB}, {callProbe, 1<<24 - 4, 0},
		{callSendrecv, ProcNull, 12}, {callBarrier, 0, 0}, {callsEnd - 1, 5, 6},
	} {
		got, fits := unpack(u.packed())
		if got != u || !fits || u.packed()&1 == 0 {
			t.Errorf("%+v came back as %+v (fits %v)", u, got, fits)
		}
	}
	big := userCall{callRecv, 1<<24 - 3, 7}
	if got := big.describe(false); got != "Recv from a rank tag 7" {
		t.Errorf("a peer of %d: %q", big.a, got)
	}
	if _, fits := unpack(big.packed()); fits {
		t.Errorf("a peer of %d fits in 24 bits", big.a)
	}
}
