package mpi

import (
	"encoding/binary"
	"hash/fnv"
	"unicode/utf8"

	"github.com/gompi/gompi/internal/wireup"
)

// Communicator calls beyond Dup, Create and Split: MPI_Comm_split_type,
// MPI_Comm_create_group, MPI_Comm_set_name / MPI_Comm_get_name.

// SplitTypeShared is MPI_COMM_TYPE_SHARED, the split type of SplitType that
// groups the ranks able to share memory.
const SplitTypeShared = 1

// SplitType partitions c by the kind of resource ranks share
// (MPI_Comm_split_type); within a part ranks are ordered by key, ties
// broken by rank in c. With SplitTypeShared a part is the ranks of one
// host: in a real run the processes gompirun places on one host (every
// rank of an in-process world), in a virtual run the ranks of one node of
// the target machine. A rank passing Undefined gets nil. Collective over c.
func (c *Comm) SplitType(splitType, key int) (*Comm, error) {
	c.unrecordable(unrecSplitType) // a record cannot hold it yet (record.go)
	if err := c.check(); err != nil {
		return nil, err
	}
	var bad error
	if splitType != SplitTypeShared && splitType != Undefined {
		// The rank still takes part, so that the others are not left
		// waiting, and then fails.
		bad = errorf(ClassArg, "SplitType: split type %d is neither SplitTypeShared nor Undefined", splitType)
		splitType = Undefined
	}
	color, err := c.sharedColor()
	if err != nil {
		return nil, err
	}
	if splitType == Undefined {
		color = Undefined
	}
	nc, err := c.Split(color, key)
	if bad != nil {
		return nil, bad
	}
	return nc, err
}

// nodeClock is a clock that knows the target node of its rank (virtual
// mode).
type nodeClock interface{ node() int }

// node is the rank's node on the target machine.
func (c *virtualClock) node() int {
	t := c.v.target
	return t.Core(c.r.id) / t.Machine().CoresPerNode
}

// sharedColor is the calling rank's color for a SplitTypeShared split: its
// target node in virtual time, known to every rank without communication
// as MPICH knows node ids from start-up; in a real run the lowest rank of c
// on its host, found by an allgather of host name hashes (collective over
// c).
func (c *Comm) sharedColor() (int, error) {
	if nc, ok := c.r.clock.(nodeClock); ok {
		return nc.node(), nil
	}
	h := fnv.New64a()
	h.Write([]byte(wireup.HostName()))
	n := c.Size()
	all := make([]byte, 8*n)
	binary.LittleEndian.PutUint64(all[8*c.rank:], h.Sum64())
	c.enter(callSplit, 0, 0)
	defer c.leave()
	if err := c.allgather(all, uniformOffsets(n, 8)); err != nil {
		return 0, err
	}
	mine := all[8*c.rank : 8*c.rank+8]
	for i := 0; i < n; i++ {
		if string(all[8*i:8*i+8]) == string(mine) {
			return i, nil
		}
	}
	return c.rank, nil
}

// CreateGroup makes a communicator of the members of g, a subset of c's
// group (MPI_Comm_create_group). Unlike Create it is collective over g's
// members only: the other ranks of c do not call it. tag must be a valid
// tag (0 to TagUB); MPI uses it to tell apart concurrent calls by threads
// of one process, which cannot happen here (a Comm is used by its rank's
// goroutine only), so any valid tag does. The caller must be a member.
func (c *Comm) CreateGroup(g *Group, tag int) (*Comm, error) {
	c.unrecordable(unrecSplitType) // a record cannot hold it yet (record.go)
	if err := c.check(); err != nil {
		return nil, err
	}
	if g == nil {
		return nil, errorf(ClassGroup, "CreateGroup: nil group")
	}
	if err := checkTag(tag, false); err != nil {
		return nil, err
	}
	me := g.rankOf(c.r.id)
	if me == Undefined {
		return nil, errorf(ClassGroup, "CreateGroup: the calling rank is not a member of the group")
	}
	for i := 0; i < g.n; i++ {
		if c.group.rankOf(g.worldRank(i)) == Undefined {
			return nil, errorf(ClassGroup, "CreateGroup: group member %d (world rank %d) is not in the communicator", i, g.worldRank(i))
		}
	}
	c.enter(callCreate, 0, 0)
	defer c.leave()
	ng := g
	if g.ranks != nil {
		ng = newGroup(g.ranks, int32(c.r.id))
	}
	// The members agree on a context id over c's collective context, as a
	// communicator of their own: the id is free on each of them, which is
	// all a context needs (a rank never meets traffic of a communicator it
	// is not in).
	members := &Comm{r: c.r, ctx: c.ctx, group: ng, rank: me}
	id, err := members.agreeContext()
	if err != nil {
		return nil, err
	}
	return &Comm{r: c.r, ctx: uint32(id) * 2, group: ng, rank: me}, nil
}

// MaxObjectName is MPI_MAX_OBJECT_NAME: names are kept to at most
// MaxObjectName-1 bytes, as in C.
const MaxObjectName = 128

// SetName names the communicator for the calling rank (MPI_Comm_set_name):
// a name is local, and longer names are cut to MaxObjectName-1 bytes (on a
// character boundary), as MPI says. Dup, Split and the others do not copy
// it.
func (c *Comm) SetName(name string) error {
	if err := c.check(); err != nil {
		return err
	}
	if cut := MaxObjectName - 1; len(name) > cut {
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		name = name[:cut]
	}
	if c.extra == nil {
		c.extra = new(commExtra)
	}
	c.extra.name, c.extra.named = name, true
	return nil
}

// Name is the communicator's name (MPI_Comm_get_name): what SetName set,
// "MPI_COMM_WORLD" for an unnamed world communicator, "" otherwise and for
// nil.
func (c *Comm) Name() string {
	switch {
	case c == nil:
		return ""
	case c.extra != nil && c.extra.named:
		return c.extra.name
	case c.world:
		return "MPI_COMM_WORLD"
	}
	return ""
}
