package mpi

// Progress of nonblocking collectives (schedule.go) in the rank's waits.
//
// Every wait of a rank with outstanding schedules progresses them all, as
// MPICH's progress engine does: a schedule whose step is complete is
// resumed and posts its next step. In real mode the wait simply returns
// to resume a schedule whenever one of their steps completes.
//
// In virtual mode the order matters: a schedule's next sends start when
// its step completes in virtual time, so the steps and the wait's own
// requests must be dealt with in the order the target completes them,
// not the order the host does. The wait therefore chooses, as Waitsome
// does in virtual time (virtual_waitany.go), the earliest-completing among
// the pending step requests and the caller's own requests, waits for
// those, resumes the schedules they complete, and repeats until the
// caller's condition holds. When a single schedule is all there is to wait
// for (Wait on one nonblocking collective with nothing else outstanding)
// it waits for the step as the blocking collective's waitColl does, so
// Ixxx followed by Wait predicts exactly the time of the blocking xxx.

// waitProgress is waitFor on a rank with outstanding schedules: it
// progresses them until cond holds (block) or once (a test), then waits
// for reqs as waitFor would.
func (r *rank) waitProgress(reqs []*Request, cond func() bool, block bool) {
	r.clock.EnterEngine()
	defer r.clock.LeaveEngine()
	r.nbc.progressing = true
	defer func() { r.nbc.progressing = false }()
	switch {
	case r.virtual && block:
		r.progressUntil(reqs, false) // a blocking waitFor waits for all of reqs
	case r.virtual:
		r.pollSchedules()
	default:
		r.progressReal(reqs, cond, block)
	}
	r.waitOnly(reqs, cond, block)
}

// progressReal progresses the schedules in real mode: it waits for cond or
// for any schedule's step, resumes the schedules that can go on, and
// repeats (block) or stops after one pass (a test).
func (r *rank) progressReal(reqs []*Request, cond func() bool, block bool) {
	for {
		r.advanceDone()
		if cond() || len(r.nbc.active) == 0 {
			return
		}
		all := append([]*Request(nil), reqs...)
		for _, s := range r.nbc.active {
			all = append(all, s.step...)
		}
		r.waitOnly(all, func() bool { return cond() || r.nbc.stepDone() }, block)
		if !block {
			r.advanceDone()
			return
		}
	}
}

// progressUntil progresses the schedules in virtual time while the
// caller waits for user, its own requests: until every one of them (any
// false) or one of them (any true) has completed in virtual order, or no
// schedule is left. A request counts as completed only once a choice in
// virtual time has taken it (waitFirst), never because the host happens
// to have completed it already: the host's order must not decide which
// schedule moves on first.
func (r *rank) progressUntil(user []*Request, any bool) {
	taken := map[*Request]bool{}
	finished := func(q *Request) bool { return taken[q] || q.kind == reqColl && q.done.Load() }
	for len(r.nbc.active) > 0 {
		all, one := true, false
		var set []*Request
		for _, q := range user {
			if q == nil {
				continue
			}
			if finished(q) {
				one = true
				continue
			}
			all = false
			if q.kind != reqColl {
				set = append(set, q)
			}
		}
		if all || any && one {
			return
		}
		if r.advanceTaken() {
			continue
		}
		if len(set) == 0 && len(r.nbc.active) == 1 {
			r.advance(r.nbc.active[0]) // the blocking collective's wait
			continue
		}
		for _, s := range r.nbc.active {
			for i, q := range s.step {
				if !s.taken[i] {
					set = append(set, q)
				}
			}
		}
		for _, i := range r.waitFirst(set, true) {
			taken[set[i]] = true
		}
		for _, s := range r.nbc.active {
			for i, q := range s.step {
				s.taken[i] = s.taken[i] || taken[q]
			}
		}
	}
}

// advanceTaken advances, in start order, the schedules whose step's
// requests have all been taken in virtual order; it reports whether any
// did.
func (r *rank) advanceTaken() bool {
	for _, s := range r.nbc.active {
		if s.allTaken() {
			r.advance(s)
			return true
		}
	}
	return false
}

// pollSchedules is the progress a Test-family call makes in virtual time:
// each schedule, in start order, advances over every step the target has
// completed by the caller's time (a poll of virtual_sensitive.go per
// step). Every step is polled, even one the host has already completed:
// a poll costs virtual time (world.pollCost), and skipping it on the
// host's word made the prediction depend on the host's order.
func (r *rank) pollSchedules() {
	for _, s := range append([]*schedule(nil), r.nbc.active...) {
		for s.step != nil {
			step := s.step
			if r.testVirtual(step, func() bool { return allKnown(step) }, func() []int { return nonNil(step) }) == nil {
				break
			}
			r.advance(s)
		}
	}
}

// progressVirtual progresses the schedules before a Waitany or Waitsome
// (block) or a Test-family call in virtual time chooses among reqs: until
// one of reqs is known to complete, or by one poll. It does nothing without
// schedules, or inside the progress of another wait.
func (r *rank) progressVirtual(reqs []*Request, block bool) {
	if len(r.nbc.active) == 0 || r.nbc.progressing {
		return
	}
	r.clock.EnterEngine()
	defer r.clock.LeaveEngine()
	r.nbc.progressing = true
	defer func() { r.nbc.progressing = false }()
	if block {
		r.progressUntil(reqs, true)
	} else {
		r.pollSchedules()
	}
}

// pollProgress is the progress an Iprobe makes: one pass over the
// schedules, as a Test makes, so that a rank polling with Iprobe still
// forwards its collectives' messages.
func (r *rank) pollProgress() {
	if len(r.nbc.active) == 0 || r.nbc.progressing {
		return
	}
	r.clock.EnterEngine()
	defer r.clock.LeaveEngine()
	r.nbc.progressing = true
	defer func() { r.nbc.progressing = false }()
	if r.virtual {
		r.pollSchedules()
	} else {
		r.progressReal(nil, func() bool { return false }, false)
	}
}

// probeProgress is a blocking Probe's waiting phase on a rank with
// outstanding schedules: it ends to resume a schedule whenever a step
// completes, until found holds. (In virtual mode the schedules advance in
// the host's order here, not in virtual order: docs/mpi.md.)
func (r *rank) probeProgress(found func() bool) {
	r.nbc.progressing = true
	defer func() { r.nbc.progressing = false }()
	for {
		for _, s := range r.nbc.active {
			for _, q := range s.step {
				r.mark(q) // related to this wait: dealt with at once, never left early
			}
		}
		r.waitPhase(func() bool { return found() || r.nbc.stepDone() }, true, nil)
		if found() {
			return
		}
		probe := r.probe
		r.probe = nil // the steps' waits are not the Probe's
		r.advanceDone()
		r.probe = probe
		r.waitEpoch++
	}
}
