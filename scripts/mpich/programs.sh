# programs.sh, sourced by scripts/shm-vs-mpich.sh and scripts/coll-vs-mpich.sh:
# fills a new temporary directory $bin (removed on exit) with gompirun,
# samples/osu and the MPICH program NAME (scripts/mpich/NAME.c): built
# here, or with BIN=DIR the ones already built in DIR, for a host without Go
# or mpicc (mpirun is still needed).
#
# programs SCRIPT NAME MPICC-FLAGS...
programs() {
	script=$1 name=$2
	shift 2
	need="mpicc mpirun"
	[ -z "${BIN:-}" ] || need=mpirun
	for c in $need; do
		command -v $c >/dev/null || { echo "$script: $c not found (Debian: apt-get install mpich)" >&2; exit 1; }
	done
	bin=$(mktemp -d)
	trap 'rm -rf "$bin"' EXIT
	if [ -n "${BIN:-}" ]; then
		for p in gompirun osu "$name"; do
			[ -x "$BIN/$p" ] || { echo "$script: BIN=$BIN has no executable $p" >&2; exit 2; }
			ln -s "$(cd "$BIN" && pwd)/$p" "$bin/$p"
		done
	else
		mpicc "$@" -o "$bin/$name" "scripts/mpich/$name.c"
		go build -o "$bin/gompirun" ./cmd/gompirun
		go build -o "$bin/osu" ./samples/osu
	fi
}
