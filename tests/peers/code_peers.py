"""outline and sgrep against the peers nobody here wrote (issue 58).

usage: code_peers.py INDUS AST_GREP WORKDIR

Corpora are real code already on the machine, copied into WORKDIR/corpus/LANG:
Rust crates from cargo's registry, CPython's standard library, Go's, the JDK's
java.util sources, Ruby's standard library, C from the tree-sitter runtime and
/usr/include, C++ from libstdc++'s headers, JavaScript and TypeScript
declarations from the npm packages .ci/run installs. None of it was looked at
while the outline's tables were written (their unit tests use made-up
snippets), so every figure here is held out.

- outline against universal-ctags: of ctags's definition tags (the kinds both
  list), the share outline also lists (same file, same name, ctags's line within
  the definition's lines); and the reverse share.
- sgrep against ast-grep (same version, 0.51.1): per language at least 20
  patterns; for each, the match sets (file, line, column) must be equal.
- rewrites: sgrep --rewrite and ast-grep -r -U on two copies give identical trees.
- a rewrite killed with SIGKILL at random moments leaves each file before or
  after, never a mix, once the next invocation has recovered.

Prints one JSON report on stdout.
"""

import glob
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
import zipfile

# Set by configure(): the binary, the ast-grep CLI, the work folder.
INDUS = SG = WORK = CORPUS = None


def configure(indus, sg, work):
    """Point the checks at a binary, an ast-grep and a work folder (main()
    takes them from argv; bench/outline-repos.py imports this file)."""
    global INDUS, SG, WORK, CORPUS
    INDUS, SG, WORK = indus, sg, work
    CORPUS = os.path.join(WORK, "corpus")

HOME = os.path.expanduser("~")
MAX_BYTES = 400_000


def take(lang, files, limit=120, ext=None):
    dest = os.path.join(CORPUS, lang)
    os.makedirs(dest, exist_ok=True)
    n = 0
    for f in sorted(set(files)):
        if n >= limit:
            break
        try:
            if os.path.getsize(f) > MAX_BYTES or os.path.islink(f):
                continue
        except OSError:
            continue
        name = f.strip("/").replace("/", "__")
        if ext:
            name = os.path.splitext(name)[0] + ext
        shutil.copyfile(f, os.path.join(dest, name))
        n += 1
    return n


