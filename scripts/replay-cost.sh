#!/bin/sh
# replay-cost.sh compares a record's replay with the execution-driven
# prediction it reproduces (docs/replay.md): for the gompirun arguments
# given (a -virtual run: -np N -virtual P [options] PROGRAM [ARGS]) it runs,
# RUNS times and alternated,
#   1. the plain prediction            gompirun ARGS
#   2. the prediction with a record    gompirun -record DIR ARGS
#   3. the replay of that record       gompirun -replay DIR
# and prints each one's wall time (whole command, and the report's own
# host wall time: median, minimum, maximum), the predicted times (one
# value when every run agreed), and the record's size: bytes on disk, per
# message and per million messages (messages: the report's "sent"). Then,
# once each, it
#   4. runs ARGS with -trace (-trace-max TRACE_MAX, default 100000000;
#      0 skips this step: a trace holds every event in memory until the
#      job ends) and prints the Chrome trace's size per message and per
#      million messages;
#   5. compacts a copy of the last record (gompirun -compact, -stretches
#      STRETCHES, default 64) at each
#      tolerance of TOLERANCE (a list, default 0.05,0.1,0.2,0.5), replays
#      it, and prints the groups, the bursts and members' stretch sums
#      kept, the sizes, and the compacted replay's prediction against
#      the full record's (the representative ranks' error: both replays
#      are deterministic).
#
# Usage: scripts/replay-cost.sh -np 2 -virtual 64 [-cpu-scale 0] ./npb-go/cg -class A
#        scripts/replay-cost.sh -np 16 -virtual 1024 ./npb-go/cg -class A
# Environment: RUNS (default 3), TRACE_MAX (above), STRETCHES, TOLERANCE (default
# 0.05,0.1,0.2,0.5). Run it on a
# quiet machine.
set -eu
cd "$(dirname "$0")/.."
[ $# -ge 3 ] || { echo "usage: scripts/replay-cost.sh -np N -virtual P [options] PROGRAM [ARGS...]" >&2; exit 2; }
RUNS=${RUNS:-3}
TOLERANCE=${TOLERANCE:-0.05,0.1,0.2,0.5}
STRETCHES=${STRETCHES:-64}
TRACE_MAX=${TRACE_MAX:-100000000}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM
go build -o "$tmp/gompirun" ./cmd/gompirun

# The program: build a package argument once, so that no run times go build.
args=
for a in "$@"; do
	if [ -d "$a" ] && [ -z "${built:-}" ] && ls "$a"/*.go >/dev/null 2>&1; then
		go build -o "$tmp/prog" "$a"
		a=$tmp/prog
		built=1
	fi
	args="$args $(printf '%s' "$a" | sed "s/'/'\\\\''/g; s/^/'/; s/$/'/")"
done

. scripts/gobin.sh # field
now() { date +%s.%N; }
stats() { # stats FILE: median min max of the numbers in FILE
	sort -g "$1" | awk '{v[NR]=$1} END {printf "%.3f s (min %.3f, max %.3f)", v[int((NR+1)/2)], v[1], v[NR]}'
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "command: gompirun $*"
for run in $(seq "$RUNS"); do
	for kind in plain record replay; do
		rep=$tmp/$kind-$run.json
		t0=$(now)
		case $kind in
		plain) eval "\"$tmp/gompirun\" -report \"$rep\" $args" >/dev/null 2>"$tmp/err" ;;
		record) rm -rf "$tmp/rec"; eval "\"$tmp/gompirun\" -report \"$rep\" -record \"$tmp/rec\" $args" >/dev/null 2>"$tmp/err" ;;
		replay) "$tmp/gompirun" -replay "$tmp/rec" -report "$rep" >/dev/null 2>"$tmp/err" ;;
		esac || { cat "$tmp/err" >&2; exit 1; }
		t1=$(now)
		awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}' >>"$tmp/$kind.cmd"
		field "$rep" wall >>"$tmp/$kind.wall"
		field "$rep" predicted >>"$tmp/$kind.pred"
	done
done
for kind in plain record replay; do
	printf '%-7s command %s; report wall %s; predicted %s s\n' "$kind" \
		"$(stats "$tmp/$kind.cmd")" "$(stats "$tmp/$kind.wall")" "$(sort -u "$tmp/$kind.pred" | tr '\n' ' ' | sed 's/ $//')"
done
bytes=$(cat "$tmp"/rec/*.rec | wc -c) # the rank files, not the manifest
sent=$(field "$tmp/record-1.json" sent)
awk -v b="$bytes" -v n="$sent" 'BEGIN {printf "record: %d bytes for %d messages: %.3f bytes per message, %.3f MB per million messages\n", b, n, b / n, b / n}'

# 4. The trace of one more run.
if [ "$TRACE_MAX" -gt 0 ]; then
	eval "\"$tmp/gompirun\" -report \"$tmp/trace.json\" -trace \"$tmp/trace\" -trace-max $TRACE_MAX $args" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
	tbytes=$(wc -c <"$tmp/trace")
	tsent=$(field "$tmp/trace.json" sent)
	awk -v b="$tbytes" -v n="$tsent" 'BEGIN {printf "trace: %d bytes for %d messages: %.1f bytes per message, %.1f MB per million messages\n", b, n, b / n, b / n}'
	cat "$tmp/err" >&2 # gompirun's notes (events dropped past -trace-max)
	rm -f "$tmp/trace"
fi

# 5. Representative ranks: the last record compacted at each tolerance,
# replayed.
full=$(field "$tmp/replay-$RUNS.json" predicted)
for tol in $(echo "$TOLERANCE" | tr ',' ' '); do
	rm -rf "$tmp/compact"
	cp -r "$tmp/rec" "$tmp/compact"
	"$tmp/gompirun" -compact "$tmp/compact" -tolerance "$tol" -stretches "$STRETCHES" >"$tmp/groups"
	"$tmp/gompirun" -replay "$tmp/compact" -report "$tmp/compact.json" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
	comp=$(field "$tmp/compact.json" predicted)
	groups=$(sed -n '1s/.*: \([0-9]* ranks in [0-9]* groups\).*/\1/p' "$tmp/groups")
	kept=$(sed -n 's/^ *bursts kept \(.*\)/\1/p' "$tmp/groups")
	awk -v t="$tol" -v g="$groups" -v k="$kept" -v f="$full" -v c="$comp" \
		'BEGIN {printf "compact -tolerance %s: %s; bursts kept %s; replay predicts %s s, full record %s s: %+.4f%%\n", t, g, k, c, f, 100 * (c - f) / f}'
done
