//! The floors of the house, checked from the code's own imports.
//!
//! `src/` is built in floors (see `docs/development.md`): a module may use what
//! stands on a lower floor or beside it on its own, never what stands above, and
//! no two files may lean on each other (a circle), however long the ring. This
//! test reads every `crate::`, `super::` and `self::` path in `src/` (tests
//! inside `#[cfg(test)]` modules excepted: they may assemble a whole toolbox to
//! test one piece), resolves it to the file that defines the module it names,
//! and fails on an import that runs up the written order or closes a circle,
//! naming the file, the line and the direction allowed.
//!
//! Written here rather than taken from a crate because what it checks is this
//! project's own written order; the reading is deliberately plain (comments,
//! strings and char literals blanked, braces matched) so a reader can see what
//! counts as an import.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// The written order of floors, lowest first. A top-level module of the crate
/// stands on exactly one; `lib.rs` (the re-exports) stands above them all.
const FLOORS: &[(&str, &str)] = &[
    (
        "kernel",
        "the authoring shape, the dispatch contract, shared text, clock and digest helpers",
    ),
    (
        "sys",
        "operating-system primitives that are not seams: atomic writes, locks, signals",
    ),
    (
        "state",
        "what persists under .indus-process/ and the user's own state",
    ),
    (
        "backends",
        "the kernel's seams bound to the OS, SSH, containers and tmux",
    ),
    ("tools", "the concrete tools, one folder a family"),
    (
        "builtins",
        "the built-in tools assembled, and their standard collections",
    ),
    (
        "deck",
        "the catalog of every tool with its profiles, app cards and buddy config",
    ),
    (
        "interop",
        "batch, the MCP server and client, the API shapes",
    ),
    ("cli", "the command-line face"),
];

fn floor_of(module: &[String]) -> Option<usize> {
    let top = module.first()?;
    FLOORS.iter().position(|(name, _)| name == top)
}

fn floor_order() -> String {
    FLOORS
        .iter()
        .map(|(n, _)| *n)
        .collect::<Vec<_>>()
        .join(" < ")
}

/// Blank out comments, string literals and char literals (keeping newlines and
/// byte positions), so only code is read.
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = b.to_vec();
    let blank = |out: &mut Vec<u8>, from: usize, to: usize| {
        for c in &mut out[from..to.min(b.len())] {
            if *c != b'\n' {
                *c = b' ';
            }
        }
    };
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'/' if b.get(i + 1) == Some(&b'/') => {
                let end = text[i..].find('\n').map_or(b.len(), |n| i + n);
                blank(&mut out, i, end);
                i = end;
            }
            b'/' if b.get(i + 1) == Some(&b'*') => {
                let mut depth = 0;
                let mut j = i;
                while j < b.len() {
                    if b[j] == b'/' && b.get(j + 1) == Some(&b'*') {
                        depth += 1;
                        j += 2;
                    } else if b[j] == b'*' && b.get(j + 1) == Some(&b'/') {
                        depth -= 1;
                        j += 2;
                        if depth == 0 {
                            break;
                        }
                    } else {
                        j += 1;
                    }
                }
                blank(&mut out, i, j);
                i = j;
            }
            b'r' if (b.get(i + 1) == Some(&b'#') || b.get(i + 1) == Some(&b'"'))
                && (i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_')) =>
            {
                let hashes = b[i + 1..].iter().take_while(|&&c| c == b'#').count();
                if b.get(i + 1 + hashes) != Some(&b'"') {
                    i += 1;
                    continue;
                }
                let close = format!("\"{}", "#".repeat(hashes));
                let start = i + 2 + hashes;
                let end = text[start..]
                    .find(&close)
                    .map_or(b.len(), |n| start + n + close.len());
                blank(&mut out, i, end);
                i = end;
            }
            b'"' => {
                let mut j = i + 1;
                while j < b.len() && b[j] != b'"' {
                    j += if b[j] == b'\\' { 2 } else { 1 };
                }
                blank(&mut out, i, j + 1);
                i = j + 1;
            }
            b'\'' => {
                // A char literal ('x', '\n', '\u{..}', 'é') or a lifetime ('a).
                if b.get(i + 1) == Some(&b'\\') {
                    let end = text[i + 2..].find('\'').map_or(b.len(), |n| i + 2 + n + 1);
                    blank(&mut out, i, end);
                    i = end;
                } else if let Some(c) = text[i + 1..].chars().next() {
                    let after = i + 1 + c.len_utf8();
                    if b.get(after) == Some(&b'\'') {
                        blank(&mut out, i, after + 1);
                        i = after + 1;
                    } else {
                        i += 1;
                    }
                } else {
                    i += 1;
                }
            }
            _ => i += 1,
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// Blank the bodies of `#[cfg(test)]` modules: tests may reach anywhere.
fn without_test_modules(code: &str) -> String {
    let mut out = code.to_string();
    let mut from = 0;
    while let Some(at) = out[from..].find("#[cfg(test)]").map(|n| from + n) {
        let rest = &out[at + 12..];
        let trimmed = rest.trim_start();
        let skip = rest.len() - trimmed.len();
        let head = ["pub(crate) ", "pub(super) ", "pub "]
            .iter()
            .find_map(|p| trimmed.strip_prefix(p))
            .unwrap_or(trimmed);
        if !head.starts_with("mod ") {
            from = at + 12;
            continue;
        }
        let Some(open) = out[at + 12 + skip..]
            .find(['{', ';'])
            .map(|n| at + 12 + skip + n)
        else {
            break;
        };
        if out.as_bytes()[open] == b';' {
            from = open;
            continue;
        }
        let mut depth = 0usize;
        let mut end = out.len();
        for (k, c) in out[open..].bytes().enumerate() {
            match c {
                b'{' => depth += 1,
                b'}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = open + k + 1;
                        break;
                    }
                }
                _ => {}
            }
        }
        let blanked: String = out[at..end]
            .chars()
            .map(|c| if c == '\n' { '\n' } else { ' ' })
            .collect();
        out.replace_range(at..end, &blanked);
        from = end;
    }
    out
}

