#!/bin/sh
# run.sh - every benchmark (make bench), each writing bench/out/*.txt.
# They need ../shared/data (each says SKIP without it; hostile.sh makes
# its own input) and take about an hour on 2 cores; one can run alone:
# bench/<name>.sh.
set -eu
cd "$(dirname "$0")/.."
for b in hostile mbox git-ingest index train eval history-tables patchnet-tables seeds check; do
	echo "== bench/$b.sh"
	"bench/$b.sh"
done
