#!/bin/sh
# sensitive-cost.sh measures what answering temporally sensitive calls in
# virtual time costs (docs/model.md, "Temporally sensitive calls"): it runs
#   gompirun -np NP -virtual P -cpu-scale 0 -machine tianhe1a \
#       samples/taskfarm -tasks TASKS -work 100us -mode MODE
# RUNS times for each P, NP and MODE, the combinations alternated within
# each round, and prints per combination the host wall time of the
# prediction (the report's wall: median, minimum, maximum), the predicted
# times seen (one value when every run gave the same) and the sensitive
# calls answered in virtual time.
#
# With -ref COMMIT it builds gompirun and the library at COMMIT (in a
# temporary worktree, with this tree's samples/taskfarm) and alternates
# each run of this tree with one of COMMIT's, printing both: for example
# d1e45a9, the last commit that answered every such call in host order.
#
# Usage: scripts/sensitive-cost.sh [-ref COMMIT] [P...]   (default P: 64 1024)
# Environment: RUNS (default 3), TASKS (default 2000), NPS (default "1 2"),
# MODES (default "anysource waitany testany").
set -eu
cd "$(dirname "$0")/.."
ref=
if [ "${1:-}" = -ref ]; then
	[ $# -ge 2 ] || { echo "usage: scripts/sensitive-cost.sh [-ref COMMIT] [P...]" >&2; exit 2; }
	ref=$2
	shift 2
fi
RUNS=${RUNS:-3}
TASKS=${TASKS:-2000}
NPS=${NPS:-1 2}
MODES=${MODES:-anysource waitany testany}
PS=${*:-64 1024}

tmp=$(mktemp -d)
cleanup() {
	[ -z "$ref" ] || git worktree remove --force "$tmp/ref" 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
mkdir "$tmp/this"
go build -o "$tmp/this/gompirun" ./cmd/gompirun
go build -o "$tmp/this/taskfarm" ./samples/taskfarm
trees=this
if [ -n "$ref" ]; then
	git worktree add --detach -q "$tmp/ref" "$ref"
	mkdir -p "$tmp/ref/samples/taskfarm"
	cp samples/taskfarm/main.go "$tmp/ref/samples/taskfarm/main.go"
	(cd "$tmp/ref" && go build -o "$tmp/ref/gompirun" ./cmd/gompirun && go build -o "$tmp/ref/taskfarm" ./samples/taskfarm)
	trees="ref this"
fi

. scripts/gobin.sh # field

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for run in $(seq "$RUNS"); do
	for p in $PS; do
		for np in $NPS; do
			for mode in $MODES; do
				for tree in $trees; do
					if ! "$tmp/$tree/gompirun" -np "$np" -virtual "$p" -cpu-scale 0 -machine tianhe1a -report "$tmp/rep.json" \
						"$tmp/$tree/taskfarm" -tasks "$TASKS" -work 100us -mode "$mode" >/dev/null 2>"$tmp/err"; then
						cat "$tmp/err" >&2
						exit 1
					fi
					r=$tmp/rep.json
					echo "$(field "$r" wall) $(field "$r" predicted) $(field "$r" temporal) $(field "$r" temporal_exact)" >>"$tmp/$tree-$p-$np-$mode"
				done
			done
		done
	done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-5s %6s %3s %-9s %-30s %-22s %s\n' tree P np mode "host wall: median (min-max)" predicted "answered in virtual time"
for p in $PS; do
	for np in $NPS; do
		for mode in $MODES; do
			for tree in $trees; do
				sort -g "$tmp/$tree-$p-$np-$mode" | awk -v tree="$tree" -v p="$p" -v np="$np" -v mode="$mode" '
					{ w[NR] = $1; if (!($2 in pred)) { pred[$2] = 1; ps = ps (ps == "" ? "" : ",") sprintf("%.7g", $2) }; t = $3; e = $4 == "" ? "-" : $4 }
					END {
						med = NR % 2 ? w[(NR + 1) / 2] : (w[NR / 2] + w[NR / 2 + 1]) / 2
						printf "%-5s %6d %3d %-9s %8.4f s (%.4f-%.4f)   %-22s %s of %s\n", tree, p, np, mode, med, w[1], w[NR], ps, e, t
					}'
			done
		done
	done
done
