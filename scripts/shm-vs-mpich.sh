#!/bin/sh
# shm-vs-mpich.sh prints the shared-memory comparison of docs/gompirun.md
# (BENCHMARKS): gompi (gompirun -np 2 samples/osu) and MPICH (mpirun -np 2
# scripts/mpich/pingpong.c, built with mpicc) measured alternately, RUNS
# rounds, each round the 8-byte one-way latency and the 1 MiB bandwidth of
# both, printed as the round ends; then the sorted figures, their medians
# and the ratios, and the medians of each round's own latency and
# bandwidth ratios.
#
# Usage: scripts/shm-vs-mpich.sh     Needs mpicc and mpirun (Debian: mpich).
# BIN=DIR uses the programs already built in DIR (gompirun, osu and pingpong,
# as scripts/mpich/programs.sh builds them) instead of building them, for
# a host without Go or mpicc; mpirun is still needed.
# Environment: RUNS (default 9); LAT_ITERS and WARMUP, round trips timed and
# untimed (default 10000 each); BW_ITERS, timed windows of 64 messages
# (default 200). BASE=DIR adds another gompi build (gompirun and osu in
# DIR, from the commit to compare with) to every round: its 8-byte
# latency right after this build's, and its ratios to MPICH and to this
# build's, so that a change is measured against its base in the same
# minutes (this VM's state changes from one minute to the next).
#
# Both programs are measured in their steady state: a gompi process's first
# ten thousand or so round trips are slower (0.5 us one-way instead of 0.4
# with 100 warm-up round trips; sleeping first does not help, so it is not
# the runtime's start-up), so the default warm-up is long.
set -eu
cd "$(dirname "$0")/.."
RUNS=${RUNS:-9}
LAT_ITERS=${LAT_ITERS:-10000}
WARMUP=${WARMUP:-10000}
BW_ITERS=${BW_ITERS:-200}
. scripts/mpich/programs.sh
programs shm-vs-mpich.sh pingpong -O2 -Wno-stringop-overflow

out="$bin/figures"
i=0
while [ "$i" -lt "$RUNS" ]; do
	m=$(mpirun -np 2 "$bin/pingpong" "$LAT_ITERS" "$WARMUP" "$BW_ITERS" |
		awk '/^latency/ {print "mpich-latency-us", $(NF-1)} /^bw/ {print "mpich-bw-MB/s", $(NF-1)}')
	echo "$m" >>"$out"
	g=$("$bin/gompirun" -np 2 "$bin/osu" -test latency -min 8 -max 8 -iters "$LAT_ITERS" -warmup "$WARMUP" |
		tail -1 | awk '{print $2}')
	echo "gompi-latency-us $g" >>"$out"
	gb=-
	if [ -n "${BASE:-}" ]; then
		gb=$("$BASE/gompirun" -np 2 "$BASE/osu" -test latency -min 8 -max 8 -iters "$LAT_ITERS" -warmup "$WARMUP" |
			tail -1 | awk '{print $2}')
		echo "base-latency-us $gb" >>"$out"
		echo "$m" | awk -v g="$gb" '/^mpich-latency-us/ {printf "base-latency-ratio %.3f\n", g / $2}' >>"$out"
		awk -v g="$g" -v b="$gb" 'BEGIN {printf "gompi-over-base %.3f\n", g / b}' >>"$out"
	fi
	# The round's own ratio: this VM switches between a fast and a slow
	# state from one run to the next, and the medians of the two sides
	# can come from different states.
	echo "$m" | awk -v g="$g" '/^mpich-latency-us/ {printf "latency-ratio %.3f\n", g / $2}' >>"$out"
	# osu runs a tenth of -iters (and of -warmup) for sizes above 8 KiB.
	b=$("$bin/gompirun" -np 2 "$bin/osu" -test bw -min 1048576 -max 1048576 -iters $((10 * BW_ITERS)) -warmup 20 |
		tail -1 | awk '{print $2}')
	echo "gompi-bw-MB/s $b" >>"$out"
	echo "$m" | awk -v b="$b" '/^mpich-bw-MB\/s/ {printf "bw-ratio %.3f\n", b / $2}' >>"$out"
	i=$((i + 1))
	# Each round on a line of its own, as measured: the sorted lists
	# below cannot say which figures came from the same state.
	echo "$m" | awk -v i="$i" -v g="$g" -v b="$b" -v gb="$gb" '
		/^mpich-latency-us/ { l = $2 } /^mpich-bw-MB\/s/ { w = $2 }
		END {
			printf "round %d: 8 B gompi %s us, MPICH %s us", i, g, l
			if (gb != "-") printf ", base %s us", gb
			printf "; 1 MiB gompi %s MB/s, MPICH %s MB/s\n", b, w
		}'
done
sort -k1,1 -k2n "$out" | awk '
	{ t[$1, ++n[$1]] = $2; line[$1] = line[$1] " " $2 }
	END {
		printf "shared memory, 2 processes, %d rounds (sorted)\n", n["gompi-bw-MB/s"]
		for (k in line) print k ":" line[k]
		for (k in n) {
			m = n[k]
			med[k] = (m % 2) ? t[k, (m + 1) / 2] : (t[k, m / 2] + t[k, m / 2 + 1]) / 2
		}
		printf "median 8 B latency: gompi %.3f us, MPICH %.3f us (gompi %.2fx)\n",
			med["gompi-latency-us"], med["mpich-latency-us"], med["gompi-latency-us"] / med["mpich-latency-us"]
		printf "median of the rounds%s 8 B latency ratios: gompi %.2fx\n", "\047", med["latency-ratio"]
		if (n["base-latency-us"]) {
			printf "median 8 B latency of BASE: %.3f us; of the rounds%s ratios: BASE %.2fx MPICH, gompi %.2fx BASE\n",
				med["base-latency-us"], "\047", med["base-latency-ratio"], med["gompi-over-base"]
		}
		printf "median 1 MiB bandwidth: gompi %.0f MB/s, MPICH %.0f MB/s (gompi %.2fx)\n",
			med["gompi-bw-MB/s"], med["mpich-bw-MB/s"], med["gompi-bw-MB/s"] / med["mpich-bw-MB/s"]
		printf "median of the rounds%s 1 MiB bandwidth ratios: gompi %.2fx\n", "\047", med["bw-ratio"]
	}'
