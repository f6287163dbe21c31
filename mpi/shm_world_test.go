//go:build linux

package mpi

import (
	"testing"

	"github.com/gompi/gompi/transport"
	"github.com/gompi/gompi/transport/shm"
)

// loopWorld is a world of one real rank (world rank 0 of two) whose
// messages to itself go through a shared-memory ring as if it lived in
// another process: a second shm.Transport in this process writes the
// ring, the rank's own one reads it, as a launched job's spinning receive
// does. route is what the rank sends through (wrap may wrap the shm
// route); with short, the rank's calls may take the short paths of
// p2p_small.go, as in a launched job.
func loopWorld(t testing.TB, short bool, wrap func(*world, transport.Transport) transport.Transport, opts ...Option) *world {
	t.Helper()
	cfg, err := newConfig(opts)
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(2, 0, 1, cfg) // rank 1, of the other process, never runs
	w.local = true
	r := w.ranks[0]
	procs := []shm.Proc{{ID: 0, Base: 0, N: 1}, {ID: 1, Base: 1, N: 1}}
	dir := t.TempDir()
	mine, err := shm.Open(shm.Config{JobID: "loop", Dir: dir, Procs: procs, LocalProc: 0, Inboxes: []*transport.Inbox{r.inbox}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { mine.Close() })
	other, err := shm.Open(shm.Config{JobID: "loop", Dir: dir, Procs: procs, LocalProc: 1, Inboxes: []*transport.Inbox{transport.NewInbox()}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { other.Close() })
	for _, tr := range []*shm.Transport{mine, other} {
		if err := tr.Join([]bool{true, true}); err != nil {
			t.Fatal(err)
		}
	}
	r.inbox.SetSpin(transport.Spin{Checks: transport.SpinIters})
	r.inbox.AddPoller(mine)
	var out transport.Transport = other
	if wrap != nil {
		out = wrap(w, other)
	}
	route := &transport.Table{Routes: []transport.Transport{out}}
	w.out, w.copier = route, route
	if short {
		w.small, w.smallMax = smallRoutes(route)
	}
	return w
}

// pairWorld is a world of two real ranks, goroutines of this process,
// each as if in a process of its own: its messages to the other go
// through a shared-memory ring (two shm.Transports, one a "process"),
// except where wrap, given each rank's route, says otherwise. With
// short, the ranks' calls may take the short paths of p2p_small.go.
func pairWorld(t testing.TB, short bool, wrap func(transport.Transport) transport.Transport) *world {
	t.Helper()
	cfg, err := newConfig(nil)
	if err != nil {
		t.Fatal(err)
	}
	w := newWorld(2, 0, 2, cfg)
	w.local = true
	procs := []shm.Proc{{ID: 0, Base: 0, N: 1}, {ID: 1, Base: 1, N: 1}}
	dir := t.TempDir()
	trs := make([]*shm.Transport, 2)
	for p := range trs {
		tr, err := shm.Open(shm.Config{JobID: "pair", Dir: dir, Procs: procs, LocalProc: p, Inboxes: []*transport.Inbox{w.ranks[p].inbox}})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { tr.Close() })
		trs[p] = tr
	}
	for p, tr := range trs {
		if err := tr.Join([]bool{true, true}); err != nil {
			t.Fatal(err)
		}
		w.ranks[p].inbox.SetSpin(transport.Spin{Checks: transport.SpinIters})
		w.ranks[p].inbox.AddPoller(tr)
	}
	// By destination: rank 1 is reached through process 0's transport
	// (rank 0 is the only one to send to it), rank 0 through process 1's.
	routes := []transport.Transport{trs[1], trs[0]}
	if wrap != nil {
		for i := range routes {
			routes[i] = wrap(routes[i])
		}
	}
	route := &transport.Table{Routes: routes}
	w.out, w.copier = route, route
	if short {
		w.small, w.smallMax = smallRoutes(route)
	}
	return w
}
