#!/usr/bin/env python3
"""first-rank-compare.py A.tsv B.tsv - are two rankings the same?

Prints "identical" when the files are byte for byte equal; else the rows
only one has, the rows whose other columns differ, and the largest
absolute difference of the score column (the first column named score),
so a tolerance can be stated.  Exit 0 either way (a report, not a test).
"""
import sys


def read(path):
    with open(path) as f:
        head = f.readline().rstrip("\n").split("\t")
        rows = {}
        for line in f:
            cols = line.rstrip("\n").split("\t")
            rows[cols[0]] = cols
    return head, rows


def main():
    a, b = sys.argv[1], sys.argv[2]
    if open(a, "rb").read() == open(b, "rb").read():
        print(f"{a} and {b}: identical")
        return
    ha, ra = read(a)
    hb, rb = read(b)
    si = ha.index("score") if "score" in ha else None
    only = len(set(ra) ^ set(rb))
    diff = 0
    worst = 0.0
    for k in set(ra) & set(rb):
        if ra[k] != rb[k]:
            diff += 1
            if si is not None:
                try:
                    worst = max(worst, abs(float(ra[k][si]) - float(rb[k][si])))
                except (ValueError, IndexError):
                    pass
    print(f"{a} and {b}: {len(ra)} and {len(rb)} rows, {only} in one only, {diff} differ, "
          f"largest score difference {worst:.6g}")


if __name__ == "__main__":
    main()
