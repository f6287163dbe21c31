//go:build !race

package mpi

// raceSlowdown: see race_test.go.
const raceSlowdown = 1
