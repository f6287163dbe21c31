# gobin.sh, sourced by the scripts that run gompi programs (scale.sh,
# smpi-vs-gompi.sh, virtual-figures.sh; replay-cost.sh and sensitive-cost.sh
# for field).
#
# gobin SCRIPT PACKAGE...: makes a temporary directory $tmp (removed on
# exit) and points $bin at gompirun and the programs of the given packages
# (./samples/commskel, ...), built into $tmp from this checkout, or with
# BIN=DIR the ones already built in DIR, for a host without Go.
gobin() {
	script=$1
	shift
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	trap 'exit 130' INT TERM
	bin=${BIN:-$tmp}
	for pkg in ./cmd/gompirun "$@"; do
		p=${pkg##*/}
		if [ -n "${BIN:-}" ]; then
			[ -x "$BIN/$p" ] || { echo "$script: BIN=$BIN has no executable $p" >&2; exit 2; }
		else
			go build -o "$tmp/$p" "$pkg"
		fi
	done
}

# field FILE KEY: a top-level number of a JSON report.
field() {
	tr ',{' '\n\n' <"$1" | sed -n "s/^ *\"$2\": *\([-0-9.e+]*\).*/\1/p" | head -n 1
}
