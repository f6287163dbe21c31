package mpi

import "strconv"

// The public Wait / Test family (MPI_Wait, MPI_Test and their any, some
// and all forms) over the waiting activity of progress.go.

// emptyStatus is what MPI reports for a null request (MPI_REQUEST_NULL):
// source AnySource, tag AnyTag, no bytes, no error. It is not the status of
// a ProcNull receive, whose source is ProcNull.
func emptyStatus() Status { return Status{Source: AnySource, Tag: AnyTag} }

// finish runs a completed request's completion hook once and returns its
// status and error.
func (q *Request) finish() (Status, error) {
	if q.freed {
		return emptyStatus(), errFreed()
	}
	if h := q.onDone; h != nil {
		q.onDone = nil
		h(q)
	}
	st, err := q.status, q.err
	if q.persist != nil && q.persist.active {
		q.deactivate() // persistent.go
	}
	return st, err
}

// Wait blocks until the request completes and returns its status (MPI_Wait).
// A receive's status names the source and tag; its error is the operation's
// (a truncation, say).
func (q *Request) Wait() (Status, error) {
	if q != nil {
		q.r.call = userCall{op: callWait}
		if q.r.traceEnterWait() {
			defer q.r.traceLeave()
		}
		if q.r.rec != nil {
			q.r.rec.noteWait([]*Request{q})
		}
	}
	return q.wait()
}

// wait is Wait for the library's own requests: the rank's user-level call
// stays what it is (calls.go).
func (q *Request) wait() (Status, error) {
	if q == nil {
		return emptyStatus(), nil
	}
	if q.freed {
		return emptyStatus(), errFreed()
	}
	q.r.waitFor([]*Request{q}, q.done.Load, true)
	return q.finish()
}

// Test reports whether the request is complete, progressing communication
// once without blocking (MPI_Test).
func (q *Request) Test() (bool, Status, error) {
	if q == nil {
		return true, emptyStatus(), nil
	}
	if q.freed {
		return false, emptyStatus(), errFreed()
	}
	q.r.call = userCall{op: callTest} // a poll may park (deadlock reports name the call)
	if q.r.traceTest(callTest) {
		defer q.r.traceLeave()
	}
	if q.r.rec != nil {
		q.r.rec.noteWait([]*Request{q})
	}
	if q.r.virtual {
		reqs := []*Request{q}
		q.r.progressVirtual(reqs, false) // nonblocking collectives (nbc_progress.go)
		if q.r.testVirtual(reqs, func() bool { return known(q) }, func() []int { return []int{0} }) == nil {
			return false, Status{}, nil
		}
		st, err := q.finish()
		return true, st, err
	}
	if !q.done.Load() {
		q.r.rareState().temporal++
	}
	q.r.waitFor([]*Request{q}, q.done.Load, false)
	if !q.done.Load() {
		return false, Status{}, nil
	}
	st, err := q.finish()
	return true, st, err
}

// Cancel cancels a receive that has not matched a message yet
// (MPI_Cancel). The request still has to be waited for; its status then has
// Cancelled set. Cancelling a matched or completed receive does nothing, as
// in MPI. Send requests cannot be cancelled (deprecated in MPI 4).
func (q *Request) Cancel() error {
	if q == nil {
		return errorf(ClassRequest, "Cancel of a null request")
	}
	if q.kind == reqColl {
		return errorf(ClassRequest, "a nonblocking collective cannot be cancelled")
	}
	if q.kind == reqSend {
		return errorf(ClassRequest, "cancelling a send request is not supported")
	}
	if q.done.Load() || q.matched || !q.posted {
		return nil
	}
	r := q.r
	r.unpost(q, -1)
	q.status = Status{Source: ProcNull, Tag: AnyTag, Cancelled: true}
	q.complete()
	if q.deferred {
		// The frames it held back go to the receives posted after it
		// (virtual_sensitive.go).
		q.deferred = false
		r.deferrals--
		r.clock.EnterEngine()
		r.matchWithheld()
		r.clock.LeaveEngine()
	}
	return nil
}

// reqOwner returns the rank of the first non-nil request.
func reqOwner(reqs []*Request) *rank {
	for _, q := range reqs {
		if q != nil {
			return q.r
		}
	}
	return nil
}

// Waitall waits for every request (MPI_Waitall). It returns the statuses in
// order; when any operation failed the error is an ErrInStatus error and
// each status's Err says which.
func Waitall(reqs []*Request) ([]Status, error) {
	if r := reqOwner(reqs); r != nil {
		r.call = userCall{op: callWaitall}
		if r.traceEnterWait() {
			defer r.traceLeave()
		}
		if r.rec != nil {
			r.rec.noteWait(reqs)
		}
	}
	return waitall(reqs)
}