/// One path named in code, with the 1-based line it stands on.
#[derive(Debug)]
struct Named {
    line: usize,
    path: Vec<String>,
}

/// Expand a `use` tree (`a::{b, c::{d, e}}`) into whole paths.
fn expand_use(tree: &str, prefix: &[String], out: &mut Vec<Vec<String>>) {
    let tree = tree.trim();
    if tree.is_empty() {
        return;
    }
    if let Some(open) = tree.find('{') {
        let head: Vec<String> = tree[..open]
            .split("::")
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
            .collect();
        let mut base = prefix.to_vec();
        base.extend(head);
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let mut depth = 0;
        let mut start = 0;
        for (k, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    expand_use(&inner[start..k], &base, out);
                    start = k + 1;
                }
                _ => {}
            }
        }
        expand_use(&inner[start..], &base, out);
    } else {
        let without_alias = tree.split(" as ").next().unwrap_or(tree);
        let mut path = prefix.to_vec();
        path.extend(
            without_alias
                .split("::")
                .map(str::trim)
                .filter(|s| !s.is_empty() && *s != "*")
                .map(String::from),
        );
        out.push(path);
    }
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// Every path the code names: `use` trees whole, and inline `crate::…`,
/// `super::…`, `self::…` paths and paths through a child module (`user::seal`
/// in `state/mod.rs`).
fn named_paths(code: &str, children: &[String]) -> Vec<Named> {
    let b = code.as_bytes();
    let line_at = |at: usize| code[..at].bytes().filter(|&c| c == b'\n').count() + 1;
    let mut found = Vec::new();
    let mut use_spans = Vec::new();
    let mut from = 0;
    while let Some(at) = code[from..].find("use ").map(|n| from + n) {
        from = at + 4;
        if at > 0 && is_ident(b[at - 1]) {
            continue;
        }
        let Some(end) = code[at..].find(';').map(|n| at + n) else {
            break;
        };
        let mut paths = Vec::new();
        expand_use(&code[at + 4..end], &[], &mut paths);
        let line = line_at(at);
        for path in paths {
            found.push(Named { line, path });
        }
        use_spans.push((at, end));
        from = end;
    }
    let roots: Vec<String> = ["crate", "super", "self"]
        .iter()
        .map(|r| r.to_string())
        .chain(children.iter().cloned())
        .map(|r| format!("{r}::"))
        .collect();
    for root in &roots {
        let root = root.as_str();
        let mut from = 0;
        while let Some(at) = code[from..].find(root).map(|n| from + n) {
            from = at + root.len();
            if (at > 0 && (is_ident(b[at - 1]) || b[at - 1] == b':'))
                || use_spans.iter().any(|&(s, e)| at >= s && at < e)
            {
                continue;
            }
            let mut end = at;
            while end < b.len() && (is_ident(b[end]) || b[end] == b':') {
                end += 1;
            }
            let path: Vec<String> = code[at..end]
                .split("::")
                .filter(|s| !s.is_empty())
                .map(String::from)
                .collect();
            found.push(Named {
                line: line_at(at),
                path,
            });
        }
    }
    found
}

/// The crate's modules that live in files: module path → file.
fn module_files(src: &Path) -> BTreeMap<Vec<String>, PathBuf> {
    let mut map = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            if path.extension().and_then(|e| e.to_str()) != Some("rs") {
                continue;
            }
            let rel = path.strip_prefix(src).unwrap();
            let mut module: Vec<String> = rel
                .iter()
                .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
                .collect();
            if module == ["main"] {
                continue;
            }
            if module.last().map(String::as_str) == Some("mod") || module == ["lib"] {
                module.pop();
            }
            map.insert(module, path);
        }
    }
    map
}

