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
# message and per million messages (messages: the report's "sent").
#
# Usage: scripts/replay-cost.sh -np 2 -virtual 64 [-cpu-scale 0] ./npb-go/cg -class A
#        scripts/replay-cost.sh -np 16 -virtual 1024 ./npb-go/cg -class A
# Environment: RUNS (default 3). Run it on a quiet machine.
set -eu
cd "$(dirname "$0")/.."
[ $# -ge 3 ] || { echo "usage: scripts/replay-cost.sh -np N -virtual P [options] PROGRAM [ARGS...]" >&2; exit 2; }
RUNS=${RUNS:-3}
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

field() { # field FILE KEY: a top-level number of a JSON report
	tr ',{' '\n\n' <"$1" | sed -n "s/^ *\"$2\": *\([-0-9.e+]*\).*/\1/p" | head -n 1
}
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
