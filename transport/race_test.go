//go:build race

package transport

// raceEnabled tells tests that count allocations that the race detector
// is on: sync.Pool then drops items at random.
const raceEnabled = true
