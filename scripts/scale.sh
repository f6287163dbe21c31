#!/bin/sh
# scale.sh prints the host's cost of virtual ranks (docs/model.md, issue:
# cost per simulated message must not grow with P): for each P of SCALE_P
# and each process count of SCALE_NP it runs
#
#   gompirun -np NP -virtual P -cpu-scale 0 -report R ./samples/commskel ARGS
#
# (each iteration: two ring Sendrecvs of 1024 doubles, an Allreduce of one
# double, a Barrier; 10 iterations) and prints the simulated messages per
# host second (the report's "sent" over its host wall time), the whole
# command's wall time, the largest process's max RSS, bytes per rank (that
# RSS times NP over P: the processes hold equal shares), and the predicted
# time, which must not depend on NP.
#
# With STEADY=N it also runs each P and NP with -iters N (more than the
# first run's iterations) and prints the steady rate: the messages the
# longer run sent beyond the first over the host time it took beyond the
# first's. That leaves out what a job costs whatever its length (start-up,
# each rank's first touch of its memory, Finalize), which at P = 1024
# and 10 iterations is half of the run.
#
# Usage: scripts/scale.sh [ARGS for commskel, e.g. -iters 10 -n 1024]
# Environment: SCALE_P (default "1024 4096 16384 65536"), SCALE_NP
# (default "1 2"), STEADY (default: none), TIMEOUT (default 600s), BIN (a
# directory holding gompirun and commskel already built, for hosts without
# Go; default: build them from this checkout). Run it on a quiet machine.
set -eu
cd "$(dirname "$0")/.."
SCALE_P=${SCALE_P:-"1024 4096 16384 65536"}
SCALE_NP=${SCALE_NP:-"1 2"}
TIMEOUT=${TIMEOUT:-600s}
STEADY=${STEADY:-}
case $STEADY in '' | *[!0-9]*) [ -z "$STEADY" ] || { echo "scale.sh: STEADY must be a number of iterations" >&2; exit 2; } ;; esac
command -v /usr/bin/time >/dev/null 2>&1 || { echo "scale.sh: needs /usr/bin/time (Debian: apt-get install time)" >&2; exit 1; }
. scripts/gobin.sh
gobin scale.sh ./samples/commskel

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "samples/commskel ${*:-(-iters 10 -n 1024)}, -cpu-scale 0, machine tianhe1a"
if [ -n "$STEADY" ]; then
	printf '%9s %3s %12s %10s %12s %12s %14s %13s\n' P np messages msgs/s wall-s RSS-MiB bytes/rank steady-msgs/s
else
	printf '%9s %3s %12s %10s %12s %12s %14s\n' P np messages msgs/s wall-s RSS-MiB bytes/rank
fi
# run NP P [ARGS]: one job; sets wall, rss, sent, hostwall, pred, or prints
# why it failed and returns 1.
run() {
	rnp=$1 rp=$2
	shift 2
	if /usr/bin/time -f "%e %M" -o "$tmp/time" "$bin/gompirun" -np "$rnp" -virtual "$rp" -cpu-scale 0 \
		-timeout "$TIMEOUT" -report "$tmp/r.json" "$bin/commskel" "$@" >/dev/null 2>"$tmp/err"; then
		read -r wall rss <"$tmp/time"
		sent=$(field "$tmp/r.json" sent)
		hostwall=$(field "$tmp/r.json" wall)
		pred=$(field "$tmp/r.json" predicted)
		return 0
	fi
	printf '%9s %3s failed: %s\n' "$rp" "$rnp" "$(tail -n 1 "$tmp/err")"
	return 1
}
for p in $SCALE_P; do
	for np in $SCALE_NP; do
		run "$np" "$p" "$@" || continue
		steady=""
		if [ -n "$STEADY" ]; then
			s1=$sent h1=$hostwall w1=$wall r1=$rss p1=$pred
			run "$np" "$p" "$@" -iters "$STEADY" || continue
			steady=$(awk -v n1="$s1" -v h1="$h1" -v n2="$sent" -v h2="$hostwall" \
				'BEGIN {if (n2 > n1 && h2 > h1) printf "%13.0f", (n2 - n1) / (h2 - h1); else printf "%13s", "-"}')
			sent=$s1 hostwall=$h1 wall=$w1 rss=$r1 pred=$p1
		fi
		awk -v p="$p" -v np="$np" -v n="$sent" -v hw="$hostwall" -v w="$wall" -v rss="$rss" -v pred="$pred" -v st="$steady" \
			'BEGIN {printf "%9d %3d %12d %10.0f %12.2f %12.0f %14.0f", p, np, n, n / hw, w, rss / 1024, rss * 1024 * np / p; if (st != "") printf " %s", st; printf "  predicted %s s\n", pred}'
	done
done