// waitall is Waitall for the library's own requests (see wait).
func waitall(reqs []*Request) ([]Status, error) {
	waitOn(reqs)
	return collectAll(reqs)
}

// waitOn waits until every request is complete, finishing none.
func waitOn(reqs []*Request) {
	if r := reqOwner(reqs); r != nil {
		r.waitFor(reqs, func() bool { return allDone(reqs) }, true)
	}
}

func allDone(reqs []*Request) bool {
	for _, q := range reqs {
		if q != nil && !q.done.Load() {
			return false
		}
	}
	return true
}

// collectAll finishes every (completed) request and gathers the statuses.
func collectAll(reqs []*Request) ([]Status, error) {
	st := make([]Status, len(reqs))
	var failed bool
	for i, q := range reqs {
		if q == nil {
			st[i] = emptyStatus()
			continue
		}
		s, err := q.finish()
		s.Err = err
		st[i] = s
		failed = failed || err != nil
	}
	if failed {
		return st, inStatus(st)
	}
	return st, nil
}

// finishAll finishes every (completed) request and returns the first
// one's error, without gathering statuses.
func finishAll(reqs []*Request) error {
	var first error
	for _, q := range reqs {
		if q == nil {
			continue
		}
		if _, err := q.finish(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func inStatus(st []Status) error {
	for i, s := range st {
		if s.Err != nil {
			return &Error{Class: ClassInStatus, Msg: "request " + strconv.Itoa(i) + " failed", Err: s.Err}
		}
	}
	return nil
}

// pickDone returns the index of a completed request, scanning from a
// rotating start so that a request that is always ready cannot starve the
// others (Waitany / Testany fairness). -1 if none.
func (r *rank) pickDone(reqs []*Request) int {
	n := len(reqs)
	if n == 0 {
		return -1
	}
	start := int(r.anyCursor) % n
	for k := 0; k < n; k++ {
		i := (start + k) % n
		if q := reqs[i]; q != nil && q.done.Load() {
			r.anyCursor = int32(i + 1)
			return i
		}
	}
	return -1
}

// Waitany waits until one of the requests completes and returns its index
// and status (MPI_Waitany). The caller should set that entry to nil before
// waiting again, as MPI sets it to MPI_REQUEST_NULL. With no non-nil
// requests it returns Undefined at once.
func Waitany(reqs []*Request) (int, Status, error) {
	reqs = activeOnly(reqs) // inactive persistent requests count as null (persistent.go)
	r := reqOwner(reqs)
	if r == nil {
		return Undefined, emptyStatus(), nil
	}
	r.call = userCall{op: callWaitany}
	if r.traceEnterWait() {
		defer r.traceLeave()
	}
	if r.rec != nil {
		r.rec.noteWait(reqs)
	}
	if r.virtual {
		r.progressVirtual(reqs, true)    // nonblocking collectives first (nbc_progress.go)
		i := r.waitFirst(reqs, false)[0] // virtual_waitany.go
		st, err := reqs[i].finish()
		return i, st, err
	}
	r.rareState().temporal++
	r.waitFor(reqs, func() bool { return r.anyDone(reqs) }, true)
	i := r.pickDone(reqs)
	st, err := reqs[i].finish()
	return i, st, err
}

func (r *rank) anyDone(reqs []*Request) bool {
	for _, q := range reqs {
		if q != nil && q.done.Load() {
			return true
		}
	}
	return false
}

// anyKnown and allKnown are anyDone and allDone for the Test family in
// virtual time (virtual_waitany.go). Which of several requests Testany
// and Testsome return is final only once the poll is settled (no other
// request can still complete by the caller's time), or when it cannot
// change: every request is known (Testsome), or the lowest-index one is
// (Testany: it wins ties, lowestKnown).
func anyKnown(reqs []*Request) bool {
	for _, q := range reqs {
		if q != nil && known(q) {
			return true
		}
	}
	return false
}

func lowestKnown(reqs []*Request) bool {
	for _, q := range reqs {
		if q != nil {
			return known(q)
		}
	}
	return false
}

func allKnown(reqs []*Request) bool {
	for _, q := range reqs {
		if q != nil && !known(q) {
			return false
		}
	}
	return true
}

// knownIdx is the indices of the known requests, for Testsome in virtual
// time; nonNil those of every request, for Testall.
func knownIdx(reqs []*Request) []int {
	var idx []int
	for i, q := range reqs {
		if q != nil && known(q) {
			idx = append(idx, i)
		}
	}
	return idx
}

func nonNil(reqs []*Request) []int {
	var idx []int
	for i, q := range reqs {
		if q != nil {
			idx = append(idx, i)
		}
	}
	return idx
}

// Testany is the nonblocking Waitany: ok is false when none has completed.
func Testany(reqs []*Request) (idx int, ok bool, st Status, err error) {
	reqs = activeOnly(reqs) // inactive persistent requests count as null (persistent.go)
	r := reqOwner(reqs)
	if r == nil {
		return Undefined, true, emptyStatus(), nil
	}
	r.call = userCall{op: callTestany}
	if r.traceTest(callTestany) {
		defer r.traceLeave()
	}
	if r.rec != nil {
		r.rec.noteWait(reqs)
	}
	if r.virtual {
		r.progressVirtual(reqs, false)
		idx := r.testVirtual(reqs, func() bool { return lowestKnown(reqs) || r.settled && anyKnown(reqs) }, func() []int {
			now, _ := r.clock.Now()
			idx, _ := firstDone(reqs, now, false)
			return idx
		})
		if idx == nil {
			return Undefined, false, Status{}, nil
		}
		st, err = reqs[idx[0]].finish()
		return idx[0], true, st, err
	}
	r.rareState().temporal++
	r.waitFor(reqs, func() bool { return r.anyDone(reqs) }, false)
	i := r.pickDone(reqs)
	if i < 0 {
		return Undefined, false, Status{}, nil
	}
	st, err = reqs[i].finish()
	return i, true, st, err
}

// Waitsome waits until at least one request completes and returns the
// indices and statuses of all that have (MPI_Waitsome). With no non-nil
// requests it returns nil.
func Waitsome(reqs []*Request) ([]int, []Status, error) {
	reqs = activeOnly(reqs) // inactive persistent requests count as null (persistent.go)
	r := reqOwner(reqs)
	if r == nil {
		return nil, nil, nil
	}
	r.call = userCall{op: callWaitsome}
	if r.traceEnterWait() {
		defer r.traceLeave()
	}
	if r.rec != nil {
		r.rec.noteWait(reqs)
	}
	if r.virtual {
		r.progressVirtual(reqs, true)
		return collectIdx(reqs, r.waitFirst(reqs, true)) // virtual_waitany.go
	}
	r.rareState().temporal++
	r.waitFor(reqs, func() bool { return r.anyDone(reqs) }, true)
	return collectDone(reqs)
}

// Testsome is the nonblocking Waitsome; it may return no indices.
func Testsome(reqs []*Request) ([]int, []Status, error) {
	reqs = activeOnly(reqs) // inactive persistent requests count as null (persistent.go)
	r := reqOwner(reqs)
	if r == nil {
		return nil, nil, nil
	}
	r.call = userCall{op: callTestsome}
	if r.traceTest(callTestsome) {
		defer r.traceLeave()
	}
	if r.rec != nil {
		r.rec.noteWait(reqs)
	}
	if r.virtual {
		r.progressVirtual(reqs, false)
		return collectIdx(reqs, r.testVirtual(reqs, func() bool { return allKnown(reqs) || r.settled && anyKnown(reqs) }, func() []int { return knownIdx(reqs) }))
	}
	r.rareState().temporal++
	r.waitFor(reqs, func() bool { return r.anyDone(reqs) }, false)
	return collectDone(reqs)
}

func collectDone(reqs []*Request) ([]int, []Status, error) {
	var idx []int
	for i, q := range reqs {
		if q != nil && q.done.Load() {
			idx = append(idx, i)
		}
	}
	return collectIdx(reqs, idx)
}

// collectIdx finishes the (completed) requests of reqs at idx and gathers
// their statuses.
func collectIdx(reqs []*Request, idx []int) ([]int, []Status, error) {
	if len(idx) == 0 {
		return nil, nil, nil
	}
	st := make([]Status, len(idx))
	var failed bool
	for k, i := range idx {
		s, err := reqs[i].finish()
		s.Err = err
		st[k] = s
		failed = failed || err != nil
	}
	if failed {
		return idx, st, inStatus(st)
	}
	return idx, st, nil
}

// Testall reports whether every request has completed, progressing once
// without blocking (MPI_Testall). Statuses are returned only when ok.
func Testall(reqs []*Request) (bool, []Status, error) {
	r := reqOwner(reqs)
	if r == nil {
		st, err := collectAll(reqs) // every entry nil: empty statuses
		return true, st, err
	}
	r.call = userCall{op: callTestall}
	if r.traceTest(callTestall) {
		defer r.traceLeave()
	}
	if r.rec != nil {
		r.rec.noteWait(reqs)
	}
	if r.virtual {
		r.progressVirtual(reqs, false)
		if r.testVirtual(reqs, func() bool { return allKnown(reqs) }, func() []int { return nonNil(reqs) }) == nil {
			return false, nil, nil
		}
		st, err := collectAll(reqs)
		return true, st, err
	}
	r.rareState().temporal++
	r.waitFor(reqs, func() bool { return allDone(reqs) }, false)
	if !allDone(reqs) {
		return false, nil, nil
	}
	st, err := collectAll(reqs)
	return true, st, err
}
