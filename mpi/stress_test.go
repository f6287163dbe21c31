package mpi

import (
	"fmt"
	"hash/crc32"
	"math/rand"
	"testing"
)

// TestStressRandomTraffic: many ranks send random-size messages with random
// tags to random peers. Every payload carries its origin and a checksum;
// receivers use a mix of named and wildcard receives. Nothing may be lost,
// duplicated or reordered against MPI's rule (per source, communicator and
// tag, messages are matched in send order).
func TestStressRandomTraffic(t *testing.T) {
	n, perRank := 16, 150
	if testing.Short() {
		n, perRank = 8, 60
	}
	const maxSize = 3 * DefaultEagerLimit
	// The plan is derived from a seed every rank knows: plan[s] lists the
	// (dst, tag, size) of sender s's messages in order.
	type msg struct{ dst, tag, size int }
	rng := rand.New(rand.NewSource(42))
	plan := make([][]msg, n)
	expect := make([][]int, n) // expect[d][s] = messages from s to d
	for d := range expect {
		expect[d] = make([]int, n)
	}
	for s := range plan {
		for k := 0; k < perRank; k++ {
			size := rng.Intn(64)
			if rng.Intn(5) == 0 {
				size = rng.Intn(maxSize)
			}
			m := msg{dst: rng.Intn(n), tag: rng.Intn(3), size: size + 12}
			plan[s] = append(plan[s], m)
			expect[m.dst][s]++
		}
	}
	runT(t, n, func(c *Comm) error {
		me := c.Rank()
		// Post sends nonblocking in bursts so rendezvous and eager interleave.
		var sends []*Request
		for seq, m := range plan[me] {
			buf := make([]byte, m.size)
			rand.New(rand.NewSource(int64(me*100000 + seq))).Read(buf[12:])
			putU32(buf[0:], uint32(me))
			putU32(buf[4:], uint32(seq))
			putU32(buf[8:], crc32.ChecksumIEEE(buf[12:]))
			q, err := Isend(c, buf, m.dst, m.tag)
			if err != nil {
				return err
			}
			sends = append(sends, q)
		}
		total := 0
		for _, k := range expect[me] {
			total += k
		}
		lastSeq := make([][3]int, n) // last seq seen per (source, tag)
		for s := range lastSeq {
			lastSeq[s] = [3]int{-1, -1, -1}
		}
		got := make([]int, n)
		rng := rand.New(rand.NewSource(int64(me)))
		buf := make([]byte, maxSize+12)
		for received := 0; received < total; received++ {
			src, tag := AnySource, AnyTag
			// Sometimes name the tag or the source (only if such a message is still due).
			if rng.Intn(3) == 0 {
				if ok, st, err := c.Iprobe(AnySource, AnyTag); err == nil && ok {
					src = st.Source
					if rng.Intn(2) == 0 {
						tag = st.Tag
					}
				}
			}
			st, err := Recv(c, buf, src, tag)
			if err != nil {
				return err
			}
			b := buf[:st.Bytes]
			s, seq := int(getU32(b[0:])), int(getU32(b[4:]))
			if s != st.Source {
				return fmt.Errorf("rank %d: status source %d but payload from %d", me, st.Source, s)
			}
			if crc32.ChecksumIEEE(b[12:]) != getU32(b[8:]) {
				return fmt.Errorf("rank %d: corrupt payload from %d seq %d", me, s, seq)
			}
			m := plan[s][seq]
			if m.dst != me || m.tag != st.Tag || m.size != st.Bytes {
				return fmt.Errorf("rank %d: message %d of %d arrived as %+v, planned %+v", me, seq, s, st, m)
			}
			if seq <= lastSeq[s][st.Tag] {
				return fmt.Errorf("rank %d: from %d tag %d seq %d after %d: duplicated or reordered", me, s, st.Tag, seq, lastSeq[s][st.Tag])
			}
			lastSeq[s][st.Tag] = seq
			got[s]++
		}
		for s := range got {
			if got[s] != expect[me][s] {
				return fmt.Errorf("rank %d: got %d messages from %d, want %d", me, got[s], s, expect[me][s])
			}
		}
		if _, err := Waitall(sends); err != nil {
			return err
		}
		if ok, st, _ := c.Iprobe(AnySource, AnyTag); ok {
			return fmt.Errorf("rank %d: unexpected extra message %+v", me, st)
		}
		return nil
	})
}

func putU32(b []byte, v uint32) {
	b[0], b[1], b[2], b[3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
}
func getU32(b []byte) uint32 {
	return uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
}
