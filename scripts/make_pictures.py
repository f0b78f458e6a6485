#!/usr/bin/env python3
"""Makes every picture the docs show with `tileskip view --screenshot`, and checks that each is current.

Each picture linked from README.md or docs/*.md has an HTML comment (invisible on the rendered page)
giving the `tileskip view` settings that make it, the path as the page's image link writes it:

    ![joint-8x32 walking its sub-tiles](images/view-teach.png)
    <!-- picture images/view-teach.png: --kernel joint-8x32 --block 8 --size 1024 --teach -->

Usage:
    make_pictures.py [--root DIR] [--tileskip BIN] [--backend NAME] [PICTURE ...]
        makes them all (or the named ones, e.g. view-teach.png), offscreen: no window, no display
    make_pictures.py --check [--root DIR] --tileskip BIN
        exits 1 naming every picture that is stale, 2 when a page's comments are malformed

A screenshot carries, as PNG text, the figures and settings it shows (`view --facts` without the
kernels' outcomes) and the source lines on screen with their SHA-256. A picture is current when:
its comment exists and states `--size`, the size the page's text last named before it (a
`--size N` outside comments); `view --backend cpu SETTINGS --facts` (the figures alone, no drawing)
gives the picture's facts; its pixel size is the one its facts name; and the source lines it shows
hash as they do in the tree now (an edit or a shift of those lines makes it stale).
"""
import argparse
import glob
import hashlib
import json
import math
import os
import re
import shlex
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from doc_claims import view_facts  # noqa: E402

IMAGE_LINK = re.compile(r"!\[[^\]]*\]\(([^)\s]+\.png)\)")
PICTURE_COMMENT = re.compile(r"<!--\s*picture\s+(\S+\.png)\s*:\s*(.*?)\s*-->", re.S)
COMMENT = re.compile(r"<!--.*?-->", re.S)
SIZE_NAMED = re.compile(r"--size\s+(\d+)")


class Malformed(Exception):
    pass


class Picture:
    def __init__(self, path, args, page, line, size_named):
        self.path = path            # absolute
        self.args = args            # the view settings, as a string
        self.page = page            # where the comment is
        self.line = line
        self.size_named = size_named  # the --size the page's text last named before the comment

    def name(self, root):
        return os.path.relpath(self.path, root)


def pages_of(root):
    pages = [os.path.join(root, "README.md")]
    pages += sorted(glob.glob(os.path.join(root, "docs", "*.md")))
    return [p for p in pages if os.path.exists(p)]


def pictures_in(root):
    """Every picture comment of the pages, checked against the pages' image links."""
    pictures, linked = {}, {}
    for page in pages_of(root):
        text = open(page, encoding="utf-8").read()
        folder = os.path.dirname(page)
        visible = COMMENT.sub(lambda m: " " * len(m.group(0)), text)  # offsets kept
        for match in IMAGE_LINK.finditer(visible):
            linked.setdefault(os.path.normpath(os.path.join(folder, match.group(1))), page)
        for match in PICTURE_COMMENT.finditer(text):
            path = os.path.normpath(os.path.join(folder, match.group(1)))
            line = text.count("\n", 0, match.start()) + 1
            where = f"{os.path.relpath(page, root)}:{line}"
            if path in pictures:
                raise Malformed(f"{where}: a second comment for {match.group(1)} (the first: "
                                f"{os.path.relpath(pictures[path].page, root)}:{pictures[path].line})")
            args = " ".join(match.group(2).split())
            if "--size" not in shlex.split(args):
                raise Malformed(f"{where}: the settings of {match.group(1)} name no --size")
            for made_here in ("--screenshot", "--record", "--facts", "--backend", "--press"):
                if made_here in shlex.split(args):
                    raise Malformed(f"{where}: {made_here} does not belong in a picture's settings")
            named = SIZE_NAMED.findall(visible[:match.start()])
            pictures[path] = Picture(path, args, page, line, int(named[-1]) if named else None)
    for path, page in linked.items():
        if path not in pictures:
            raise Malformed(f"{os.path.relpath(page, root)} shows {os.path.relpath(path, root)}, which has no "
                            "<!-- picture PATH: SETTINGS --> comment to make it")
    for path, picture in pictures.items():
        if path not in linked:
            raise Malformed(f"{os.path.relpath(picture.page, root)}:{picture.line}: no page shows "
                            f"{os.path.relpath(path, root)}")
    images = os.path.join(root, "docs", "images")
    for png in sorted(glob.glob(os.path.join(images, "*.png"))):
        if os.path.normpath(png) not in pictures:
            raise Malformed(f"{os.path.relpath(png, root)} is shown by no page: remove it or link it")
    return list(pictures.values())


def make(root, tileskip, backend, pictures):
    for picture in pictures:
        command = [tileskip, "view", *(["--backend", backend] if backend else []), *shlex.split(picture.args),
                   "--screenshot", picture.path]
        print("make_pictures:", " ".join(shlex.quote(c) for c in command[1:]), flush=True)
        done = subprocess.run(command, cwd=root)
        if done.returncode != 0:
            raise RuntimeError(f"{picture.name(root)}: tileskip view exited {done.returncode}")


