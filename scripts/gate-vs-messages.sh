#!/bin/sh
# gate-vs-messages.sh runs virtual jobs of several processes twice, their
# collectives computed at the gate across processes and then by messages
# (GOMPI_GATE_RANKS above the job's size), and says whether the two
# reports agree: the predicted time and every rank's record but for the
# count of collectives computed at the gate ("gated") and the waits a rank
# kept (which depend on host timing), and the wall time. It also prints the
# gated count (every rank's summed) of the first run, which shows the gate
# was used, and NPB's verification. The set: NPB CG, MG, EP, FT, IS, LU,
# BT, SP class S, samples/commskel, samples/skeleton, samples/barrier.
#
# Usage: scripts/gate-vs-messages.sh
# Environment: NPS (process counts, default "2 3 4"), TRANSPORTS (default
# "shm tcp"), BIN (gompirun and the programs already built; default:
# build them from this checkout).
set -eu
cd "$(dirname "$0")/.."
NPS=${NPS:-"2 3 4"}
TRANSPORTS=${TRANSPORTS:-"shm tcp"}
. scripts/gobin.sh
gobin gate-vs-messages.sh ./samples/barrier ./samples/commskel ./samples/skeleton ./npb-go/cg ./npb-go/mg \
	./npb-go/ep ./npb-go/ft ./npb-go/is ./npb-go/lu ./npb-go/bt ./npb-go/sp

# strip FILE: the report without what may differ.
strip() {
	sed -e 's/"gated":[0-9][0-9]*//; s/"history_kept":[0-9][0-9]*//; /"wall"/d; /"slowdown"/d; /"history_kept"/d; /"gated"/d' "$1"
}

fails=0
# run NP P PROG ARGS...
run() {
	np=$1 p=$2 prog=$3
	shift 3
	for gate in 0 1000000000; do
		if ! GOMPI_TRANSPORT=$transport GOMPI_GATE_RANKS=$gate "$bin/gompirun" -np "$np" -virtual "$p" -cpu-scale 0 \
			-timeout 120s -report "$tmp/r$gate.json" "$bin/$prog" "$@" >"$tmp/out$gate" 2>&1; then
			echo "$transport -np $np -virtual $p $prog $*: FAILED (GOMPI_GATE_RANKS=$gate)"
			tail -n 3 "$tmp/out$gate"
			fails=$((fails + 1))
			return
		fi
	done
	verified=$(grep -c SUCCESSFUL "$tmp/out0" || true)
	strip "$tmp/r1000000000.json" >"$tmp/strip1"
	if strip "$tmp/r0.json" | cmp -s - "$tmp/strip1"; then
		same=same
	else
		same=DIFFERENT
		fails=$((fails + 1))
	fi
	echo "$transport -np $np -virtual $p $prog $*: $same, gated $(field "$tmp/r0.json" gated) at the gate and $(field "$tmp/r1000000000.json" gated) by messages, $verified verification lines"
}

for transport in $TRANSPORTS; do
	for np in $NPS; do
		for k in cg mg; do
			run "$np" 16 "$k" -class S
			run "$np" 64 "$k" -class S
		done
		for k in ep ft is bt sp; do
			run "$np" 16 "$k" -class S
		done
		run "$np" 8 lu -class S
		run "$np" 100 commskel
		run "$np" 8 skeleton -iters 200 -big 1024
		run "$np" 37 barrier
	done
done
[ "$fails" -eq 0 ] || { echo "gate-vs-messages.sh: $fails runs failed or differed"; exit 1; }
