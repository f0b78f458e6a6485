#!/usr/bin/env python3
"""Fails when the docs cite what is not there, or disagree with the catalogue or the recorded results.

Usage: check_docs.py [--root ROOT] (--tileskip TILESKIP | --list-json LIST.json)

ROOT is the repository (default: this script's). The catalogue comes from `TILESKIP list --format
json`, or from a file holding that output. Exit 1 naming each problem as FILE:LINE, 2 when the
check itself cannot run (no catalogue, a malformed claim), 0 when everything resolves.

What it checks, and how a citation is recognised (deliberately narrow: a miss is a citation this
check does not see, never a false alarm to be allowlisted):

1. Paths in the doc pages (README.md, docs/*.md, lab/README.md, bench/README.md,
   scripts/gpu/README.md) exist:
   - a markdown link's target, relative to the page (web addresses and #anchors are not paths);
   - a word in backticks, in a fenced code block or in prose whose first component is an entry of
     the repository's top level (`kernels/parts/common.glsl`, `lab/`), relative to the root. So
     build outputs (build/), the GPU plumbing's folders (.carry/, .gl/), $OUT/..., /dev/... and
     ~/... are never taken for repository paths;
   - a word in backticks with a folder that ends in a source or text file (SOURCE_EXTENSIONS),
     relative to the root even where its first component is no entry of the top level, so that a
     folder that is gone (`shaders/*.comp`) is seen;
   - a file name in backticks with no folder (`limits.cpp`) and a source or text extension: some
     file of that name must exist, or a CMake file of the repository must name it (a file the
     build writes: `kernel_instances.cuh`). Data files named in examples (`W.npy`, `a.npy`,
     `tune.json`) have other extensions and are not looked up.
   A path resolves when it exists; one without an extension also when a file of that stem does
   (`core/model/mma_layout` names the .hpp/.cpp pair). `*` is a wildcard, `{a,b}` either, and a
   placeholder (`<source>`, an all-capitals word such as `NAME`, and `NN` for a two-digit
   number) any name: such a pattern resolves when something matches it. A path in another
   project, cited as such, is listed in NOT_OURS.
2. Every lab entry cited as lab/NN-slug in product code (PRODUCT_FOLDERS) or a doc page is a
   folder with a README.md.
3. Every section cited as `FILE, "Section"` or `FILE "Section"` (FILE: README or a path to a .md)
   in product code or a doc page is a heading of FILE, whole or after its "Step 5: " / "Part 3 — "
   label.
4. No file outside lab/ cites the project notes the repository no longer has (FORBIDDEN): the lab
   is the notebook and may tell its history.
5. docs/kernels.md's "Kernels" section (KERNEL_PAGE) names every catalogue id in backticks, with
   the catalogue's number wherever it gives one (`hoisted` (K12, ...)), and names in backticks no
   id the catalogue lacks (a backticked word of lower case letters, digits and hyphens is taken for
   an id there); a page with no such section fails.
6. The headline figures of the doc pages hold against bench/results/latest/: each figure is marked
   with a claim comment, scripts/doc_claims.py's syntax (shared with the lesson's checker), e.g.

       <!-- check headline h200
         "best dense CUDA kernel / cuBLAS SGEMM (TF32 off)" ~ 0.97 +- 0.005
         runs.0.cuda.pipelined.vs_baseline ~ 0.86 +- 0.005
       -->

   compared with bench/results/latest/h200-headline.json: a quoted name is a measure of the
   suite ("same, ..." named in full, as in bench/results/history.jsonl), `runs.N.BACKEND.KERNEL.
   FIELD` a row of its Nth run. Marking the figures, rather than rendering the paragraph from the
   record, keeps the prose as written and still fails the moment a new record moves a rounded
   figure. Every claim of a doc page is a headline claim, but on the pages whose claims
   scripts/check_teaching_claims.py checks (CLAIMS_CHECKED_ELSEWHERE); the findings page
   (FINDINGS_PAGE) with no headline claim at all fails, so the marks cannot quietly go.
7. README's results table is what scripts/results_table.py renders from bench/results/latest/ for
   the rows its comment names, cell for cell; a README with no results table fails, and so does a
   results_table.py whose vendor kernels (VENDOR, never counted as tileskip's) are not the
   catalogue's baselines (its rows with no number).
"""
import argparse
import fnmatch
import glob
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from doc_claims import MalformedClaim, check_figures, claims_in  # noqa: E402
from results_history import measures_of  # noqa: E402
import results_table  # noqa: E402

