#!/bin/sh
# coll-vs-mpich.sh prints the collectives comparison of docs/gompirun.md
# (BENCHMARKS): gompi (gompirun -np NP samples/osu -test T) and MPICH
# (mpirun -np NP scripts/mpich/coll.c, built with mpicc) measured
# alternately, RUNS rounds, each round every collective at every size from
# MIN to MAX bytes (powers of two); then per collective and size the
# medians, gompi / MPICH, and where gompi's time falls as the size grows
# (more than 5% below the next smaller size's).
#
# Usage: scripts/coll-vs-mpich.sh     Needs mpicc and mpirun (Debian: mpich).
# BIN=DIR uses the programs already built in DIR (gompirun, osu and coll,
# as scripts/mpich/programs.sh builds them) instead of building them, for
# a host without Go or mpicc; mpirun is still needed.
# Environment: NP (default 2); RUNS (default 5); TESTS (default "allreduce
# bcast reduce barrier alltoall"); MIN and MAX (default 8 and 1048576);
# ITERS and WARMUP, timed and untimed calls up to 8 KiB, a tenth above
# (default 1000 and 200); SETTLE_MS, how long both first repeat the first
# size untimed (default 100: a gompi process's first tens of milliseconds
# run slower, which a count of warm-up calls at 8 bytes does not cover;
# docs/gompirun.md, BENCHMARKS; 0 turns it off); LONGEST=1 also times each
# call alone and adds the medians of each round's longest call of any
# rank, gompi's and MPICH's (a mean can hide a few calls of milliseconds).
set -eu
cd "$(dirname "$0")/.."
NP=${NP:-2}
RUNS=${RUNS:-5}
TESTS=${TESTS:-allreduce bcast reduce barrier alltoall}
MIN=${MIN:-8}
MAX=${MAX:-1048576}
ITERS=${ITERS:-1000}
WARMUP=${WARMUP:-200}
SETTLE_MS=${SETTLE_MS:-100}
LONGEST=${LONGEST:-0}
case $LONGEST in 0 | 1) ;; *) echo "coll-vs-mpich.sh: LONGEST must be 0 or 1" >&2; exit 2 ;; esac
gflag="" cflag=""
if [ "$LONGEST" = 1 ]; then gflag=-longest cflag=1; fi
. scripts/mpich/programs.sh
programs coll-vs-mpich.sh coll -O2

out="$bin/figures"
i=0
while [ "$i" -lt "$RUNS" ]; do
	for t in $TESTS; do
		mpirun -np "$NP" "$bin/coll" "$t" "$MIN" "$MAX" "$ITERS" "$WARMUP" "$SETTLE_MS" $cflag |
			awk -v t="$t" '!/^#/ {print t, $1, "mpich", $2; if (NF > 2) print t, $1, "mpich-longest", $3}' >>"$out"
		"$bin/gompirun" -np "$NP" "$bin/osu" -test "$t" -min "$MIN" -max "$MAX" -iters "$ITERS" -warmup "$WARMUP" -settle "${SETTLE_MS}ms" $gflag |
			awk -v t="$t" '!/^#/ {print t, $1, "gompi", $2; if (NF > 2) print t, $1, "gompi-longest", $3}' >>"$out"
	done
	i=$((i + 1))
done
echo "collectives, $NP processes over shared memory, medians of $RUNS alternated rounds (us per call, averaged over the ranks)"
if [ "$LONGEST" = 1 ]; then
	printf "%-10s %9s %10s %10s %7s %14s %14s\n" test bytes gompi-us mpich-us ratio gompi-max-us mpich-max-us
else
	printf "%-10s %9s %10s %10s %7s\n" test bytes gompi-us mpich-us ratio
fi
for t in $TESTS; do
	grep "^$t " "$out" | sort -k2,2n -k3,3 -k4,4n | awk -v t="$t" -v longest="$LONGEST" '
		{ k = $2 " " $3; v[k, ++n[k]] = $4; if (!($2 in seen)) { seen[$2] = 1; order[++ns] = $2 } }
		function median(k,   m) { m = n[k]; return (m % 2) ? v[k, (m + 1) / 2] : (v[k, m / 2] + v[k, m / 2 + 1]) / 2 }
		END {
			drops = ""
			for (i = 1; i <= ns; i++) {
				s = order[i]; g = median(s " gompi"); m = median(s " mpich")
				printf "%-10s %9d %10.2f %10.2f %7.2f", t, s, g, m, (m > 0 ? g / m : 0)
				if (longest == 1)
					printf " %14.1f %14.1f", median(s " gompi-longest"), median(s " mpich-longest")
				printf "\n"
				if (i > 1 && g < 0.95 * prev) drops = drops " " s
				prev = g
			}
			if (drops != "") printf "%-10s gompi faster than at the size before:%s\n", t, drops
		}'
done
