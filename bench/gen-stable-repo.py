#!/usr/bin/env python3
# gen-stable-repo.py - a generated project with mainline releases and
# stable branches that carry backport lines, for bench/index.sh.
#
#   gen-stable-repo.py REPO COMMITS EXTRA FILES BRANCHES BACKPORTS
#
# Writes, with one `git fast-import` (get-mark gives the ids that
# backport lines and Fixes: tags quote), a bare repository REPO of:
#   - COMMITS + EXTRA mainline commits on "master": kernel-style messages
#     (subsystem prefix, body, Signed-off-by, now and then Fixes: and
#     Cc: stable), each changing one to three of FILES C files by a few
#     lines, now and then adding a file; a release tag vN.0 every RELEASE
#     (15,000) commits;
#   - BRANCHES stable branches "N.y", forked at the last releases before
#     COMMITS, each carrying about BACKPORTS backports of later mainline
#     commits ("commit <id> upstream." and the same kind of edit on the
#     branch's files), a stable release vN.0.K every 500 backports.
# The state after COMMITS mainline commits (the refs then) is written to
# REPO/base-refs as "<id> <ref>" lines: bench/index.sh indexes that state
# first, then moves the refs to the full state, which adds one release
# of EXTRA commits and the backports made meanwhile.
# Deterministic (fixed seed).  The pack is fast-import's: each version of
# a file a delta against the version before it (depth 50), where git gc
# would keep the newest whole and make older ones deltas against it.
# That suits reading oldest first (stablesel) more than newest first (git
# log); GEN_REPACK=1 repacks as gc would, which took longer than the
# generation itself here (2.5 M objects; stopped after 20 minutes on 2
# loaded CPUs), so the figures of bench/results/index.md are without it.
import os
import random
import subprocess
import sys

repo = os.path.abspath(sys.argv[1])  # fast-import runs in it: marks by absolute path
ncommits, nextra, nfiles, nbranches, nbackports = (int(a) for a in sys.argv[2:7])
RELEASE = int(os.environ.get("RELEASE", "15000"))
rnd = random.Random(20261203)

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
VERBS = ["fix", "add", "remove", "use", "drop", "avoid", "handle", "check",
         "clean up", "convert", "simplify", "rework", "initialise", "free"]
NOUNS = ["null pointer dereference", "memory leak", "error path", "refcount",
         "locking", "return value", "race condition", "buffer overflow",
         "unused variable", "timeout", "register access", "documentation"]
PEOPLE = [("Dev %s %s" % (a, b), "%s.%s@example.org" % (a.lower(), b.lower()))
          for a in ["Ann", "Bob", "Cem", "Dai", "Eva", "Fil", "Gus", "Hua", "Ida", "Jon"]
          for b in ["Kim", "Lee", "Moe", "Ng", "Oz", "Pau", "Qi", "Roy", "Sun", "Tan"]]
STMTS = ["\tret = {f}_{p}(dev, {n});", "\tif (!{v})\n\t\treturn -ENOMEM;",
         "\t{v}->count += {n};", "\tspin_lock(&{v}->lock);",
         "\tspin_unlock(&{v}->lock);", "\twritel({n}, base + {P}_REG);",
         "\tdev_dbg(dev, \"{p} {n}\\n\");", "\tkfree({v});",
         "\tmutex_lock(&{v}->mutex);", "\tmutex_unlock(&{v}->mutex);",
         "\t{v} = kzalloc(sizeof(*{v}), GFP_KERNEL);", "\treturn {f}_{p}_done({v});"]


def stmt():
    p = rnd.choice(PARTS)
    return rnd.choice(STMTS).format(f=rnd.choice(VENDORS), p=p, P=p.upper(),
                                    n=rnd.randrange(4096), v=rnd.choice(["priv", "q", "buf", "ctx"]))


def new_file(path):
    lines = ["// SPDX-License-Identifier: GPL-2.0", "/* %s */" % path, "#include <linux/module.h>", ""]
    for _ in range(rnd.randrange(3, 9)):
        fn = "%s_%s_%d" % (rnd.choice(VENDORS), rnd.choice(PARTS), rnd.randrange(1000))
        lines.append("static int %s(struct device *dev)" % fn)
        lines.append("{")
        lines.extend(stmt() for _ in range(rnd.randrange(3, 12)))
        lines.append("\treturn 0;")
        lines.append("}")
        lines.append("")
    return lines


