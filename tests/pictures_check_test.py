#!/usr/bin/env python3
"""scripts/make_pictures.py --check catches every kind of drift it claims to.

Usage: pictures_check_test.py MAKE_PICTURES.py TILESKIP

On a scratch tree holding one real picture of the docs (view-teach.png: teaching mode, so it shows
source lines), its page and the source files it shows: the check passes as made, then fails for
settings that compute other figures, a size other than the text names, a shown source line
edited, lines shifted above the shown ones, and the comment or the link missing.
"""
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile

PICTURE = "view-teach.png"


def load(script):
    spec = importlib.util.spec_from_file_location("make_pictures", script)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv):
    script, tileskip = argv[1], argv[2]
    make_pictures = load(script)
    repo = os.path.dirname(os.path.dirname(os.path.abspath(script)))
    real = next(p for p in make_pictures.pictures_in(repo) if os.path.basename(p.path) == PICTURE)
    from PIL import Image

    with Image.open(real.path) as image:
        shown = json.loads(image.text["tileskip:source"])
    assert shown, f"{PICTURE} shows no source lines: the source cases would test nothing"

    failures = []

    def check(name, expect, contains, page_text, edit=None):
        with tempfile.TemporaryDirectory() as root:
            os.makedirs(os.path.join(root, "docs", "images"))
            shutil.copy(real.path, os.path.join(root, "docs", "images", PICTURE))
            for entry in shown:
                os.makedirs(os.path.dirname(os.path.join(root, entry["file"])), exist_ok=True)
                shutil.copy(os.path.join(repo, entry["file"]), os.path.join(root, entry["file"]))
            with open(os.path.join(root, "docs", "page.md"), "w") as page:
                page.write(page_text)
            if edit:
                edit(root)
            done = subprocess.run([sys.executable, script, "--check", "--root", root, "--tileskip", tileskip],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if done.returncode != expect or contains not in done.stdout:
            failures.append(f"{name}: exit {done.returncode} (expected {expect}), wanted '{contains}' in:\n{done.stdout}")

    link = f"![teaching mode](images/{PICTURE})\n"

    def comment(args):
        return f"<!-- picture images/{PICTURE}: {args} -->\n"

    def edit_line(root, delta):
        entry = shown[0]
        path = os.path.join(root, entry["file"])
        lines = open(path).read().split("\n")
        if delta == 0:
            lines[entry["first"]] += " // edited"
        else:
            lines.insert(0, "// a line above the shown ones")
        open(path, "w").write("\n".join(lines))

    check("as made", 0, "1 pictures current", "Intro.\n\n" + link + comment(real.args))
    check("other settings", 1, "skip_map", link + comment(real.args.replace("--density-b 0.5", "--density-b 0.25")))
    check("another size", 1, "problem.m", link + comment(real.args.replace("--size 1024", "--size 512")))
    check("the text names another size", 1, "the text before it names --size 512",
          "Every picture: `tileskip view --size 512`.\n\n" + link + comment(real.args))
    check("a shown line edited", 1, "which have changed since", link + comment(real.args), lambda r: edit_line(r, 0))
    check("lines shifted", 1, "which have changed since", link + comment(real.args), lambda r: edit_line(r, 1))
    check("no comment", 2, "has no <!-- picture PATH: SETTINGS --> comment", link)
    check("no link", 2, "no page shows", "Text.\n" + comment(real.args))
    check("no --size", 2, "name no --size", link + comment(real.args.replace("--size 1024", "")))
    if failures:
        print("\n\n".join(failures))
        return 1
    print("pictures_check_test: every drift caught")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
