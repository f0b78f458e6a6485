#!/usr/bin/env python3
"""The live fractions of sweep.sh's inspect reports, one object per case, as live-fractions.json holds them.

    summarize.py OUT_FOLDER > live-fractions.json
"""
import json
import pathlib
import sys


def main(folder: pathlib.Path) -> None:
    cases = []
    for k in (4096, 11008):
        for density in ("0.1", "0.05"):
            for skew in ("0.5", "1", "1.5", "2", "2.5", "3"):
                case = {"k": k, "density": float(density), "skew": float(skew)}
                for label, suffix in (("live", ""), ("live_reordered", "-reordered")):
                    report = json.loads((folder / f"k{k}-d{density}-s{skew}{suffix}.json").read_text())
                    case[label] = {f"{c['rows']}x{c['granularity']}": round(c["live_fraction"], 4) for c in report["compaction"]}
                cases.append(case)
    json.dump({"tokens": 1024, "generator": "neurons", "seed": 7, "cases": cases}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main(pathlib.Path(sys.argv[1]))
