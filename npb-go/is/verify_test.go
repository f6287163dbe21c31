package main

import (
	"bytes"
	"testing"

	"github.com/gompi/gompi/mpi"
)

// Wrongly ranked keys must fail the partial verification: halving every key
// moves the test keys' ranks, and the iteration must count failures.
func TestPartialVerifyDetectsWrongRanks(t *testing.T) {
	for _, corrupt := range []bool{false, true} {
		var passed int
		err := mpi.Run(1, func(c *mpi.Comm) error {
			s := newSorter(c, 'S', classes['S'], &bytes.Buffer{})
			s.createSeq(findMySeed(0, 1, 4<<16, seed, mult), mult)
			if corrupt {
				for i := range s.keyArray[:s.numKeys] {
					s.keyArray[i] /= 2
				}
			}
			s.passed = 0
			if err := s.rankKeys(1); err != nil {
				return err
			}
			passed = s.passed
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !corrupt && passed != testArraySize {
			t.Fatalf("correct keys: %d of %d partial verifications passed", passed, testArraySize)
		}
		if corrupt && passed == testArraySize {
			t.Error("partial verification passed on wrongly ranked keys")
		}
	}
}

// The verdict needs every partial and every full verification: one short
// of the count fails.
func TestVerdictNeedsEveryCheck(t *testing.T) {
	for _, np := range []int{1, 4} {
		all := testArraySize*maxIterations + np
		if !allPassed(all, np) {
			t.Errorf("np=%d: all %d checks passed but not verified", np, all)
		}
		if allPassed(all-1, np) {
			t.Errorf("np=%d: %d of %d checks passed, verified", np, all-1, all)
		}
	}
}
