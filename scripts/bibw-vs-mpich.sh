#!/bin/sh
# bibw-vs-mpich.sh prints the bidirectional bandwidth comparison of
# docs/transports-shm.md ("Full rings"): gompi (gompirun -np 2 samples/osu
# -test bibw) and MPICH (mpirun -np 2 scripts/mpich/bibw.c, built with
# mpicc) measured alternately, RUNS rounds, each round every size from MIN
# to MAX (doubling) of both; then per size the sorted figures, their
# medians and gompi's ratio to MPICH.
#
# Usage: scripts/bibw-vs-mpich.sh     Needs mpicc and mpirun (Debian: mpich).
# BIN=DIR uses the programs already built in DIR (gompirun, osu and bibw)
# instead of building them; mpirun is still needed.
# Environment: RUNS (default 5); MIN and MAX (default 16384 and 1048576);
# ITERS, timed windows a size (default 100); WARMUP (default 10); WINDOW,
# messages in flight each way (default 64, as osu_bibw).
set -eu
cd "$(dirname "$0")/.."
RUNS=${RUNS:-5}
MIN=${MIN:-16384}
MAX=${MAX:-1048576}
ITERS=${ITERS:-100}
WARMUP=${WARMUP:-10}
WINDOW=${WINDOW:-64}
. scripts/mpich/programs.sh
programs bibw-vs-mpich.sh bibw -O2 -Wno-stringop-overflow

out="$bin/figures"
i=0
while [ "$i" -lt "$RUNS" ]; do
	i=$((i + 1))
	mpirun -np 2 "$bin/bibw" "$MIN" "$MAX" "$ITERS" "$WARMUP" "$WINDOW" |
		awk '{print "mpich", $1, $2}' >>"$out"
	# osu runs a tenth of -iters (and -warmup) above 8 KiB: ten times
	# as many give ITERS and WARMUP there.
	"$bin/gompirun" -np 2 "$bin/osu" -test bibw -min "$MIN" -max "$MAX" \
		-iters $((10 * ITERS)) -warmup $((10 * WARMUP)) -window "$WINDOW" |
		awk '$1 ~ /^[0-9]+$/ {print "gompi", $1, $2}' >>"$out"
	echo "round $i done" >&2
done
sort -k2n -k1,1 -k3n "$out" | awk -v runs="$RUNS" '
	{ k = $1 " " $2; t[k, ++n[k]] = $3; line[k] = line[k] " " $3; sizes[$2] = 1 }
	END {
		printf "bidirectional bandwidth, MB/s both ways together, 2 processes, %d rounds\n", runs
		printf "%10s %12s %12s %7s   %s\n", "size", "gompi", "MPICH", "ratio", "gompi (sorted) | MPICH (sorted)"
		for (s in sizes) order[++m] = s + 0
		for (a = 1; a <= m; a++) for (b = a + 1; b <= m; b++) if (order[b] < order[a]) { x = order[a]; order[a] = order[b]; order[b] = x }
		for (a = 1; a <= m; a++) {
			s = order[a]
			for (side = 1; side <= 2; side++) {
				k = (side == 1 ? "gompi " : "mpich ") s
				c = n[k]
				med[side] = (c % 2) ? t[k, (c + 1) / 2] : (t[k, c / 2] + t[k, c / 2 + 1]) / 2
			}
			printf "%10d %12.0f %12.0f %6.2fx  %s |%s\n", s, med[1], med[2], med[1] / med[2], line["gompi " s], line["mpich " s]
		}
	}'
