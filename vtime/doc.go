// Package vtime is the prediction model of gompi's virtual-time mode, after
// VACED-SIM (Lin, Yang, Xu, Guo, IEICE 2013): computation is measured on the
// host (actual simulation, Eq. 2), communication is computed for a target
// machine (virtual simulation, Eq. 3 and 4), and the waiting activity follows
// the early-queue algorithm (Algorithms 2 and 3).
//
// The package is pure and deterministic: it imports nothing of this
// repository, so every rule can be tested on its own with a fake CPU clock.
// Package mpi adapts a Rank to the protocol engine's 12 event points (and
// the brackets of the engine's own work, Rank.EnterEngine).
//
// Where things are:
//
//	machine.go     the target machine: parameters, JSON file format, presets
//	topology.go    the hop functions (star, ring, mesh, torus, twisted torus, tree, Eq. 5)
//	transfer.go    Eq. (3) and (4) in one function, Target.Transfer
//	rank.go        the per-rank clock and the update rules of Sect. 3.2
//	earlyqueue.go  the waiting activity: Algorithms 2 and 3
//	contention.go  computation under contention: S(k_t) / S(k_h)
//	cpu*.go        thread CPU time measurement for the computation bursts
//	calibrate.go   fitting a machine file to measurements of a host (gompirun -calibrate)
//	report.go      per-rank records and the prediction report
package vtime
