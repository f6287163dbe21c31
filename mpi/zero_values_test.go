package mpi

import (
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gompi/gompi/vtime"
)

// zeroCalls calls every exported function and method of the package with
// zero values: nil communicators, groups, requests and Virtuals, nil slices,
// the null Op, zero statuses. Each returns the call's error (nil for calls
// without an error result); wantErr says whether the zero values are
// invalid there, so the call must report an error rather than succeed.
var zeroCalls = []struct {
	name    string
	wantErr bool
	call    func() error
}{
	// Communicators (nil is MPI_COMM_NULL).
	{"Comm.Rank", false, func() error { return want((*Comm)(nil).Rank(), Undefined) }},
	{"Comm.Size", false, func() error { return want((*Comm)(nil).Size(), 0) }},
	{"Comm.Group", false, func() error { return want((*Comm)(nil).Group(), (*Group)(nil)) }},
	{"Comm.WorldRank", false, func() error { return want((*Comm)(nil).WorldRank(0), Undefined) }},
	{"Comm.Wtime", false, func() error { return want((*Comm)(nil).Wtime(), 0.0) }},
	{"Comm.Wtick", false, func() error { (*Comm)(nil).Wtick(); return nil }},
	{"Comm.Elapse", false, func() error { (*Comm)(nil).Elapse(1); return nil }},
	{"Comm.Barrier", true, func() error { return (*Comm)(nil).Barrier() }},
	{"Comm.Compare", true, func() error { _, err := (*Comm)(nil).Compare(nil); return err }},
	{"Comm.Create", true, func() error { _, err := (*Comm)(nil).Create(nil); return err }},
	{"Comm.Dup", true, func() error { _, err := (*Comm)(nil).Dup(); return err }},
	{"Comm.Free", true, func() error { return (*Comm)(nil).Free() }},
	{"Comm.SplitType", true, func() error { _, err := (*Comm)(nil).SplitType(SplitTypeShared, 0); return err }},
	{"Comm.CreateGroup", true, func() error { _, err := (*Comm)(nil).CreateGroup(nil, 0); return err }},
	{"Comm.SetName", true, func() error { return (*Comm)(nil).SetName("") }},
	{"Comm.Name", false, func() error { return want((*Comm)(nil).Name(), "") }},
	{"Comm.Split", true, func() error { _, err := (*Comm)(nil).Split(0, 0); return err }},
	{"Comm.Probe", true, func() error { _, err := (*Comm)(nil).Probe(0, 0); return err }},
	{"Comm.Mprobe", true, func() error { _, _, err := (*Comm)(nil).Mprobe(0, 0); return err }},
	{"Comm.Improbe", true, func() error { _, _, _, err := (*Comm)(nil).Improbe(0, 0); return err }},
	{"Mrecv", true, func() error { _, err := Mrecv[int](nil, nil); return err }},
	{"Imrecv", true, func() error { _, err := Imrecv[int](nil, nil); return err }},
	{"Comm.SendEmpty", true, func() error { return (*Comm)(nil).SendEmpty(0, 0) }},
	{"Comm.RecvEmpty", true, func() error { _, err := (*Comm)(nil).RecvEmpty(0, 0); return err }},
	{"Comm.Iprobe", true, func() error { _, _, err := (*Comm)(nil).Iprobe(0, 0); return err }},
	{"Comm.SendObject", true, func() error { return (*Comm)(nil).SendObject(nil, 0, 0) }},
	{"Comm.RecvObject", true, func() error { _, err := (*Comm)(nil).RecvObject(nil, 0, 0); return err }},
	{"RecvObj", true, func() error { _, _, err := RecvObj[int](nil, 0, 0); return err }},

	// Point-to-point.
	{"Send", true, func() error { return Send[int](nil, nil, 0, 0) }},
	{"Ssend", true, func() error { return Ssend[int](nil, nil, 0, 0) }},
	{"Recv", true, func() error { _, err := Recv[int](nil, nil, 0, 0); return err }},
	{"Isend", true, func() error { _, err := Isend[int](nil, nil, 0, 0); return err }},
	{"Issend", true, func() error { _, err := Issend[int](nil, nil, 0, 0); return err }},
	{"Irecv", true, func() error { _, err := Irecv[int](nil, nil, 0, 0); return err }},
	{"Bsend", true, func() error { return Bsend[int](nil, nil, 0, 0) }},
	{"Ibsend", true, func() error { _, err := Ibsend[int](nil, nil, 0, 0); return err }},
	{"Rsend", true, func() error { return Rsend[int](nil, nil, 0, 0) }},
	{"Irsend", true, func() error { _, err := Irsend[int](nil, nil, 0, 0); return err }},
	{"Comm.BufferAttach", true, func() error { return (*Comm)(nil).BufferAttach(nil) }},
	{"Comm.BufferDetach", true, func() error { _, err := (*Comm)(nil).BufferDetach(); return err }},
	{"Sendrecv", true, func() error { _, err := Sendrecv[int, int](nil, nil, 0, 0, nil, 0, 0); return err }},
	{"SendrecvReplace", true, func() error { _, err := SendrecvReplace[int](nil, nil, 0, 0, 0, 0); return err }},

	{"Isendrecv", true, func() error { _, err := Isendrecv[int, int](nil, nil, 0, 0, nil, 0, 0); return err }},
	{"IsendrecvReplace", true, func() error { _, err := IsendrecvReplace[int](nil, nil, 0, 0, 0, 0); return err }},
	{"ReduceLocal", true, func() error { return ReduceLocal[int](nil, nil, Op{}) }},
	{"ReduceLocalLoc", true, func() error { return ReduceLocalLoc[int](nil, nil, Op{}) }},

	// Requests (nil is MPI_REQUEST_NULL: valid).
	{"Request.Wait", false, func() error { _, err := (*Request)(nil).Wait(); return err }},
	{"Request.Test", false, func() error { _, _, err := (*Request)(nil).Test(); return err }},
	{"Request.Cancel", true, func() error { return (*Request)(nil).Cancel() }},
	{"Request.Start", true, func() error { return (*Request)(nil).Start() }},
	{"Request.Free", true, func() error { return (*Request)(nil).Free() }},
	{"Request.Status", false, func() error { _, _, err := (*Request)(nil).Status(); return err }},
	{"Startall", false, func() error { return Startall(nil) }},
	{"SendInit", true, func() error { _, err := SendInit[int](nil, nil, 0, 0); return err }},
	{"SsendInit", true, func() error { _, err := SsendInit[int](nil, nil, 0, 0); return err }},
	{"RecvInit", true, func() error { _, err := RecvInit[int](nil, nil, 0, 0); return err }},
	{"Waitall", false, func() error { _, err := Waitall(nil); return err }},
	{"Waitany", false, func() error { _, _, err := Waitany(nil); return err }},
	{"Waitsome", false, func() error { _, _, err := Waitsome(nil); return err }},
	{"Testall", false, func() error { _, _, err := Testall(nil); return err }},
	{"Testany", false, func() error { _, _, _, err := Testany(nil); return err }},
	{"Testsome", false, func() error { _, _, err := Testsome(nil); return err }},
	{"Count", false, func() error { return want(Count[int](Status{}), 0) }},

	// Collectives.
	{"Bcast", true, func() error { return Bcast[int](nil, nil, 0) }},
	{"Reduce", true, func() error { return Reduce[int](nil, nil, nil, Op{}, 0) }},
	{"ReduceInPlace", true, func() error { return ReduceInPlace[int](nil, nil, Op{}, 0) }},
	{"ReduceLoc", true, func() error { return ReduceLoc[int](nil, nil, nil, Op{}, 0) }},
	{"Allreduce", true, func() error { return Allreduce[int](nil, nil, nil, Op{}) }},
	{"AllreduceInPlace", true, func() error { return AllreduceInPlace[int](nil, nil, Op{}) }},
	{"AllreduceLoc", true, func() error { return AllreduceLoc[int](nil, nil, nil, Op{}) }},
	{"AllreduceLocInPlace", true, func() error { return AllreduceLocInPlace[int](nil, nil, Op{}) }},
	{"Gather", true, func() error { return Gather[int](nil, nil, nil, 0) }},
	{"GatherInPlace", true, func() error { return GatherInPlace[int](nil, nil, 0) }},
	{"Gatherv", true, func() error { return Gatherv[int](nil, nil, nil, nil, nil, 0) }},
	{"GathervInPlace", true, func() error { return GathervInPlace[int](nil, nil, nil, nil, 0) }},
	{"Scatter", true, func() error { return Scatter[int](nil, nil, nil, 0) }},
	{"ScatterInPlace", true, func() error { return ScatterInPlace[int](nil, nil, 0) }},
	{"Scatterv", true, func() error { return Scatterv[int](nil, nil, nil, nil, nil, 0) }},
	{"ScattervInPlace", true, func() error { return ScattervInPlace[int](nil, nil, nil, nil, 0) }},
	{"Allgather", true, func() error { return Allgather[int](nil, nil, nil) }},
	{"AllgatherInPlace", true, func() error { return AllgatherInPlace[int](nil, nil) }},
	{"Allgatherv", true, func() error { return Allgatherv[int](nil, nil, nil, nil, nil) }},
	{"AllgathervInPlace", true, func() error { return AllgathervInPlace[int](nil, nil, nil, nil) }},
	{"Alltoall", true, func() error { return Alltoall[int](nil, nil, nil) }},
	{"AlltoallInPlace", true, func() error { return AlltoallInPlace[int](nil, nil) }},
	{"Alltoallv", true, func() error { return Alltoallv[int](nil, nil, nil, nil, nil, nil, nil) }},
	{"AlltoallvInPlace", true, func() error { return AlltoallvInPlace[int](nil, nil, nil, nil) }},
	{"ReduceScatter", true, func() error { return ReduceScatter[int](nil, nil, nil, nil, Op{}) }},
	{"ReduceScatterInPlace", true, func() error { return ReduceScatterInPlace[int](nil, nil, nil, Op{}) }},
	{"ReduceScatterBlock", true, func() error { return ReduceScatterBlock[int](nil, nil, nil, Op{}) }},
	{"ReduceScatterBlockInPlace", true, func() error { return ReduceScatterBlockInPlace[int](nil, nil, Op{}) }},
	{"Scan", true, func() error { return Scan[int](nil, nil, nil, Op{}) }},
	{"ScanInPlace", true, func() error { return ScanInPlace[int](nil, nil, Op{}) }},
	{"Exscan", true, func() error { return Exscan[int](nil, nil, nil, Op{}) }},
	{"ExscanInPlace", true, func() error { return ExscanInPlace[int](nil, nil, Op{}) }},

	// Process topologies and neighbour collectives.
	{"DimsCreate", true, func() error { _, err := DimsCreate(0, nil); return err }},
	{"Topology.String", false, func() error { _ = Topology(-1).String(); return want(TopoCart.String(), "TopoCart") }},
	{"Comm.Topo", true, func() error { _, err := (*Comm)(nil).Topo(); return err }},
	{"Comm.CartCreate", true, func() error { _, err := (*Comm)(nil).CartCreate(nil, nil, false); return err }},
	{"Comm.CartDim", true, func() error { _, err := (*Comm)(nil).CartDim(); return err }},
	{"Comm.CartGet", true, func() error { _, _, _, err := (*Comm)(nil).CartGet(); return err }},
	{"Comm.CartRank", true, func() error { _, err := (*Comm)(nil).CartRank(nil); return err }},
	{"Comm.CartCoords", true, func() error { _, err := (*Comm)(nil).CartCoords(0); return err }},
	{"Comm.CartShift", true, func() error { _, _, err := (*Comm)(nil).CartShift(0, 0); return err }},
	{"Comm.CartSub", true, func() error { _, err := (*Comm)(nil).CartSub(nil); return err }},
	{"Comm.DistGraphCreateAdjacent", true, func() error {
		_, err := (*Comm)(nil).DistGraphCreateAdjacent(nil, nil, nil, nil, false)
		return err
	}},
	{"Comm.DistGraphNeighborsCount", true, func() error { _, _, _, err := (*Comm)(nil).DistGraphNeighborsCount(); return err }},
	{"Comm.DistGraphNeighbors", true, func() error { _, _, _, _, err := (*Comm)(nil).DistGraphNeighbors(); return err }},
	{"NeighborAllgather", true, func() error { return NeighborAllgather[int](nil, nil, nil) }},
	{"NeighborAllgatherv", true, func() error { return NeighborAllgatherv[int](nil, nil, nil, nil, nil) }},
	{"NeighborAlltoall", true, func() error { return NeighborAlltoall[int](nil, nil, nil) }},
	{"NeighborAlltoallv", true, func() error { return NeighborAlltoallv[int](nil, nil, nil, nil, nil, nil, nil) }},
	{"IneighborAllgather", true, func() error { return noReq(IneighborAllgather[int](nil, nil, nil)) }},
	{"IneighborAllgatherv", true, func() error { return noReq(IneighborAllgatherv[int](nil, nil, nil, nil, nil)) }},
	{"IneighborAlltoall", true, func() error { return noReq(IneighborAlltoall[int](nil, nil, nil)) }},
	{"IneighborAlltoallv", true, func() error {
		return noReq(IneighborAlltoallv[int](nil, nil, nil, nil, nil, nil, nil))
	}},

	// Nonblocking collectives: the blocking forms' errors, no request.
	{"Comm.Idup", true, func() error { _, _, err := (*Comm)(nil).Idup(); return err }},
	{"Comm.Ibarrier", true, func() error { return noReq((*Comm)(nil).Ibarrier()) }},
	{"Ibcast", true, func() error { return noReq(Ibcast[int](nil, nil, 0)) }},
	{"Ireduce", true, func() error { return noReq(Ireduce[int](nil, nil, nil, Op{}, 0)) }},
	{"IreduceInPlace", true, func() error { return noReq(IreduceInPlace[int](nil, nil, Op{}, 0)) }},
	{"Iallreduce", true, func() error { return noReq(Iallreduce[int](nil, nil, nil, Op{})) }},
	{"IallreduceInPlace", true, func() error { return noReq(IallreduceInPlace[int](nil, nil, Op{})) }},
	{"Igather", true, func() error { return noReq(Igather[int](nil, nil, nil, 0)) }},
	{"IgatherInPlace", true, func() error { return noReq(IgatherInPlace[int](nil, nil, 0)) }},
	{"Igatherv", true, func() error { return noReq(Igatherv[int](nil, nil, nil, nil, nil, 0)) }},
	{"IgathervInPlace", true, func() error { return noReq(IgathervInPlace[int](nil, nil, nil, nil, 0)) }},
	{"Iscatter", true, func() error { return noReq(Iscatter[int](nil, nil, nil, 0)) }},
	{"IscatterInPlace", true, func() error { return noReq(IscatterInPlace[int](nil, nil, 0)) }},
	{"Iscatterv", true, func() error { return noReq(Iscatterv[int](nil, nil, nil, nil, nil, 0)) }},
	{"IscattervInPlace", true, func() error { return noReq(IscattervInPlace[int](nil, nil, nil, nil, 0)) }},
	{"Iallgather", true, func() error { return noReq(Iallgather[int](nil, nil, nil)) }},
	{"IallgatherInPlace", true, func() error { return noReq(IallgatherInPlace[int](nil, nil)) }},
	{"Iallgatherv", true, func() error { return noReq(Iallgatherv[int](nil, nil, nil, nil, nil)) }},
	{"IallgathervInPlace", true, func() error { return noReq(IallgathervInPlace[int](nil, nil, nil, nil)) }},
	{"Ialltoall", true, func() error { return noReq(Ialltoall[int](nil, nil, nil)) }},
	{"IalltoallInPlace", true, func() error { return noReq(IalltoallInPlace[int](nil, nil)) }},
	{"Ialltoallv", true, func() error { return noReq(Ialltoallv[int](nil, nil, nil, nil, nil, nil, nil)) }},
	{"IalltoallvInPlace", true, func() error { return noReq(IalltoallvInPlace[int](nil, nil, nil, nil)) }},
	{"IreduceScatter", true, func() error { return noReq(IreduceScatter[int](nil, nil, nil, nil, Op{})) }},
	{"IreduceScatterInPlace", true, func() error { return noReq(IreduceScatterInPlace[int](nil, nil, nil, Op{})) }},
	{"IreduceScatterBlock", true, func() error { return noReq(IreduceScatterBlock[int](nil, nil, nil, Op{})) }},
	{"IreduceScatterBlockInPlace", true, func() error { return noReq(IreduceScatterBlockInPlace[int](nil, nil, Op{})) }},
	{"Iscan", true, func() error { return noReq(Iscan[int](nil, nil, nil, Op{})) }},
	{"IscanInPlace", true, func() error { return noReq(IscanInPlace[int](nil, nil, Op{})) }},
	{"Iexscan", true, func() error { return noReq(Iexscan[int](nil, nil, nil, Op{})) }},
	{"IexscanInPlace", true, func() error { return noReq(IexscanInPlace[int](nil, nil, Op{})) }},

	// Groups (nil is MPI_GROUP_NULL; calls without an error result treat
	// it as the empty group).
	{"Group.Size", false, func() error { return want((*Group)(nil).Size(), 0) }},
	{"Group.Rank", false, func() error { return want((*Group)(nil).Rank(), Undefined) }},
	{"Group.RangeIncl", true, func() error { _, err := (*Group)(nil).RangeIncl(nil); return err }},
	{"Group.RangeExcl", true, func() error { _, err := (*Group)(nil).RangeExcl(nil); return err }},
	{"Group.Incl", true, func() error { _, err := (*Group)(nil).Incl(nil); return err }},
	{"Group.Excl", true, func() error { _, err := (*Group)(nil).Excl(nil); return err }},
	{"Group.TranslateRanks", true, func() error { _, err := (*Group)(nil).TranslateRanks(nil, nil); return err }},
	{"Group.Union", false, func() error { return want((*Group)(nil).Union(nil).Size(), 0) }},
	{"Group.Intersection", false, func() error { return want((*Group)(nil).Intersection(nil).Size(), 0) }},
	{"Group.Difference", false, func() error { return want((*Group)(nil).Difference(nil).Size(), 0) }},
	{"Group.Compare", false, func() error { return want((*Group)(nil).Compare(nil), Ident) }},

	// Operations, values, errors.
	{"NewOp", false, func() error { return want(NewOp[int](nil, false).String(), "OpNull") }},
	{"Op.String", false, func() error { return want(Op{}.String(), "OpNull") }},
	{"Op.Commutative", false, func() error { return want(Op{}.Commutative(), false) }},
	{"Comparison.String", false, func() error { _ = Comparison(-1).String(); return want(Comparison(0).String(), "Ident") }},
	{"activity.String", false, func() error { _ = activity(200).String(); return want(activity(0).String(), "DS") }},
	{"ErrorClass.String", false, func() error { _ = ErrorClass(-1).String(); return nil }},
	{"ClassOf", false, func() error { return want(ClassOf(nil), ClassSuccess) }},
	{"Error.Error", false, func() error { _ = (*Error)(nil).Error(); return nil }},
	{"Error.Unwrap", false, func() error { return (*Error)(nil).Unwrap() }},
	{"Error.Is", false, func() error { return want((*Error)(nil).Is(nil), false) }},
	{"AbortError.Error", false, func() error { _ = (*AbortError)(nil).Error(); return nil }},
	{"RankError.Error", false, func() error { _ = (*RankError)(nil).Error(); return nil }},
	{"RankError.Unwrap", false, func() error { return (*RankError)(nil).Unwrap() }},
	{"DeadlockError.Error", false, func() error { _ = (*DeadlockError)(nil).Error(); return nil }},

	// Worlds and virtual runs.
	{"Run", true, func() error { return Run(0, nil) }},
	{"Run", true, func() error { return Run(1, nil) }},
	{"WithEagerLimit", false, func() error { WithEagerLimit(0); return nil }},
	// Reads the environment, not its arguments: only that it does not panic.
	{"CheckSettings", false, func() error { _ = CheckSettings(); return nil }},
	{"CheckSettingsIn", false, func() error { return CheckSettingsIn(nil) }},
	{"WithClocks", false, func() error { withClocks(nil); return nil }},
	{"WithVirtual", false, func() error { return Run(1, func(*Comm) error { return nil }, WithVirtual(nil)) }},
	{"NewVirtual", true, func() error { _, err := NewVirtual(nil, 0, 0); return err }},
	{"Virtual.Run", true, func() error { return (*Virtual)(nil).Run(nil) }},
	{"Virtual.Err", true, func() error { return (*Virtual)(nil).Err() }},
	{"Virtual.Target", false, func() error { (*Virtual)(nil).Target(); return nil }},
	{"Virtual.Results", false, func() error { return want(len((*Virtual)(nil).Results()), 0) }},
	{"Virtual.Wall", false, func() error { return want((*Virtual)(nil).Wall(), 0) }},
	{"Virtual.Report", false, func() error { (*Virtual)(nil).Report(); return nil }},
	{"Virtual.SetHostConcurrency", false, func() error { (*Virtual)(nil).SetHostConcurrency(0); return nil }},
	{"Virtual.Record", true, func() error { return (*Virtual)(nil).Record("") }},
	{"OpenRecording", true, func() error { _, err := OpenRecording(""); return err }},
	{"DecodeTraceRecord", true, func() error { _, err := DecodeTraceRecord(nil); return err }},
	{"Recording.Machine", false, func() error { return want((*Recording)(nil).Machine(), (*vtime.Machine)(nil)) }},
	{"Recording.Ranks", false, func() error { return want((*Recording)(nil).Ranks(), 0) }},
	{"Recording.CPUScale", false, func() error { return want((*Recording)(nil).CPUScale(), 0.0) }},
	{"Recording.TimingDependent", false, func() error { return want((*Recording)(nil).TimingDependent(), int64(0)) }},
	{"Recording.Replay", true, func() error { _, err := (*Recording)(nil).Replay(nil, 0); return err }},
	{"DecodeRankRecords", true, func() error { _, err := DecodeRankRecords(nil); return err }},
	{"Summarize", false, func() error { return want(len(Summarize("", 0, nil, 0).PerRank), 0) }},
	{"Report.WriteText", false, func() error { return (&Report{}).WriteText(io.Discard) }},
	{"Report.WriteJSON", false, func() error { return (&Report{}).WriteJSON(io.Discard) }},
}