def build_corpora():
    reg = glob.glob(HOME + "/.cargo/registry/src/*/")
    crates = []
    for r in reg:
        for pat in ("regex-syntax-0.8*", "serde_json-1*", "clap_builder-4*", "memchr-2*", "similar-2*"):
            crates += glob.glob(r + pat + "/src/**/*.rs", recursive=True)
    take("rust", crates, 150)
    py = []
    for d in ("json", "email", "asyncio", "logging", "http", "importlib"):
        py += glob.glob(f"/usr/lib/python3.11/{d}/*.py")
    take("python", py, 150)
    go = []
    for root in glob.glob("/usr/share/go-*/src") + glob.glob("/usr/lib/go/src"):
        for d in ("encoding/json", "net/url", "strings", "bufio", "sort", "text/template", "flag"):
            go += [f for f in glob.glob(f"{root}/{d}/*.go")]
    take("go", go, 120)
    c = []
    for r in reg:
        c += glob.glob(r + "tree-sitter-0.2*/src/*.c")
    # Headers that are C++ (ncurses's C++ bindings) are C++ to a reader, but
    # .h is C to ast-grep's table: left out of the C corpus.
    def is_c(f):
        try:
            t = open(f, errors="replace").read()
        except OSError:
            return False
        return not any(w in t for w in ("class ", "namespace ", "template<", "template <"))
    c += [f for f in glob.glob("/usr/include/*.h") if is_c(f)]
    take("c", c, 150)
    # LLVM's libFuzzer (vendored by the libfuzzer-sys crate the fuzz target
    # builds with) and libstdc++'s policy-based data structures.
    cpp = []
    for r in reg:
        cpp += glob.glob(r + "libfuzzer-sys-0.4*/libfuzzer/*.cpp")
        cpp += glob.glob(r + "libfuzzer-sys-0.4*/libfuzzer/*.h")
    # (The *_imp.hpp and *_fn_imps.hpp files are fragments #included inside a
    # class body or after it, their definitions qualified by macros: no parser
    # reads them alone, so they are left out.)
    cpp += [f for f in glob.glob("/usr/include/c++/1*/ext/pb_ds/detail/*/*.hpp")
            if not f.endswith(("_imp.hpp", "_imps.hpp"))]
    take("cpp", cpp, 120, ext=".hpp")
    # Outline-only C++ corpora, held out: the misses of the corpus above were
    # read while fixing outline (issue 58's second session), these never were.
    # LLVM's ADT and Support headers (llvm-dev) are ordinary modern C++;
    # libstdc++'s own bits/ headers are the worst case for a grammar that does
    # not expand macros (`_GLIBCXX_NOEXCEPT` after a parameter list,
    # `_GLIBCXX_BEGIN_NAMESPACE_VERSION` lines), measured and reported, no bar.
    llvm = sorted(glob.glob("/usr/include/llvm-[0-9]*/llvm/ADT/*.h")) + sorted(glob.glob("/usr/include/llvm-[0-9]*/llvm/Support/*.h"))
    take("cpp-llvm", llvm, 240, ext=".hpp")
    take("cpp-libstdc++", sorted(glob.glob("/usr/include/c++/1*/bits/*.h")), 120, ext=".hpp")
    zips = [z for z in glob.glob("/usr/lib/jvm/*/lib/src.zip") if os.path.isfile(z)]
    if zips:
        dest = os.path.join(CORPUS, "java")
        os.makedirs(dest, exist_ok=True)
        with zipfile.ZipFile(zips[0]) as z:
            names = sorted(
                n for n in z.namelist() if n.startswith("java.base/java/util/") and n.count("/") == 3 and n.endswith(".java")
            )[:120]
            for n in names:
                data = z.read(n)
                if len(data) <= MAX_BYTES:
                    open(os.path.join(dest, os.path.basename(n)), "wb").write(data)
    take("ruby", glob.glob("/usr/lib/ruby/3.*/*.rb") + glob.glob("/usr/lib/ruby/3.*/*/*.rb"), 150)
    here = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    js, ts = [], []
    for nm in (here + "/target/lsp-peers/node_modules", here + "/target/mcp-peers/node_modules"):
        js += glob.glob(nm + "/@modelcontextprotocol/sdk/dist/cjs/**/*.js", recursive=True)
        js += glob.glob(nm + "/typescript-language-server/lib/*.js")
        ts += glob.glob(nm + "/@modelcontextprotocol/sdk/dist/esm/**/*.d.ts", recursive=True)
        ts += glob.glob(nm + "/typescript/lib/lib.es20*.d.ts")
    take("javascript", js, 120)
    take("typescript", ts, 150)


def indus(args, cwd, check=True):
    out = subprocess.run(
        [INDUS, "--format", "json", "--max-bytes", "200000000"] + args,
        cwd=cwd, capture_output=True, text=True,
    )
    line = out.stdout.strip().splitlines()[-1] if out.stdout.strip() else "{}"
    return json.loads(line)


CTAGS_KINDS = {
    "rust": {"function", "method", "struct", "enum", "interface", "module", "macro", "typedef"},
    "python": {"class", "function", "member"},
    "javascript": {"function", "class", "method"},
    "typescript": {"function", "class", "method", "interface", "enum", "namespace"},
    "go": {"func", "struct", "interface", "type"},
    "c": {"function", "struct", "union", "enum", "typedef", "macro"},
    "cpp": {"function", "class", "struct", "namespace", "enum", "union", "typedef", "macro", "alias"},
    "java": {"class", "interface", "enum", "method", "annotation"},
    "ruby": {"class", "module", "method", "singletonMethod"},
}
CTAGS_LANG = {"rust": "Rust", "python": "Python", "javascript": "JavaScript", "typescript": "TypeScript",
              "go": "Go", "c": "C", "cpp": "C++", "java": "Java", "ruby": "Ruby"}
OURS_KINDS = {"function", "method", "class", "struct", "enum", "union", "trait", "interface", "module",
              "namespace", "type", "typedef", "macro", "class method", "annotation", "constructor"}


