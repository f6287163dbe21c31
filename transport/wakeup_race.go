//go:build race

package transport

// sleep sleeps on the semaphore until post releases it, then tells the
// race detector that the post happened before: the runtime's semaphore
// tells it nothing, where a channel or a Mutex would. The post moved the
// state before it released the semaphore.
func (w *wakeup) sleep() {
	semacquire(&w.sema)
	w.state.Load()
}
