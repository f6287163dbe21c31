package mpi

import (
	"strconv"
	"testing"
)

// A nil request is MPI_REQUEST_NULL: every wait and test on it reports MPI's
// empty status (source AnySource, tag AnyTag, no bytes, no error), which is
// not the status of a receive from ProcNull.
func TestNullRequestEmptyStatus(t *testing.T) {
	empty := Status{Source: AnySource, Tag: AnyTag}
	check := func(what string, st Status, err error) {
		t.Helper()
		if err != nil || st != empty {
			t.Errorf("%s: status %+v, error %v; want the empty status %+v and no error", what, st, err, empty)
		}
	}
	var q *Request
	st, err := q.Wait()
	check("Wait", st, err)
	ok, st, err := q.Test()
	if !ok {
		t.Error("Test of a nil request: not complete")
	}
	check("Test", st, err)

	null := []*Request{nil, nil}
	sts, err := Waitall(null)
	for i, st := range sts {
		check("Waitall entry "+strconv.Itoa(i), st, err)
	}
	ok, sts, err = Testall(null)
	if !ok || len(sts) != len(null) {
		t.Errorf("Testall of nil requests: ok %v, %d statuses", ok, len(sts))
	}
	for i, st := range sts {
		check("Testall entry "+strconv.Itoa(i), st, err)
	}
	i, st, err := Waitany(null)
	if i != Undefined {
		t.Errorf("Waitany of nil requests: index %d, want Undefined", i)
	}
	check("Waitany", st, err)
	i, ok, st, err = Testany(null)
	if i != Undefined || !ok {
		t.Errorf("Testany of nil requests: index %d ok %v, want Undefined true", i, ok)
	}
	check("Testany", st, err)

	// A nil entry among live requests gets the empty status too.
	runT(t, 1, func(c *Comm) error {
		rq, err := Irecv(c, make([]byte, 1), 0, 5)
		if err != nil {
			return err
		}
		if err := Send(c, []byte{1}, 0, 5); err != nil {
			return err
		}
		sts, err := Waitall([]*Request{nil, rq})
		if err != nil {
			return err
		}
		check("Waitall nil entry beside a receive", sts[0], nil)
		return nil
	})
}