/// The file a named path lands in: the deepest module file along it.
fn resolve(
    named: &[String],
    here: &[String],
    modules: &BTreeMap<Vec<String>, PathBuf>,
) -> Option<Vec<String>> {
    let mut path: Vec<String> = match named.first().map(String::as_str) {
        Some("crate") => Vec::new(),
        Some("self") => here.to_vec(),
        Some("super") => {
            let mut p = here.to_vec();
            let mut rest = named;
            while rest.first().map(String::as_str) == Some("super") {
                p.pop();
                rest = &rest[1..];
            }
            p.extend(rest.iter().cloned());
            return deepest(&p, modules);
        }
        Some(first) => {
            // A 2018 relative path names a child module of this one.
            let mut child = here.to_vec();
            child.push(first.to_string());
            if !modules.contains_key(&child) {
                return None;
            }
            here.to_vec()
        }
        None => return None,
    };
    let skip = usize::from(matches!(named[0].as_str(), "crate" | "self"));
    path.extend(named[skip..].iter().cloned());
    deepest(&path, modules)
}

fn deepest(path: &[String], modules: &BTreeMap<Vec<String>, PathBuf>) -> Option<Vec<String>> {
    (0..=path.len())
        .rev()
        .map(|n| path[..n].to_vec())
        .find(|p| modules.contains_key(p))
}

/// A finding, worded for the person who must move the import.
struct Breach {
    file: String,
    line: usize,
    text: String,
}

/// Read the tree under `src` and list every upward import and every circle.
fn breaches(src: &Path) -> Vec<Breach> {
    let modules = module_files(src);
    let name = |m: &Vec<String>| {
        modules[m]
            .strip_prefix(src.parent().unwrap_or(src))
            .unwrap_or(&modules[m])
            .display()
            .to_string()
    };
    let mut out = Vec::new();
    // file → (target file → first line naming it)
    let mut edges: BTreeMap<Vec<String>, BTreeMap<Vec<String>, usize>> = BTreeMap::new();
    for (module, file) in &modules {
        let text = std::fs::read_to_string(file).unwrap();
        let code = without_test_modules(&code_only(&text));
        let children: Vec<String> = modules
            .keys()
            .filter(|m| m.len() == module.len() + 1 && m.starts_with(module))
            .map(|m| m[module.len()].clone())
            .collect();
        let targets = edges.entry(module.clone()).or_default();
        for named in named_paths(&code, &children) {
            let Some(target) = resolve(&named.path, module, &modules) else {
                continue;
            };
            if &target == module || target.is_empty() {
                continue;
            }
            targets.entry(target.clone()).or_insert(named.line);
            let (Some(from), Some(to)) = (floor_of(module), floor_of(&target)) else {
                continue;
            };
            if to > from {
                out.push(Breach {
                    file: name(module),
                    line: named.line,
                    text: format!(
                        "imports {} from `{}` (floor {}), above its own floor `{}` ({}); a floor may use only the floors below it or its own: {}. Move what both need down to the lower floor.",
                        named.path.join("::"),
                        FLOORS[to].0,
                        to,
                        FLOORS[from].0,
                        from,
                        floor_order()
                    ),
                });
            }
        }
    }
    // Circles: strongly connected groups of files (Tarjan).
    let nodes: Vec<&Vec<String>> = edges.keys().collect();
    let index_of: BTreeMap<&Vec<String>, usize> =
        nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let adj: Vec<Vec<usize>> = nodes
        .iter()
        .map(|n| {
            edges[*n]
                .keys()
                .filter_map(|t| index_of.get(t).copied())
                .collect()
        })
        .collect();
    for group in strongly_connected(&adj) {
        if group.len() < 2 {
            continue;
        }
        let members: BTreeSet<usize> = group.iter().copied().collect();
        let mut ties = Vec::new();
        for &a in &group {
            for (t, line) in &edges[nodes[a]] {
                if let Some(&b) = index_of.get(t)
                    && members.contains(&b)
                {
                    ties.push(format!(
                        "{}:{} uses {}",
                        name(nodes[a]),
                        line,
                        name(nodes[b])
                    ));
                }
            }
        }
        ties.sort();
        let first = nodes[*members.iter().next().unwrap()];
        out.push(Breach {
            file: name(first),
            line: edges[first].iter().find(|(t, _)| index_of.get(t).is_some_and(|b| members.contains(b))).map_or(1, |(_, l)| *l),
            text: format!(
                "closes a circle of {} files ({}); imports must run one way: move what both sides need into a file both may use",
                group.len(),
                ties.join("; ")
            ),
        });
    }
    out
}

