package main

import (
	"fmt"

	"github.com/gompi/gompi/mpi"
)

// rankKeys is one IS iteration (is.c rank()): local bucket sort, global
// redistribution of buckets to ranks, counting ranks of the received keys
// and the partial verification.
func (s *sorter) rankKeys(iteration int) error {
	shift := uint(s.p.maxKeyLog2 - s.p.bucketsLog2)
	nb := s.numBuckets
	s.start(tRank)
	if s.rank == 0 {
		s.keyArray[iteration] = int32(iteration)
		s.keyArray[iteration+maxIterations] = s.maxKey - int32(iteration)
	}
	clear(s.bucketSize)
	clear(s.bucketSizeTotals)
	clear(s.distrib1)
	clear(s.distrib2)

	// The partial-verification keys ride in the top of bucketSize so that
	// the Allreduce delivers them to every rank.
	for i, idx := range s.p.testIndex {
		if int(idx)/s.numKeys == s.rank {
			s.bucketSize[nb+i] = s.keyArray[int(idx)%s.numKeys]
		}
	}
	keys := s.keyArray[:s.numKeys]
	bucketSize := s.bucketSize[:nb]
	for _, k := range keys {
		bucketSize[k>>shift]++
	}
	ptrs := s.bucketPtrs[:nb]
	ptrs[0] = 0
	for i := 1; i < nb; i++ {
		ptrs[i] = ptrs[i-1] + bucketSize[i-1]
	}
	buff1 := s.keyBuff1
	for _, k := range keys {
		b := k >> shift
		buff1[ptrs[b]] = k
		ptrs[b]++
	}

	s.stop(tRank)
	s.start(tRcomm)
	if err := mpi.Allreduce(s.c, s.bucketSize, s.bucketSizeTotals, mpi.Sum); err != nil {
		return err
	}
	s.stop(tRcomm)
	s.start(tRank)

	// Deal whole buckets to ranks in order, moving to the next rank once
	// the running total passes its share of numKeys.
	totals := s.bucketSizeTotals
	var acc, localAcc int64
	j := 0
	s.distrib1[0] = 0
	for i := 0; i < nb; i++ {
		acc += int64(totals[i])
		localAcc += int64(bucketSize[i])
		if acc >= int64(j+1)*int64(s.numKeys) {
			s.sendCount[j] = int32(localAcc)
			if j != 0 {
				s.distrib1[j] = s.distrib2[j-1] + 1
			}
			s.distrib2[j] = int32(i)
			j++
			localAcc = 0
		}
	}
	// With nearly as many ranks as buckets the last ranks may get none.
	for ; j < s.size; j++ {
		s.sendCount[j] = 0
		s.distrib1[j] = 1
	}

	s.stop(tRank)
	s.start(tRcomm)
	if err := mpi.Alltoall(s.c, s.sendCount, s.recvCount); err != nil {
		return err
	}
	s.recvDispls[0] = 0
	for i := range s.recvCount {
		s.sendCounts[i] = int(s.sendCount[i])
		s.recvCounts[i] = int(s.recvCount[i])
		if i > 0 {
			s.recvDispls[i] = s.recvDispls[i-1] + s.recvCounts[i-1]
		}
		if i > 0 {
			s.sendDispls[i] = s.sendDispls[i-1] + s.sendCounts[i-1]
		}
	}
	if got := s.recvDispls[s.size-1] + s.recvCounts[s.size-1]; got > len(s.keyBuff2) {
		return fmt.Errorf("is: rank %d receives %d keys, more than its buffer of %d", s.rank, got, len(s.keyBuff2))
	}
	if err := mpi.Alltoallv(s.c, s.keyBuff1, s.sendCounts, s.sendDispls, s.keyBuff2, s.recvCounts, s.recvDispls); err != nil {
		return err
	}
	s.stop(tRcomm)
	s.start(tRank)

	minKey := int(s.distrib1[s.rank]) << shift
	maxKey := (int(s.distrib2[s.rank]+1) << shift) - 1
	if maxKey-minKey+1 > len(s.keyBuff1) {
		return fmt.Errorf("is: rank %d key range %d exceeds its buffer", s.rank, maxKey-minKey+1)
	}
	counts := s.keyBuff1[:max(maxKey-minKey+1, 0)]
	clear(counts)

	// m is the number of keys on lower ranks, nLocal the keys here.
	var m int64
	for k := 0; k < s.rank; k++ {
		for i := s.distrib1[k]; i <= s.distrib2[k]; i++ {
			m += int64(totals[i])
		}
	}
	nLocal := 0
	for i := s.distrib1[s.rank]; i <= s.distrib2[s.rank]; i++ {
		nLocal += int(totals[i])
	}

	for _, k := range s.keyBuff2[:nLocal] {
		counts[int(k)-minKey]++
	}
	// Prefix sums give each key's rank among this rank's keys; m is added
	// only when testing, as in the reference.
	for i := 1; i < len(counts); i++ {
		counts[i] += counts[i-1]
	}

	for i := 0; i < testArraySize; i++ {
		k := int(totals[nb+i])
		if minKey <= k && k <= maxKey {
			keyRank := m // keys below k on this rank: none when k is the lowest
			if k > minKey {
				keyRank += int64(counts[k-1-minKey])
			}
			testRank := int64(s.p.testRank[i]) + s.rankShift(i, iteration)
			if keyRank == testRank {
				s.passed++
			} else {
				fmt.Fprintf(s.failures, "Failed partial verification: iteration %d, processor %d, test key %d, key rank %d\n",
					iteration, s.rank, i, keyRank)
			}
		}
	}
	s.stop(tRank)
	if iteration == maxIterations {
		s.lastMinKey = minKey
		s.lastLocalKeys = nLocal
	}
	return nil
}

