#!/usr/bin/env python3
"""Plots tune runs' gain against compiles (and wall time) as one SVG (docs/tune.md).

    bench/tune-curves-svg.py OUT.svg TITLE LABEL=W/curve-guided.csv...

Each CSV is a work directory's curve-guided.csv (compiles, linked bytes,
% against the model, and since issue #53 seconds since the search began,
one line per step); each becomes a step line named LABEL. When every CSV
has the seconds column, a second panel plots the same gain against the
wall clock. Only the standard library; the same inputs give the same bytes.
"""
import csv
import os
import sys

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"]


def read(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))[1:]
    return [(int(r[0]), float(r[2]), float(r[3]) if len(r) > 3 else None)
            for r in rows if r]


def panel(svg, runs, x0, w, h, xi, xlabel, unit):
    """One plot of runs' gain against column xi, at x offset x0."""
    left, right, top, bottom = x0 + 60, 20, 40, 50
    max_x = max(max(p[xi] for p in pts) for _, pts in runs) or 1
    min_y = min(min(p[1] for p in pts) for _, pts in runs)
    min_y = min(min_y, -0.1)
    sx = lambda x: left + (x0 + w - left - right) * x / max_x
    sy = lambda y: top + (h - top - bottom) * y / min_y
    svg += [f'<line x1="{left}" y1="{sy(0)}" x2="{x0 + w - right}" y2="{sy(0)}" stroke="black"/>',
            f'<line x1="{left}" y1="{top}" x2="{left}" y2="{h - bottom}" stroke="black"/>',
            f'<text x="{x0 + w / 2}" y="{h - 12}" text-anchor="middle">{xlabel}</text>',
            f'<text x="{x0 + 14}" y="{h / 2}" transform="rotate(-90 {x0 + 14} {h / 2})" '
            f'text-anchor="middle">linked .text vs the model (%)</text>']
    for i in range(5):
        y = min_y * i / 4 or 0.0  # no "-0.00"
        svg.append(f'<text x="{left - 4}" y="{sy(y) + 4:.1f}" text-anchor="end">{y:.2f}</text>')
        x = max_x * i / 4
        svg.append(f'<text x="{sx(x):.1f}" y="{h - bottom + 16}" text-anchor="middle">{x:.0f}</text>')
    for k, (label, pts) in enumerate(runs):
        color = COLORS[k % len(COLORS)]
        d, prev = [], None
        for p in pts:
            x, y = p[xi], p[1]
            if prev is not None:
                d.append(f"{sx(x):.1f},{sy(prev):.1f}")
            d.append(f"{sx(x):.1f},{sy(y):.1f}")
            prev = y
        svg.append(f'<polyline fill="none" stroke="{color}" stroke-width="2" points="{" ".join(d)}"/>')
        last = pts[-1]
        svg.append(f'<text x="{left + 10}" y="{h - bottom - 10 - 16 * k}" fill="{color}">'
                   f'{label}: {last[1]:.2f}% at {last[xi]:.0f} {unit}</text>')


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    out, title, runs = sys.argv[1], sys.argv[2], []
    for arg in sys.argv[3:]:
        label, _, path = arg.partition("=")
        if not path:
            sys.exit(f"tune-curves-svg: '{arg}' is not LABEL=CSV")
        try:
            runs.append((label, read(path)))
        except (OSError, ValueError, IndexError) as e:
            sys.exit(f"tune-curves-svg: {path}: {e}")
    timed = all(p[2] is not None for _, pts in runs for p in pts)
    pw, h = 640, 360
    w = 2 * pw if timed else pw
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
           f'font-family="sans-serif" font-size="12">',
           f'<rect width="{w}" height="{h}" fill="white"/>',
           f'<text x="{w / 2}" y="20" text-anchor="middle">{title}</text>']
    panel(svg, runs, 0, pw, h, 0, "compiles", "compiles")
    if timed:
        panel(svg, runs, pw, pw, h, 2, "wall-clock seconds of the search", "s")
    svg.append("</svg>\n")
    with open(out + ".tmp", "w") as f:
        f.write("\n".join(svg))
    os.replace(out + ".tmp", out)


if __name__ == "__main__":
    main()