fn strongly_connected(adj: &[Vec<usize>]) -> Vec<Vec<usize>> {
    struct Tarjan<'a> {
        adj: &'a [Vec<usize>],
        index: Vec<Option<usize>>,
        low: Vec<usize>,
        on_stack: Vec<bool>,
        stack: Vec<usize>,
        next: usize,
        groups: Vec<Vec<usize>>,
    }
    impl Tarjan<'_> {
        fn visit(&mut self, v: usize) {
            self.index[v] = Some(self.next);
            self.low[v] = self.next;
            self.next += 1;
            self.stack.push(v);
            self.on_stack[v] = true;
            for &w in &self.adj[v] {
                match self.index[w] {
                    None => {
                        self.visit(w);
                        self.low[v] = self.low[v].min(self.low[w]);
                    }
                    Some(iw) if self.on_stack[w] => self.low[v] = self.low[v].min(iw),
                    _ => {}
                }
            }
            if Some(self.low[v]) == self.index[v] {
                let mut group = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack[w] = false;
                    group.push(w);
                    if w == v {
                        break;
                    }
                }
                self.groups.push(group);
            }
        }
    }
    let n = adj.len();
    let mut t = Tarjan {
        adj,
        index: vec![None; n],
        low: vec![0; n],
        on_stack: vec![false; n],
        stack: Vec::new(),
        next: 0,
        groups: Vec::new(),
    };
    for v in 0..n {
        if t.index[v].is_none() {
            t.visit(v);
        }
    }
    t.groups
}

fn report(found: &[Breach]) -> String {
    found
        .iter()
        .map(|b| format!("{}:{}: {}", b.file, b.line, b.text))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn no_import_runs_up_a_floor_and_none_closes_a_circle() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let found = breaches(&src);
    assert!(
        found.is_empty(),
        "{} breach(es) of the floors:\n{}",
        found.len(),
        report(&found)
    );
}

#[test]
fn every_top_level_module_stands_on_a_written_floor() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    for line in lib.lines() {
        if let Some(name) = line
            .trim()
            .strip_prefix("pub mod ")
            .or_else(|| line.trim().strip_prefix("mod "))
        {
            let name = name.trim_end_matches(';');
            assert!(
                FLOORS.iter().any(|(f, _)| *f == name),
                "src/lib.rs declares `{name}`, which stands on no floor of {}; add it to FLOORS in tests/it/layers.rs and to docs/development.md",
                floor_order()
            );
        }
    }
}

/// The check itself must be able to fail: a small tree with one upward import,
/// one circle and one import hidden in a comment, a string and a test module.
#[test]
fn the_check_finds_an_upward_import_and_a_circle() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("src");
    let write = |rel: &str, text: &str| {
        let path = src.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    };
    write("lib.rs", "pub mod kernel;\npub mod tools;\n");
    write("kernel/mod.rs", "pub mod a;\npub mod b;\n");
    write(
        "kernel/a.rs",
        "// crate::tools::x in a comment\nconst S: &str = \"crate::tools::y\";\nuse crate::tools::helper;\nuse super::b::{Thing, other::{X}};\n#[cfg(test)]\nmod tests {\n    use crate::tools::z;\n    fn f() { let c = '{'; }\n}\n",
    );
    write("kernel/b.rs", "pub fn g() { crate::kernel::a::f() }\n");
    write("tools/c.rs", "pub fn h() { super::helper() }\n");
    write("tools/mod.rs", "pub mod c;\npub fn helper() { c::h() }\n");
    let found = breaches(&src);
    let text = report(&found);
    assert_eq!(found.len(), 3, "{text}");
    // A path through a child module counts: tools/mod.rs uses c, c uses mod.rs.
    assert!(
        text.contains("src/tools/c.rs:1 uses src/tools/mod.rs"),
        "{text}"
    );
    assert!(
        text.contains("src/tools/mod.rs:2 uses src/tools/c.rs"),
        "{text}"
    );
    assert!(
        text.contains("src/kernel/a.rs:3: imports crate::tools::helper from `tools`"),
        "{text}"
    );
    assert!(text.contains("closes a circle of 2 files"), "{text}");
    assert!(
        text.contains("src/kernel/a.rs:4 uses src/kernel/b.rs"),
        "{text}"
    );
    assert!(
        text.contains("src/kernel/b.rs:1 uses src/kernel/a.rs"),
        "{text}"
    );
}

#[test]
fn reading_blanks_comments_strings_and_chars_but_keeps_lines() {
    let code = code_only("a // x\n\"s\\\"t\" 'c' '\\n' r#\"q\"# /* b\n */ 'a z");
    assert_eq!(code.lines().count(), 3);
    assert!(!code.contains('x') && !code.contains('s') && !code.contains('q'));
    assert!(code.contains("'a z"), "a lifetime stays: {code}");
}
