#!/bin/sh
# virtual-figures.sh prints the cost figures of docs/model.md ("Measured
# cost of virtual mode"):
#
#   slowdown  host wall time of gompirun -np NP -virtual NP PROG over that
#             of gompirun -np NP PROG (real mode), for the samples and the
#             eight NPB ports, NP in SLOWDOWN_NP (BT and SP run only at
#             square counts); runs alternate real and virtual, RUNS of each
#   scale     wall time and largest process's max RSS of samples/barrier
#             under gompirun -np NP -virtual P -cpu-scale 0, for P in SCALE_P
#   message   host time per message of an 8-byte ping-pong (samples/osu
#             -test latency, PINGS round trips and a tenth as many warm-up
#             ones) over two ranks: real and virtual (cpu-scale 1 and 0)
#             with a rank a process (-np 2), and virtual with both ranks
#             in one process (-np 1 -virtual 2); whole-command wall time
#             over the messages, so process start is included
#
# Usage: scripts/virtual-figures.sh [slowdown] [scale] [message]
#        (default: slowdown and scale)
# Environment: RUNS (default 5), CLASS (NPB class, default S),
#              PINGS (default 100000),
#              SLOWDOWN_NP (default "2"), PROGS (default: all of them),
#              SCALE_P (default "10000 100000"), SCALE_NP (default "1 2"),
#              BIN (a directory holding gompirun and the programs already
#              built, for hosts without Go; default: build them here).
# Wall times include process start; the host is shared, so compare ranges.
set -eu
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
CLASS=${CLASS:-S}
SCALE_P=${SCALE_P:-"10000 100000"}
SCALE_NP=${SCALE_NP:-"1 2"}
SLOWDOWN_NP=${SLOWDOWN_NP:-2}
PROGS=${PROGS:-"ring halo pingpong ep is cg mg ft lu bt sp"}
PINGS=${PINGS:-100000}
what=${*:-slowdown scale}

. scripts/gobin.sh
gobin virtual-figures.sh ./samples/osu ./samples/ring ./samples/halo ./samples/pingpong ./samples/barrier \
	./npb-go/ep ./npb-go/is ./npb-go/cg ./npb-go/mg ./npb-go/ft ./npb-go/lu ./npb-go/bt ./npb-go/sp

# ms CMD...: runs CMD, prints its wall time in milliseconds.
ms() {
	s=$(date +%s%N)
	if ! "$@" >/dev/null 2>"$tmp/err"; then
		echo "virtual-figures: failed: $*" >&2
		cat "$tmp/err" >&2
		exit 1
	fi
	e=$(date +%s%N)
	echo $(((e - s) / 1000000))
}

# stats: min, median, max of the numbers on stdin.
stats() { sort -n | awk '{v[NR]=$1} END {printf "%d %d %d", v[1], v[int((NR+1)/2)], v[NR]}'; }

slowdown() {
	echo "# slowdown: -np NP real vs -np NP -virtual NP (cpu-scale 1 and 0); wall ms min/median/max over $RUNS runs"
	printf '%-22s %3s %-18s %-18s %-18s %8s %8s\n' program np real virtual virtual-cs0 ratio ratio-cs0
	for np in $SLOWDOWN_NP; do
		for name in $PROGS; do
			case $name in
			ring | halo) set -- ;;
			pingpong) set -- -iters 20 -max 1048576 ;;
			bt | sp)
				# The reference's rule: a square number of processes.
				r=$(awk -v n="$np" 'BEGIN{r=int(sqrt(n)+0.5); print (r*r==n)}')
				[ "$r" = 1 ] || continue
				set -- -class "$CLASS"
				;;
			*) set -- -class "$CLASS" ;;
			esac
			: >"$tmp/r"
			: >"$tmp/v"
			: >"$tmp/z"
			i=0
			while [ $i -lt "$RUNS" ]; do
				ms "$bin/gompirun" -np "$np" -timeout 300s "$bin/$name" "$@" >>"$tmp/r"
				ms "$bin/gompirun" -np "$np" -virtual "$np" -timeout 300s "$bin/$name" "$@" >>"$tmp/v"
				ms "$bin/gompirun" -np "$np" -virtual "$np" -cpu-scale 0 -timeout 300s "$bin/$name" "$@" >>"$tmp/z"
				i=$((i + 1))
			done
			prog="$name $*"
			set -- $(stats <"$tmp/r") $(stats <"$tmp/v") $(stats <"$tmp/z")
			printf '%-22s %3s %-18s %-18s %-18s %8.2f %8.2f\n' "$prog" "$np" "$1/$2/$3" "$4/$5/$6" "$7/$8/$9" \
				"$(echo "$5 $2" | awk '{print $1/$2}')" "$(echo "$8 $2" | awk '{print $1/$2}')"
		done
	done
}

scale() {
	echo "# virtual ranks: samples/barrier, -cpu-scale 0, timeout 120 s"
	printf '%-10s %4s %10s %16s\n' P np wall-s max-RSS-MiB
	for p in $SCALE_P; do
		for np in $SCALE_NP; do
			if /usr/bin/time -f "%e %M" -o "$tmp/time" "$bin/gompirun" -np "$np" -virtual "$p" -cpu-scale 0 \
				-timeout 120s "$bin/barrier" >/dev/null 2>"$tmp/err"; then
				read -r wall rss <"$tmp/time"
				printf '%-10s %4s %10s %16d\n' "$p" "$np" "$wall" $((rss / 1024))
			else
				printf '%-10s %4s %10s\n' "$p" "$np" "failed: $(tail -n 1 "$tmp/err")"
			fi
		done
	done
}

message() {
	warm=$((PINGS / 10))
	msgs=$((2 * (PINGS + warm)))
	echo "# host ns per message: osu -test latency -min 8 -max 8 -iters $PINGS -warmup $warm; min/median/max over $RUNS runs"
	printf '%-28s %-22s\n' mode ns-per-message
	: >"$tmp/r"
	: >"$tmp/v"
	: >"$tmp/z"
	: >"$tmp/o"
	i=0
	while [ $i -lt "$RUNS" ]; do
		set -- "$bin/osu" -test latency -min 8 -max 8 -iters "$PINGS" -warmup "$warm"
		echo $(($(ms "$bin/gompirun" -np 2 "$@") * 1000000 / msgs)) >>"$tmp/r"
		echo $(($(ms "$bin/gompirun" -np 2 -virtual 2 "$@") * 1000000 / msgs)) >>"$tmp/v"
		echo $(($(ms "$bin/gompirun" -np 2 -virtual 2 -cpu-scale 0 "$@") * 1000000 / msgs)) >>"$tmp/z"
		echo $(($(ms "$bin/gompirun" -np 1 -virtual 2 "$@") * 1000000 / msgs)) >>"$tmp/o"
		i=$((i + 1))
	done
	printf '%-28s %-22s\n' "real -np 2" "$(stats <"$tmp/r" | tr ' ' /)"
	printf '%-28s %-22s\n' "virtual -np 2" "$(stats <"$tmp/v" | tr ' ' /)"
	printf '%-28s %-22s\n' "virtual -np 2 cpu-scale 0" "$(stats <"$tmp/z" | tr ' ' /)"
	printf '%-28s %-22s\n' "virtual -np 1" "$(stats <"$tmp/o" | tr ' ' /)"
}

for w in $what; do
	case $w in
	slowdown) slowdown ;;
	scale) scale ;;
	message) message ;;
	*)
		echo "virtual-figures: unknown figure $w (want slowdown, scale or message)" >&2
		exit 2
		;;
	esac
done
