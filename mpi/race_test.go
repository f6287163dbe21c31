//go:build race

package mpi

// raceSlowdown scales the few bounds tests put on measured CPU time: the
// race detector makes every memory access of the measured code slower.
const raceSlowdown = 3
