package mpi

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gompi/gompi/vtime"
)

// BenchmarkBarrierFloor sets what a virtual rank's message costs the host
// beside the least any engine that gives each rank a goroutine could pay:
// "gompi-messages" is a virtual world of P ranks at cpu-scale 0 running
// Barriers by their messages (dissemination: P messages in each of log2 P
// rounds, nearly every one waking a parked rank: it reports how many times
// ranks went to sleep per message), "gompi" the same world as programs run
// it, its Barriers computed at the gate (coll_bulk.go; per simulated
// message), "channels" the same exchange among P plain
// goroutines, each waiting on a channel of its own with a call chain about
// as deep as a parked rank's, and nothing else. Both report host
// nanoseconds per message over the Barriers after the first (docs/model.md,
// "Virtual ranks on one host"):
//
//	go test -run NONE -bench BarrierFloor -benchtime 1x -timeout 30m ./mpi
func BenchmarkBarrierFloor(b *testing.B) {
	const barriers = 10
	for _, p := range []int{1024, 16384, 131072, 1048576} {
		msgs := float64(barriers * p * disseminationRounds(p))
		b.Run(fmt.Sprintf("P%d/gompi", p), func(b *testing.B) { barrierFloor(b, p, barriers, msgs) })
		b.Run(fmt.Sprintf("P%d/gompi-messages", p), func(b *testing.B) {
			barrierFloor(b, p, barriers, msgs, withMessageCollectives())
		})
		b.Run(fmt.Sprintf("P%d/channels", p), func(b *testing.B) {
			var took time.Duration
			for b.Loop() {
				took += channelBarriers(p, barriers)
			}
			b.ReportMetric(float64(took.Nanoseconds())/msgs/float64(b.N), "ns/msg")
		})
	}
}

// barrierFloor is BenchmarkBarrierFloor's gompi cases: a virtual world of
// p ranks runs one Barrier and then n timed ones (msgs messages).
func barrierFloor(b *testing.B, p, n int, msgs float64, opts ...Option) {
	m, err := vtime.Preset("tianhe1a")
	if err != nil {
		b.Fatal(err)
	}
	var took time.Duration
	var sleeps atomic.Int64
	for b.Loop() {
		v, err := NewVirtual(m, p, 0)
		if err != nil {
			b.Fatal(err)
		}
		var start time.Time
		err = v.Run(func(c *Comm) error {
			if err := c.Barrier(); err != nil {
				return err
			}
			if c.Rank() == 0 {
				start = time.Now()
			}
			_, before := c.r.inbox.Asleep()
			for range n {
				if err := c.Barrier(); err != nil {
					return err
				}
			}
			_, after := c.r.inbox.Asleep()
			sleeps.Add(int64(after - before))
			if c.Rank() == 0 {
				took += time.Since(start)
			}
			return nil
		}, opts...)
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(took.Nanoseconds())/msgs/float64(b.N), "ns/msg")
	b.ReportMetric(float64(sleeps.Load())/msgs/float64(b.N), "sleeps/msg")
}

func disseminationRounds(p int) int {
	n := 0
	for k := 1; k < p; k <<= 1 {
		n++
	}
	return n
}

// floorRank is a goroutine of channelBarriers: a count of messages
// received and not yet taken, and how to wake it when it sleeps.
type floorRank struct {
	msgs     atomic.Int64
	sleeping atomic.Bool
	wake     chan struct{}
}

func (r *floorRank) deliver() {
	r.msgs.Add(1)
	if r.sleeping.Load() && r.sleeping.CompareAndSwap(true, false) {
		r.wake <- struct{}{}
	}
}

func (r *floorRank) take() {
	for {
		if r.msgs.Load() > 0 {
			r.msgs.Add(-1)
			return
		}
		r.sleeping.Store(true)
		if r.msgs.Load() > 0 && r.sleeping.CompareAndSwap(true, false) {
			continue
		}
		<-r.wake
	}
}

// channelBarriers runs one dissemination barrier and then n timed ones
// among p goroutines and returns the time of the n.
func channelBarriers(p, n int) time.Duration {
	ranks := make([]floorRank, p)
	for i := range ranks {
		ranks[i].wake = make(chan struct{}, 1)
	}
	barrier := func(me int) {
		for k := 1; k < p; k <<= 1 {
			ranks[(me+k)%p].deliver()
			ranks[me].take()
		}
	}
	var wg sync.WaitGroup
	var start time.Time
	var took time.Duration
	for me := range p {
		wg.Add(1)
		go func() {
			defer wg.Done()
			atDepth(12, func() {
				barrier(me)
				if me == 0 {
					start = time.Now()
				}
				for range n {
					barrier(me)
				}
				if me == 0 {
					took = time.Since(start)
				}
			})
		}()
	}
	wg.Wait()
	return took
}

// atDepth calls fn below depth frames of about 100 bytes each, as deep as
// a parked rank's call chain (docs/model.md).
//
//go:noinline
func atDepth(depth int, fn func()) byte {
	var pad [64]byte
	if depth > 0 {
		pad[depth%64] = atDepth(depth-1, fn)
		return pad[(depth+1)%64]
	}
	fn()
	return pad[1]
}
