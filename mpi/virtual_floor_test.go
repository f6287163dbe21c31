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
// "gompi" is a virtual world of P ranks at cpu-scale 0 running Barriers
// (dissemination: P messages in each of log2 P rounds, nearly every one
// waking a parked rank: it reports how many times ranks went to sleep per
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
		b.Run(fmt.Sprintf("P%d/gompi", p), func(b *testing.B) {
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
					for range barriers {
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
				})
				if err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(took.Nanoseconds())/msgs/float64(b.N), "ns/msg")
			b.ReportMetric(float64(sleeps.Load())/msgs/float64(b.N), "sleeps/msg")
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
