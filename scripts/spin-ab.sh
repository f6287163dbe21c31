#!/bin/sh
# spin-ab.sh measures what the spin of waiting ranks is worth to an NPB
# kernel (docs/accuracy.md, "Error sources found", 10): real runs of
#   gompirun -np 2 npb-go/KERNEL -class CLASS
# with GOMPI_SPIN=4000 (4000 checks, then sleep: gompi's policy before the
# 100 ms spin) alternated with runs on the default policy, RUNS of each, and
# prints NPB's Mop/s total of every run and the median, minimum and maximum
# of each side.
#
# Usage: scripts/spin-ab.sh KERNEL RATE     RATE: shm (one host, shared
# memory), or an htb rate such as 1gbit or 200mbit: the two ranks then run
# in two network namespaces joined by a bridge whose four veth ends are
# shaped to RATE, as gompi-accuracy's network cases are (needs root, ip, tc;
# everything it makes is removed on exit). Environment: RUNS (default 5),
# CLASS (default A).
set -eu
cd "$(dirname "$0")/.."
[ $# -eq 2 ] || { echo "usage: scripts/spin-ab.sh KERNEL shm|RATE" >&2; exit 2; }
KERNEL=$1
RATE=$2
RUNS=${RUNS:-5}
CLASS=${CLASS:-A}

bin=$(mktemp -d)
id=$$
br=gs${id}br
cleanup() {
	if [ "$RATE" != shm ]; then
		ip netns del "gs$id-0" 2>/dev/null || true
		ip netns del "gs$id-1" 2>/dev/null || true
		ip link del "$br" 2>/dev/null || true
	fi
	rm -rf "$bin"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
go build -o "$bin/gompirun" ./cmd/gompirun
go build -o "$bin/kernel" "./npb-go/$KERNEL"

shape() { # shape NS DEV: an htb root qdisc at RATE on DEV ("" NS: the root one)
	if [ -n "$1" ]; then
		tc -n "$1" qdisc add dev "$2" root handle 1: htb default 1
		tc -n "$1" class add dev "$2" parent 1: classid 1:1 htb rate "$RATE" ceil "$RATE" 2>/dev/null
	else
		tc qdisc add dev "$2" root handle 1: htb default 1
		tc class add dev "$2" parent 1: classid 1:1 htb rate "$RATE" ceil "$RATE" 2>/dev/null
	fi
}
if [ "$RATE" != shm ]; then
	[ "$(id -u)" -eq 0 ] || { echo "spin-ab.sh: a network case needs root" >&2; exit 1; }
	net=10.$((id % 200 + 20)).$((id / 200 % 250))
	ip link add "$br" type bridge
	ip addr add "$net.1/24" dev "$br"
	ip link set "$br" up
	for i in 0 1; do
		ns=gs$id-$i
		ip netns add "$ns"
		ip link add "gs${id}h$i" type veth peer name "gs${id}n$i"
		ip link set "gs${id}n$i" netns "$ns"
		ip link set "gs${id}h$i" master "$br" up
		ip -n "$ns" addr add "$net.$((i + 2))/24" dev "gs${id}n$i"
		ip -n "$ns" link set "gs${id}n$i" up
		ip -n "$ns" link set lo up
		shape "" "gs${id}h$i"
		shape "$ns" "gs${id}n$i"
	done
fi

job() { # one run of the kernel; prints its Mop/s total
	if [ "$RATE" = shm ]; then
		"$bin/gompirun" -np 2 "$bin/kernel" -class "$CLASS"
	else
		"$bin/gompirun" -np 2 -hosts "gs$id-0,gs$id-1" -launcher "ip netns exec" -iface "$br" \
			"$bin/kernel" -class "$CLASS"
	fi 2>&1 | awk '/Mop\/s total/ {print $NF}'
}
echo "uptime: $(uptime)"
: >"$bin/a"
: >"$bin/b"
i=0
while [ "$i" -lt "$RUNS" ]; do
	a=$(export GOMPI_SPIN=4000; job)
	b=$(unset GOMPI_SPIN; job)
	echo "run $i: GOMPI_SPIN=4000 $a Mop/s, default $b Mop/s"
	echo "$a" >>"$bin/a"
	echo "$b" >>"$bin/b"
	i=$((i + 1))
done
median() { # median (min-max) of the numbers in file $1
	sort -g "$1" | awk '{v[NR]=$1} END {m = (NR%2) ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2; print m " (" v[1] "-" v[NR] ")"}'
}
echo "Mop/s median (min-max): GOMPI_SPIN=4000 $(median "$bin/a"), default $(median "$bin/b")"
echo "uptime: $(uptime)"