// notCalled are the exported functions the test cannot call, and why.
var notCalled = map[string]string{
	"Main":       "it exits the process",
	"Comm.Abort": "it does not return; documented to need a communicator",
}

// want is nil when got equals exp.
func want[T comparable](got, exp T) error {
	if got != exp {
		return fmt.Errorf("got %v, want %v", got, exp)
	}
	return nil
}

// docs/mpi.md promises that bad arguments are errors, never panics: every
// exported function called with zero values either returns an error (where
// they are invalid) or a documented result, and none panics.
func TestZeroValuesNeverPanic(t *testing.T) {
	for _, zc := range zeroCalls {
		err, panicked := callNoPanic(zc.call)
		switch {
		case panicked != nil:
			t.Errorf("%s with zero values panicked: %v", zc.name, panicked)
		case zc.wantErr && err == nil:
			t.Errorf("%s with zero values returned no error", zc.name)
		case !zc.wantErr && err != nil:
			t.Errorf("%s with zero values: %v", zc.name, err)
		}
	}
}

func callNoPanic(f func() error) (err error, panicked any) {
	defer func() { panicked = recover() }()
	return f(), nil
}

// The table must name every exported function and method, so that one added
// later is tested too.
func TestZeroValuesCoverTheAPI(t *testing.T) {
	paths, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	listed := map[string]bool{}
	for _, zc := range zeroCalls {
		listed[zc.name] = true
	}
	var missing []string
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, p, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || !fd.Name.IsExported() {
				continue
			}
			name := fd.Name.Name
			if fd.Recv != nil {
				typ := fd.Recv.List[0].Type
				if s, ok := typ.(*ast.StarExpr); ok {
					typ = s.X
				}
				id, ok := typ.(*ast.Ident)
				if !ok || !id.IsExported() {
					continue
				}
				name = id.Name + "." + name
			}
			if !listed[name] && notCalled[name] == "" {
				missing = append(missing, name)
			}
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("exported but not called with zero values: %s", strings.Join(missing, ", "))
	}
}

