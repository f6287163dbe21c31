//go:build !race

package transport

// sleep sleeps on the semaphore until post releases it (wakeup_race.go
// says what the race detector's build adds).
func (w *wakeup) sleep() { semacquire(&w.sema) }