def invented(d, parts):
    """ctags's tags that name no definition: names it makes up for anonymous
    structs and functions, and JavaScript object literals it calls classes."""
    name, kind, line, path = parts
    if name.startswith("__anon") or name.startswith("AnonymousFunction"):
        return True
    if kind == "class" and path.endswith((".js", ".cjs", ".mjs")):
        text = open(os.path.join(d, path), errors="replace").read().split("\n")[int(line) - 1]
        return "class " not in text
    return False


def outline_vs_ctags(lang, corpus=None):
    d = os.path.join(CORPUS, corpus or lang)
    files = sorted(os.listdir(d))
    if not files:
        return None
    tags = subprocess.run(
        ["ctags", "-x", "--_xformat=%N\t%K\t%n\t%F", f"--languages={CTAGS_LANG[lang]}",
         "--language-force=" + CTAGS_LANG[lang]] + files,
        cwd=d, capture_output=True, text=True,
    ).stdout.splitlines()
    theirs = []
    for t in tags:
        parts = t.split("\t")
        if len(parts) == 4 and parts[1] in CTAGS_KINDS[lang] and not invented(d, parts):
            # ctags spells an operator `operator !=`; the source and outline
            # may write `operator!=`: names are compared without spaces.
            theirs.append((parts[3], parts[0].replace(" ", ""), int(parts[2])))
    rec = indus(["outline", "."], d)["output"]
    ours = {}
    for r in rec["rows"]:
        path = r["path"][2:] if r["path"].startswith("./") else r["path"]
        ours.setdefault((path, r["name"].replace(" ", "")), []).append((r["line"], r["endLine"], r["kind"]))
    found = sum(1 for (f, n, line) in theirs if any(a <= line <= b for a, b, _ in ours.get((f, n), [])))
    tagset = {(f, n, l) for (f, n, l) in theirs}
    by_name = {}
    for (f, n, l) in tagset:
        by_name.setdefault((f, n), []).append(l)
    ours_rows = [(k, v) for k, vs in ours.items() for v in vs if v[2] in OURS_KINDS and v[2] != "constructor"]
    back = sum(1 for ((f, n), (a, b, _)) in ours_rows if any(a <= l <= b for l in by_name.get((f, n), [])))
    return {
        "files": len(files), "ctags": len(theirs), "ctagsFound": found,
        "share": round(found / max(1, len(theirs)), 4),
        "ours": len(ours_rows), "oursInCtags": back, "reverse": round(back / max(1, len(ours_rows)), 4),
        "parseErrors": rec["skipped"]["parseErrors"],
    }