def edit(lines, seed):
    """A small change at a place chosen by seed: replace, insert or delete a few lines."""
    r = random.Random(seed)
    n = len(lines)
    at = 4 + r.randrange(max(1, n - 6))
    kind = r.randrange(3)
    k = 1 + r.randrange(4)
    new = [stmt() for _ in range(k)]
    if kind == 0 or n < 30:
        lines[at:at] = new
    elif kind == 1:
        lines[at:at + k] = new
    else:
        del lines[at:at + min(k, 2)]


def sentence(n):
    return " ".join(rnd.choice(WORDS) for _ in range(n))


def body():
    out = []
    for _ in range(rnd.randrange(1, 3)):
        words = sentence(rnd.randrange(15, 45)).split()
        words[0] = words[0].capitalize()
        line = ""
        for w in words:
            if len(line) + len(w) + 1 > 72:
                out.append(line)
                line = w
            else:
                line = (line + " " + w).strip()
        out.append(line + ".")
        out.append("")
    return out


r_fd, w_fd = os.pipe()
os.makedirs(repo, exist_ok=True)
subprocess.run(["git", "init", "-q", "--bare", repo], check=True)
fi = subprocess.Popen(["git", "-C", repo, "fast-import", "--quiet", "--done",
                       "--cat-blob-fd=%d" % w_fd, "--export-marks=" + os.path.join(repo, "marks")],
                      stdin=subprocess.PIPE, pass_fds=[w_fd])
os.close(w_fd)
answers = os.fdopen(r_fd, "rb")
out = fi.stdin
mark = 0
shas = {}


def emit(s):
    out.write(s.encode() if isinstance(s, str) else s)


def data(text):
    b = text.encode()
    emit(b"data %d\n" % len(b))
    emit(b)
    emit(b"\n")


def sha_of(m):
    if m not in shas:
        emit("get-mark :%d\n" % m)
        out.flush()
        shas[m] = answers.readline().decode().strip()
    return shas[m]


files = {}
paths = []
for i in range(nfiles):
    d = rnd.choice(SUBSYS)
    path = "drivers/%s/%s/%s_%s.c" % (d, rnd.choice(VENDORS), rnd.choice(VENDORS), rnd.choice(PARTS))
    while path in files:
        path = path[:-2] + "_%d.c" % i
    files[path] = new_file(path)
    paths.append(path)

t0 = 1200000000
main_tip = None
main_marks = []        # mainline commit i -> mark
picked = {}            # mainline commit index -> (subject, [(path, seed)])
branches = []          # dicts: name, fork, files, tip, n, todo
base_refs = None
tags = []
total = ncommits + nextra
# FORK_EVERY=k: the branches fork every k-th release (default 1: the last
# BRANCHES releases), so that backports reach back k times as far: a
# project model then has settled backports to learn from before its
# validation slice (bench/index.sh, part e2e)
FORK_EVERY = int(os.environ.get("FORK_EVERY", "1"))
fork_at = [ncommits - RELEASE * FORK_EVERY * (nbranches - b) for b in range(nbranches)]
fork_at = [max(RELEASE, f - f % RELEASE) for f in fork_at]


def commit(ref, frm, who, when, msg, changes):
    global mark
    mark += 1
    emit("commit %s\nmark :%d\n" % (ref, mark))
    emit("author %s <%s> %d +0000\n" % (who[0], who[1], when))
    emit("committer %s <%s> %d +0000\n" % (who[0], who[1], when + 3600))
    data(msg)
    if frm:
        emit("from :%d\n" % frm)
    for path, lines in changes:
        emit("M 100644 inline %s\n" % path)
        data("\n".join(lines) + "\n")
    return mark