DOC_PAGES = ["README.md", "docs/*.md", "lab/README.md", "bench/README.md", "scripts/gpu/README.md"]
KERNEL_PAGE = "docs/kernels.md"     # its "Kernels" section is the catalogue, id for id (5.)
FINDINGS_PAGE = "docs/findings.md"  # must mark headline figures (6.)
CLAIMS_CHECKED_ELSEWHERE = {"docs/teaching.md"}  # scripts/check_teaching_claims.py checks its claims
PRODUCT_FOLDERS = ["apps", "backends", "core", "kernels", "ui", "python", "tests", "scripts", "bench", "cmake",
                   "fuzz", "CMakeLists.txt"]
SOURCE_EXTENSIONS = {".c", ".cc", ".cpp", ".cu", ".cuh", ".h", ".hpp", ".comp", ".glsl", ".py", ".pyi", ".sh",
                     ".cmake", ".md", ".txt", ".in", ".toml"}
# Notes that lived outside the repository, or were folded into docs/design.md and the lab.
FORBIDDEN = ["DESIGN.md", "../shared", "bench/NOTES.md"]
# The exceptions, each for a reason. These two files quote the broken citations they look for:
NOT_SCANNED = {"scripts/check_docs.py", "tests/docs_check_test.py"}
# Paths in another project, named as such where they are cited:
NOT_OURS = {
    "src/kernels/N_*.cuh",  # siboehm/SGEMM_CUDA's kernel files (docs/teaching.md, the kernel numbers)
}
# Besides what .gitignore names as folders of the root (build/, .carry/, ...): never the repository's text.
NEVER_WALKED = {".git", "__pycache__"}

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
CODE_SPAN = re.compile(r"`((?:[^`\n]|\n(?!\s*\n))+)`")
FENCE = re.compile(r"^\s*```.*?^\s*```[^\n]*$", re.S | re.M)
LAB_ENTRY = re.compile(r"\blab/(\d\d-[a-z0-9]+(?:-[a-z0-9]+)*)")
SECTION = re.compile(r"(?<![\w/.-])(?P<doc>README(?:\.md)?|(?:[\w.-]+/)*[\w.-]+\.md)`?,?[ \t]+\"(?P<section>[^\"\n]+)\"")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
HEADING_LABEL = re.compile(r"^(?:Step|Part)\s+\d+\s*(?::|—|-)\s*")
KERNEL_ID = re.compile(r"^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$")
NUMBER_AFTER = re.compile(r"\s*\(([KS]\d+)\b")
TRAILING = ".,;:)'\""
LEADING = "('\""


