#!/bin/sh
# virtual-misses.sh counts the cache misses a simulated message costs the
# host (docs/model.md, "What grows with P"): for each P of MISSES_P it runs
# a case of BenchmarkBarrierFloor (a virtual world of P ranks in one
# process running 11 Barriers, mpi package; by default gompi-messages, the
# Barriers by their messages) once under cachegrind, which simulates
# the caches, and prints the messages, the first-level data misses and the
# last-level ones per message, then the TOP functions by last-level read
# misses per message. Cachegrind's counts do not move with the host's load
# the way times do, and need no processor counters (which VMs often lack),
# so they compare two builds where wall times cannot.
#
# Usage: scripts/virtual-misses.sh     Needs valgrind (Debian: valgrind).
# Environment: MISSES_P (default "1024 16384"; 16384 takes about four
# minutes), MISSES_CASE (default gompi-messages; gompi: the Barriers
# computed at the gate, counted per simulated message), TOP (default 12), D1 and LL (cachegrind's cache geometries,
# size,associativity,line; default 49152,12,64 and 2097152,16,64, one core
# of the development VM: a last level of one core's L2 says what misses
# the core's own caches), BIN (a directory holding mpi.test, built with
# go test -c ./mpi, for hosts without Go; default: build it here).
set -eu
cd "$(dirname "$0")/.."
MISSES_P=${MISSES_P:-"1024 16384"}
MISSES_CASE=${MISSES_CASE:-gompi-messages}
TOP=${TOP:-12}
D1=${D1:-49152,12,64}
LL=${LL:-2097152,16,64}
for c in valgrind cg_annotate; do
	command -v $c >/dev/null || { echo "virtual-misses.sh: $c not found (Debian: apt-get install valgrind)" >&2; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -n "${BIN:-}" ]; then
	[ -x "$BIN/mpi.test" ] || { echo "virtual-misses.sh: BIN=$BIN has no executable mpi.test" >&2; exit 2; }
	test=$BIN/mpi.test
else
	go test -c -o "$tmp/mpi.test" ./mpi
	test=$tmp/mpi.test
fi

echo "cachegrind D1 $D1, LL $LL; BenchmarkBarrierFloor $MISSES_CASE, 11 Barriers, one processor"
for p in $MISSES_P; do
	out=$tmp/cg.$p
	# One processor: valgrind runs one thread at a time anyway, and the
	# counts then do not depend on how the runtime spreads the ranks.
	if ! GOMAXPROCS=1 valgrind --tool=cachegrind --cache-sim=yes --D1="$D1" --LL="$LL" \
		--cachegrind-out-file="$out" "$test" -test.run NONE \
		-test.bench "BarrierFloor/P$p/$MISSES_CASE\$" -test.benchtime 1x >"$tmp/log" 2>&1; then
		echo "virtual-misses.sh: the run at P=$p failed:" >&2
		cat "$tmp/log" >&2
		exit 1
	fi
	grep -q "^BenchmarkBarrierFloor/P$p/$MISSES_CASE" "$tmp/log" ||
		{ echo "virtual-misses.sh: no BarrierFloor/P$p result (is P one of the benchmark's sizes?)" >&2; cat "$tmp/log" >&2; exit 1; }
	# Its 10 timed Barriers and the one before them, dissemination: P
	# messages in each of ceil(log2 P) rounds. The counts also hold the
	# world's set-up.
	msgs=$(awk -v p="$p" 'BEGIN { r = 0; for (d = 1; d < p; d *= 2) r++; print 11 * p * r }')
	# The totals line of the events file: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw.
	awk -v p="$p" -v n="$msgs" '$1 == "summary:" {
		printf "P=%d: %d messages, %.1f first-level data misses and %.1f last-level data misses a message\n", p, n, ($6 + $9) / n, ($7 + $10) / n }' "$out"
	cg_annotate --auto=no --sort=DLmr --show=DLmr "$out" 2>/dev/null |
		awk -v n="$msgs" -v top="$TOP" '
			/file:function/ { on = 1; next }
			on && NF >= 3 && $1 ~ /^[0-9,]+$/ {
				v = $1; gsub(",", "", v); f = $NF; sub(/.*:/, "", f)
				printf "    %6.2f  %s\n", v / n, f
				if (++k == top) exit }'
done
