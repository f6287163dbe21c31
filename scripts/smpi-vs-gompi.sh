#!/bin/sh
# smpi-vs-gompi.sh compares gompi's virtual mode with SimGrid's SMPI on the
# communication skeleton of scripts/scale.sh (docs/model.md, "gompi and
# SMPI"): for each P of SMPI_P it runs
#
#   gompirun -np 1 -virtual P -cpu-scale 0 -machine star.json samples/commskel ARGS
#   smpirun -np P -platform star.xml ... scripts/smpi/commskel ARGS
#
# on one target machine written for both: P single-core nodes on a star
# (each node's link to the switch SMPI_BW bytes/s and SMPI_LAT seconds;
# gompi's "star" level with lh = SMPI_LAT, so a message pays two links;
# B_mem 1e15 B/s, since SMPI does not model the copies through memory),
# the same collective algorithms (Allreduce by recursive doubling, SMPI's
# "rdb"; Barrier by dissemination, SMPI's "ompi_bruck"), messages up to 64
# KiB sent eagerly by both, and SMPI's plain latency-plus-bandwidth model
# (CM02, no TCP window bound) with computation not simulated. It prints
# both predicted times, their difference, both commands' wall times and
# their ratio.
#
# Usage: scripts/smpi-vs-gompi.sh [ITERS [N]]   (commskel's -iters and -n,
# default 10 and 1024). Needs smpicc and smpirun (Debian: simgrid).
# Environment: SMPI_P (default "64 256 1024 4096"), SMPI_BW (default
# 125000000, 1 Gbit/s), SMPI_LAT (default 25e-6), BIN (a directory holding
# gompirun and commskel already built; default: build them here).
set -eu
cd "$(dirname "$0")/.."
SMPI_P=${SMPI_P:-"64 256 1024 4096"}
SMPI_BW=${SMPI_BW:-125000000}
SMPI_LAT=${SMPI_LAT:-25e-6}
ITERS=${1:-10}
N=${2:-1024}
for c in smpicc smpirun; do
	command -v $c >/dev/null 2>&1 || { echo "smpi-vs-gompi.sh: needs $c (Debian: apt-get install simgrid)" >&2; exit 1; }
done
. scripts/gobin.sh
gobin smpi-vs-gompi.sh ./samples/commskel
smpicc -O2 -o "$tmp/commskel-smpi" scripts/smpi/commskel.c 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }

cat >"$tmp/star.json" <<JSON
{"name": "smpi-star", "bmem": 1e15, "cores_per_node": 1,
 "levels": [{"topology": "star", "bandwidth": $SMPI_BW, "l0": 0, "lh": $SMPI_LAT}]}
JSON

now() { date +%s%N; }

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg); $(smpirun --version 2>&1 | head -n 1)"
echo "commskel $ITERS iterations, $N doubles; star of P nodes, links $SMPI_BW B/s and $SMPI_LAT s"
printf '%6s %10s %14s %14s %8s %10s %10s %8s\n' P messages gompi-s smpi-s diff gompi-wall smpi-wall ratio
for p in $SMPI_P; do
	awk -v p="$p" -v bw="$SMPI_BW" -v lat="$SMPI_LAT" 'BEGIN {
		print "<?xml version=\"1.0\"?>"
		print "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">"
		print "<platform version=\"4.1\">"
		printf "  <cluster id=\"star\" prefix=\"node-\" suffix=\"\" radical=\"0-%d\" speed=\"1Gf\" bw=\"%.0fBps\" lat=\"%gs\"\n", p - 1, bw, lat
		print "           bb_bw=\"1000TBps\" bb_lat=\"0s\" sharing_policy=\"SPLITDUPLEX\" bb_sharing_policy=\"FATPIPE\"/>"
		print "</platform>"
	}' >"$tmp/star.xml"
	awk -v p="$p" 'BEGIN { for (i = 0; i < p; i++) print "node-" i }' >"$tmp/hosts"

	s=$(now)
	"$bin/gompirun" -np 1 -virtual "$p" -cpu-scale 0 -machine "$tmp/star.json" -report "$tmp/r.json" \
		"$bin/commskel" -iters "$ITERS" -n "$N" >/dev/null 2>"$tmp/err" || { cat "$tmp/err" >&2; exit 1; }
	gwall=$((($(now) - s) / 1000000))
	gpred=$(field "$tmp/r.json" predicted)
	sent=$(field "$tmp/r.json" sent)

	s=$(now)
	smpirun -np "$p" -platform "$tmp/star.xml" -hostfile "$tmp/hosts" \
		--cfg=network/model:CM02 --cfg=network/TCP-gamma:0 --cfg=network/crosstraffic:0 --cfg=smpi/simulate-computation:no \
		--cfg=smpi/send-is-detached-thresh:65536 --cfg=smpi/async-small-thresh:65536 \
		--cfg=smpi/allreduce:rdb --cfg=smpi/barrier:ompi_bruck --cfg=smpi/privatization:no \
		--cfg=smpi/display-timing:yes "$tmp/commskel-smpi" "$ITERS" "$N" >"$tmp/smpi" 2>&1 ||
		{ tail -n 5 "$tmp/smpi" >&2; exit 1; }
	swall=$((($(now) - s) / 1000000))
	spred=$(sed -n 's/.*Simulated time: \([0-9.e+-]*\) seconds.*/\1/p' "$tmp/smpi" | head -n 1)
	[ -n "$spred" ] || { echo "smpi-vs-gompi.sh: no simulated time in SMPI's output:" >&2; tail -n 5 "$tmp/smpi" >&2; exit 1; }

	awk -v p="$p" -v n="$sent" -v g="$gpred" -v s="$spred" -v gw="$gwall" -v sw="$swall" 'BEGIN {
		printf "%6d %10d %14.9f %14.9f %+7.2f%% %8d ms %8d ms %7.1fx\n", p, n, g, s, 100 * (g - s) / s, gw, sw, sw / gw
	}'
done