PATTERNS = {
    "rust": ["$X.unwrap()", "$X.clone()", "Some($X)", "Ok($X)", "Err($E)", "return $X", "match $X { $$$ }",
             "let $X = $Y;", "$X?", "&mut $X", "Box::new($X)", "$A == $B", "$A += $B", "self.$F", "String::new()",
             "$X.len()", "for $X in $Y { $$$ }", "panic!($$$)", "assert!($$$)", "if $C { $$$ }", "$X.iter()",
             "$X.is_empty()", "Vec::new()", "while $C { $$$ }"],
    "python": ["print($$$)", "self.$A = $B", "return $X", "len($X)", "isinstance($A, $B)", "raise $E", "$A == $B",
               "$A is None", "$A is not None", "not $X", "$X.append($Y)", "[$X for $Y in $Z]", "$D.get($K)",
               "assert $X", "yield $X", "$A.startswith($B)", "str($X)", "$A in $B", "$F(*$A)", "import $M",
               "return None", "$X.join($Y)", "$A + $B"],
    "javascript": ["console.log($$$)", "require($M)", "return $X", "$A === $B", "$A !== $B", "new $C($$$)",
                   "this.$P = $V", "throw $E", "typeof $X", "$X.length", "Object.keys($X)", "JSON.stringify($$$)",
                   "await $X", "if ($C) { $$$ }", "$A || $B", "$A && $B", "Object.defineProperty($$$)",
                   "exports.$N = $V", "$X.push($Y)", "($$$) => $B", "void 0", "$A ? $B : $C"],
    "typescript": ["interface $I { $$$ }", "type $T = $U;", "Promise<$T>", "Array<$T>", "Record<$K, $V>",
                   "$A | $B", "readonly $P: $T;", "export * from $M;", "export { $$$ } from $M;",
                   "declare var $X: $T;", "string[]", 
                   "export declare class $C { $$$ }", "export declare function $F($$$): $R;", "$A: string;",
                   "declare namespace $N { $$$ }", "export declare const $X: $T;",
                   "export interface $I { $$$ }", "export type $T = $U;", "new ($$$) => $T", "Partial<$T>",
                   "ReadonlyArray<$T>"],
    "go": ["fmt.Println($$$)", "if err != nil { $$$ }", "return $X", "return $A, $B", "$X := $Y",
           "for $I := range $X { $$$ }", "defer $X($$$)", "make($$$)", "append($S, $$$)", "len($X)", "panic($X)",
           "errors.New($S)", "fmt.Errorf($$$)", "$A == nil", "$A != nil", "switch $X { $$$ }", "&$T{$$$}",
           "strings.$F($$$)", "$A[$B]", "return nil", "$X.Len()", "$A = $B"],
    "c": ["return $X;", "malloc($$$)", "free($X)", "sizeof($X)", "$A == NULL", "$A != NULL", "$X->$F",
          "if ($C) { $$$ }", "while ($C) { $$$ }", "memcpy($$$)", "assert($X)", "$A = $B;", "break;", "$F($$$);",
          "!$X", "$A && $B", "(void)$X", "return;", "$A++", "$A[$B]", "$A || $B", "goto $L;"],
    "cpp": ["std::move($X)", "return $X;", "$A->$B", "static_cast<$T>($X)", "this->$F", "if ($C) { $$$ }",
            "std::forward<$T>($X)", "$X.begin()", "$X.end()", "sizeof($X)", "++$X", "$A == $B", "return *this;",
            "$A != $B", "std::__addressof($X)", "$A = $B;", "$A[$B]", "$A < $B", "$F($$$);", "!$X", "$A && $B",
            "return;"],
    "java": ["System.out.println($$$)", "return $X;", "new $C($$$)", "throw new $E($$$);", "if ($C) { $$$ }",
             "$A == null", "$A != null", "this.$F = $V;", "$X.size()", "$X.equals($Y)", "super($$$);",
             "$A.get($B)", "Objects.requireNonNull($$$)", "$X++", "return null;", "return true;", "return false;",
             "$A = $B;", "$A < $B", "throw $E;", "$A instanceof $B", "$A.hashCode()"],
    "ruby": ["puts $X", "require $M", "raise $E", "return $X", "$A == $B", "$A.nil?", "yield $X", "self.$M",
             "$A << $B", "raise $E, $M", "super($$$)", "$X.each { $$$ }", "$X.map { $$$ }", "attr_reader $$$",
             "private", "$A.to_s", "$A || $B", "$A && $B", "$A += $B", "return nil", "$X.empty?", "$A = $B"],
}


def sg_matches(lang, pattern, d):
    out = subprocess.run([SG, "run", "-p", pattern, "-l", lang, "--json=compact", "."], cwd=d,
                         capture_output=True, text=True)
    if out.returncode not in (0, 1) or not out.stdout.strip():
        return None, out.stderr.strip()[:200]
    got = set()
    for m in json.loads(out.stdout):
        got.add((m["file"].removeprefix("./"), m["range"]["start"]["line"] + 1, m["range"]["start"]["column"] + 1))
    return got, ""


def our_matches(lang, pattern, d):
    out = indus(["sgrep", pattern, ".", "--lang", lang, "--limit", "5000"], d)
    if out.get("is_error"):
        return None, str(out.get("output"))[:200]
    got = set()
    for r in out["output"]["rows"]:
        got.add((r["path"].removeprefix("./"), r["line"], r["column"]))
    if out["output"]["omitted"]:
        return None, "omitted rows"
    return got, ""


