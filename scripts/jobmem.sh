#!/bin/bash
# jobmem.sh runs a command and prints the peak memory of the whole job it
# starts: every INTERVAL it sums the resident set of the command and of
# all its descendants (gompirun and its rank processes, say), and at the
# end prints the largest sum seen and each program's largest RSS. The
# command's own output goes to stdout and stderr as usual; the figures go
# to stderr. /usr/bin/time reports the largest single process only, which
# for a virtual run leaves out gompirun reading the ranks' records while
# the ranks' process still holds its memory (docs/model.md, "Collectives
# computed at the gate").
#
# Usage: scripts/jobmem.sh CMD [ARGS...]
# Environment: INTERVAL (default 0.1, seconds). Linux only (/proc).
# A sample can miss a peak shorter than INTERVAL.
set -u
[ $# -ge 1 ] || { echo "usage: scripts/jobmem.sh CMD [ARGS...]" >&2; exit 2; }
[ -r /proc/self/status ] || { echo "jobmem.sh: needs /proc" >&2; exit 1; }
INTERVAL=${INTERVAL:-0.1}

"$@" &
pid=$!
trap 'kill -TERM "$pid" 2>/dev/null' INT TERM

# tree prints pid and its descendants.
tree() {
	echo "$1"
	local k
	for k in $(pgrep -P "$1"); do
		tree "$k"
	done
}

declare -A peak
maxsum=0
while kill -0 "$pid" 2>/dev/null; do
	sum=0
	for p in $(tree "$pid"); do
		kb=$(awk '/^VmRSS:/ {print $2}' "/proc/$p/status" 2>/dev/null)
		name=$(cat "/proc/$p/comm" 2>/dev/null)
		[ -n "$kb" ] && [ -n "$name" ] || continue
		sum=$((sum + kb))
		[ "${peak[$name]:-0}" -ge "$kb" ] || peak[$name]=$kb
	done
	[ "$maxsum" -ge "$sum" ] || maxsum=$sum
	sleep "$INTERVAL"
done
wait "$pid"
rc=$?
{
	awk -v kb="$maxsum" 'BEGIN {printf "jobmem: peak of the whole job %.2f GiB (%d KiB)\n", kb / 1048576, kb}'
	for name in "${!peak[@]}"; do
		awk -v n="$name" -v kb="${peak[$name]}" 'BEGIN {printf "jobmem:   %-16s peak %.2f GiB\n", n, kb / 1048576}'
	done
} >&2
exit "$rc"
