package npb

// Clock is what timers read: an MPI communicator's Wtime, so that virtual
// runs report predicted times. *mpi.Comm satisfies it.
type Clock interface {
	Wtime() float64
}

// Timers is one rank's set of NPB timers (timers.f: timer_clear, start,
// stop, read). Each rank owns its own set; it is not safe to share.
type Timers struct {
	clock   Clock
	start   []float64
	elapsed []float64
}

// NewTimers makes n cleared timers reading clock.
func NewTimers(clock Clock, n int) *Timers {
	return &Timers{clock: clock, start: make([]float64, n), elapsed: make([]float64, n)}
}

// Clear zeroes timer i.
func (t *Timers) Clear(i int) { t.elapsed[i] = 0 }

// Start starts timer i.
func (t *Timers) Start(i int) { t.start[i] = t.clock.Wtime() }

// Stop stops timer i, adding the time since Start to it.
func (t *Timers) Stop(i int) { t.elapsed[i] += t.clock.Wtime() - t.start[i] }

// Read is timer i's accumulated time in seconds.
func (t *Timers) Read(i int) float64 { return t.elapsed[i] }
