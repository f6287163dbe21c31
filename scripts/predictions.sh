#!/bin/sh
# predictions.sh prints the predicted time (the -report's "predicted", all
# digits) of a fixed set of runs at -cpu-scale 0, where a prediction
# depends only on the program's messages: the set that changes to the
# virtual-time code are checked against (bit-identical before and after
# unless the change means to move them). Each run is made REPEAT times; a
# run whose predictions differ prints every value and "NOT REPEATABLE".
#
# Usage: scripts/predictions.sh            (build from this checkout)
#        BIN=DIR scripts/predictions.sh    (binaries built elsewhere)
# To compare two commits: build each into its own DIR (git worktree add,
# go build -o DIR/ ./cmd/gompirun ./samples/skeleton ./samples/commskel
# ./npb-go/...), run with each BIN, and diff the outputs.
# Environment: REPEAT (default 2), MACHINE (default tianhe1a).
set -eu
cd "$(dirname "$0")/.."
REPEAT=${REPEAT:-2}
MACHINE=${MACHINE:-tianhe1a}

. scripts/gobin.sh
gobin predictions.sh ./samples/skeleton ./samples/commskel ./npb-go/cg ./npb-go/mg \
	./npb-go/ep ./npb-go/ft ./npb-go/is ./npb-go/bt ./npb-go/sp ./npb-go/lu

# run NAME NP P PROG ARGS...
run() {
	name=$1 np=$2 p=$3 prog=$4
	shift 4
	vals=
	i=0
	while [ "$i" -lt "$REPEAT" ]; do
		if ! "$bin/gompirun" -np "$np" -virtual "$p" -cpu-scale 0 -machine "$MACHINE" \
			-report "$tmp/report.json" "$bin/$prog" "$@" >"$tmp/out" 2>&1; then
			echo "$name: FAILED"
			tail -n 3 "$tmp/out"
			return
		fi
		vals="$vals $(field "$tmp/report.json" predicted)"
		i=$((i + 1))
	done
	set -- $vals
	first=$1
	for v in "$@"; do
		if [ "$v" != "$first" ]; then
			echo "$name:$vals NOT REPEATABLE"
			return
		fi
	done
	echo "$name: $first"
}

run "skeleton -np 1 -virtual 8" 1 8 skeleton -iters 2000 -big 1024
run "skeleton -np 2 -virtual 8" 2 8 skeleton -iters 20000 -big 1024
run "commskel -np 1 -virtual 100" 1 100 commskel
for c in "cg S 16" "cg S 64" "cg A 4" "mg S 8" "mg S 16" "mg S 32" "mg S 64" "mg W 8" "mg A 2" \
	"ep S 16" "ft S 16" "is S 16" "bt S 4" "bt S 16" "sp S 16" "lu S 8" "lu S 16"; do
	set -- $c
	run "$1 class $2 -np 1 -virtual $3" 1 "$3" "$1" -class "$2"
done
run "cg class S -np 2 -virtual 64" 2 64 cg -class S
run "mg class S -np 2 -virtual 64" 2 64 mg -class S