def backport(b, i, when):
    subject, edits = picked.pop((b["name"], i))
    upstream = sha_of(main_marks[i])
    changes = []
    for path, seed in edits:
        lines = b["files"].setdefault(path, new_file(path))
        edit(lines, seed)
        changes.append((path, lines))
    who = rnd.choice(PEOPLE)
    msg = "%s\n\ncommit %s upstream.\n\n%s\nSigned-off-by: %s <%s>\nSigned-off-by: Stable Maintainer <stable@example.org>\n" % (
        subject, upstream, "\n".join(body()), who[0], who[1])
    b["tip"] = commit("refs/heads/" + b["name"], b["tip"], who, when, msg, changes)
    b["n"] += 1
    if b["n"] % 500 == 0:
        emit("reset refs/tags/v%s.%d\nfrom :%d\n\n" % (b["name"][:-2], b["n"] // 500, b["tip"]))


for i in range(total):
    when = t0 + i * 600
    if i == ncommits:
        base_refs = [("refs/heads/master", main_tip)] + [("refs/heads/" + b["name"], b["tip"]) for b in branches]
        base_refs += [(t, m) for t, m in tags]
    nch = 1 + (rnd.random() < 0.3) + (rnd.random() < 0.1)
    changes, edits = [], []
    sub = rnd.choice(SUBSYS)
    for _ in range(nch):
        if rnd.random() < 0.005:
            path = "drivers/%s/%s/new_%d.c" % (sub, rnd.choice(VENDORS), i)
            files[path] = new_file(path)
            paths.append(path)
        else:
            path = rnd.choice(paths)
        seed = rnd.randrange(1 << 30)
        edit(files[path], seed)
        changes.append((path, files[path]))
        edits.append((path, seed))
    subject = "%s: %s: %s %s" % (sub, rnd.choice(VENDORS), rnd.choice(VERBS), rnd.choice(NOUNS))
    who = rnd.choice(PEOPLE)
    lines = [subject, ""] + body()
    tags_ = []
    if i > 100 and rnd.random() < 0.1:
        j = rnd.randrange(max(0, i - 20000), i - 1)
        tags_.append("Fixes: %s (\"%s\")" % (sha_of(main_marks[j])[:12], "earlier change"))
    if rnd.random() < 0.05:
        tags_.append("Cc: stable@vger.kernel.org")
    tags_.append("Signed-off-by: %s <%s>" % who)
    msg = "\n".join(lines + tags_) + "\n"
    main_tip = commit("refs/heads/master", main_tip, who, when, msg, changes)
    main_marks.append(main_tip)
    if (i + 1) % RELEASE == 0:
        emit("reset refs/tags/v%d.0\nfrom :%d\n\n" % ((i + 1) // RELEASE, main_tip))
        tags.append(("refs/tags/v%d.0" % ((i + 1) // RELEASE), main_tip))
    # a branch forks at its release
    for f in fork_at:
        if i + 1 == f and not any(b["fork"] == f for b in branches):
            branches.append({"name": "%d.y" % (f // RELEASE), "fork": f, "tip": main_tip, "n": 0,
                             "files": {p: list(l) for p, l in files.items()}, "todo": []})
    # picked for the live branches: about nbackports each over their life
    for b in branches:
        if b["fork"] <= i:
            life = total - b["fork"]
            if rnd.random() < nbackports / life:
                picked[(b["name"], i)] = (subject, edits)
                b["todo"].append((i + rnd.randrange(200, 3000), i))
    for b in branches:
        due = [t for t in b["todo"] if t[0] <= i]
        if due:
            b["todo"] = [t for t in b["todo"] if t[0] > i]
            for _, j in sorted(due, key=lambda t: t[1]):
                backport(b, j, when + 60)
    if i % 20000 == 0:
        sys.stderr.write("gen: %d/%d\n" % (i, total))

emit("done\n")
out.close()
if fi.wait():
    sys.exit("git fast-import failed")
marks = {}
with open(os.path.join(repo, "marks")) as f:
    for line in f:
        m, s = line.split()
        marks[int(m[1:])] = s
with open(os.path.join(repo, "base-refs"), "w") as f:
    for ref, m in base_refs:
        f.write("%s %s\n" % (marks[m], ref))
subprocess.run(["git", "-C", repo, "symbolic-ref", "HEAD", "refs/heads/master"], check=True)
if os.environ.get("GEN_REPACK"):
    sys.stderr.write("gen: repacking\n")
    subprocess.run(["git", "-C", repo, "-c", "pack.threads=2", "repack", "-q", "-a", "-d", "-f",
                    "--window=10", "--depth=50"], check=True)
