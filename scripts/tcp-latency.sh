#!/bin/sh
# tcp-latency.sh prints the TCP latency comparison of docs/gompirun.md
# (BENCHMARKS): the 8-byte one-way time of a plain Go TCP ping-pong
# (samples/tcpbaseline) and of gompi over forced TCP
#   GOMPI_TRANSPORT=tcp gompirun -np 2 samples/osu -test latency -min 8 -max 8
# run alternately RUNS times each, with ITERS round trips a run, then the
# sorted times, the minimum, the median and the ratio gompi / plain of each.
#
# Usage: scripts/tcp-latency.sh    Environment: RUNS (default 15),
# ITERS (default 20000), SIZE (default 8).
#
# Virtual machines can switch between a fast and a slow mode (here: about
# 3.6 us or 10-30 us for either program) from one run to the next, so single
# runs mean little: compare the minima, and the medians of the fast runs
# (those within 1.5x of their program's minimum).
set -eu
cd "$(dirname "$0")/.."
RUNS=${RUNS:-15}
ITERS=${ITERS:-20000}
SIZE=${SIZE:-8}

bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
go build -o "$bin/gompirun" ./cmd/gompirun
go build -o "$bin/osu" ./samples/osu
go build -o "$bin/tcpbaseline" ./samples/tcpbaseline

out="$bin/times"
i=0
while [ "$i" -lt "$RUNS" ]; do
	"$bin/tcpbaseline" -size "$SIZE" -iters "$ITERS" | awk '{print "plain", $(NF-1)}' >>"$out"
	GOMPI_TRANSPORT=tcp "$bin/gompirun" -np 2 "$bin/osu" -test latency \
		-min "$SIZE" -max "$SIZE" -iters "$ITERS" | tail -1 | awk '{print "gompi", $2}' >>"$out"
	i=$((i + 1))
done
sort -k1,1 -k2n "$out" | awk -v size="$SIZE" '
	function median(k, lo, hi,   m) {
		m = hi - lo + 1
		return (m % 2) ? t[k, lo + (m - 1) / 2] : (t[k, lo + m / 2 - 1] + t[k, lo + m / 2]) / 2
	}
	{ t[$1, ++n[$1]] = $2; line[$1] = line[$1] " " $2 }
	END {
		printf "%d-byte one-way latency over TCP loopback, us (%d runs each, sorted)\n", size, n["plain"]
		for (k in line) print k ":" line[k]
		for (k in n) {
			min[k] = t[k, 1]
			med[k] = median(k, 1, n[k])
			for (f = 1; f < n[k] && t[k, f + 1] <= 1.5 * min[k]; f++) {}
			fast[k] = median(k, 1, f)
			printf "%s: min %.2f  median %.2f  median of the %d fast runs (within 1.5x of the min) %.2f\n", k, min[k], med[k], f, fast[k]
		}
		printf "gompi / plain: min %.2fx  median %.2fx  fast-run median %.2fx\n",
			min["gompi"] / min["plain"], med["gompi"] / med["plain"], fast["gompi"] / fast["plain"]
	}'
