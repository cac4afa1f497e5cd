#!/bin/sh
# git-ingest.sh - how fast stablesel reads a repository, against git itself.
#
# Generates (once; cached in bench/out/) a repository of about 20,000
# commits over a C tree of a few thousand files with git fast-import:
# small kernel-style edits, multi-file commits, added, deleted and renamed
# files, and now and then a merged side branch.  Then times
#     git log -p --no-merges >/dev/null          (the reference: ratio 1.00)
#     git log -p --no-merges --reverse           (oldest first, as stablesel)
#     stablesel log --repo REPO >/dev/null      (default threads, and 1 thread)
# and reports seconds (best of RUNS), the ratio stablesel/git, commits/s
# and peak RSS (/usr/bin/time -v), also into bench/out/git-ingest.txt.
#
# Environment: COMMITS (20000), FILES (3000), RUNS (3), STABLESEL
# (./stablesel).  Run from the top of the source tree after `make`.
set -eu

COMMITS=${COMMITS:-20000}
FILES=${FILES:-3000}
RUNS=${RUNS:-3}
STABLESEL=${STABLESEL:-./stablesel}
OUT=bench/out
REPO=$OUT/git-ingest-repo-$COMMITS-$FILES
SUMMARY=$OUT/git-ingest.txt

# the user's configuration must not change what either side does
GIT_CONFIG_NOSYSTEM=1
GIT_CONFIG_GLOBAL=/dev/null
export GIT_CONFIG_NOSYSTEM GIT_CONFIG_GLOBAL

die() { echo "git-ingest: $*" >&2; exit 1; }

[ -x "$STABLESEL" ] || die "$STABLESEL not found (run make first)"
command -v git >/dev/null || die "git not found"
command -v python3 >/dev/null || die "python3 not found (needed to generate the repository)"
mkdir -p "$OUT"