class Checker:
    def __init__(self, root):
        self.root = os.path.abspath(root)
        self.problems = []
        self.counts = {"paths": 0, "lab entries": 0, "sections": 0, "kernel ids": 0, "headline figures": 0,
                       "results rows": 0}
        self.ignored = self._ignored_prefixes()
        self.top = {name for name in os.listdir(self.root)
                    if name not in NEVER_WALKED and not self._is_ignored(name)}
        self._basenames = None
        self._page_dir = self.root
        self._cmake = None
        self._text = ""

    # --- the repository's files ---------------------------------------------------------------

    def _ignored_prefixes(self):
        prefixes = set()
        try:
            with open(os.path.join(self.root, ".gitignore"), encoding="utf-8") as f:
                for line in f:
                    line = line.strip()
                    if line.startswith("/") and line.endswith("/"):
                        prefixes.add(line.strip("/"))
        except OSError:
            pass
        return prefixes

    def _is_ignored(self, relative):
        return any(relative == p or relative.startswith(p + "/") for p in self.ignored)

    def files(self, under=""):
        """Every file under `under` (relative to the root), relative paths, sorted: the repository's
        text, less what .gitignore names as folders of the root and NEVER_WALKED."""
        start = os.path.join(self.root, under)
        if os.path.isfile(start):
            return [under]
        found = []
        for folder, dirs, names in os.walk(start):
            relative_folder = os.path.relpath(folder, self.root)
            relative_folder = "" if relative_folder == "." else relative_folder
            dirs[:] = sorted(d for d in dirs if d not in NEVER_WALKED and
                             not self._is_ignored(os.path.join(relative_folder, d)))
            found += [os.path.join(relative_folder, name) for name in names if name not in NEVER_WALKED]
        return sorted(found)

    def text_of(self, relative):
        try:
            with open(os.path.join(self.root, relative), encoding="utf-8") as f:
                return f.read()
        except (OSError, UnicodeDecodeError):
            return None

    def doc_pages(self):
        pages = []
        for pattern in DOC_PAGES:
            pages += sorted(os.path.relpath(p, self.root) for p in glob.glob(os.path.join(self.root, pattern)))
        return pages

    def product_files(self):
        found = []
        for folder in PRODUCT_FOLDERS:
            if os.path.exists(os.path.join(self.root, folder)):
                found += self.files(folder)
        return sorted(set(found + self.doc_pages()) - NOT_SCANNED)

    def basenames(self):
        if self._basenames is None:
            self._basenames = {os.path.basename(f) for f in self.files()}
        return self._basenames

    def problem(self, where, line, what):
        if (where, line, what) not in self.problems:  # a line citing one thing twice is one problem
            self.problems.append((where, line, what))

    # --- 1. paths -----------------------------------------------------------------------------

    def _pattern_of(self, path):
        """A glob for `path`, or None where it holds no wildcard or placeholder."""
        parts = []
        wild = False
        for part in path.split("/"):
            new = re.sub(r"<[^<>/]+>", "*", part)
            new = re.sub(r"(?<![A-Z])NN(?![A-Z])", "[0-9][0-9]", new)
            if re.fullmatch(r"[A-Z][A-Z_]+", new) and not os.path.exists(os.path.join(self.root, *parts, new)):
                new = "*"
            wild = wild or new != part or any(c in new for c in "*?{")
            parts.append(new)
        return "/".join(parts) if wild else None

    def _matches(self, base, pattern):
        """Whether anything under `base` matches `pattern` ({a,b} expanded)."""
        brace = re.search(r"\{([^{}]*)\}", pattern)
        if brace:
            return all(self._matches(base, pattern[:brace.start()] + choice + pattern[brace.end():])
                       for choice in brace.group(1).split(","))
        if "/" not in pattern:  # a file name alone (`kNN_*.cuh`): anywhere in the repository
            return any(fnmatch.fnmatchcase(name, pattern) for name in self.basenames())
        return bool(glob.glob(os.path.join(base, pattern.rstrip("/"))))

    def resolves(self, base, path, by_name=False):
        """Whether `path` (relative to `base`) names something; `by_name`: a file name alone, which
        may be anywhere in the repository."""
        path = re.sub(r":\d+(?:-\d+)?$", "", path)  # file.cpp:120
        pattern = self._pattern_of(path)
        if pattern is not None:
            return self._matches(base, pattern)
        if by_name and path in self.basenames():
            return True
        full = os.path.normpath(os.path.join(base, path))
        if os.path.exists(full):
            return not path.endswith("/") or os.path.isdir(full)
        stem = os.path.basename(full)
        return "." not in stem and bool(glob.glob(full + ".*"))

    def _repository_word(self, word):
        """(base, path) where `word` names a path in the repository: its first component is an entry
        of the top level (relative to the root) or of the page's own folder (relative to it)."""
        word = word.rstrip(TRAILING).lstrip(LEADING)
        if word.startswith("./"):
            word = word[2:]
        if "/" not in word or "://" in word:
            return None
        first = word.split("/", 1)[0]
        if first in self.top:
            return self.root, word
        if self._page_dir != self.root and first and os.path.exists(os.path.join(self._page_dir, first)):
            return self._page_dir, word
        return None

    def _file_name_word(self, word):
        word = word.rstrip(TRAILING).lstrip(LEADING)
        if "/" in word or not re.fullmatch(r"[\w.*<>{},+-]+", word):
            return None
        extension = os.path.splitext(word)[1]
        return word if extension in SOURCE_EXTENSIONS and not word.startswith(".") else None

    def _source_path_word(self, word):
        """A word with a folder that ends in a source file (`shaders/*.comp`): a path even where its
        first component is no entry of the top level (a folder that is gone)."""
        word = word.rstrip(TRAILING).lstrip(LEADING)
        if "/" not in word or "://" in word or word.startswith(("/", "~", "$", ".")):
            return None
        return word if os.path.splitext(word)[1] in SOURCE_EXTENSIONS else None

    def build_outputs(self):
        """The text of the repository's CMake files: a file name it holds is one the build writes."""
        if self._cmake is None:
            self._cmake = "\n".join(self.text_of(f) or "" for f in self.files()
                                    if os.path.basename(f) == "CMakeLists.txt" or f.endswith(".cmake"))
        return self._cmake

    def check_path(self, page, line, base, path, how):
        if path in NOT_OURS:
            return
        self.counts["paths"] += 1
        if how == "file" and re.search(r"(?<![\w.-])" + re.escape(path) + r"(?![\w-])", self.build_outputs()):
            return
        if not self.resolves(base, path, by_name=how == "file"):
            self.problem(page, line, f"{how} '{path}' does not exist")

    def _check_words(self, page, text, offset, spans_only):
        """The paths among the words of `text` (at `offset` in the page): every repository word, and
        where `spans_only` (a code span) file names and words ending in a source file too."""
        for word in re.finditer(r"\S+", text):
            line = self._line_of(offset + word.start())
            found = self._repository_word(word.group(0))
            if found:
                self.check_path(page, line, found[0], found[1], "path")
            elif spans_only and self._file_name_word(word.group(0)):
                self.check_path(page, line, self.root, self._file_name_word(word.group(0)), "file")
            elif spans_only and self._source_path_word(word.group(0)):
                self.check_path(page, line, self.root, self._source_path_word(word.group(0)), "path")

    def _line_of(self, offset):
        return self._text.count("\n", 0, offset) + 1

    def check_paths(self, page):
        text = self._text = self.text_of(page)
        page_dir = self._page_dir = os.path.dirname(os.path.join(self.root, page))
        # Fenced code blocks: their words only (a command's arguments), then blanked out.
        prose = list(text)
        for block in FENCE.finditer(text):
            self._check_words(page, block.group(0), block.start(), False)
            for i in range(block.start(), block.end()):
                if prose[i] != "\n":
                    prose[i] = " "
        rest = "".join(prose)
        for match in LINK.finditer(rest):
            target = match.group(1)
            if not (re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#")):
                self.counts["paths"] += 1
                if not self.resolves(page_dir, target.split("#", 1)[0]):
                    self.problem(page, self._line_of(match.start()), f"link '{target}' does not exist")
        # A code span may run over a line break, never over a blank line.
        blanked = list(rest)
        for match in CODE_SPAN.finditer(rest):
            self._check_words(page, match.group(1), match.start(1), True)
            for i in range(match.start(), match.end()):
                if blanked[i] != "\n":
                    blanked[i] = " "
        prose = LINK.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), "".join(blanked))
        self._check_words(page, prose, 0, False)

    # --- 2, 3, 4. lab entries, sections, notes that are gone -----------------------------------

    def headings_of(self, page):
        text = self.text_of(page) or ""
        headings, fenced = set(), False
        for line in text.splitlines():
            if line.lstrip().startswith("```"):
                fenced = not fenced
            elif not fenced and HEADING.match(line):
                title = HEADING.match(line).group(2)
                headings.add(title)
                headings.add(HEADING_LABEL.sub("", title))
        return headings

    def check_citations(self, relative):
        text = self.text_of(relative)
        if text is None:
            return
        for number, line in enumerate(text.splitlines(), 1):
            for match in LAB_ENTRY.finditer(line):
                self.counts["lab entries"] += 1
                entry = os.path.join(self.root, "lab", match.group(1))
                if not os.path.isfile(os.path.join(entry, "README.md")):
                    self.problem(relative, number, f"lab entry 'lab/{match.group(1)}' does not exist (no README.md there)")
            for match in SECTION.finditer(line):
                self.counts["sections"] += 1
                doc = match.group("doc")
                doc = "README.md" if doc in ("README", "README.md") else doc
                target = doc if os.path.isfile(os.path.join(self.root, doc)) else \
                    os.path.relpath(os.path.join(os.path.dirname(os.path.join(self.root, relative)), doc), self.root)
                if not os.path.isfile(os.path.join(self.root, target)):
                    self.problem(relative, number, f"section \"{match.group('section')}\" cited in '{doc}', which does not exist")
                elif match.group("section") not in self.headings_of(target):
                    self.problem(relative, number, f"section \"{match.group('section')}\" is no heading of {target}")

    def check_forbidden(self):
        for relative in self.files():
            if relative.startswith("lab/") or relative in NOT_SCANNED:
                continue
            text = self.text_of(relative)
            if text is None:
                continue
            for number, line in enumerate(text.splitlines(), 1):
                for name in FORBIDDEN:
                    if name in line:
                        self.problem(relative, number, f"cites '{name}', which is not in the repository")

    # --- 5, 6. the catalogue page and the findings against the catalogue and the results -------

    def section_lines(self, page, title):
        """(first line number, lines) of the section under heading `title`, to the next heading of
        its level or above; None where there is no such heading."""
        lines = (self.text_of(page) or "").splitlines()
        for i, line in enumerate(lines):
            m = HEADING.match(line)
            if m and m.group(2) == title:
                level = len(m.group(1))
                end = i + 1
                while end < len(lines):
                    n = HEADING.match(lines[end])
                    if n and len(n.group(1)) <= level:
                        break
                    end += 1
                return i + 1, lines[i:end]
        return None

    def check_kernel_list(self, catalogue):
        page = KERNEL_PAGE
        found = self.section_lines(page, "Kernels")
        if found is None:
            self.problem(page, 1, "no \"Kernels\" section to hold the kernel list")
            return
        first, lines = found
        numbers = {k["id"]: k.get("number", "") for k in catalogue}
        named = set()
        for offset, line in enumerate(lines):
            for match in CODE_SPAN.finditer(line):
                word = match.group(1)
                if not KERNEL_ID.match(word):
                    continue
                self.counts["kernel ids"] += 1
                if word not in numbers:
                    self.problem(page, first + offset, f"`{word}` in \"Kernels\" is no catalogue id")
                    continue
                named.add(word)
                number = NUMBER_AFTER.match(line, match.end())
                if number and number.group(1) != numbers[word]:
                    self.problem(page, first + offset,
                                 f"`{word}` is {numbers[word] or 'a baseline, with no number'} in the catalogue, "
                                 f"{page} says {number.group(1)}")
        for kernel in catalogue:
            if kernel["id"] not in named:
                number = f" ({kernel['number']})" if kernel.get("number") else ""
                self.problem(page, first, f"catalogue id `{kernel['id']}`{number} is missing from \"Kernels\"")

    def headline_of(self, device):
        path = os.path.join(self.root, "bench", "results", "latest", f"{device}-headline.json")
        with open(path, encoding="utf-8") as f:
            document = json.load(f)
        data = dict(measures_of(document))
        data["runs"] = []
        for run in document.get("runs", []):
            rows = {}
            for row in run.get("rows", []):
                rows.setdefault(row["backend"], {})[row["kernel"]] = row
            data["runs"].append(rows)
        return data, os.path.relpath(path, self.root)

    def check_headline(self):
        headline = findings = 0
        for page in self.doc_pages():
            if page in CLAIMS_CHECKED_ELSEWHERE:
                continue
            for claim in claims_in(self.text_of(page) or "", page):
                if claim.kind != "headline" or not claim.args:
                    self.problem(page, claim.line, f"'check {claim.kind} {claim.args}' is no claim this page can "
                                 "make (headline DEVICE)")
                    continue
                try:
                    data, source = self.headline_of(claim.args)
                except (OSError, ValueError) as e:
                    self.problem(page, claim.line, f"no headline record for '{claim.args}': {e}")
                    continue
                count, failures = check_figures(claim, data, source, page)
                headline += count
                findings += count if page == FINDINGS_PAGE else 0
                for failure in failures:
                    where, line, what = failure.split(":", 2)
                    self.problem(where, int(line), what.strip())
        self.counts["headline figures"] = headline
        if findings == 0:
            self.problem(FINDINGS_PAGE, 1, "no headline figure is marked (<!-- check headline DEVICE ... -->)")

    # --- 7. the README's results table against the records --------------------------------------

    def check_results_table(self, catalogue):
        text = self.text_of("README.md") or ""
        try:
            block = results_table.block_of(text)
            if block is None:
                self.problem("README.md", 1, "no results table (<!-- results table ... --> rows, the table, "
                             "<!-- end results table -->)")
                return
            rendered = results_table.render(self.root, block.rows)
        except results_table.TableError as e:
            self.problem("README.md", max(e.line, 1), e.what)
            return
        baselines = {k["id"] for k in catalogue if not k.get("number")}
        if baselines != results_table.VENDOR:
            self.problem("README.md", block.start + 1,
                         f"scripts/results_table.py takes {sorted(results_table.VENDOR)} for the vendor's kernels, "
                         f"the catalogue's baselines are {sorted(baselines)}")
        self.counts["results rows"] = len(block.rows)
        first = block.end - len(block.table) + 1  # the table's first line, 1-based
        for i in range(max(len(rendered), len(block.table))):
            shown = block.table[i] if i < len(block.table) else None
            wanted = rendered[i] if i < len(rendered) else None
            if shown != wanted:
                line = first + min(i, len(block.table))
                what = f"it renders '{wanted}'" if wanted is not None else "it renders no such line"
                self.problem("README.md", line, "the results table is not what scripts/results_table.py renders "
                             f"from bench/results/latest/ (run it with --write): {what}")
                break

    def run(self, catalogue):
        for page in self.doc_pages():
            self.check_paths(page)
        for relative in self.product_files():
            self.check_citations(relative)
        self.check_forbidden()
        self.check_kernel_list(catalogue)
        self.check_headline()
        self.check_results_table(catalogue)
        return self.problems


def catalogue_of(args):
    if args.list_json:
        with open(args.list_json, encoding="utf-8") as f:
            return json.load(f)["kernels"]
    done = subprocess.run([args.tileskip, "list", "--format", "json"], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"{args.tileskip} list --format json exited {done.returncode}: {done.stderr.strip()}")
    return json.loads(done.stdout)["kernels"]


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--root", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--tileskip", help="the built tileskip, whose `list --format json` gives the catalogue")
    source.add_argument("--list-json", help="a file holding `tileskip list --format json`'s output")
    args = parser.parse_args(argv)
    try:
        catalogue = catalogue_of(args)
    except (OSError, ValueError, KeyError, RuntimeError) as e:
        print(f"check_docs: no catalogue: {e}", file=sys.stderr)
        return 2
    checker = Checker(args.root)
    try:
        problems = checker.run(catalogue)
    except MalformedClaim as e:
        print(f"check_docs: {e}", file=sys.stderr)
        return 2
    for where, line, what in sorted(problems, key=lambda p: (p[0], p[1])):
        print(f"{where}:{line}: {what}", file=sys.stderr)
    counts = ", ".join(f"{n} {what}" for what, n in checker.counts.items())
    print(f"check_docs: {len(problems)} problems ({counts} checked)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
