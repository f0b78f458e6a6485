#!/usr/bin/env python3
"""Draws the plot of `tileskip bench --suite sweep` from its CSV with matplotlib.

Usage: plot_sweep.py SWEEP.csv OUT.png     (OUT "-": the PNG on stdout)

One panel per problem size: the speedup of each backend's kernel over the dense reference kernel
against the density of A and of B (both axes logarithmic), with the ideal (1 / joint density) and
load-bound curves of the first joint kernel; the legend sits below the panels, never over them.
The tileskip command runs this script and writes its output atomically; it exits 3 when
matplotlib is missing (the command then says which package to install), 4 on a CSV it cannot read.
"""
import csv
import io
import sys

EXIT_USAGE = 2
EXIT_NO_MATPLOTLIB = 3
EXIT_BAD_CSV = 4


def read_points(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    needed = {"backend", "kernel", "size", "density", "speedup", "ideal_speedup", "load_bound_speedup"}
    if not rows or not needed <= set(rows[0]):
        raise ValueError(f"{path}: not a sweep CSV with points (needs the columns {', '.join(sorted(needed))})")
    for row in rows:
        for name in ("size",):
            row[name] = int(row[name])
        for name in ("density", "speedup", "ideal_speedup", "load_bound_speedup"):
            row[name] = float(row[name])
    return rows


def draw(rows, out):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator

    sizes = sorted({r["size"] for r in rows})
    series = list(dict.fromkeys(f'{r["backend"]} {r["kernel"]}' for r in rows))
    bound_kernel = next((r["kernel"] for r in rows if r["kernel"].startswith("joint")), rows[0]["kernel"])
    colours = plt.get_cmap("tab10").colors
    fig, axes = plt.subplots(1, len(sizes), figsize=(4.6 * len(sizes) + 0.8, 5.0), sharey=True, squeeze=False)
    handles = {}
    ticks_y = [0.25, 0.5, 1, 2, 4, 8, 16, 32, 64, 128, 256]
    ticks_x = [0.02, 0.05, 0.1, 0.2, 0.5, 1.0]
    for panel, size in zip(axes[0], sizes):
        mine = [r for r in rows if r["size"] == size]
        bound = sorted((r for r in mine if r["kernel"] == bound_kernel), key=lambda r: r["density"])
        if bound:
            xs = [r["density"] for r in bound]
            handles["ideal (1 / joint density)"] = panel.plot(
                xs, [r["ideal_speedup"] for r in bound], color="0.45", linestyle="--", linewidth=1.5)[0]
            handles["load bound (K-blocks a block loads)"] = panel.plot(
                xs, [r["load_bound_speedup"] for r in bound], color="tab:orange", linestyle=":", linewidth=1.8)[0]
        for index, name in enumerate(series):
            points = sorted((r for r in mine if f'{r["backend"]} {r["kernel"]}' == name), key=lambda r: r["density"])
            if not points:
                continue
            handles[name] = panel.plot([r["density"] for r in points], [r["speedup"] for r in points],
                                       marker="o", markersize=4, linewidth=1.6, color=colours[index % len(colours)])[0]
        panel.set_xscale("log")
        panel.set_yscale("log", base=2)
        panel.set_xlim(0.02, 1.05)
        panel.set_ylim(0.25, 256)
        panel.xaxis.set_major_locator(FixedLocator(ticks_x))
        panel.xaxis.set_minor_locator(NullLocator())
        panel.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        panel.yaxis.set_major_locator(FixedLocator(ticks_y))
        panel.yaxis.set_minor_locator(NullLocator())
        panel.yaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}x"))
        panel.grid(True, which="major", color="0.9")
        panel.set_title(f"M = N = K = {size}")
        panel.set_xlabel("density of A and of B")
    axes[0][0].set_ylabel("speedup over the dense reference kernel")
    first = rows[0]
    context = "; ".join(part for part in (first.get("date", ""), first.get("host", ""),
                                          "tileskip " + first["tool_version"] if first.get("tool_version") else "") if part)
    fig.suptitle("speedup vs density of A and B" + (f" ({context})" if context else ""), fontsize=10)
    fig.legend(handles.values(), handles.keys(), loc="lower center", ncol=min(4, len(handles)), frameon=False,
               bbox_to_anchor=(0.5, 0.0))
    rows_of_legend = (len(handles) + 3) // 4
    fig.tight_layout(rect=(0, 0.06 * rows_of_legend + 0.02, 1, 1))
    buffer = io.BytesIO()
    # bbox_inches="tight" keeps the legend whole even where it is wider than the panels.
    fig.savefig(buffer, format="png", dpi=110, bbox_inches="tight")
    plt.close(fig)
    out.write(buffer.getvalue())


def main(argv):
    if len(argv) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return EXIT_USAGE
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("plot_sweep.py: matplotlib is missing (Debian: apt install python3-matplotlib)", file=sys.stderr)
        return EXIT_NO_MATPLOTLIB
    try:
        rows = read_points(argv[1])
    except (OSError, ValueError, KeyError) as e:
        print(f"plot_sweep.py: {e}", file=sys.stderr)
        return EXIT_BAD_CSV
    if argv[2] == "-":
        draw(rows, sys.stdout.buffer)
    else:
        with open(argv[2], "wb") as f:
            draw(rows, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