def sgrep_vs_ast_grep(lang):
    d = os.path.join(CORPUS, lang)
    result = {"patterns": 0, "same": 0, "matches": 0, "differ": []}
    for p in PATTERNS[lang]:
        theirs, terr = sg_matches(lang, p, d)
        ours, oerr = our_matches(lang, p, d)
        result["patterns"] += 1
        if theirs is not None and ours is not None and theirs == ours:
            result["same"] += 1
            result["matches"] += len(ours)
        else:
            result["differ"].append({
                "pattern": p, "ours": None if ours is None else len(ours), "theirs": None if theirs is None else len(theirs),
                "onlyOurs": sorted(ours - theirs)[:3] if ours is not None and theirs is not None else oerr,
                "onlyTheirs": sorted(theirs - ours)[:3] if ours is not None and theirs is not None else terr,
            })
    return result


REWRITES = {
    "rust": [("$X.unwrap()", "$X.expect(\"checked\")"), ("Box::new($X)", "Box::from($X)")],
    "python": [("print($$$A)", "log($$$A)"), ("$A is None", "None is $A")],
    "go": [("len($X)", "length($X)"), ("errors.New($S)", "fmt.Errorf($S)")],
    "java": [("$X.size()", "$X.count()")],
    "typescript": [("Promise<$T>", "PromiseLike<$T>")],
    "cpp": [("std::move($X)", "std::forward($X)"), ("this->$F", "self->$F")],
    "javascript": [("typeof $X", "typeOf($X)")],
    "ruby": [("$A.nil?", "$A.null?")],
    "c": [("free($X)", "release($X)")],
}


def tree_bytes(d):
    out = {}
    for root, _, files in os.walk(d):
        for f in files:
            p = os.path.join(root, f)
            if "/.indus" in p:
                continue
            out[os.path.relpath(p, d)] = open(p, "rb").read()
    return out


def rewrites():
    results = []
    for lang, pairs in REWRITES.items():
        src = os.path.join(CORPUS, lang)
        for pattern, template in pairs:
            a, b = os.path.join(WORK, "rw-ours"), os.path.join(WORK, "rw-theirs")
            for x in (a, b):
                shutil.rmtree(x, ignore_errors=True)
                shutil.copytree(src, x)
            ours = indus(["sgrep", pattern, ".", "--lang", lang, "--rewrite", template], a)
            subprocess.run([SG, "run", "-p", pattern, "-r", template, "-l", lang, "-U", "."], cwd=b,
                           capture_output=True)
            ta, tb = tree_bytes(a), tree_bytes(b)
            changed = sum(1 for k in tb if tb[k] != open(os.path.join(src, k), "rb").read())
            results.append({"lang": lang, "pattern": pattern, "same": ta == tb, "filesChanged": changed,
                            "error": ours.get("is_error") and str(ours.get("output"))[:200]})
    return results


