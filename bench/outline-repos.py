"""outline against universal-ctags on whole real repositories (issue 58).

usage: outline-repos.py INDUS WORKDIR LANG=DIR [LANG=DIR ...]

tests/it/code.rs measures outline on code already on the machine, so that the
test needs no network. This script takes checkouts of real projects instead
(cloned by hand: `git clone --depth 1 https://github.com/OWNER/NAME DIR`) and
measures every file of one language in each, with the same comparison as the
test (tests/peers/code_peers.py's outline_vs_ctags: the share of ctags's
definition tags that outline lists at the same place, and the reverse share).

LANG is one of rust, python, javascript, typescript, go, c, cpp, java, ruby. A
C++ project's `.h` headers are read as C++ (ctags and outline alike), as its
compiler reads them.

Prints one JSON object per repository, then a line of totals.
"""

import json
import os
import shutil
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "peers"))
import code_peers  # noqa: E402

EXTENSIONS = {
    "rust": (".rs",),
    "python": (".py",),
    "javascript": (".js", ".mjs", ".cjs"),
    "typescript": (".ts",),
    "go": (".go",),
    "c": (".c", ".h"),
    "cpp": (".cc", ".cpp", ".cxx", ".hpp", ".hh", ".h"),
    "java": (".java",),
    "ruby": (".rb",),
}


def files_of(root, lang):
    for folder, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if d not in (".git", "node_modules")]
        for n in names:
            if n.endswith(EXTENSIONS[lang]) and not n.endswith(".d.ts"):
                yield os.path.join(folder, n)


def main():
    indus, work, pairs = sys.argv[1], sys.argv[2], sys.argv[3:]
    code_peers.configure(indus, "", work)
    shutil.rmtree(code_peers.CORPUS, ignore_errors=True)
    total = {"ctags": 0, "ctagsFound": 0, "ours": 0, "oursInCtags": 0}
    for pair in pairs:
        lang, root = pair.split("=", 1)
        name = os.path.basename(os.path.normpath(root))
        corpus = f"{lang}-{name}"
        ext = ".hpp" if lang == "cpp" else None
        n = code_peers.take(corpus, list(files_of(root, lang)), limit=100_000, ext=ext)
        if n == 0:
            print(json.dumps({"repo": name, "lang": lang, "files": 0}))
            continue
        r = code_peers.outline_vs_ctags(lang, corpus)
        for k in total:
            total[k] += r[k]
        print(json.dumps({"repo": name, "lang": lang, **r}))
    share = total["ctagsFound"] / max(1, total["ctags"])
    back = total["oursInCtags"] / max(1, total["ours"])
    print(json.dumps({"total": total, "share": round(share, 4), "reverse": round(back, 4)}))


if __name__ == "__main__":
    main()
