#!/bin/sh
# seeds.sh - cut real seeds for the fuzz targets from ../shared/data.
#
#   fuzz/seeds.sh OUTDIR
#
# The data folder must not be copied into the project, so real seeds are
# cut here, at run time, into OUTDIR/<target>/ (build-fuzz/seeds by
# default); the hand-made edge cases are in fuzz/corpus/<target>/.  Each
# seed is one short message (or its message, patch or code lines), at most
# 6 KiB, about 40 a target and well under 1 MB in all.  Prints what it cut;
# with no data folder it says so and cuts nothing.
set -eu
out=${1:-build-fuzz/seeds}
data=${SS_DATA:-../shared/data}
if [ ! -d "$data/dpdk" ]; then
	echo "seeds.sh: SKIP: $data not found, hand-made seeds only" >&2
	exit 0
fi
mkdir -p "$out/mbox" "$out/patch" "$out/trailer" "$out/ctok" "$out/model"

# Split the first bytes of an mbox into messages of at most 6 KiB, keeping
# every Nth one; write seed, its commit message and its patch.
cut_mbox() { # name file every max
	zstdcat "$2" 2>/dev/null | head -c 4000000 | awk -v out="$out" -v name="$1" \
	    -v every="$3" -v max="$4" -v max_len=6144 '
	function flush() {
		if (msg != "" && n % every == 0 && kept < max && !long) {
			f = sprintf("%s/mbox/%s-%03d", out, name, kept)
			printf "%s", msg > f; close(f)
			# message: after the headers, up to "---"; patch: from diff --git
			split(msg, lines, "\n"); inhdr = 1; m = ""; p = ""; indiff = 0; inmsg = 1
			for (i = 1; i in lines; i++) {
				l = lines[i]
				if (inhdr) { if (l == "") inhdr = 0; continue }
				if (l ~ /^diff --git /) indiff = 1
				if (l == "---") inmsg = 0
				if (indiff) p = p l "\n"
				else if (inmsg) m = m l "\n"
			}
			f = sprintf("%s/trailer/%s-%03d", out, name, kept)
			printf "%s", m > f; close(f)
			if (p != "") {
				f = sprintf("%s/patch/%s-%03d", out, name, kept)
				printf "%s", p > f; close(f)
				# code lines of the patch without their diff marker
				c = ""; split(p, pl, "\n")
				for (i = 1; i in pl; i++)
					if (pl[i] ~ /^[-+ ]/ && pl[i] !~ /^(---|\+\+\+) /)
						c = c substr(pl[i], 2) "\n"
				f = sprintf("%s/ctok/%s-%03d", out, name, kept)
				printf "%s", substr(c, 1, 4096) > f; close(f)
			}
			kept++
		}
		n++
	}
	/^From / && (prev == "" || NR == 1) &&
	    ((length($2) == 40 && $2 ~ /^[0-9a-f]+$/) || $2 == "mboxrd@z") {
		flush(); msg = ""; long = 0
	}
	# (mawk has no {40}; a message past the limit stops growing)
	!long { msg = msg $0 "\n"; if (length(msg) > max_len) long = 1 }
	{ prev = $0 }
	END { flush() }'
}
cut_mbox dpdk-main "$data/dpdk/mainline-v16.11-v22.03.mbox.zst" 7 16
cut_mbox dpdk-stable "$data/dpdk/stable-branches-v16.11-v22.03.mbox.zst" 5 12
cut_mbox tip "$data/linux-tip/tip-before-2024-07-01.mbox.zst" 3 12

# the compressed paths: two short mboxes, gzip and zstd
cat "$out"/mbox/dpdk-main-000 "$out"/mbox/dpdk-main-001 2>/dev/null | gzip -9 > "$out/mbox/two.gz" || true
cat "$out"/mbox/tip-000 "$out"/mbox/tip-001 2>/dev/null | zstd -q -19 > "$out/mbox/two.zst" || true

# models: the smallest of each kind the CLI trains on a small slice, as a
# whole file (first byte even) and as a payload (first byte odd, see
# fuzz_model.c)
if [ -x ./stablesel ]; then
	tmp=$(mktemp -d)
	zstdcat "$data/dpdk/mainline-v16.11-v22.03.mbox.zst" | head -c 3000000 > "$tmp/in.mbox"
	for kind in keyword linear mlp; do
		if ./stablesel train --model $kind "$tmp/in.mbox" \
		    --labels "$data/dpdk/labels-v16.11-v22.03.tsv" -o "$tmp/$kind.model" \
		    >/dev/null 2>&1 && [ "$(wc -c < "$tmp/$kind.model")" -le 262144 ]; then
			{ printf '\000'; cat "$tmp/$kind.model"; } > "$out/model/$kind-file"
			len=$(wc -c < "$tmp/$kind.model")
			{ printf '\001'; tail -c +21 "$tmp/$kind.model" | head -c $((len - 24)); } \
				> "$out/model/$kind-payload"
		fi
	done
	# the mlp and patchnet(-feat) readers on weights of the wrong shape: the
	# linear payload with its kind (first u32) changed
	if [ -f "$out/model/linear-payload" ]; then
		for k in 3 4 5 6; do
			{ printf "\001\00$k\000\000\000"; tail -c +6 "$out/model/linear-payload"; } \
				> "$out/model/kind$k-payload"
		done
	fi
	rm -rf "$tmp"
fi
for t in mbox patch trailer ctok model; do
	echo "seeds.sh: $t: $(ls "$out/$t" | wc -l) seeds, $(du -sk "$out/$t" | cut -f1) KiB"
done
