#!/bin/sh
# virtual-figures.sh prints the cost figures of docs/model.md ("Measured
# cost of virtual mode"):
#
#   slowdown  host wall time of gompirun -np 2 -virtual 2 PROG over that of
#             gompirun -np 2 PROG (real mode), for the samples and the NPB
#             kernels; runs alternate real and virtual, RUNS of each
#   scale     wall time and largest process's max RSS of samples/barrier
#             under gompirun -np NP -virtual P -cpu-scale 0, for P in SCALE_P
#
# Usage: scripts/virtual-figures.sh [slowdown] [scale]   (default: both)
# Environment: RUNS (default 5), CLASS (NPB class, default S),
#              SCALE_P (default "10000 100000"), SCALE_NP (default "1 2").
# Wall times include process start; the host is shared, so compare ranges.
set -eu
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
CLASS=${CLASS:-S}
SCALE_P=${SCALE_P:-"10000 100000"}
SCALE_NP=${SCALE_NP:-"1 2"}
what=${*:-slowdown scale}

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/gompirun" ./cmd/gompirun
for p in ring halo pingpong barrier; do go build -o "$bin/$p" ./samples/$p; done
for k in ep is cg mg ft; do go build -o "$bin/$k" ./npb-go/$k; done

# ms CMD...: runs CMD, prints its wall time in milliseconds.
ms() {
	s=$(date +%s%N)
	if ! "$@" >/dev/null 2>"$bin/err"; then
		echo "virtual-figures: failed: $*" >&2
		cat "$bin/err" >&2
		exit 1
	fi
	e=$(date +%s%N)
	echo $(((e - s) / 1000000))
}

# stats: min, median, max of the numbers on stdin.
stats() { sort -n | awk '{v[NR]=$1} END {printf "%d %d %d", v[1], v[int((NR+1)/2)], v[NR]}'; }

slowdown() {
	echo "# slowdown: -np 2, real vs -virtual 2 (cpu-scale 1 and 0); wall ms min/median/max over $RUNS runs"
	printf '%-22s %-18s %-18s %-18s %8s %8s\n' program real virtual virtual-cs0 ratio ratio-cs0
	for prog in "ring" "halo" "pingpong -iters 20 -max 1048576" \
		"ep -class $CLASS" "is -class $CLASS" "cg -class $CLASS" "mg -class $CLASS" "ft -class $CLASS"; do
		set -- $prog
		name=$1
		shift
		: >"$bin/r"
		: >"$bin/v"
		: >"$bin/z"
		i=0
		while [ $i -lt "$RUNS" ]; do
			ms "$bin/gompirun" -np 2 -timeout 300s "$bin/$name" "$@" >>"$bin/r"
			ms "$bin/gompirun" -np 2 -virtual 2 -timeout 300s "$bin/$name" "$@" >>"$bin/v"
			ms "$bin/gompirun" -np 2 -virtual 2 -cpu-scale 0 -timeout 300s "$bin/$name" "$@" >>"$bin/z"
			i=$((i + 1))
		done
		set -- $(stats <"$bin/r") $(stats <"$bin/v") $(stats <"$bin/z")
		printf '%-22s %-18s %-18s %-18s %8.2f %8.2f\n' "$prog" "$1/$2/$3" "$4/$5/$6" "$7/$8/$9" \
			"$(echo "$5 $2" | awk '{print $1/$2}')" "$(echo "$8 $2" | awk '{print $1/$2}')"
	done
}

scale() {
	echo "# virtual ranks: samples/barrier, -cpu-scale 0, timeout 120 s"
	printf '%-10s %4s %10s %16s\n' P np wall-s max-RSS-MiB
	for p in $SCALE_P; do
		for np in $SCALE_NP; do
			if /usr/bin/time -f "%e %M" -o "$bin/time" "$bin/gompirun" -np "$np" -virtual "$p" -cpu-scale 0 \
				-timeout 120s "$bin/barrier" >/dev/null 2>"$bin/err"; then
				read -r wall rss <"$bin/time"
				printf '%-10s %4s %10s %16d\n' "$p" "$np" "$wall" $((rss / 1024))
			else
				printf '%-10s %4s %10s\n' "$p" "$np" "failed: $(tail -n 1 "$bin/err")"
			fi
		done
	done
}

for w in $what; do
	case $w in
	slowdown) slowdown ;;
	scale) scale ;;
	*)
		echo "virtual-figures: unknown figure $w (want slowdown or scale)" >&2
		exit 2
		;;
	esac
done
