#!/usr/bin/python3
"""Draws the throughput plot of docs/performance.md from the tables that
test/bench/throughput.sh prints: elements a second against size, for
mergepath's GPU and CPU backends beside CUB, Thrust, the C++ library,
PostgreSQL's own operators and intarray; merge and sort of int32 keys, on
the device (kernel level) and through SQL.  Needs matplotlib (Debian:
python3-matplotlib).

usage: test/bench/plot.py test/bench/throughput.txt test/bench/throughput.png
"""
import re
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def sections(path):
    """The file's '## name' sections, each as a list of lines."""
    out, name = {}, None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("## "):
                name = line[3:].strip()
                out[name] = []
            elif name:
                out[name].append(line)
    return out


def cells(line):
    line = line.strip()
    if line.startswith("|"):
        line = line[1:]
    if line.endswith("|"):
        line = line[:-1]
    return [c.strip() for c in re.split(r"\s\|\s", " " + line + " ")]


def tables(lines):
    """Markdown and psql tables: a header, a rule of - | + :, then rows up to
    a blank line; each a list of dicts."""
    found = []
    i = 0
    while i + 1 < len(lines):
        if "|" in lines[i] and re.fullmatch(r"[\s|+:-]*-[\s|+:-]*", lines[i + 1]):
            head = cells(lines[i])
            rows = []
            i += 2
            while i < len(lines) and "|" in lines[i] and lines[i].strip():
                rows.append(dict(zip(head, cells(lines[i]))))
                i += 1
            found.append((head, rows))
        else:
            i += 1
    return found


def table_with(lines, column):
    for head, rows in tables(lines):
        if column in head:
            return rows
    raise SystemExit(f"no table with a column {column!r}")


def size(text):
    """'1M' -> 1e6; '10000' -> 1e4."""
    text = text.strip()
    return float(text[:-1]) * 1e6 if text.endswith("M") else float(text)


def series(rows, xcol, ycol, elements_per_n, where=None):
    pts = []
    for r in rows:
        if where and any(r.get(k) != v for k, v in where.items()):
            continue
        v = r.get(ycol, "")
        if not v:
            continue
        n = size(r[xcol])
        pts.append((n, elements_per_n * n / (float(v) / 1e3)))
    pts.sort()
    return [p[0] for p in pts], [p[1] for p in pts]


STYLE = {
    "mergepath GPU": dict(color="#2e7d32", marker="o", lw=2.4, zorder=3),
    "mergepath CPU": dict(color="#81c784", marker="o", lw=2.4, ls="--", zorder=3),
    "CUB": dict(color="#1565c0", marker="s"),
    "Thrust": dict(color="#7b1fa2", marker="^"),
    "std::": dict(color="#757575", marker="v"),
    "std::sort": dict(color="#9e9e9e", marker="v", ls=":"),
    "PostgreSQL": dict(color="#ef6c00", marker="D"),
    "intarray": dict(color="#8d6e63", marker="x"),
    "floor": dict(color="black", marker="", ls=":"),
}


def draw(ax, title, lines_):
    for label, key, (xs, ys) in lines_:
        if xs:
            ax.plot(xs, ys, label=label, **STYLE[key])
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_title(title, fontsize=11)
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=8, loc="best")


def main(src, dst):
    s = sections(src)
    merge = table_with(s["bench_merge"], "mp ms")
    sort_dev = table_with(s["bench_sort"], "ours ms")
    sort_host = table_with(s["bench_sort"], "mp cpu ms")
    sql_merge = table_with(s["sql_bench merge"], "a || b")
    sql_sort = table_with(s["sql_bench sort"], "gpu_sort cpu")
    i32 = {"type": "int32"}

    fig, axes = plt.subplots(2, 2, figsize=(11, 8.5))
    draw(axes[0][0], "merge, kernel level (device or host memory, one call)", [
        ("mergepath, GPU", "mergepath GPU", series(merge, "n/side", "mp ms", 2, i32)),
        ("cub::DeviceMerge", "CUB", series(merge, "n/side", "cub ms", 2, i32)),
        ("thrust::merge", "Thrust", series(merge, "n/side", "thrust ms", 2, i32)),
        ("mergepath, CPU (one thread)", "mergepath CPU", series(merge, "n/side", "cpu backend ms", 2, i32)),
        ("std::merge", "std::", series(merge, "n/side", "std::merge ms", 2, i32)),
    ])
    draw(axes[0][1], "merge through SQL: gpu_merge(a, b) of two int4[]", [
        ("gpu_merge, GPU", "mergepath GPU", series(sql_merge, "n a side", "gpu", 2)),
        ("gpu_merge, CPU", "mergepath CPU", series(sql_merge, "n a side", "cpu", 2)),
        ("a || b (no merging: the floor)", "floor", series(sql_merge, "n a side", "a || b", 2)),
        ("intarray sort(a || b)", "intarray", series(sql_merge, "n a side", "sort(a || b)", 2)),
        ("array_agg(x ORDER BY x)", "PostgreSQL", series(sql_merge, "n a side", "array_agg", 2)),
    ])
    draw(axes[1][0], "sort, kernel level (device or host memory, one call)", [
        ("mergepath, GPU", "mergepath GPU", series(sort_dev, "n", "ours ms", 1, i32)),
        ("cub::DeviceRadixSort", "CUB", series(sort_dev, "n", "cub ms", 1, i32)),
        ("thrust::sort", "Thrust", series(sort_dev, "n", "thrust ms", 1, i32)),
        ("mergepath, CPU (4 threads)", "mergepath CPU", series(sort_host, "n", "mp cpu ms", 1, i32)),
        ("std::stable_sort", "std::", series(sort_host, "n", "std::stable_sort", 1, i32)),
        ("std::sort", "std::sort", series(sort_host, "n", "std::sort ms", 1, i32)),
    ])
    draw(axes[1][1], "sort through SQL: gpu_sort(a) of an int4[]", [
        ("gpu_sort, GPU", "mergepath GPU", series(sql_sort, "n", "gpu_sort gpu", 1)),
        ("gpu_sort, CPU", "mergepath CPU", series(sql_sort, "n", "gpu_sort cpu", 1)),
        ("intarray sort(a)", "intarray", series(sql_sort, "n", "intarray sort(a)", 1)),
        ("array_agg(x ORDER BY x)", "PostgreSQL", series(sql_sort, "n", "array_agg(x ORDER BY x)", 1)),
    ])
    for ax in axes[0]:
        ax.set_xlabel("elements a side")
    for ax in axes[1]:
        ax.set_xlabel("elements")
    for row in axes:
        row[0].set_ylabel("elements a second")
    head = s["bench_merge"][0] if s["bench_merge"] else ""
    device = head.split(",")[0].strip()
    fig.suptitle(f"mergepath throughput, int32 keys ({device}; higher is better)", fontsize=13)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    fig.savefig(dst, dpi=90)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2])