// Beside a live group, nil is the empty group in the calls without an error
// result and an ErrGroup error in the others; a communicator rank out of
// range has no world rank.
func TestNilGroupBesideLiveOne(t *testing.T) {
	runT(t, 3, func(c *Comm) error {
		g := c.Group()
		if u := g.Union(nil); u.Compare(g) != Ident || u.Rank() != c.Rank() {
			return fmt.Errorf("g ∪ nil: %v, rank %d", u.Compare(g), u.Rank())
		}
		if u := (*Group)(nil).Union(g); u.Compare(g) != Ident || u.Rank() != c.Rank() {
			return fmt.Errorf("nil ∪ g: %v, rank %d", u.Compare(g), u.Rank())
		}
		if g.Intersection(nil).Size() != 0 || g.Difference(nil).Compare(g) != Ident {
			return fmt.Errorf("g ∩ nil or g \\ nil wrong")
		}
		if g.Compare(nil) != Unequal || (*Group)(nil).Compare(g) != Unequal {
			return fmt.Errorf("a group of 3 compares equal to the empty group")
		}
		if _, err := g.TranslateRanks([]int{0}, nil); !errors.Is(err, ErrGroup) {
			return fmt.Errorf("TranslateRanks to nil: %v", err)
		}
		for _, i := range []int{-1, 3} {
			if w := c.WorldRank(i); w != Undefined {
				return fmt.Errorf("WorldRank(%d) = %d, want Undefined", i, w)
			}
		}
		odd, err := c.Split(c.Rank()%2, 0)
		if err != nil {
			return err
		}
		if odd.WorldRank(odd.Size()) != Undefined {
			return fmt.Errorf("WorldRank past a split communicator's end is not Undefined")
		}
		return odd.Free()
	})
}

// noReq is the error of a nonblocking call that must fail without a request.
func noReq(q *Request, err error) error {
	if q != nil {
		return errors.New("a request for a failed start")
	}
	return err
}
