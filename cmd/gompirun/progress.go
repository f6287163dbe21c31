package main

import (
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/gompi/gompi/internal/launch"
)

// A long virtual run says how far it has got: every -progress interval
// (10 s by default when gompirun's stderr is a terminal, never otherwise
// unless asked) gompirun asks the processes and prints a line, such as
//
//	gompirun: 1m10s: 3000 of 4096 ranks finished, virtual time 1.2 ms to 1.9 ms, 52341760 messages
//
// "virtual time" is the span of the clocks of the ranks not yet finished:
// the prediction will be at least its end.

// progressQuery bounds how long a progress question waits for answers.
const progressQuery = 2 * time.Second

// progressEvery is the interval of the progress lines; 0: none.
func (o *options) progressEvery() time.Duration {
	if o.virt == nil {
		return 0
	}
	if o.progressSet {
		return o.progress
	}
	if st, err := os.Stderr.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
		return 10 * time.Second
	}
	return 0
}

// showing is set while a progress question is out: one at a time.
var showing atomic.Bool

// showProgress asks the processes how far they are and prints a line.
func (sv *supervisor) showProgress() {
	if !showing.CompareAndSwap(false, true) {
		return
	}
	defer showing.Store(false)
	pr, ok := sv.ex.Progress(progressQuery)
	if !ok {
		return
	}
	fmt.Fprintln(os.Stderr, progressLine(time.Since(sv.t0), sv.o.ranks, pr))
}

// progressLine formats one progress report of a job of ranks ranks.
func progressLine(since time.Duration, ranks int, pr launch.Progress) string {
	line := fmt.Sprintf("gompirun: %v: ", since.Round(time.Second))
	if pr.Missing == 0 {
		line += fmt.Sprintf("%d of %d ranks finished", ranks-pr.Unfinished, ranks)
	} else {
		line += fmt.Sprintf("%d ranks unfinished (%d processes did not answer)", pr.Unfinished, pr.Missing)
	}
	if pr.Unfinished > 0 {
		line += fmt.Sprintf(", virtual time %s to %s", seconds(pr.Behind), seconds(pr.Ahead))
	}
	return line + fmt.Sprintf(", %d messages", pr.Messages)
}
