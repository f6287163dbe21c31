package vtime

import (
	"fmt"
	"math"
	"sort"
)

// Target is a machine with a job of P ranks placed on it: everything
// Eq. (3) and (4) need. It is immutable and safe for concurrent use.
type Target struct {
	m      Machine
	p      int
	nodes  int // nodes the job occupies
	levels []placedLevel

	eagerNode, eagerNet int // the machine's eager limits, defaults applied
}

type placedLevel struct {
	topo   topology
	group  int // positions per group of this level (its size); 0 for the outermost
	bw     float64
	l0, lh float64
}

// Place binds the machine to a job of p ranks. It fails when the machine
// cannot hold them (a bounded outermost network too small).
func (m *Machine) Place(p int) (*Target, error) {
	if p < 1 {
		return nil, fmt.Errorf("vtime: a job needs at least 1 rank, got %d", p)
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	t := &Target{m: *m, p: p, nodes: (p + m.CoresPerNode - 1) / m.CoresPerNode}
	t.eagerNode, t.eagerNet = m.EagerLimits()
	units := t.nodes // positions needed at the current level
	for i, lv := range m.Levels {
		spec := lv.topologySpec
		spec.maxSize = units
		topo, err := spec.build(fmt.Sprintf("levels[%d]", i))
		if err != nil {
			return nil, err
		}
		pl := placedLevel{topo: topo, bw: lv.Bandwidth, l0: lv.L0, lh: lv.LH}
		if i < len(m.Levels)-1 {
			pl.group = topo.size()
			units = (units + pl.group - 1) / pl.group
		} else if n := topo.size(); n > 0 && units > n {
			return nil, fmt.Errorf("vtime: machine %q holds %d cores, the job needs %d ranks",
				m.Name, t.capacity()*n, p)
		}
		t.levels = append(t.levels, pl)
	}
	return t, nil
}

// capacity is the number of cores in one group of the levels placed so far.
func (t *Target) capacity() int {
	c := t.m.CoresPerNode
	for _, lv := range t.levels {
		c *= lv.group
	}
	return c
}

// Machine returns the machine the target was placed from.
func (t *Target) Machine() *Machine { m := t.m; return &m }

// Ranks is the job size P.
func (t *Target) Ranks() int { return t.p }

// Core is the core rank r runs on under the machine's mapping.
func (t *Target) Core(r int) int {
	if t.m.Mapping == "round-robin" {
		return (r%t.nodes)*t.m.CoresPerNode + r/t.nodes
	}
	return r
}

// route follows a message from rank x to rank y: hop(x, y), the latency
// of the path (sum of h x l over the levels it crosses, plus L0 of the
// outermost) and its bandwidth (the lowest link bandwidth en route, xSim's
// b_min). Ranks on one node have h = 0.
func (t *Target) route(x, y int) (hops int, lat, bw float64) {
	nx, ny := t.node(x), t.node(y)
	if nx == ny {
		return 0, 0, 0
	}
	bw = math.Inf(1)
	for i, lv := range t.levels {
		bw = math.Min(bw, lv.bw)
		last := i == len(t.levels)-1
		if last || nx/lv.group == ny/lv.group {
			px, py := nx, ny
			if !last {
				px, py = nx%lv.group, ny%lv.group
			}
			h := lv.topo.hop(px, py)
			return hops + h, lat + lv.l0 + float64(h)*lv.lh, bw
		}
		// Different groups: leave this level at both ends through its
		// uplink and continue one level out.
		h := lv.topo.exit(nx%lv.group) + lv.topo.exit(ny%lv.group)
		hops += h
		lat += float64(h) * lv.lh
		nx, ny = nx/lv.group, ny/lv.group
	}
	panic("unreachable")
}

// node is the node rank r runs on.
func (t *Target) node(r int) int { return t.Core(r) / t.m.CoresPerNode }

// EagerLimit is the target MPI's eager limit for a message from rank src to
// rank dst: the machine's eager_limit when they share a node (h = 0), its
// net_eager_limit otherwise. Messages of at most this many bytes go eagerly.
func (t *Target) EagerLimit(src, dst int) int {
	if t.node(src) == t.node(dst) {
		return t.eagerNode
	}
	return t.eagerNet
}

// Hop is hop(x, y) of Eq. (3): the number of links a message from rank x to
// rank y traverses on the target machine.
func (t *Target) Hop(x, y int) int {
	h, _, _ := t.route(x, y)
	return h
}

// Transfer is the virtual simulation of sending a message (Eq. 3 and 4):
// a message of size bytes that rank src starts to send at t_s finishes the
// copy into the sender's message buffer at
//
//	t_r = t_s + o(size) + size / B_mem
//
// and arrives in rank dst's message buffer at
//
//	t_a = t_r + L(size, hop(src, dst)),  L(s, h) = s / B_net + l(h)  if h > 0
//	                                     L(s, h) = s / B_mem         if h = 0
//
// where l(h) = l0 + h x lh for a one-level network, and for a hierarchical
// one the sum of h_i x lh_i over the levels crossed plus l0 of the outermost,
// with B_net the lowest bandwidth en route (xSim: L = h x l + s / b_min).
// o(size) = a + b x size is LAPSE's software overhead, 0 by default.
// REQ and ACK are zero-byte messages: callers pass size 0 for them.
//
// nic is src's injection link. On a machine with nic_queue, a message with
// h > 0 and size > 0 occupies it for s / B_net (LogGP's gap, seeds/002):
// its network transfer starts once the link is free,
//
//	start = the first time >= t_r the link is free for s / B_net,
//	t_a   = start + s / B_net + l(h),
//
// and the link is busy from start to start + s / B_net. Zero-byte messages
// neither wait nor occupy it. Without nic_queue, or with nic nil, nic is
// ignored and Eq. (4) holds as written.
func (t *Target) Transfer(ts float64, size int64, src, dst int, nic *Link) (tr, ta float64) {
	s := float64(size)
	tr = t.buffered(ts, size)
	h, lat, bw := t.route(src, dst)
	if h == 0 {
		return tr, tr + s/t.m.BMem
	}
	start := tr
	if t.m.NICQueue && nic != nil && size > 0 {
		start = nic.occupy(tr, s/bw)
	}
	return tr, start + s/bw + lat
}

// Link is a rank's injection link onto the network (machine field
// nic_queue): the intervals of virtual time in which it transmits.
//
// Why intervals and not just the time it is next free: a rank does not
// stamp its messages in the order of their t_r. The DATA answering an ACK
// is stamped from Algorithm 3's t_temp, which can lie before messages the
// rank already stamped: ACKs from several peers dealt in one Waitall in
// host arrival order, or an ACK found late (Fig. 4 (c)) after the rank
// went on sending. With a single free time such a DATA would wait behind
// every message stamped before it, however much later they left on the
// target: the error, and the dependence on host order, would have no
// bound. With the intervals a message takes the first gap at or after its
// t_r that is long enough, so one stamped late in host order but early in
// virtual time leaves when the target would have sent it unless it
// overlaps messages already placed. Messages already placed are not moved
// (as Algorithm 2 does not revise what it computed), so the prediction can
// still depend on host order where such transfers overlap on the link. It
// is bounded: a transfer starts at or after its t_r and no later than the
// end of the busy period it falls in, so it moves by less than the sum of
// s / B_net over the transfers of that busy period.
type Link struct{ busy []span } // disjoint, in time order

// linkCap bounds the intervals a link remembers. Consecutive transfers
// merge into one interval, so it grows only with gaps; the oldest half is
// forgotten when full (a message stamped before all that remain finds the
// link free then, at worst leaving earlier than on the target).
const linkCap = 64

// occupy places a transfer of duration d that may start at tr in the
// first gap at or after tr long enough for it, marks it busy and returns
// its start.
func (l *Link) occupy(tr, d float64) (start float64) {
	b := l.busy
	i := sort.Search(len(b), func(i int) bool { return b[i].end > tr })
	start = tr
	for ; i < len(b) && start+d > b[i].start; i++ {
		start = max(start, b[i].end)
	}
	end := start + d
	switch {
	case i > 0 && b[i-1].end >= start: // extends the interval before it
		b[i-1].end = end
		if i < len(b) && b[i].start <= end { // and closes the gap to the next
			b[i-1].end = b[i].end
			b = append(b[:i], b[i+1:]...)
		}
	case i < len(b) && b[i].start <= end: // ends where the next begins
		b[i].start = start
	default:
		if len(b) == linkCap {
			k := copy(b, b[linkCap/2:])
			b = b[:k]
			i -= linkCap / 2
			if i < 0 {
				// Older than everything kept: it was forgotten anyway.
				l.busy = b
				return start
			}
		}
		b = append(b, span{})
		copy(b[i+1:], b[i:])
		b[i] = span{start, end}
	}
	l.busy = b
	return start
}

// buffered is t_r of Eq. (3): when a send started at ts has copied size
// bytes (after the software overhead) into the sender's message buffer.
func (t *Target) buffered(ts float64, size int64) float64 {
	return ts + t.m.Overhead.A + t.m.Overhead.B*float64(size) + float64(size)/t.m.BMem
}

// CopyTime is the time to copy size bytes in memory (a receive out of the
// message buffer, Sect. 4.3): size / B_mem.
func (t *Target) CopyTime(size int64) float64 { return float64(size) / t.m.BMem }
