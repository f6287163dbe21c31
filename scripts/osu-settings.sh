#!/bin/sh
# osu-settings.sh compares values of one gompi setting on samples/osu:
# gompirun -np 2 samples/osu -test T with the environment variable SETTING
# set to each of VALUES in turn, RUNS rounds, each round every test at
# every power of two from MIN to MAX bytes under every value; then per
# test and size the median under each value, and the median (and range)
# over the rounds of each value's time against the first value's in the
# same round (for bw, its bandwidth: above 1 is better). Rounds alternate
# the values so that a change of the host's speed falls on all of them.
# It printed the measurements behind mpi.DefaultRemoteEagerLimit (docs/mpi.md,
# "The protocol engine": the defaults) and the split copies of large
# payloads (docs/transports-shm.md, "Large messages": SETTING=GOMPI_SHM_SPLIT
# VALUES="0 1").
#
# Usage: scripts/osu-settings.sh
# Environment: SETTING (default GOMPI_EAGER_LIMIT); VALUES (default "16384
# 32768 65536"); TESTS (default "latency bw bcast allreduce reduce
# alltoall"); MIN and MAX (default 8192 and 65536); RUNS (default 11);
# ITERS, timed calls (default 5000; a fifth of it for bw, whose call is a
# window of 64 messages); BIN=DIR: gompirun and osu already built.
# GOMPI_TRANSPORT=tcp measures TCP instead of shared memory.
set -eu
cd "$(dirname "$0")/.."
SETTING=${SETTING:-GOMPI_EAGER_LIMIT}
VALUES=${VALUES:-16384 32768 65536}
TESTS=${TESTS:-latency bw bcast allreduce reduce alltoall}
MIN=${MIN:-8192}
MAX=${MAX:-65536}
RUNS=${RUNS:-11}
ITERS=${ITERS:-5000}
. scripts/gobin.sh
gobin osu-settings.sh ./samples/osu

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
out="$tmp/figures"
: >"$out"
i=0
while [ "$i" -lt "$RUNS" ]; do
	for t in $TESTS; do
		it=$ITERS
		[ "$t" != bw ] || it=$((ITERS / 5))
		for l in $VALUES; do
			env "$SETTING=$l" "$bin/gompirun" -np 2 "$bin/osu" -test "$t" -min "$MIN" -max "$MAX" \
				-iters "$it" -warmup $((it / 10)) -settle 50ms |
				awk -v r="$i" -v l="$l" -v t="$t" '!/^#/ {print r, t, $1, l, $2}' >>"$out"
		done
	done
	i=$((i + 1))
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "gompirun -np 2 samples/osu, $SETTING = $VALUES, $RUNS rounds${GOMPI_TRANSPORT:+, GOMPI_TRANSPORT=$GOMPI_TRANSPORT}"
echo "test size: per value the median (us; bw MB/s), and against the first value the median [range] of the rounds' ratios"
sort -k2,2 -k3n -k4n -k5g "$out" | awk -v limits="$VALUES" -v runs="$RUNS" '
	function median(a, n) { return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
	{
		k = $2 " " $3
		if (!(k in seen)) { seen[k] = 1; keys[++nk] = k }
		v[k, $4, ++n[k, $4]] = $5
		at[k, $4, $1] = $5
	}
	END {
		nl = split(limits, L, " ")
		for (i = 1; i <= nk; i++) {
			k = keys[i]
			line = sprintf("%-9s %7s", substr(k, 1, index(k, " ") - 1), substr(k, index(k, " ") + 1))
			for (j = 1; j <= nl; j++) {
				m = n[k, L[j]]
				delete a
				for (x = 1; x <= m; x++) a[x] = v[k, L[j], x]
				line = line sprintf("  %s: %8.2f", L[j], m ? median(a, m) : 0)
				if (j == 1 || m == 0) continue
				delete q
				c = 0
				for (r = 0; r < runs; r++)
					if (((k SUBSEP L[1] SUBSEP r) in at) && ((k SUBSEP L[j] SUBSEP r) in at))
						q[++c] = at[k, L[j], r] / at[k, L[1], r]
				if (c == 0) continue
				for (x = 1; x <= c; x++) for (y = x + 1; y <= c; y++) if (q[y] < q[x]) { t = q[x]; q[x] = q[y]; q[y] = t }
				line = line sprintf(" (%.2f [%.2f-%.2f])", median(q, c), q[1], q[c])
			}
			print line
		}
	}'
