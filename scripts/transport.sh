#!/bin/sh
# transport.sh - mail transport never reaches a model.
#
# ss_commit carries a few transport facts (HACKING.md, "Data"): the n/m of
# a "[PATCH n/m]" subject for the labeler and the thread of a mail with its
# series (commit/series.h) for the verdicts and the queue.  No feature, no
# model, no network and no evaluation may read them: this fails on any
# mention of those fields, or of the series readers that use them
# (ss_series_of, ss_series_subject), under src/features, src/models,
# src/nn and src/eval.  ss_series_link/ss_series_msgid read only a Link:
# trailer, the commit's own text, and the opt-in "series" feature group
# uses them.  Run by `make test`.
set -eu
cd "$(dirname "$0")/.."

pattern='mail_thread|mail_n|mail_total|patch_n|patch_total|ss_series_of|ss_series_subject'
if grep -nE "$pattern" src/features src/models src/nn src/eval -r; then
	echo "transport: mail transport fields read by a feature or a model (above)"
	exit 1
fi
echo "transport: no feature or model reads mail transport"