// rankShift is how much the expected rank of test key i moves at the given
// iteration, per class (is.c partial verify).
func (s *sorter) rankShift(i, it int) int64 {
	d := int64(it)
	switch s.class {
	case 'S', 'C':
		if i <= 2 {
			return d
		}
		return -d
	case 'W':
		if i < 2 {
			return d - 2
		}
		return -d
	case 'A':
		if i <= 2 {
			return d - 1
		}
		return -(d - 1)
	case 'B':
		if i == 1 || i == 2 || i == 4 {
			return d
		}
		return -d
	}
	return 0
}

// fullVerify sorts the last iteration's keys by their ranks and checks the
// order locally and across the boundary with the previous rank.
func (s *sorter) fullVerify() error {
	s.start(tVerify)
	defer s.stop(tVerify)
	counts := s.keyBuff1
	n := s.lastLocalKeys
	for _, k := range s.keyBuff2[:n] {
		i := int(k) - s.lastMinKey
		counts[i]--
		s.keyArray[counts[i]] = k
	}
	last := max(n-1, 0)

	// Pass each rank's largest key to the next rank.
	prev := []int32{0}
	var q *mpi.Request
	var err error
	if s.rank > 0 {
		if q, err = mpi.Irecv(s.c, prev, s.rank-1, tagVerify); err != nil {
			return err
		}
	}
	if s.rank < s.size-1 {
		if err := mpi.Send(s.c, s.keyArray[last:last+1], s.rank+1, tagVerify); err != nil {
			return err
		}
	}
	if q != nil {
		if _, err := q.Wait(); err != nil {
			return err
		}
	}
	bad := 0
	if s.rank > 0 && n > 0 && prev[0] > s.keyArray[0] {
		bad++
	}
	for i := 1; i < n; i++ {
		if s.keyArray[i-1] > s.keyArray[i] {
			bad++
		}
	}
	if bad != 0 {
		fmt.Fprintf(s.failures, "Processor %d:  Full_verify: number of keys out of sort: %d\n", s.rank, bad)
	} else {
		s.passed++
	}
	return nil
}

// start and stop time a phase when the timer breakdown is on.
func (s *sorter) start(i int) {
	if s.timeron {
		s.tm.Start(i)
	}
}

func (s *sorter) stop(i int) {
	if s.timeron {
		s.tm.Stop(i)
	}
}