generate() {
	python3 - "$COMMITS" "$FILES" <<'EOF'
import random
import sys

ncommits, nfiles = int(sys.argv[1]), int(sys.argv[2])
rnd = random.Random(20231114)
out = sys.stdout.buffer

SUBSYS = ["net", "gpu/drm", "usb", "scsi", "media", "sound/soc", "i2c", "spi",
          "gpio", "iio", "input", "pci", "block", "mmc", "mtd", "pinctrl",
          "clk", "regulator", "power", "thermal", "hwmon", "watchdog", "tty",
          "crypto", "dma", "irqchip", "phy", "nvme", "infiniband", "firmware"]
VENDORS = ["acme", "vortex", "zenith", "orbit", "quark", "helix", "nimbus",
           "pixel", "tundra", "vertex", "delta", "ember", "falcon", "garnet"]
PARTS = ["core", "main", "dma", "irq", "hw", "ethtool", "debugfs", "pm",
         "regs", "fw", "phy", "rx", "tx", "mbox", "sysfs", "ioctl"]
WORDS = ("the driver did not check the return value of the allocation and "
         "could dereference a null pointer when the device is removed while "
         "an interrupt is pending this can lead to a use after free or a "
         "leak of the buffer on the error path so free it and return the "
         "error code make sure the lock is held while the queue is updated "
         "and that the counter cannot overflow on 32 bit systems").split()
PEOPLE = [("Ann Author", "ann@example.org"), ("Bob Builder", "bob@example.com"),
          ("Carla Coder", "carla@example.net"), ("Dan Dev", "dan@example.org"),
          ("Eve Engineer", "eve@example.com"), ("Fay Fixer", "fay@example.net"),
          ("Gus Hacker", "gus@example.org"), ("Hana Kernel", "hana@example.com")]
TYPES = ["int", "u32", "u16", "unsigned long", "size_t", "bool"]


def func_lines(prefix, n):
    name = "%s_%s_%d" % (prefix, rnd.choice(["init", "probe", "reset", "read",
                                             "write", "setup", "handle", "update",
                                             "config", "start", "stop"]), n)
    body = ["static int %s(struct %s_dev *dev, %s arg)" % (name, prefix, rnd.choice(TYPES)),
            "{", "\tint ret;", ""]
    for i in range(rnd.randint(3, 12)):
        k = rnd.random()
        if k < 0.3:
            body += ["\tret = %s_hw_op(dev, %d, arg);" % (prefix, rnd.randint(0, 99)),
                     "\tif (ret < 0)", "\t\treturn ret;"]
        elif k < 0.5:
            body.append("\tdev->reg[%d] = readl(dev->base + 0x%03x);" % (i, rnd.randint(0, 4095)))
        elif k < 0.7:
            body.append("\twritel(0x%08x, dev->base + 0x%03x);" % (rnd.getrandbits(32), rnd.randint(0, 4095)))
        elif k < 0.85:
            body += ["\tif (arg > %d) {" % rnd.randint(1, 512),
                     "\t\tdev_warn(dev->dev, \"%s: arg %%d too big\\n\", arg);" % name,
                     "\t\treturn -EINVAL;", "\t}"]
        else:
            body.append("\t/* %s */" % " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(3, 9))))
    body += ["", "\treturn 0;", "}", ""]
    return name, body


def new_file(path, prefix):
    lines = ["// SPDX-License-Identifier: GPL-2.0", "/*", " * %s" % path, " */",
             "#include <linux/module.h>", "#include <linux/io.h>",
             "#include \"%s.h\"" % prefix, "",
             "struct %s_dev {" % prefix, "\tstruct device *dev;",
             "\tvoid __iomem *base;", "\tu32 reg[16];", "};", ""]
    for n in range(rnd.randint(3, 9)):
        lines += func_lines(prefix, n)[1]
    lines.append("MODULE_LICENSE(\"GPL\");")
    return lines


# the tree: FILES files in driver directories of 3..12 files each
files = {}     # path -> lines
dirs = []      # (dir, prefix, [paths])
while len(files) < nfiles:
    sub, ven = rnd.choice(SUBSYS), rnd.choice(VENDORS)
    d = "drivers/%s/%s%d" % (sub, ven, len(dirs))
    prefix = "%s%d" % (ven, len(dirs))
    paths = []
    for part in rnd.sample(PARTS, rnd.randint(3, 12)):
        p = "%s/%s_%s.c" % (d, prefix, part)
        files[p] = new_file(p, prefix)
        paths.append(p)
    h = "%s/%s.h" % (d, prefix)
    files[h] = ["/* SPDX-License-Identifier: GPL-2.0 */", "#ifndef _%s_H" % prefix.upper(),
                "#define _%s_H" % prefix.upper(), "",
                "int %s_hw_op(void *dev, int op, long arg);" % prefix, "", "#endif", ""]
    paths.append(h)
    dirs.append((d, prefix, paths))
# directories only a side branch touches, so that merges never conflict
side_dirs = set(range(0, len(dirs), 25))

now = 1500000000
mark = 0


def data(b):
    out.write(b"data %d\n" % len(b))
    out.write(b)
    out.write(b"\n")


def put(path):
    out.write(b"M 100644 inline %s\n" % path.encode())
    data(("\n".join(files[path]) + "\n").encode())


def edit(path, prefix):
    lines = files[path]
    for _ in range(rnd.choice([1, 1, 1, 2, 2, 3])):
        i = rnd.randrange(len(lines))
        k = rnd.random()
        if k < 0.35:
            lines[i:i] = ["\tret = %s_hw_op(dev, %d, 0);" % (prefix, rnd.randint(0, 99)),
                          "\tif (ret)", "\t\tgoto err_%s;" % rnd.choice(PARTS)]
        elif k < 0.55 and len(lines) > 40:
            del lines[i:i + rnd.randint(1, 4)]
        elif k < 0.8:
            lines[i] = lines[i].replace("0x", "0x1", 1) if "0x" in lines[i] else \
                lines[i] + (" /* %s */" % rnd.choice(WORDS))
        elif k < 0.9:
            lines[i:i] = func_lines(prefix, rnd.randint(10, 99))[1]
        else:
            lines[i:i] = ["\t/* %s */" % " ".join(rnd.choice(WORDS) for _ in range(6))]


def message(d, prefix):
    sub = d.split("/")[1]
    subj = "%s: %s: %s %s" % (sub, prefix, rnd.choice(["fix", "avoid", "handle", "add",
                                                        "remove", "use", "check"]),
                               " ".join(rnd.choice(WORDS) for _ in range(rnd.randint(2, 6))))
    body = []
    for _ in range(rnd.randint(1, 3)):
        words = [rnd.choice(WORDS) for _ in range(rnd.randint(8, 40))]
        lines, cur = [], ""
        for w in words:
            if len(cur) + len(w) > 70:
                lines.append(cur)
                cur = w
            else:
                cur = (cur + " " + w).strip()
        lines.append(cur)
        body.append("\n".join(lines).capitalize())
    tr = []
    if rnd.random() < 0.3:
        tr.append("Fixes: %012x (\"%s: %s: add support\")" % (rnd.getrandbits(48), sub, prefix))
    if rnd.random() < 0.15:
        tr.append("Cc: stable@vger.kernel.org")
    name, email = rnd.choice(PEOPLE)
    tr.append("Signed-off-by: %s <%s>" % (name, email))
    if rnd.random() < 0.4:
        n2, e2 = rnd.choice(PEOPLE)
        tr.append("Reviewed-by: %s <%s>" % (n2, e2))
    return "\n\n".join([subj] + body + ["\n".join(tr)]) + "\n", name, email


def header(ref, msg, name, email):
    global mark, now
    mark += 1
    now += rnd.randint(60, 5400)
    tz = rnd.choice(["+0000", "+0100", "+0200", "-0700", "+0530", "-0400"])
    out.write(b"commit %s\nmark :%d\n" % (ref.encode(), mark))
    out.write(("author %s <%s> %d %s\n" % (name, email, now - rnd.randint(0, 86400), tz)).encode())
    out.write(("committer %s <%s> %d %s\n" % (name, email, now, tz)).encode())
    data(msg.encode())
    return mark


# the root commit: the whole tree
header("refs/heads/main", "Initial import\n", "Ann Author", "ann@example.org")
for p in sorted(files):
    put(p)
main_mark = mark

made = 1
while made < ncommits:
    if made % 400 == 0 and made + 4 < ncommits:
        # a side branch of three commits, merged back
        out.write(b"reset refs/heads/side\nfrom :%d\n\n" % main_mark)
        touched = set()
        for _ in range(3):
            di = rnd.choice(sorted(side_dirs))
            d, prefix, paths = dirs[di]
            msg, name, email = message(d, prefix)
            header("refs/heads/side", msg, name, email)
            for p in rnd.sample(paths, min(len(paths), rnd.randint(1, 3))):
                edit(p, prefix)
                put(p)
                touched.add(p)
            out.write(b"\n")
        side_mark = mark
        header("refs/heads/main", "Merge branch 'side'\n", "Ann Author", "ann@example.org")
        out.write(b"from :%d\nmerge :%d\n" % (main_mark, side_mark))
        for p in sorted(touched):
            put(p)
        out.write(b"\n")
        main_mark = mark
        made += 4
        continue
    di = rnd.randrange(len(dirs))
    while di in side_dirs:
        di = rnd.randrange(len(dirs))
    d, prefix, paths = dirs[di]
    msg, name, email = message(d, prefix)
    header("refs/heads/main", msg, name, email)
    k = rnd.random()
    if k < 0.04:
        p = "%s/%s_new%d.c" % (d, prefix, made)
        files[p] = new_file(p, prefix)
        paths.append(p)
        put(p)
    elif k < 0.06 and len(paths) > 3:
        p = rnd.choice([x for x in paths if x.endswith(".c")])
        paths.remove(p)
        del files[p]
        out.write(b"D %s\n" % p.encode())
    elif k < 0.08 and len(paths) > 2:
        p = rnd.choice([x for x in paths if x.endswith(".c")])
        q = p[:-2] + "_v%d.c" % made
        paths[paths.index(p)] = q
        files[q] = files.pop(p)
        out.write(b"R %s %s\n" % (p.encode(), q.encode()))
        edit(q, prefix)
        put(q)
    else:
        n = rnd.choice([1, 1, 1, 1, 2, 2, 3, 4]) if k < 0.95 else rnd.randint(5, 12)
        for p in rnd.sample(paths, min(len(paths), n)):
            edit(p, prefix)
            put(p)
    out.write(b"\n")
    main_mark = mark
    made += 1
out.write(b"reset refs/heads/side\nfrom :%d\n\n" % main_mark)
out.flush()
EOF
}

if [ ! -f "$REPO/.done" ]; then
	echo "git-ingest: generating $COMMITS commits over $FILES files in $REPO" >&2
	rm -rf "$REPO"
	git -c init.defaultBranch=main init -q --bare "$REPO"
	start=$(date +%s)
	generate | git -C "$REPO" fast-import --quiet
	# packed and with a commit-graph, as a clone that has been gc'd
	git -C "$REPO" gc --quiet
	touch "$REPO/.done"
	echo "git-ingest: generated in $(( $(date +%s) - start ))s" >&2
fi

ncommits=$(git -C "$REPO" rev-list --count --no-merges main)
nmerges=$(git -C "$REPO" rev-list --count --merges main)
nfiles=$(git -C "$REPO" ls-tree -r main | wc -l)

TIME=/usr/bin/time
if [ ! -x "$TIME" ]; then
	echo "git-ingest: /usr/bin/time missing (apt-get install time): no peak RSS" >&2
	TIME=
fi

# measure NAME CMD...: best wall seconds of RUNS into $secs, best user+system
# seconds into $cpu (steadier than wall time on a busy machine), max RSS
# (KiB) into $rss
measure() {
	name=$1
	shift
	secs='' cpu='' rss=0
	i=0
	while [ $i -lt "$RUNS" ]; do
		i=$((i + 1))
		if [ -n "$TIME" ]; then
			"$TIME" -v -o "$OUT/git-ingest.time" "$@" >/dev/null ||
				die "$name failed"
			s=$(awk -F': ' '/Elapsed \(wall clock\)/ {
				n = split($2, t, ":"); v = 0
				for (j = 1; j <= n; j++) v = v * 60 + t[j]
				print v }' "$OUT/git-ingest.time")
			r=$(awk -F': ' '/Maximum resident set size/ { print $2 }' "$OUT/git-ingest.time")
			c=$(awk -F': ' '/(User|System) time \(seconds\)/ { v += $2 } END { print v }' \
				"$OUT/git-ingest.time")
		else
			t0=$(date +%s.%N)
			"$@" >/dev/null || die "$name failed"
			t1=$(date +%s.%N)
			s=$(echo "$t0 $t1" | awk '{ printf "%.2f", $2 - $1 }')
			r=0 c=$s
		fi
		secs=$(echo "${secs:-$s} $s" | awk '{ print ($2 < $1) ? $2 : $1 }')
		cpu=$(echo "${cpu:-$c} $c" | awk '{ print ($2 < $1) ? $2 : $1 }')
		rss=$(echo "$rss $r" | awk '{ print ($2 > $1) ? $2 : $1 }')
	done
	echo "git-ingest: $name: ${secs}s, cpu ${cpu}s, ${rss} KiB" >&2
}

measure "git log -p" git -C "$REPO" log -p --no-merges
git_s=$secs git_cpu=$cpu git_rss=$rss
# what stablesel does: oldest first
measure "git log -p --reverse" git -C "$REPO" log -p --no-merges --reverse
gitr_s=$secs gitr_cpu=$cpu gitr_rss=$rss
measure "stablesel log" "$STABLESEL" log --repo "$REPO"
ss_s=$secs ss_cpu=$cpu ss_rss=$rss
SS_GIT_THREADS=0
export SS_GIT_THREADS
measure "stablesel log (1 thread)" "$STABLESEL" log --repo "$REPO"
ss1_s=$secs ss1_cpu=$cpu ss1_rss=$rss
unset SS_GIT_THREADS

report() {
	rate() { echo "$ncommits $1" | awk '{ printf "%.0f", ($2 > 0) ? $1 / $2 : 0 }'; }
	ratio() { echo "$1 $git_s" | awk '{ printf "%.2f", ($2 > 0) ? $1 / $2 : 0 }'; }
	row() {
		printf '%-26s %8s %6s %10s %8s %9s\n' "$1" "$2" "$(ratio "$2")" "$(rate "$2")" \
			"$3" "$(($4 / 1024))"
	}
	echo "git-ingest: $ncommits non-merge commits (+$nmerges merges), $nfiles files," \
		"$(nproc) CPUs, best of $RUNS, load average $(cut -d' ' -f1-3 /proc/loadavg)"
	printf '%-26s %8s %6s %10s %8s %9s\n' "" "wall s" ratio commits/s "cpu s" "RSS MiB"
	row "git log -p --no-merges" "$git_s" "$git_cpu" "$git_rss"
	row "git log -p --reverse" "$gitr_s" "$gitr_cpu" "$gitr_rss"
	row "stablesel log" "$ss_s" "$ss_cpu" "$ss_rss"
	row "stablesel log, 1 thread" "$ss1_s" "$ss1_cpu" "$ss1_rss"
}
report | tee "$SUMMARY.tmp"
mv "$SUMMARY.tmp" "$SUMMARY"
rm -f "$OUT/git-ingest.time"
