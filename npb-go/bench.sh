#!/usr/bin/env bash
# bench.sh: the NAS kernels run through gompirun, side by side with an
# NPB 3.4 MPI reference build when one is given.
#
#   npb-go/bench.sh [-class A] [-np "1 2"] [-runs 3] [-ref DIR] [-kernels "ep is cg mg ft lu sp bt"] [-bin DIR]
#
# For every kernel and process count it prints the best (smallest) of -runs
# runs of: the kernel's own "Time in seconds" (npb-s) and the wall time of
# the whole job (wall-s: launch, setup and verification included); the
# last two columns are the largest npb-s of each side, for the spread.
# -ref DIR is the bin directory of an NPB 3.4 MPI build (holding k.CLASS.x), run with
# `mpirun -np N` the same number of times, alternating with the Go runs so
# that both see the same load; ratio is ref-npb-s / go-npb-s (above 1: Go
# faster). SP and BT need a square number of processes: they run on the next
# square at or above each -np (2 becomes 4). -bin DIR uses gompirun and the
# kernels already built there (go build -o DIR/ ./cmd/gompirun ./npb-go/K ...)
# instead of building them, for a host without Go. Run from the repository
# root.
set -euo pipefail

class=A nps="1 2" runs=3 ref="" kernels="ep is cg mg ft lu sp bt" given=""
while [ $# -gt 0 ]; do
	if [ $# -lt 2 ]; then
		echo "bench.sh: $1 needs a value" >&2
		exit 2
	fi
	case "$1" in
	-class) class=$2 ;;
	-np) nps=$2 ;;
	-runs) runs=$2 ;;
	-ref) ref=$2 ;;
	-kernels) kernels=$2 ;;
	-bin) given=$2 ;;
	*) echo "bench.sh: unknown option $1 (see the comment at the top)" >&2; exit 2 ;;
	esac
	shift 2
done
if [ ! -f go.mod ] || [ ! -d npb-go ]; then
	echo "bench.sh: run me from the repository root" >&2
	exit 2
fi

if [ -n "$given" ]; then
	bin=$given
	for f in gompirun $kernels; do
		if [ ! -x "$bin/$f" ]; then
			echo "bench.sh: -bin $bin has no executable $f" >&2
			exit 2
		fi
	done
else
	bin=$(mktemp -d)
	trap 'rm -rf "$bin"' EXIT
	go build -o "$bin/" ./cmd/gompirun $(for k in $kernels; do echo ./npb-go/$k; done)
fi

# one CMD...: prints "npb-s wall-s" of one run; fails unless it verified.
one() {
	local out start end
	start=$(date +%s.%N)
	out=$("$@" 2>&1) || { echo "bench.sh: $* failed:" >&2; echo "$out" >&2; return 1; }
	end=$(date +%s.%N)
	if ! grep -q "Verification *= *SUCCESSFUL" <<<"$out"; then
		echo "bench.sh: $* did not verify:" >&2
		echo "$out" >&2
		return 1
	fi
	awk -v s="$start" -v e="$end" '/Time in seconds/ { t = $NF } END { printf "%s %.2f\n", t, e - s }' <<<"$out"
}

# best "a b" "c d" ...: the smallest npb-s and the smallest wall-s.
best() {
	printf '%s\n' "$@" | awk 'NR == 1 || $1 < t { t = $1 } NR == 1 || $2 < w { w = $2 } END { printf "%.2f %.2f", t, w }'
}

# worst "a b" "c d" ...: the largest npb-s, for the spread.
worst() {
	printf '%s\n' "$@" | awk 'NR == 1 || $1 > t { t = $1 } END { printf "%.2f", t }'
}

printf "%-6s %-5s %-5s %-9s %-9s %-9s %-9s %-6s %-9s %s\n" kernel class ranks go-npb-s go-wall-s ref-npb-s ref-wall-s ratio go-max-s ref-max-s
# ranks K N: the process count kernel K runs on for -np N.
ranks() {
	case $1 in
	sp | bt)
		local s=1
		while ((s * s < $2)); do s=$((s + 1)); done
		echo $((s * s))
		;;
	*) echo "$2" ;;
	esac
}

for k in $kernels; do
	for n in $nps; do
		np=$(ranks "$k" "$n")
		g=() r=()
		for ((i = 0; i < runs; i++)); do
			g+=("$(one "$bin/gompirun" -np "$np" "$bin/$k" -class "$class")")
			if [ -n "$ref" ]; then
				r+=("$(one mpirun -np "$np" "$ref/$k.$class.x")")
			fi
		done
		gb=$(best "${g[@]}") gw=$(worst "${g[@]}")
		rb="- -" rw=- ratio=-
		if [ -n "$ref" ]; then
			rb=$(best "${r[@]}") rw=$(worst "${r[@]}")
			ratio=$(awk -v g="${gb%% *}" -v r="${rb%% *}" 'BEGIN { if (g > 0) printf "%.2f", r / g; else print "-" }')
		fi
		printf "%-6s %-5s %-5s %-9s %-9s %-9s %-9s %-6s %-9s %s\n" "$k" "$class" "$np" $gb $rb "$ratio" "$gw" "$rw"
	done
done
