package vtime

import "testing"

// TestRankEngineBracketMeasuresNothing: between EnterEngine and
// LeaveEngine no computation is measured, whatever event points come
// between (their End would otherwise start a burst), brackets nest, and
// the program's computation before and after is charged as usual.
func TestRankEngineBracketMeasuresNothing(t *testing.T) {
	f := &fakeMeter{}
	r := NewRank(tianhe(t, 24), 0, f, 1)
	r.SimStart()
	f.now += 1 // the program computes 1 s
	r.EnterEngine()
	f.now += 5 // the engine matches and posts
	r.EnterEngine()
	r.Begin()
	r.Stamp(0, 1)
	r.EndSend(0)
	f.now += 5 // between activities
	r.Begin()
	r.WaitStart(true)
	r.WaitEnd()
	r.LeaveEngine() // inner: still in the engine
	f.now += 5
	r.LeaveEngine()
	f.now += 2      // the program computes 2 s
	r.LeaveEngine() // unmatched: ignored
	r.SimEnd()
	if got := r.Result().Computation; !near(got, 3) {
		t.Errorf("computation %g s, want the program's 1 + 2 = 3 s", got)
	}
}
