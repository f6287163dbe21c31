package wireup

import (
	"strconv"
	"sync/atomic"

	"github.com/gompi/gompi/internal/launch"
	"github.com/gompi/gompi/transport"
	"github.com/gompi/gompi/transport/shm"
)

// segment is this process's open shared-memory transport, for CloseShm.
var segment atomic.Pointer[shm.Transport]

// CloseShm removes this process's shared-memory segment, if it has one:
// for a process about to end with os.Exit, past which deferred closes do
// not run, while its ranks may still run (shm.Transport.Abandon). A job
// that ends normally closes it with Part.Close.
func CloseShm() {
	if sh := segment.Load(); sh != nil {
		sh.Abandon()
	}
}

// openShm opens the shared-memory transport between the processes of this
// host that share memory: those that published this host's name (GOMPI_HOST
// in jobs spanning hosts), and only those, so that processes of other hosts
// cost no ring in the segments, nor count as local when the transport
// decides whether to spin. Every process then meets the others at a barrier
// (all segments exist: peers may write into them) and maps its peers'
// segments, which unlinks them (shm.Transport.Join). shmPeer tells by
// process index which peers it reaches. Where a segment cannot be opened,
// the process says so and its peers reach it over TCP, unless shared
// memory is required (GOMPI_TRANSPORT=shm).
func openShm(env *launch.Env, client *launch.Client, procs []procInfo, bases []int, inboxes []*transport.Inbox,
	virtual, required bool) (sh *shm.Transport, shmPeer []bool, err error) {
	shmPeer = make([]bool, len(procs))
	sharing := map[string]int{} // processes sharing memory, by host
	for _, p := range procs {
		if p.shm {
			sharing[p.host]++
		}
	}
	anyShared := false
	for _, n := range sharing {
		anyShared = anyShared || n > 1
	}
	if !anyShared {
		return nil, shmPeer, nil // no barrier: no host has two processes sharing memory
	}
	local, localIdx := sharingHost(procs, bases, env.Proc)
	if localIdx >= 0 && len(local) > 1 {
		// In virtual time a sender must not wait for its receiver to copy
		// (single copy): the receiver may hold the DATA back until its
		// virtual time comes (Algorithm 2), and every such wait becomes a
		// stall that gompirun must resolve (docs/accuracy.md). It lends a
		// copy instead.
		sh, err = shm.Open(shm.Config{JobID: env.Job, Procs: local, LocalProc: localIdx,
			Inboxes: inboxes, LendCopies: virtual})
		if err != nil && required {
			return nil, nil, err
		}
		// Otherwise it publishes no segment, and its peers use TCP.
	}
	if sh != nil {
		segment.Store(sh)
		if err := client.Put("shm/"+strconv.Itoa(env.Proc), "open"); err != nil {
			sh.Close()
			return nil, nil, err
		}
	}
	kv, err := client.Barrier(barrierShm)
	if err != nil {
		if sh != nil {
			sh.Close()
		}
		return nil, shmPeer, err
	}
	// A process whose segment did not open shares no memory: mark it so
	// in procs, which the TCP decision (lateTCP) reads.
	for i := range procs {
		if procs[i].shm && sharing[procs[i].host] > 1 && kv["shm/"+strconv.Itoa(i)] != "open" {
			procs[i].shm = false
		}
	}
	if sh == nil {
		return nil, shmPeer, nil
	}
	opened := make([]bool, len(local))
	for i, lp := range local {
		opened[i] = kv["shm/"+strconv.Itoa(lp.ID)] == "open"
		shmPeer[lp.ID] = opened[i] && lp.ID != env.Proc
	}
	if err := sh.Join(opened); err != nil {
		sh.Close()
		return nil, nil, err
	}
	return sh, shmPeer, nil
}

// sharingHost lists the processes that share memory with process me (me
// among them, at index idx; -1 when me shares none): those of its host that
// share memory, in process order, which is rank order.
func sharingHost(procs []procInfo, bases []int, me int) (local []shm.Proc, idx int) {
	idx = -1
	if !procs[me].shm {
		return nil, -1
	}
	for p, info := range procs {
		if info.shm && info.host == procs[me].host {
			if p == me {
				idx = len(local)
			}
			local = append(local, shm.Proc{ID: p, Base: bases[p], N: bases[p+1] - bases[p]})
		}
	}
	return local, idx
}

// barrierShm is where the processes meet once every shared-memory segment
// exists.
const barrierShm = "shm"
