#!/bin/sh
# layers.sh - no #include runs from a lower floor of src/ to a higher one.
#
# The floors, lowest first (HACKING.md, "Layout"); a file may include
# headers of its own folder and of any lower floor, never of a higher one
# nor of another folder on its own floor.  src/run/ (floor 10: what a run
# does, as the core does it, for any front end) sits under src/cli/ (11,
# the front end's frame: the option parser, die() and error(), the shared
# options and option groups), under src/cmd/ (12, one file a subcommand),
# under src/stablesel.c (13): the frame depends on no command, no command
# on the main file.  Prints each include that runs back up and
# exits 1 when there is one; run by `make test`.
#
# One name a file: a file name two folders of src/ share (impl.h, each
# folder's private header, aside) makes "check.c" or "decisions.h" in a
# comment, a log or a stack trace ambiguous; a command keeps the name of
# its subcommand (src/cmd/check.c) and the core file gets another
# (src/check/check_branch.c).  Each one is printed and fails too.
set -eu
cd "$(dirname "$0")/.."

floor() {
	case "$1" in
	util) echo 0 ;;
	commit) echo 1 ;;
	source) echo 2 ;;
	history) echo 3 ;;
	labels) echo 4 ;;
	features | index) echo 5 ;;
	nn) echo 6 ;;
	models) echo 7 ;;
	eval | queue) echo 8 ;;
	rank | check) echo 9 ;;
	run) echo 10 ;;
	cli) echo 11 ;;
	cmd) echo 12 ;;
	.) echo 13 ;;
	*) echo "" ;;
	esac
}

bad=0
for f in $(find src -name '*.[ch]' | sort); do
	dir=$(dirname "$f")
	dir=${dir#src}
	dir=${dir#/}
	[ -n "$dir" ] || dir=.
	from=$(floor "$dir")
	if [ -z "$from" ]; then
		echo "layers: $f: folder '$dir' has no floor in scripts/layers.sh"
		bad=1
		continue
	fi
	for inc in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f"); do
		case "$inc" in
		*/*) to_dir=${inc%%/*} ;;
		*) continue ;; # same folder
		esac
		[ "$to_dir" = "$dir" ] && continue
		to=$(floor "$to_dir")
		if [ -z "$to" ]; then
			echo "layers: $f includes \"$inc\": folder '$to_dir' has no floor"
			bad=1
		elif [ "$to" -ge "$from" ]; then
			echo "layers: $f (floor $from, $dir) includes \"$inc\" (floor $to, $to_dir)"
			bad=1
		fi
	done
done
for name in $(find src -mindepth 2 -name '*.[ch]' ! -name impl.h -exec basename {} \; | sort | uniq -d); do
	echo "layers: two folders of src/ have a file named $name:" $(find src -name "$name" | sort)
	bad=1
done
[ $bad = 0 ] && echo "layers: every include runs down, every file name is one folder's"
exit $bad