def differences(shown, current, path=""):
    """Dotted paths where two facts documents differ (numbers to 1e-9, relative)."""
    if isinstance(shown, dict) and isinstance(current, dict):
        out = []
        for key in sorted(set(shown) | set(current)):
            where = f"{path}.{key}" if path else key
            if key not in shown or key not in current:
                out.append(f"{where}: {'only in the picture' if key in shown else 'not in the picture'}")
            else:
                out += differences(shown[key], current[key], where)
        return out
    if isinstance(shown, list) and isinstance(current, list) and len(shown) == len(current):
        return [d for i, (a, b) in enumerate(zip(shown, current)) for d in differences(a, b, f"{path}[{i}]")]
    numbers = (int, float)
    if isinstance(shown, numbers) and isinstance(current, numbers) and not isinstance(shown, bool):
        if math.isclose(shown, current, rel_tol=1e-9, abs_tol=1e-12):
            return []
    elif shown == current:
        return []
    return [f"{path}: the picture shows {json.dumps(shown)}, the tree now gives {json.dumps(current)}"]


def facts_alone(tileskip, args):
    facts = view_facts(tileskip, args)
    facts.pop("kernels", None)
    return facts


def source_lines(root, entry):
    path = os.path.join(root, entry["file"])
    if not os.path.exists(path):
        return None
    lines = open(path, encoding="utf-8", newline="").read().split("\n")
    return lines[entry["first"] - 1:entry["last"]]


def stale_reasons(root, tileskip, picture):
    from PIL import Image  # python3-pil; only the check needs it

    if not os.path.exists(picture.path):
        return ["missing: run scripts/make_pictures.py"]
    reasons = []
    if picture.size_named is not None:
        size = int(shlex.split(picture.args)[shlex.split(picture.args).index("--size") + 1])
        if size != picture.size_named:
            reasons.append(f"made at --size {size}, where the text before it names --size {picture.size_named}")
    with Image.open(picture.path) as image:
        text, pixels = dict(image.text), image.size
    if "tileskip:facts" not in text:
        return reasons + ["carries no tileskip:facts (made before pictures said what they show)"]
    shown = json.loads(text["tileskip:facts"])
    reasons += differences(shown, facts_alone(tileskip, picture.args))
    if list(pixels) != shown.get("window"):
        reasons.append(f"{pixels[0]}x{pixels[1]} pixels, where its facts say {shown.get('window')}")
    for entry in json.loads(text.get("tileskip:source", "[]")):
        lines = source_lines(root, entry)
        where = f"{entry['file']} lines {entry['first']}-{entry['last']}"
        if lines is None:
            reasons.append(f"shows {where}, and the file is gone")
        elif hashlib.sha256("".join(line + "\n" for line in lines).encode()).hexdigest() != entry["sha256"]:
            reasons.append(f"shows {where}, which have changed since")
    return reasons


def default_tileskip(root):
    for candidate in ("build/release/bin/tileskip", "build/dev/bin/tileskip", "build/test/bin/tileskip"):
        if os.access(os.path.join(root, candidate), os.X_OK):
            return os.path.join(root, candidate)
    return None


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser.add_argument("--tileskip")
    parser.add_argument("--backend", help="the backend that runs the kernels (default: the best found)")
    parser.add_argument("--check", action="store_true", help="check the pictures instead of making them")
    parser.add_argument("pictures", nargs="*", help="only these pictures (file names)")
    options = parser.parse_args(argv[1:])
    root = os.path.abspath(options.root)
    tileskip = options.tileskip or default_tileskip(root)
    if tileskip is None:
        print("make_pictures: no tileskip binary; build first or pass --tileskip", file=sys.stderr)
        return 2
    try:
        pictures = pictures_in(root)
    except Malformed as error:
        print(f"make_pictures: {error}", file=sys.stderr)
        return 2
    if options.pictures:
        unknown = set(options.pictures) - {os.path.basename(p.path) for p in pictures}
        if unknown:
            print(f"make_pictures: no page shows {', '.join(sorted(unknown))}", file=sys.stderr)
            return 2
        pictures = [p for p in pictures if os.path.basename(p.path) in options.pictures]
    if not options.check:
        make(root, tileskip, options.backend, pictures)
        return 0
    stale = 0
    for picture in pictures:
        reasons = stale_reasons(root, tileskip, picture)
        if reasons:
            stale += 1
            print(f"{picture.name(root)} ({os.path.relpath(picture.page, root)}:{picture.line}) is stale:", file=sys.stderr)
            for reason in reasons:
                print(f"  {reason}", file=sys.stderr)
    if stale:
        print(f"make_pictures: {stale} of {len(pictures)} pictures stale; remake them with scripts/make_pictures.py "
              f"(--backend vulkan on lavapipe made the ones in the tree)", file=sys.stderr)
        return 1
    print(f"make_pictures: {len(pictures)} pictures current")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