def kill_test(rounds=12):
    """A rewrite of every file killed at random moments: each file before or after."""
    src = os.path.join(CORPUS, "python")
    before = tree_bytes(src)
    after_dir = os.path.join(WORK, "kill-after")
    shutil.rmtree(after_dir, ignore_errors=True)
    shutil.copytree(src, after_dir)
    indus(["sgrep", "$A is None", ".", "--lang", "python", "--rewrite", "None is $A"], after_dir)
    after = tree_bytes(after_dir)
    t0 = time.monotonic()
    probe = os.path.join(WORK, "kill-probe")
    shutil.rmtree(probe, ignore_errors=True)
    shutil.copytree(src, probe)
    indus(["sgrep", "$A is None", ".", "--lang", "python", "--rewrite", "None is $A"], probe)
    whole = time.monotonic() - t0
    mixed = 0
    outcomes = {"before": 0, "after": 0}
    rng = random.Random(58)
    for i in range(rounds):
        d = os.path.join(WORK, f"kill-{i}")
        shutil.rmtree(d, ignore_errors=True)
        shutil.copytree(src, d)
        proc = subprocess.Popen([INDUS, "sgrep", "$A is None", ".", "--lang", "python", "--rewrite", "None is $A"],
                                cwd=d, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(rng.uniform(0.5 * whole, 1.05 * whole))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        # The next invocation recovers a half-done apply before it reads.
        indus(["sgrep", "$A is None", ".", "--lang", "python", "--rewrite", "None is $A", "--check"], d)
        now = tree_bytes(d)
        if now == before:
            outcomes["before"] += 1
        elif now == after:
            outcomes["after"] += 1
        else:
            mixed += 1
    return {"rounds": rounds, "mixed": mixed, "wholeSeconds": round(whole, 3), **outcomes}


MULTILINE = {
    "rust": [r"fn \w+\([^)]*\)", r"\.unwrap\(\)\s*\n\s*\.", r"match [^{]+\{\s*\n\s*\w+"],
    "python": [r"def \w+\([^)]*\)", r"\(\s*\n\s+\w+", r'"""[^"]*"""'],
    "go": [r"func \w+\([^)]*\)", r"if err != nil \{\s*\n\s*return"],
    "c": [r"\w+\([^;{)]*\)\s*\n\{", r"/\*[^*]*\*/"],
}


def grep_multiline():
    """grep -U against rg -U on the same corpora, row for row (rg's rows with
    `PATH:N:TEXT`, grep's `PATH:N: TEXT`), and -c against rg -U -c."""
    out = {"patterns": 0, "same": 0, "rows": 0, "differ": []}
    for lang, patterns in MULTILINE.items():
        d = os.path.join(CORPUS, lang)
        for p in patterns:
            rg = subprocess.run(["rg", "-U", "-n", "-H", "--no-heading", "--sort", "path", "--no-ignore",
                                 "--hidden", p, "."], cwd=d, capture_output=True, text=True, errors="replace")
            # Rows end at \n only: str.splitlines would also split at a form
            # feed, which C, Go and Python sources hold.
            lines = lambda out: out.split("\n")[:-1] if out else []
            theirs = [l.removeprefix("./") for l in lines(rg.stdout)]
            ours_raw = lines(subprocess.run([INDUS, "grep", "-U", p, "."], cwd=d, capture_output=True, text=True,
                                            errors="replace").stdout)
            ours = []
            for l in ours_raw:
                path, n, text = l.removeprefix("./").split(":", 2)
                ours.append(f"{path}:{n}:{text[1:] if text.startswith(' ') else text}")
            rgc = subprocess.run(["rg", "-U", "-c", "--sort", "path", "--no-ignore", "--hidden", p, "."], cwd=d,
                                 capture_output=True, text=True).stdout.splitlines()
            oc = subprocess.run([INDUS, "grep", "-U", "-c", p, "."], cwd=d, capture_output=True,
                                text=True).stdout.splitlines()
            out["patterns"] += 1
            same = ours == theirs and [l.removeprefix("./") for l in oc] == [l.removeprefix("./") for l in rgc]
            if same:
                out["same"] += 1
                out["rows"] += len(ours)
            else:
                first = next((i for i, (a, b) in enumerate(zip(ours, theirs)) if a != b), min(len(ours), len(theirs)))
                out["differ"].append({"lang": lang, "pattern": p, "ours": len(ours), "theirs": len(theirs),
                                      "at": first, "oursRow": ours[first:first + 1], "theirsRow": theirs[first:first + 1]})
    return out


HELD_OUT_CPP = ("cpp-llvm", "cpp-libstdc++")


def main():
    shutil.rmtree(CORPUS, ignore_errors=True)
    build_corpora()
    report = {"outline": {}, "sgrep": {}}
    for lang in PATTERNS:
        if not os.path.isdir(os.path.join(CORPUS, lang)) or not os.listdir(os.path.join(CORPUS, lang)):
            report["outline"][lang] = None
            report["sgrep"][lang] = None
            continue
        report["outline"][lang] = outline_vs_ctags(lang)
        report["sgrep"][lang] = sgrep_vs_ast_grep(lang)
    for corpus in HELD_OUT_CPP:
        here = os.path.join(CORPUS, corpus)
        ok = os.path.isdir(here) and os.listdir(here)
        report["outline"][corpus] = outline_vs_ctags("cpp", corpus) if ok else None
    report["multiline"] = grep_multiline()
    report["rewrites"] = rewrites()
    report["kill"] = kill_test()
    print(json.dumps(report))


if __name__ == "__main__":
    configure(sys.argv[1], sys.argv[2], sys.argv[3])
    main()
