//! The frame rule — an edit sent with an indentation slip writes the intended
//! file or is refused, never a third file — on files shaped like real code in
//! other languages: Python (`:` headers, continuation lines, triple-quoted
//! strings), Go (tabs, `switch` with `case` labels at the switch's depth, raw
//! strings), C (indented `case` labels, `#ifdef` at column 0, continued
//! conditions, `/* */` comments), Rust raw strings holding code, JavaScript
//! callbacks and `.then` chains.
//!
//! Each case is a well-formed file built from a tree of items (statements,
//! blocks, multi-line groups such as a continued call or a string's lines), and
//! one edit made on the tree as real commits make them: a line changed, a
//! statement added or removed, lines wrapped in a new block or unwrapped from
//! one. The span is what changed plus up to two lines of context each side (one
//! to five lines); the intended file is the edited tree written out. An edit
//! keeps the file well-formed: what it wraps starts with code (no header or
//! `{ }` around blank lines only), a label, a chain's link or a scope's item is
//! only renamed, and a line it adds (a statement, a new block's head) is one the
//! file does not hold yet. The edit is
//! then sent as it is, with its common indentation cut ("dedent") and with its
//! first line's cut ("first-line"), `newText` in both conventions: cut like
//! `oldText` ("old-frame") or at the file's indentation ("file-indent").
//! A slipped call is skipped when oldText as sent also stands elsewhere in the
//! file, or when the slip lost what no frame can restore; the unslipped call
//! of a unique oldText must be applied. The same edits go to `plan_hunks` as
//! hunks, unslipped and with the dedent slip.
//!
//! The engine of this commit writes wrong files for some of these; each kind
//! found is a `regression_*` test below. `explore_shapes` (ignored) surveys
//! many cases per shape, counts the calls applied, refused and skipped, and
//! prints the smallest wrong result of each kind.

use super::{hunks::*, snippet::*};
use memchr::memmem;
use proptest::prelude::*;
use similar::{Algorithm, DiffTag};

/// The kinds of file a case is shaped like.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shape {
    Python,
    Go,
    C,
    RustRaw,
    Js,
}

/// A choice stream: each draw takes the next byte, 0 when none is left, so a
/// shrunk stream makes the simplest file (short bodies of plain statements).
struct Ch<'a> {
    v: &'a [u8],
    i: usize,
}

impl Ch<'_> {
    fn n(&mut self, k: usize) -> usize {
        let x = self.v.get(self.i).copied().unwrap_or(0);
        self.i += 1;
        usize::from(x) % k
    }
}

/// Where a line's indentation comes from.
#[derive(Clone, Debug)]
enum Ind {
    /// The code's level, then this (a continuation's alignment, a comment's ` `).
    Rel(String),
    /// Exactly this, whatever the level: a string's data, a preprocessor line.
    Abs(String),
}

#[derive(Clone, Debug)]
struct L {
    ind: Ind,
    text: String,
}

fn rel(text: &str) -> L {
    ext("", text)
}

fn ext(extra: &str, text: &str) -> L {
    L {
        ind: Ind::Rel(extra.to_string()),
        text: text.to_string(),
    }
}

fn abs(ind: &str, text: &str) -> L {
    L {
        ind: Ind::Abs(ind.to_string()),
        text: text.to_string(),
    }
}

#[derive(Clone, Debug)]
enum Item {
    /// Lines that go together: a statement, a continued call, a string.
    Lines(Vec<L>),
    Block(Block),
}

#[derive(Clone, Debug)]
struct Block {
    head: Vec<L>,
    body: Vec<Item>,
    /// Further clauses at the head's level (`else:`, `} else {`, `except ...:`).
    rest: Vec<(Vec<L>, Vec<Item>)>,
    close: Vec<L>,
    /// Levels the body sits below the head (0: Go's `case` under `switch`,
    /// C's `#ifdef`).
    shift: usize,
    /// The body holds labels, a chain's links or a scope's items (a class's
    /// methods, a module's tests), not statements: an edit only changes them.
    labels: bool,
    /// A plain wrapper (`if`, `for`, a callback) an edit may unwrap.
    wrap: bool,
}

fn stmt(text: &str) -> Item {
    Item::Lines(vec![rel(text)])
}

fn block(head: &str, body: Vec<Item>, close: &str) -> Block {
    Block {
        head: vec![rel(head)],
        body,
        rest: Vec::new(),
        close: if close.is_empty() {
            Vec::new()
        } else {
            vec![rel(close)]
        },
        shift: 1,
        labels: false,
        wrap: false,
    }
}

fn wrapper(head: &str, body: Vec<Item>, close: &str) -> Item {
    Item::Block(Block {
        wrap: true,
        ..block(head, body, close)
    })
}

fn flatten(items: &[Item], level: usize, unit: &str, out: &mut Vec<String>) {
    let put = |ls: &[L], out: &mut Vec<String>| {
        for l in ls {
            out.push(match &l.ind {
                _ if l.text.is_empty() => String::new(),
                Ind::Rel(x) => format!("{}{x}{}", unit.repeat(level), l.text),
                Ind::Abs(a) => format!("{a}{}", l.text),
            });
        }
    };
    for item in items {
        match item {
            Item::Lines(ls) => put(ls, out),
            Item::Block(b) => {
                put(&b.head, out);
                flatten(&b.body, level + b.shift, unit, out);
                for (head, body) in &b.rest {
                    put(head, out);
                    flatten(body, level + b.shift, unit, out);
                }
                put(&b.close, out);
            }
        }
    }
}

/// A language's file: its indentation unit and the makings of its code.
struct Lang {
    shape: Shape,
    unit: String,
}

impl Lang {
    fn stmts(&self) -> &'static [&'static str] {
        match self.shape {
            Shape::Python => &[
                "return x",
                "x = compute(y)",
                "total += k",
                "print(k)",
                "pass",
                "raise ValueError(x)",
                "items.append(k)",
                "log.debug(\"x=%s\", x)",
            ],
            Shape::Go => &[
                "return err",
                "x := compute(y)",
                "total += v",
                "fmt.Println(v)",
                "n++",
                "defer f.Close()",
                "log.Printf(\"%d\", n)",
            ],
            Shape::C => &[
                "x = compute(y);",
                "total += v;",
                "printf(\"%d\\n\", n);",
                "return -1;",
                "n++;",
                "free(p);",
                "/* keep going */",
                "err = close(fd);",
            ],
            Shape::RustRaw => &[
                "let out = parse(s);",
                "assert_eq!(out.len(), 2);",
                "assert!(out.is_ok());",
                "let n = count(&out);",
                "println!(\"{n}\");",
            ],
            Shape::Js => &[
                "const x = compute(y);",
                "total += v;",
                "console.log(v);",
                "render(data);",
                "done();",
                "expect(x).toBe(1);",
                "return null;",
            ],
        }
    }

    fn stmt(&self, ch: &mut Ch<'_>) -> Item {
        stmt(self.stmts()[ch.n(self.stmts().len())])
    }

    fn body(&self, ch: &mut Ch<'_>, depth: usize) -> Vec<Item> {
        // A body's first line is code (a Python block needs one).
        let first = match self.item(ch, depth) {
            item if item.is_blank() => self.stmt(ch),
            item => item,
        };
        let len = ch.n(3);
        std::iter::once(first)
            .chain((0..len).map(|_| self.item(ch, depth)))
            .collect()
    }

    /// A new block around `body`, as an edit wraps lines. Its head is one
    /// `file` does not hold yet when the shape has such a head: a new line
    /// that repeats a line of the file at another depth (`if err != nil {`
    /// nested in `if err != nil {`) is no edit a real commit makes, and text
    /// alone cannot tell it from a copy.
    fn wrap(&self, ch: &mut Ch<'_>, body: Vec<Item>, file: &[String]) -> Item {
        let kinds = match self.shape {
            Shape::Python | Shape::C | Shape::Js => 5,
            Shape::Go => 4,
            Shape::RustRaw => 3,
        };
        let at = ch.n(kinds);
        let used = |item: &Item| match item {
            Item::Block(b) => file.iter().any(|l| l.trim() == b.head[0].text),
            Item::Lines(_) => false,
        };
        let mut first = None;
        for i in 0..kinds {
            let item = self.wrap_kind((at + i) % kinds, body.clone());
            if !used(&item) {
                return item;
            }
            first.get_or_insert(item);
        }
        first.expect("a shape has wrappers")
    }

    fn wrap_kind(&self, kind: usize, body: Vec<Item>) -> Item {
        match self.shape {
            Shape::Python => match kind {
                4 => Item::Block(Block {
                    rest: vec![(vec![rel("except KeyError:")], vec![stmt("return None")])],
                    ..block("try:", body, "")
                }),
                k => wrapper(
                    [
                        "if x is None:",
                        "for k in v:",
                        "with open(p) as fh:",
                        "while n > 0:",
                    ][k],
                    body,
                    "",
                ),
            },
            Shape::Go => match kind {
                3 => wrapper("go func() {", body, "}()"),
                k => wrapper(
                    ["if err != nil {", "for _, v := range items {", "if ok {"][k],
                    body,
                    "}",
                ),
            },
            Shape::C => match kind {
                3 => Item::Block(Block {
                    head: vec![rel("if (a &&"), ext("    ", "b) {")],
                    wrap: true,
                    ..block("", body, "}")
                }),
                4 => Item::Block(Block {
                    head: vec![abs("", "#ifdef DEBUG")],
                    close: vec![abs("", "#endif")],
                    shift: 0,
                    wrap: true,
                    ..block("", body, "")
                }),
                k => wrapper(
                    [
                        "if (p == NULL) {",
                        "while (n > 0) {",
                        "for (i = 0; i < n; i++) {",
                    ][k],
                    body,
                    "}",
                ),
            },
            Shape::RustRaw => wrapper(
                ["for case in cases {", "if cfg!(unix) {", "{"][kind],
                body,
                "}",
            ),
            Shape::Js => match kind {
                k @ 0..2 => wrapper(["if (x) {", "for (const v of items) {"][k], body, "}"),
                2 => wrapper("setTimeout(() => {", body, "}, 100);"),
                k => wrapper(
                    ["foo(function () {", "items.forEach((x) => {"][k - 3],
                    body,
                    "});",
                ),
            },
        }
    }

    /// An `if` with an `else` (a `try` with its `except`).
    fn compound(&self, ch: &mut Ch<'_>, depth: usize) -> Item {
        let body = self.body(ch, depth + 1);
        let other = self.body(ch, depth + 1);
        let b = match self.shape {
            Shape::Python if ch.n(2) == 1 => Block {
                rest: vec![(vec![rel("except KeyError:")], other)],
                ..block("try:", body, "")
            },
            Shape::Python => Block {
                rest: vec![(vec![rel("else:")], other)],
                ..block("if x is None:", body, "")
            },
            Shape::Go => Block {
                rest: vec![(vec![rel("} else {")], other)],
                ..block("if x > 0 {", body, "}")
            },
            Shape::C | Shape::Js => Block {
                rest: vec![(vec![rel("} else {")], other)],
                ..block("if (x > 0) {", body, "}")
            },
            Shape::RustRaw => Block {
                rest: vec![(vec![rel("} else {")], other)],
                ..block("if n > 0 {", body, "}")
            },
        };
        Item::Block(b)
    }

    /// Lines that go together: a continued call, a literal, a comment.
    fn group(&self, ch: &mut Ch<'_>) -> Item {
        let u = self.unit.as_str();
        Item::Lines(match (self.shape, ch.n(3)) {
            (Shape::Python, 0) => vec![rel("value = call(a,"), ext(&" ".repeat(13), "b)")],
            (Shape::Python, 1) => vec![rel("value = call("), ext(u, "a,"), ext(u, "b,"), rel(")")],
            (Shape::Python, _) => vec![rel("opts = {"), ext(u, "\"k\": 1,"), rel("}")],
            (Shape::Go, 0) => vec![
                rel("s := Server{"),
                ext(u, "Addr: addr,"),
                ext(u, "Log:  log,"),
                rel("}"),
            ],
            (Shape::Go, _) => vec![rel("err := run(ctx,"), ext(u, "args)")],
            (Shape::C, 0) => vec![rel("/*"), ext(" ", "* Free the buffer."), ext(" ", "*/")],
            (Shape::C, 1) => vec![rel("n = snprintf(buf, len,"), ext("    ", "\"%d\", v);")],
            (Shape::C, _) => vec![rel("if (!p)"), ext(u, "return -1;")],
            (Shape::RustRaw, 0) => vec![
                rel("let v = items"),
                ext(u, ".iter()"),
                ext(u, ".map(f)"),
                ext(u, ".collect::<Vec<_>>();"),
            ],
            (Shape::RustRaw, _) => vec![rel("let r = run(&s,"), ext(u, "opts);")],
            (Shape::Js, 0) => vec![rel("const opts = {"), ext(u, "k: 1,"), rel("};")],
            (Shape::Js, _) => vec![rel("const r = await run(a,"), ext(u, "b);")],
        })
    }

    /// The shape's own construct: strings, switches, `#ifdef`, chains.
    fn special(&self, ch: &mut Ch<'_>, depth: usize) -> Item {
        let u = self.unit.as_str();
        match (self.shape, ch.n(3)) {
            (Shape::Python, 0) => Item::Lines(vec![
                rel("\"\"\"Load the table."),
                rel(""),
                rel("Args:"),
                ext(u, "path: where it is."),
                rel("\"\"\""),
            ]),
            (Shape::Python, 1) => Item::Lines(vec![
                rel("text = \"\"\"\\"),
                abs("", "def g():"),
                abs("    ", "return 1"),
                abs("", "\"\"\""),
            ]),
            (Shape::Python, _) => Item::Lines(vec![
                rel("usage = textwrap.dedent(\"\"\""),
                ext(u, "usage: tool [-v]"),
                ext(&format!("{u}  "), "-v  verbose"),
                ext(u, "\"\"\")"),
            ]),
            (Shape::Go, 0) => Item::Lines(vec![
                rel("tmpl := `"),
                abs("", "<ul>"),
                abs("  ", "<li>{{.}}</li>"),
                abs("", "</ul>`"),
            ]),
            (Shape::Go, 1) => Item::Lines(vec![
                rel("q := `"),
                ext(u, "SELECT id"),
                ext(u, "FROM items"),
                rel("`"),
            ]),
            (Shape::Go, _) => Item::Block(Block {
                labels: true,
                shift: 0,
                ..block("switch x {", self.labels(ch), "}")
            }),
            (Shape::C, 0) => Item::Block(Block {
                head: vec![abs("", "#ifdef DEBUG")],
                close: vec![abs("", "#endif")],
                shift: 0,
                wrap: true,
                ..block("", self.body(ch, depth), "")
            }),
            (Shape::C, _) => Item::Block(Block {
                labels: true,
                shift: ch.n(2),
                ..block("switch (x) {", self.labels(ch), "}")
            }),
            (Shape::RustRaw, k) => Item::Lines(match k {
                0 => vec![
                    rel("let s = r#\""),
                    abs("", "fn main() {"),
                    abs("    ", "println!(\"hi\");"),
                    abs("", "}"),
                    abs("", "\"#;"),
                ],
                1 => vec![
                    rel("let src = r#\""),
                    abs("        ", "if x {"),
                    abs("            ", "y();"),
                    abs("        ", "}"),
                    abs("    ", "\"#;"),
                ],
                _ => vec![rel("let s = r#\"fn f() {"), ext(u, "body();"), rel("}\"#;")],
            }),
            (Shape::Js, 0) => Item::Block(Block {
                head: vec![rel("fetch(url)")],
                body: {
                    let mut links = vec![Item::Block(block(
                        ".then((res) => {",
                        vec![stmt("return res.json();")],
                        "})",
                    ))];
                    if ch.n(2) == 1 {
                        links.push(Item::Block(block(
                            ".then((data) => {",
                            self.body(ch, depth + 2),
                            "})",
                        )));
                    }
                    links.push(stmt(".catch(fail);"));
                    links
                },
                labels: true,
                ..block("", Vec::new(), "")
            }),
            (Shape::Js, _) => {
                let body = vec![self.stmt(ch)];
                self.wrap(ch, body, &[])
            }
        }
    }

    /// A switch's labels, each with its body one level deeper.
    fn labels(&self, ch: &mut Ch<'_>) -> Vec<Item> {
        let names: &[&str] = match self.shape {
            Shape::Go => &["case 1:", "case 2, 3:", "default:"],
            _ => &["case A:", "case B:", "default:"],
        };
        let count = 1 + ch.n(3);
        names[..count]
            .iter()
            .map(|name| {
                let mut body = vec![self.stmt(ch)];
                if self.shape == Shape::C {
                    body.push(stmt("break;"));
                }
                Item::Block(block(name, body, ""))
            })
            .collect()
    }

    fn item(&self, ch: &mut Ch<'_>, depth: usize) -> Item {
        let r = if depth >= 3 { ch.n(4) } else { ch.n(9) };
        match r {
            0..4 => self.stmt(ch),
            4 => {
                let body = self.body(ch, depth + 1);
                self.wrap(ch, body, &[])
            }
            5 => self.compound(ch, depth),
            6 => self.group(ch),
            7 => self.special(ch, depth),
            _ => stmt(""),
        }
    }

    /// A whole file.
    fn file(&self, ch: &mut Ch<'_>) -> Vec<Item> {
        match self.shape {
            Shape::Python => {
                if ch.n(2) == 0 {
                    vec![
                        stmt("import os"),
                        stmt(""),
                        Item::Block(block("def load(path):", self.body(ch, 1), "")),
                    ]
                } else {
                    let method = block("def get(self, key):", self.body(ch, 2), "");
                    vec![Item::Block(Block {
                        labels: true,
                        ..block("class Store:", vec![Item::Block(method)], "")
                    })]
                }
            }
            Shape::Go => vec![
                stmt("package main"),
                stmt(""),
                Item::Block(block("func run(x int) error {", self.body(ch, 1), "}")),
            ],
            Shape::C => vec![
                stmt("#include <stdio.h>"),
                stmt(""),
                Item::Block(Block {
                    head: vec![rel("static int parse(const char *s)"), rel("{")],
                    ..block("", self.body(ch, 1), "}")
                }),
            ],
            Shape::RustRaw => {
                let mut body = self.body(ch, 2);
                let at = ch.n(body.len() + 1);
                body.insert(at, self.special(ch, 2));
                vec![
                    stmt("#[cfg(test)]"),
                    Item::Block(Block {
                        labels: true,
                        ..block(
                            "mod tests {",
                            vec![
                                stmt("use super::*;"),
                                stmt(""),
                                stmt("#[test]"),
                                Item::Block(block("fn parses() {", body, "}")),
                            ],
                            "}",
                        )
                    }),
                ]
            }
            Shape::Js => {
                if ch.n(2) == 0 {
                    let it = block("it(\"loads\", () => {", self.body(ch, 2), "});");
                    vec![Item::Block(block(
                        "describe(\"store\", function () {",
                        vec![Item::Block(it)],
                        "});",
                    ))]
                } else {
                    vec![Item::Block(block(
                        "function load(url) {",
                        self.body(ch, 1),
                        "}",
                    ))]
                }
            }
        }
    }
}

/// The item lists of a tree, each with its path (item index, then 0 for the
/// body or k for the k-th further clause) and whether it holds labels.
fn containers(
    items: &[Item],
    path: &mut Vec<(usize, usize)>,
    out: &mut Vec<(Vec<(usize, usize)>, bool)>,
) {
    for (i, item) in items.iter().enumerate() {
        if let Item::Block(b) = item {
            path.push((i, 0));
            out.push((path.clone(), b.labels));
            containers(&b.body, path, out);
            path.pop();
            for (k, (_, body)) in b.rest.iter().enumerate() {
                path.push((i, k + 1));
                out.push((path.clone(), false));
                containers(body, path, out);
                path.pop();
            }
        }
    }
}

fn container_mut<'a>(items: &'a mut Vec<Item>, path: &[(usize, usize)]) -> &'a mut Vec<Item> {
    match path.split_first() {
        None => items,
        Some((&(i, k), tail)) => {
            let Item::Block(b) = &mut items[i] else {
                unreachable!("a path goes through blocks")
            };
            let body = if k == 0 {
                &mut b.body
            } else {
                &mut b.rest[k - 1].1
            };
            container_mut(body, tail)
        }
    }
}

/// A renaming: `2` after the line's last word of two letters or more.
fn mutate(text: &str) -> String {
    let b = text.as_bytes();
    let word = |i: usize| b[i].is_ascii_alphanumeric() || b[i] == b'_';
    let at = (1..b.len())
        .rev()
        .find(|&i| word(i) && word(i - 1) && (i + 1 == b.len() || !word(i + 1)));
    match at {
        Some(at) => format!("{}2{}", &text[..=at], &text[at + 1..]),
        None => format!("{text} x"),
    }
}

/// A statement the edit adds: one the file does not hold yet, since a new
/// line that repeats one of the replaced lines at another depth is what text
/// alone cannot tell from a copy (a line moved by the edit is `wrap`'s and
/// `unwrap`'s business).
fn fresh(lang: &Lang, ch: &mut Ch<'_>, file: &[String]) -> Item {
    let pool = lang.stmts();
    let at = ch.n(pool.len());
    let used = |t: &str| file.iter().any(|l| l.trim() == t);
    let mut text = (0..pool.len())
        .map(|i| pool[(at + i) % pool.len()].to_string())
        .find(|t| !used(t))
        .unwrap_or_else(|| pool[at].to_string());
    while used(&text) {
        text = mutate(&text);
    }
    stmt(&text)
}

/// An edit of a tree as commits make them; the name of what it did.
fn edit_tree(lang: &Lang, tree: &mut Vec<Item>, ch: &mut Ch<'_>, file: &[String]) -> &'static str {
    let mut all = Vec::new();
    containers(tree, &mut Vec::new(), &mut all);
    let (path, labels) = all[ch.n(all.len())].clone();
    let c = container_mut(tree, &path);
    let mut k = ch.n(c.len());
    if labels {
        k = (0..c.len())
            .map(|i| (k + i) % c.len())
            .find(|&i| !c[i].is_blank())
            .unwrap_or(k);
    }
    let op = if labels { 0 } else { ch.n(6) };
    // A label, a chain's link or a scope's item (`use super::*;`, `#[test]`,
    // `.catch(fail);`) is renamed, never replaced by a statement: a statement
    // written at a link's depth or in a module's scope is no code.
    let modify = |item: &mut Item, ch: &mut Ch<'_>| match item {
        Item::Lines(ls) => {
            let lines: Vec<usize> = (0..ls.len()).filter(|&j| !ls[j].text.is_empty()).collect();
            let j = lines[ch.n(lines.len())];
            let single = ls.len() == 1 && matches!(&ls[j].ind, Ind::Rel(x) if x.is_empty());
            ls[j].text = if single && !labels && ch.n(2) == 1 {
                let Item::Lines(other) = fresh(lang, ch, file) else {
                    unreachable!()
                };
                other[0].text.clone()
            } else {
                mutate(&ls[j].text)
            };
        }
        Item::Block(b) => b.head[0].text = mutate(&b.head[0].text),
    };
    match op {
        0 if c[k].is_blank() => {
            c[k] = fresh(lang, ch, file);
            "modify"
        }
        0 => {
            modify(&mut c[k], ch);
            "modify"
        }
        1 => {
            let at = ch.n(c.len() + 1);
            let new = if ch.n(4) == 3 {
                let body = vec![fresh(lang, ch, file)];
                lang.wrap(ch, body, file)
            } else {
                fresh(lang, ch, file)
            };
            c.insert(at, new);
            "insert"
        }
        2 if c
            .iter()
            .enumerate()
            .any(|(i, item)| i != k && !item.is_blank()) =>
        {
            c.remove(k);
            "delete"
        }
        3 => {
            // What is wrapped starts with code: a block around blank lines
            // only (a Python header with no deeper line, an empty `{ }`) is
            // no edit a commit makes.
            let k = (0..c.len())
                .map(|i| (k + i) % c.len())
                .find(|&i| !c[i].is_blank())
                .unwrap_or(k);
            let n = (1 + ch.n(2)).min(c.len() - k);
            let body: Vec<Item> = c.drain(k..k + n).collect();
            let w = lang.wrap(ch, body, file);
            c.insert(k, w);
            "wrap"
        }
        4 => {
            let at = (0..c.len())
                .map(|i| (k + i) % c.len())
                .find(|&i| matches!(&c[i], Item::Block(b) if b.wrap && b.rest.is_empty()));
            match at {
                Some(i) => {
                    let Item::Block(b) = c.remove(i) else {
                        unreachable!()
                    };
                    c.splice(i..i, b.body);
                    "unwrap"
                }
                None => {
                    c.insert(k, fresh(lang, ch, file));
                    "insert"
                }
            }
        }
        _ => {
            if c[k].is_blank() {
                c[k] = fresh(lang, ch, file);
            } else {
                modify(&mut c[k], ch);
            }
            // The added line does not repeat the changed one either.
            let mut seen = file.to_vec();
            flatten(&c[k..=k], 0, "", &mut seen);
            c.insert(k + 1, fresh(lang, ch, &seen));
            "modify+insert"
        }
    }
}

impl Item {
    fn is_blank(&self) -> bool {
        matches!(self, Item::Lines(ls) if ls.iter().all(|l| l.text.is_empty()))
    }
}

/// One generated case: the file's lines, the span `start..end` of them that
/// the edit replaces with `new_lines`, and the intended file.
#[derive(Debug)]
struct Case {
    shape: Shape,
    op: &'static str,
    lines: Vec<String>,
    start: usize,
    end: usize,
    new_lines: Vec<String>,
}

impl Case {
    fn text(&self) -> String {
        join(&self.lines)
    }

    fn intended(&self) -> String {
        let lines: Vec<String> = self.lines[..self.start]
            .iter()
            .chain(&self.new_lines)
            .chain(&self.lines[self.end..])
            .cloned()
            .collect();
        join(&lines)
    }
}

fn join(lines: &[String]) -> String {
    lines.iter().map(|l| format!("{l}\n")).collect()
}

/// Where `needle` stands in `hay`, overlapping occurrences included.
fn occurrences<'a>(hay: &'a str, needle: &'a str) -> impl Iterator<Item = usize> + 'a {
    let finder = memmem::Finder::new(needle.as_bytes());
    let mut from = 0;
    std::iter::from_fn(move || {
        let at = from + finder.find(&hay.as_bytes()[from.min(hay.len())..])?;
        from = at + 1;
        Some(at)
    })
}

fn indent_of(l: &str) -> &str {
    &l[..l.len() - l.trim_start_matches([' ', '\t']).len()]
}

/// The case from its choices: a file, an edit, and the context around it.
/// `None` when the span the edit needs is not 1 to 5 lines.
fn make_case(
    shape: Shape,
    tabs: bool,
    tree: &[u8],
    edit: &[u8],
    ctx: (usize, usize),
) -> Option<Case> {
    let unit = match shape {
        Shape::Go => "\t",
        Shape::C if tabs => "\t",
        Shape::Js => "  ",
        _ => "    ",
    };
    let lang = Lang {
        shape,
        unit: unit.to_string(),
    };
    let mut ch = Ch { v: tree, i: 0 };
    let items = lang.file(&mut ch);
    let mut edited = items.clone();
    let mut old = Vec::new();
    flatten(&items, 0, unit, &mut old);
    let op = edit_tree(&lang, &mut edited, &mut Ch { v: edit, i: 0 }, &old);
    let mut new = Vec::new();
    flatten(&edited, 0, unit, &mut new);
    let p = old.iter().zip(&new).take_while(|(a, b)| a == b).count();
    let q = old[p..]
        .iter()
        .rev()
        .zip(new[p..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    if p == old.len() && p == new.len() {
        return None;
    }
    let (mut start, mut end) = (p, old.len() - q);
    let (mut before, after) = ctx;
    if start == end && before + after == 0 {
        before = 1;
    }
    let before = before.min(start);
    let after = after.min(old.len() - end);
    start -= before;
    end += after;
    if end == start {
        // Only a pure insertion at the file's very start or end is left.
        if end < old.len() {
            end += 1;
        } else {
            start -= 1;
        }
    }
    (end - start <= 5).then(|| Case {
        shape,
        op,
        new_lines: new[start..new.len() - (old.len() - end)].to_vec(),
        lines: old,
        start,
        end,
    })
}

/// How an edit was sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Slip {
    None,
    Dedent { old_frame: bool },
    FirstLine { old_frame: bool },
}

impl Slip {
    const ALL: [Slip; 5] = [
        Slip::None,
        Slip::Dedent { old_frame: true },
        Slip::Dedent { old_frame: false },
        Slip::FirstLine { old_frame: true },
        Slip::FirstLine { old_frame: false },
    ];
}

/// oldText and newText as sent with `slip`, or `None` when the slip changes
/// nothing or loses what no frame can restore.
fn slipped(old: &[String], new: &[String], slip: Slip) -> Option<(Vec<String>, Vec<String>)> {
    match slip {
        Slip::None => Some((old.to_vec(), new.to_vec())),
        Slip::Dedent { old_frame } => {
            // The common indentation of the non-blank lines, as a prefix (tabs
            // in a tab-indented file).
            let mut prefix: Option<&str> = None;
            for l in old.iter().filter(|l| !l.trim().is_empty()) {
                let ind = indent_of(l);
                prefix = Some(match prefix {
                    None => ind,
                    Some(p) => {
                        let n = p
                            .bytes()
                            .zip(ind.bytes())
                            .take_while(|(a, b)| a == b)
                            .count();
                        &p[..n]
                    }
                });
            }
            let prefix = prefix.filter(|p| !p.is_empty())?;
            let cut = |ls: &[String]| -> Option<Vec<String>> {
                ls.iter()
                    .map(|l| match l.strip_prefix(prefix) {
                        Some(rest) => Some(rest.to_string()),
                        None if l.trim().is_empty() => Some(l.clone()),
                        None => None,
                    })
                    .collect()
            };
            let o = cut(old)?;
            let n = if old_frame { cut(new)? } else { new.to_vec() };
            Some((o, n))
        }
        Slip::FirstLine { old_frame } => {
            let first = indent_of(&old[0]);
            if first.is_empty() || old[0].trim().is_empty() {
                return None;
            }
            let mut o = old.to_vec();
            o[0] = o[0].trim_start().to_string();
            let mut n = new.to_vec();
            if old_frame && !n.is_empty() && !n[0].trim().is_empty() {
                // Both first lines lose their indentation; when newText's had
                // another, cutting it lost what no frame can restore.
                if indent_of(&n[0]) != first {
                    return None;
                }
                n[0] = n[0].trim_start().to_string();
            }
            Some((o, n))
        }
    }
}

/// A result that is neither the intended file nor a refusal.
#[derive(Debug)]
struct Wrong {
    shape: Shape,
    op: &'static str,
    slip: Slip,
    stage: String,
    file: String,
    old: String,
    new: String,
    intended: String,
    got: String,
}

impl std::fmt::Display for Wrong {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "shape {:?}, edit {}, slip {:?}, stage {}",
            self.shape, self.op, self.slip, self.stage
        )?;
        writeln!(f, "file:     {:?}", self.file)?;
        writeln!(f, "oldText:  {:?}", self.old)?;
        writeln!(f, "newText:  {:?}", self.new)?;
        writeln!(f, "intended: {:?}", self.intended)?;
        write!(f, "got:      {:?}", self.got)
    }
}

/// What one case's calls did, each slip counted once.
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    applied: usize,
    refused: usize,
    skipped: usize,
}

/// Every slip of one case: the unslipped edit of a unique oldText is applied,
/// and every call writes the intended file or is refused.
fn check_edit(case: &Case, tally: &mut Tally) -> Result<(), Box<Wrong>> {
    let text = case.text();
    let intended = case.intended();
    let old_lines = &case.lines[case.start..case.end];
    let region = case.lines[..case.start]
        .iter()
        .map(|l| l.len() + 1)
        .sum::<usize>();
    let cut_first = indent_of(&old_lines[0]).len();
    for slip in Slip::ALL {
        let Some((o, n)) = slipped(old_lines, &case.new_lines, slip) else {
            tally.skipped += 1;
            continue;
        };
        let (old, new) = (join(&o), join(&n));
        // oldText as sent must not also stand somewhere else in the file: then
        // no tool can know which place was meant.
        let elsewhere = occurrences(&text, &old).any(|at| at < region || at > region + cut_first);
        if old.trim().is_empty() || old == new || elsewhere {
            tally.skipped += 1;
            continue;
        }
        let wrong = |got: String, stage: String| {
            Box::new(Wrong {
                shape: case.shape,
                op: case.op,
                slip,
                stage,
                file: text.clone(),
                old: old.clone(),
                new: new.clone(),
                intended: intended.clone(),
                got,
            })
        };
        match apply_edit(&text, &old, &new, false) {
            Ok(r) if r.text == intended => tally.applied += 1,
            Ok(r) => return Err(wrong(r.text, format!("{:?}", r.stage))),
            Err(e) if slip == Slip::None => {
                return Err(wrong(format!("refused: {e:?}"), "-".into()));
            }
            Err(_) => tally.refused += 1,
        }
    }
    Ok(())
}

/// Which line of the old side each line of the new side is, when it is
/// context: a line diff's equal runs, as a diff tool writes the hunk.
fn context_of(old: &[String], new: &[String]) -> Vec<Option<usize>> {
    let mut context = vec![None; new.len()];
    for op in similar::capture_diff_slices(Algorithm::Myers, old, new) {
        if op.tag() == DiffTag::Equal {
            for (i, j) in op.old_range().zip(op.new_range()) {
                context[j] = Some(i);
            }
        }
    }
    context
}

/// A hunk of whole lines, its context from a line diff of its sides.
fn hunk_of(old: &str, new: &str) -> HunkSpec {
    let lines = |t: &str| t.lines().map(str::to_string).collect::<Vec<_>>();
    HunkSpec {
        old: old.to_string(),
        new: new.to_string(),
        at_line: None,
        anchor: None,
        at_end: false,
        new_no_newline: false,
        context: context_of(&lines(old), &lines(new)),
    }
}

/// The same edit as an apply_patch hunk (context lines from a line diff of
/// the two sides), unslipped and with the dedent slip in both conventions.
fn check_hunk(case: &Case, tally: &mut Tally) -> Result<(), Box<Wrong>> {
    let text = case.text();
    let intended = case.intended();
    let old_lines = &case.lines[case.start..case.end];
    let region = case.lines[..case.start]
        .iter()
        .map(|l| l.len() + 1)
        .sum::<usize>();
    let context = context_of(old_lines, &case.new_lines);
    for slip in [
        Slip::None,
        Slip::Dedent { old_frame: true },
        Slip::Dedent { old_frame: false },
    ] {
        let Some((o, mut n)) = slipped(old_lines, &case.new_lines, slip) else {
            tally.skipped += 1;
            continue;
        };
        // Context lines are the old side's, slip and all.
        for (j, c) in context.iter().enumerate() {
            if let Some(i) = *c {
                n[j] = o[i].clone();
            }
        }
        let (old, new) = (join(&o), join(&n));
        // The old side as whole lines elsewhere in the file.
        let lines_elsewhere = occurrences(&text, &old)
            .filter(|&at| at == 0 || text.as_bytes()[at - 1] == b'\n')
            .any(|at| slip != Slip::None || at != region);
        if old.trim().is_empty() || old == new || lines_elsewhere {
            tally.skipped += 1;
            continue;
        }
        let spec = HunkSpec {
            context: context.clone(),
            ..hunk_of(&old, &new)
        };
        let wrong = |got: String, stage: String| {
            Box::new(Wrong {
                shape: case.shape,
                op: case.op,
                slip,
                stage,
                file: text.clone(),
                old: old.clone(),
                new: new.clone(),
                intended: intended.clone(),
                got,
            })
        };
        match plan_hunks(&text, &[spec], false) {
            Ok(p) if p.text == intended => tally.applied += 1,
            Ok(p) => return Err(wrong(p.text, format!("{:?}", p.placed[0].stage))),
            Err(e) if slip == Slip::None => {
                return Err(wrong(format!("refused: {e:?}"), "-".into()));
            }
            Err(_) => tally.refused += 1,
        }
    }
    Ok(())
}

fn choices() -> impl Strategy<Value = (Vec<u8>, Vec<u8>, (usize, usize), bool)> {
    (
        prop::collection::vec(any::<u8>(), 0..40),
        prop::collection::vec(any::<u8>(), 0..8),
        (0usize..3, 0usize..3),
        any::<bool>(),
    )
}

fn edit_property(
    shape: Shape,
    (tree, edit, ctx, tabs): (Vec<u8>, Vec<u8>, (usize, usize), bool),
) -> Result<(), TestCaseError> {
    let case = make_case(shape, tabs, &tree, &edit, ctx);
    prop_assume!(case.is_some());
    if let Err(w) = check_edit(&case.unwrap(), &mut Tally::default()) {
        prop_assert!(false, "{w}");
    }
    Ok(())
}

fn hunk_property(
    shape: Shape,
    (tree, edit, ctx, tabs): (Vec<u8>, Vec<u8>, (usize, usize), bool),
) -> Result<(), TestCaseError> {
    let case = make_case(shape, tabs, &tree, &edit, ctx);
    prop_assume!(case.is_some());
    if let Err(w) = check_hunk(&case.unwrap(), &mut Tally::default()) {
        prop_assert!(false, "{w}");
    }
    Ok(())
}

const SHAPES: [Shape; 5] = [
    Shape::Python,
    Shape::Go,
    Shape::C,
    Shape::RustRaw,
    Shape::Js,
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6000))]

    /// Python: 4-space blocks under `:` headers, `if`/`else`, `try`/`except`,
    /// continued calls, docstrings and triple-quoted data.
    #[test]
    fn python_edits_are_right_or_refused(c in choices()) {
        edit_property(Shape::Python, c)?;
    }

    /// Go: tabs, `switch` with `case` labels at its depth, raw strings.
    #[test]
    fn go_edits_are_right_or_refused(c in choices()) {
        edit_property(Shape::Go, c)?;
    }

    /// C, 4 spaces or tabs: `switch` with labels indented or not, `#ifdef` at
    /// column 0, continued conditions, `/* */` comments, a function's `{` alone.
    #[test]
    fn c_edits_are_right_or_refused(c in choices()) {
        edit_property(Shape::C, c)?;
    }

    /// A Rust test whose body holds `r#"…"#` strings of code at their own
    /// indentation.
    #[test]
    fn rust_raw_string_edits_are_right_or_refused(c in choices()) {
        edit_property(Shape::RustRaw, c)?;
    }

    /// JavaScript, 2 spaces: callbacks closed by `});`, `.then` chains.
    #[test]
    fn js_callback_edits_are_right_or_refused(c in choices()) {
        edit_property(Shape::Js, c)?;
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(5000))]

    /// The Python edits as apply_patch hunks, context lines slipped.
    #[test]
    fn python_hunks_are_right_or_refused(c in choices()) {
        hunk_property(Shape::Python, c)?;
    }

    /// The brace languages' edits as apply_patch hunks, context lines slipped.
    #[test]
    fn brace_hunks_are_right_or_refused(shape in 1usize..5, c in choices()) {
        hunk_property(SHAPES[shape], c)?;
    }
}

/// Not a test of the rule: a survey of it. Runs many cases of every shape,
/// counts the calls applied, refused and skipped, and prints the smallest
/// wrong result of each kind (`cargo test --lib explore_shapes -- --ignored
/// --nocapture`).
#[test]
#[ignore = "a survey, run by hand"]
fn explore_shapes() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    use std::collections::BTreeMap;
    let per_shape: usize = std::env::var("SHAPES_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(6000);
    let mut found: BTreeMap<String, (usize, Wrong)> = BTreeMap::new();
    for hunks in [false, true] {
        for shape in SHAPES {
            let mut runner = TestRunner::deterministic();
            let (mut tally, mut cases, mut wrong) = (Tally::default(), 0, 0);
            let run = |c: &(Vec<u8>, Vec<u8>, (usize, usize), bool), t: &mut Tally| {
                let case = make_case(shape, c.3, &c.0, &c.1, c.2)?;
                let r = if hunks {
                    check_hunk(&case, t)
                } else {
                    check_edit(&case, t)
                };
                r.err()
            };
            let sig = |w: &Wrong| {
                format!(
                    "{} {:?} {:?} {} {}",
                    if hunks { "hunk" } else { "edit" },
                    w.shape,
                    w.slip,
                    w.op,
                    w.stage
                )
            };
            for _ in 0..per_shape {
                let mut tree = choices().new_tree(&mut runner).unwrap();
                let c = tree.current();
                if make_case(shape, c.3, &c.0, &c.1, c.2).is_none() {
                    continue;
                }
                cases += 1;
                let Some(w) = run(&c, &mut tally) else {
                    continue;
                };
                wrong += 1;
                let key = sig(&w);
                // Shrink while the wrong result stays of its kind.
                let mut best = w;
                if tree.simplify() {
                    for _ in 0..2000 {
                        match run(&tree.current(), &mut Tally::default()) {
                            Some(w) if sig(&w) == key => {
                                best = w;
                                if !tree.simplify() {
                                    break;
                                }
                            }
                            _ => {
                                if !tree.complicate() {
                                    break;
                                }
                            }
                        }
                    }
                }
                let seen = found.get(&key).map_or(0, |f| f.0);
                let smaller = found.get(&key).is_none_or(|(_, f)| {
                    f.file.len() + f.old.len() > best.file.len() + best.old.len()
                });
                if smaller {
                    found.insert(key, (seen + 1, *best));
                } else if let Some(f) = found.get_mut(&key) {
                    f.0 += 1;
                }
            }
            println!(
                "{} {shape:?}: {cases} cases, {wrong} wrong; calls applied {}, refused {}, skipped {}",
                if hunks { "hunks" } else { "edits" },
                tally.applied,
                tally.refused,
                tally.skipped
            );
        }
    }
    for (key, (seen, w)) in &found {
        println!("\n== {key} ({seen} found)\n{w}");
    }
}

// The smallest wrong results the properties found, each as a plain test of
// the same rule: the intended file, or a refusal.

fn right_or_refused(text: &str, old: &str, new: &str, intended: &str) {
    if let Ok(r) = apply_edit(text, old, new, false) {
        assert_eq!(r.text, intended, "oldText {old:?} newText {new:?}");
    }
}

fn hunk_right_or_refused(text: &str, old: &str, new: &str, intended: &str) {
    if let Ok(p) = plan_hunks(text, &[hunk_of(old, new)], false) {
        assert_eq!(p.text, intended, "old side {old:?} new side {new:?}");
    }
}

/// C, dedent, newText at the file's indentation: the `}` of an `if` whose
/// condition is continued on a second line is written under the
/// continuation (`b) {`), not under the `if`.
#[test]
fn regression_c_continued_condition_file_frame() {
    right_or_refused(
        "{\n    x = compute(y);\n    if (a &&\n        b) {\n        x = compute(y);\n    }\n}\n",
        "    x = compute(y);\n}\n",
        "        x = compute2(y);\n    }\n",
        "{\n    x = compute(y);\n    if (a &&\n        b) {\n        x = compute2(y);\n    }\n}\n",
    );
}

/// C, dedent, newText cut like oldText: the continued `if` is written at
/// column 0, its kept lines included.
#[test]
fn regression_c_continued_condition_old_frame() {
    right_or_refused(
        "{\n    if (a &&\n        b) {\n        x = compute(y);\n    }\n}\n",
        "if (a &&\n    b) {\n    x = compute(y);\n",
        "if (a &&\n    b) {\n    x = compute2(y);\n",
        "{\n    if (a &&\n        b) {\n        x = compute2(y);\n    }\n}\n",
    );
}

/// Go, dedent (one line: the exact stage at its own place), newText cut like
/// oldText with a line added before the kept `} else {`: written as sent,
/// the `} else {` at column 0.
#[test]
fn regression_go_else_exact_old_frame() {
    right_or_refused(
        "func run(x int) error {\n\tif x > 0 {\n\t\treturn err\n\t} else {\n\t\treturn nil\n\t}\n}\n",
        "} else {\n",
        "\tlog.Print(x)\n} else {\n",
        "func run(x int) error {\n\tif x > 0 {\n\t\treturn err\n\t\tlog.Print(x)\n\t} else {\n\t\treturn nil\n\t}\n}\n",
    );
}

/// JavaScript, the same with a callback's `}, 100);`.
#[test]
fn regression_js_callback_closer_exact_old_frame() {
    right_or_refused(
        "function load(url) {\n  setTimeout(() => {\n    render(data);\n  }, 100);\n}\n",
        "}, 100);\n",
        "  done();\n}, 100);\n",
        "function load(url) {\n  setTimeout(() => {\n    render(data);\n    done();\n  }, 100);\n}\n",
    );
}

/// Python, first-line slip on a continuation line (`b)` aligned under the
/// call), the line added after it at the file's indentation: indented again
/// by the cut, deeper than a finished statement.
#[test]
fn regression_python_continuation_first_line_old_frame() {
    right_or_refused(
        "def load(path):\n    value = call(a,\n                 b)\n",
        "b)\n",
        "b)\n    return value\n",
        "def load(path):\n    value = call(a,\n                 b)\n    return value\n",
    );
}

/// Python, the same after the last line of a method (the line added to the
/// class body).
#[test]
fn regression_python_body_end_first_line_old_frame() {
    right_or_refused(
        "class Store:\n    def get(self, key):\n        pass\n",
        "pass\n",
        "pass\n    size = 0\n",
        "class Store:\n    def get(self, key):\n        pass\n    size = 0\n",
    );
}

/// Go, the same with tabs: `args)` closing a continued call.
#[test]
fn regression_go_continuation_first_line_old_frame() {
    right_or_refused(
        "func run(x int) error {\n\terr := run(ctx,\n\t\targs)\n}\n",
        "args)\n",
        "args)\n\treturn err\n",
        "func run(x int) error {\n\terr := run(ctx,\n\t\targs)\n\treturn err\n}\n",
    );
}

/// C, first-line slip, newText at the file's indentation wrapping a line in
/// `#ifdef` (column 0): the `#ifdef` takes the cut indentation.
#[test]
fn regression_c_ifdef_wrap_first_line_file_frame() {
    right_or_refused(
        "{\n    x = compute(y);\n}\n",
        "x = compute(y);\n}\n",
        "#ifdef DEBUG\n    x = compute(y);\n#endif\n}\n",
        "{\n#ifdef DEBUG\n    x = compute(y);\n#endif\n}\n",
    );
}

/// C, dedent of one line, newText at the file's indentation wrapping it in
/// `#ifdef`: every line indented again, the kept line at 8.
#[test]
fn regression_c_ifdef_wrap_dedent_file_frame() {
    right_or_refused(
        "{\n    x = compute(y);\n    n++;\n}\n",
        "x = compute(y);\n",
        "#ifdef DEBUG\n    x = compute(y);\n#endif\n",
        "{\n#ifdef DEBUG\n    x = compute(y);\n#endif\n    n++;\n}\n",
    );
}

/// Python, dedent, newText at the file's indentation unwrapping an `if`:
/// the body line, one level shallower now, is read as a copy in oldText's
/// frame and written one level too deep.
#[test]
fn regression_python_unwrap_dedent_file_frame() {
    right_or_refused(
        "def load(path):\n    if x is None:\n        return x\n    print(x)\n",
        "if x is None:\n    return x\n",
        "    return x\n",
        "def load(path):\n    return x\n    print(x)\n",
    );
}

/// Go, the same with tabs.
#[test]
fn regression_go_unwrap_dedent_file_frame() {
    right_or_refused(
        "func run(x int) error {\n\tif err != nil {\n\t\tlog.Print(err)\n\t}\n\treturn nil\n}\n",
        "if err != nil {\n\tlog.Print(err)\n}\n",
        "\tlog.Print(err)\n",
        "func run(x int) error {\n\tlog.Print(err)\n\treturn nil\n}\n",
    );
}

const RAW: &str = "mod tests {\n    use super::*;\n\n    #[test]\n    fn parses() {\n        let s = r#\"fn f() {\n            body();\n        }\"#;\n        let out = parse(s);\n    }\n}\n";

/// Rust, a raw string whose first line opens a `{` the string's last line
/// (`}"#;`) closes: dedent, newText at the file's indentation, written one
/// level too deep.
#[test]
fn regression_rust_raw_string_file_frame() {
    right_or_refused(
        RAW,
        "#[test]\nfn parses() {\n",
        "    #[test]\n    fn parses2() {\n",
        &RAW.replace("fn parses()", "fn parses2()"),
    );
}

/// Rust, the same raw string, newText cut like oldText: written as sent,
/// the function's `}` at the module's depth.
#[test]
fn regression_rust_raw_string_old_frame() {
    right_or_refused(
        RAW,
        "    let out = parse(s);\n}\n",
        "    let out = parse2(s);\n}\n",
        &RAW.replace("parse(s)", "parse2(s)"),
    );
}

/// apply_patch, C, one removed and one added line cut by the dedent slip,
/// after `#ifdef` at column 0: the added line is written at column 0.
#[test]
fn regression_hunk_c_ifdef_old_frame() {
    hunk_right_or_refused(
        "{\n#ifdef DEBUG\n    x = compute(y);\n#endif\n}\n",
        "x = compute(y);\n",
        "x = compute2(y);\n",
        "{\n#ifdef DEBUG\n    x = compute2(y);\n#endif\n}\n",
    );
}

/// apply_patch, Python, the same after a triple-quoted string whose data
/// ends at column 0.
#[test]
fn regression_hunk_python_string_data_old_frame() {
    hunk_right_or_refused(
        "def load(path):\n    text = \"\"\"\\\ndef g():\n    return 1\n\"\"\"\n    return x\n",
        "return x\n",
        "return text\n",
        "def load(path):\n    text = \"\"\"\\\ndef g():\n    return 1\n\"\"\"\n    return text\n",
    );
}

/// apply_patch, Go, the same on a continuation line (`args)`).
#[test]
fn regression_hunk_go_continuation_old_frame() {
    hunk_right_or_refused(
        "func run(x int) error {\n\terr := run(ctx,\n\t\targs)\n}\n",
        "args)\n",
        "args...)\n",
        "func run(x int) error {\n\terr := run(ctx,\n\t\targs...)\n}\n",
    );
}

/// apply_patch, Go, dedent, new side cut like the old: a changed line of a
/// `case` body before the next `case` (context) is written at the label's
/// depth.
#[test]
fn regression_hunk_go_case_body_old_frame() {
    hunk_right_or_refused(
        "func run(x int) error {\n\tswitch x {\n\tcase 1:\n\t\tx := compute(y)\n\tcase 2, 3:\n\t\treturn err\n\t}\n}\n",
        "\tx := compute(y)\ncase 2, 3:\n",
        "\tx := compute(y, z)\ncase 2, 3:\n",
        "func run(x int) error {\n\tswitch x {\n\tcase 1:\n\t\tx := compute(y, z)\n\tcase 2, 3:\n\t\treturn err\n\t}\n}\n",
    );
}

/// apply_patch, C with tabs, dedent, new side cut like the old: a continued
/// condition's alignment (tab, then 4 spaces) is rewritten as tabs.
#[test]
fn regression_hunk_c_tab_aligned_continuation_old_frame() {
    hunk_right_or_refused(
        "{\n\tswitch (x) {\n\tcase A:\n\t\ttotal += v;\n\t\tbreak;\n\t}\n}\n",
        "case A:\n",
        "case A:\n\tif (a &&\n\t    b) {\n\t\tn++;\n\t}\n",
        "{\n\tswitch (x) {\n\tcase A:\n\t\tif (a &&\n\t\t    b) {\n\t\t\tn++;\n\t\t}\n\t\ttotal += v;\n\t\tbreak;\n\t}\n}\n",
    );
}

/// apply_patch, Go, dedent, one line removed and one added at the file's
/// indentation: the added line is indented again.
#[test]
fn regression_hunk_go_one_line_file_frame() {
    hunk_right_or_refused(
        "func run(x int) error {\n\terr := run(ctx,\n\t\targs)\n}\n",
        "err := run(ctx,\n",
        "\terr := run(ctx2,\n",
        "func run(x int) error {\n\terr := run(ctx2,\n\t\targs)\n}\n",
    );
}

/// apply_patch, Go, dedent: an old side of a blank line and `}` (the end of
/// an `else`) is placed at the function's closing `}`, where no blank line
/// stands, and the added line lands after the function.
#[test]
fn regression_hunk_go_leading_blank_line_old_frame() {
    hunk_right_or_refused(
        "func run(x int) error {\n\tif x > 0 {\n\t\tn++\n\t} else {\n\t\tn--\n\n\t}\n\treturn err\n}\n",
        "\n}\n",
        "\n}\nx := compute(y)\n",
        "func run(x int) error {\n\tif x > 0 {\n\t\tn++\n\t} else {\n\t\tn--\n\n\t}\n\tx := compute(y)\n\treturn err\n}\n",
    );
}

/// C, dedent of one line (the anchored exact match), newText cut like
/// oldText wrapping it in an `if` whose condition is continued: written as
/// sent after the line's indentation, the `}` at column 0 under an `if` at 4.
#[test]
fn regression_c_continued_condition_wrap_exact_old_frame() {
    right_or_refused(
        "{\n    total += v;\n}\n",
        "total += v;\n",
        "if (a &&\n    b) {\n    total += v;\n}\n",
        "{\n    if (a &&\n        b) {\n        total += v;\n    }\n}\n",
    );
}

/// C, dedent of a `}` and the blank line after it (the anchored exact
/// match), newText cut like oldText with a line added before the kept `}`:
/// written as sent, the added line at the `if`'s depth and the `}` at
/// column 0.
#[test]
fn regression_c_closer_blank_line_exact_old_frame() {
    right_or_refused(
        "{\n    if (p == NULL) {\n        x = compute(y);\n    }\n\n}\n",
        "}\n\n",
        "    total += v;\n}\n\n",
        "{\n    if (p == NULL) {\n        x = compute(y);\n        total += v;\n    }\n\n}\n",
    );
}

/// C, first-line slip of one line (the anchored exact match), an `#ifdef`
/// block added after it at the file's indentation (`#ifdef` at column 0):
/// every added line is indented again by the cut, the `#ifdef` at 4 and its
/// statement at 8.
#[test]
fn regression_c_ifdef_insert_first_line_old_frame() {
    right_or_refused(
        "{\n    total += v;\n}\n",
        "total += v;\n",
        "total += v;\n#ifdef DEBUG\n    x = compute(y);\n#endif\n",
        "{\n    total += v;\n#ifdef DEBUG\n    x = compute(y);\n#endif\n}\n",
    );
}

/// C with tabs, dedent, newText cut like oldText adding an `if` whose
/// condition is continued (a tab, then 4 spaces of alignment): the
/// alignment is rewritten as tabs.
#[test]
fn regression_c_tab_aligned_continuation_insert_old_frame() {
    right_or_refused(
        "{\n\tx = compute(y);\n\tn++;\n}\n",
        "x = compute(y);\nn++;\n",
        "x = compute(y);\nn++;\nif (a &&\n    b) {\n\ttotal += v;\n}\n",
        "{\n\tx = compute(y);\n\tn++;\n\tif (a &&\n\t    b) {\n\t\ttotal += v;\n\t}\n}\n",
    );
}

/// apply_patch, C with tabs, dedent, new side cut like the old wrapping a
/// line in an `if` whose condition is continued: the 4 spaces of alignment
/// are rewritten as tabs.
#[test]
fn regression_hunk_c_tab_aligned_continuation_wrap_old_frame() {
    hunk_right_or_refused(
        "{\n\tx = compute(y);\n}\n",
        "x = compute(y);\n",
        "if (a &&\n    b) {\n\tx = compute(y);\n}\n",
        "{\n\tif (a &&\n\t    b) {\n\t\tx = compute(y);\n\t}\n}\n",
    );
}

/// apply_patch, C with tabs, dedent, the added lines at the file's
/// indentation wrapping a line in an `if` whose condition is continued: the
/// whole `if` is indented again, one level deeper than the `if (!p)` after
/// it. (With a one-line `if (p == NULL) {` the same hunk is refused.)
#[test]
fn regression_hunk_c_continued_condition_wrap_file_frame() {
    hunk_right_or_refused(
        "{\n\tx = compute(y);\n\tif (!p)\n\t\treturn -1;\n}\n",
        "x = compute(y);\nif (!p)\n\treturn -1;\n",
        "\tif (a &&\n\t    b) {\n\t\tx = compute(y);\n\t}\nif (!p)\n\treturn -1;\n",
        "{\n\tif (a &&\n\t    b) {\n\t\tx = compute(y);\n\t}\n\tif (!p)\n\t\treturn -1;\n}\n",
    );
}

/// apply_patch, JavaScript, dedent: an old side of a blank line and `});`
/// (the end of an `it` callback, cut to column 0) is placed at the outer
/// `});`, where no blank line stands, and the added line lands in the
/// `describe` callback. The same leading blank line as
/// `regression_hunk_go_leading_blank_line_old_frame`, the line added before
/// the closer.
#[test]
fn regression_hunk_js_leading_blank_line_old_frame() {
    hunk_right_or_refused(
        "describe(\"store\", function () {\n  it(\"loads\", () => {\n    const x = compute(y);\n\n  });\n});\n",
        "\n});\n",
        "\n  total += v;\n});\n",
        "describe(\"store\", function () {\n  it(\"loads\", () => {\n    const x = compute(y);\n\n    total += v;\n  });\n});\n",
    );
}

/// apply_patch, C, dedent, new side cut like the old: an old side of a blank
/// line, a comment and `}` is placed where the comment and a `}` at column 0
/// stand without the blank line (the function's end), and that comment is
/// wrapped instead.
#[test]
fn regression_hunk_c_leading_blank_line_wrap_old_frame() {
    hunk_right_or_refused(
        "{\n    if (p == NULL) {\n        n++;\n\n        /* keep going */\n    }\n    /* keep going */\n}\n",
        "\n    /* keep going */\n}\n",
        "\n    while (n > 0) {\n        /* keep going */\n    }\n}\n",
        "{\n    if (p == NULL) {\n        n++;\n\n        while (n > 0) {\n            /* keep going */\n        }\n    }\n    /* keep going */\n}\n",
    );
}

/// apply_patch, Python, unslipped: an old side of a blank line, a statement
/// and a blank line stands as whole lines at one place only, yet is refused
/// as found twice (the leading line break read as the end of any line, as
/// oldText's is). Not a wrong file, but the property asks an unslipped hunk
/// of a unique old side to be applied.
#[test]
fn regression_hunk_python_leading_blank_line_unslipped() {
    let text = "def load(path):\n    if x is None:\n        total += k\n\n        total += k\n\n    print(k)\n";
    let p = plan_hunks(
        text,
        &[hunk_of(
            "\n        total += k\n\n",
            "\n        total += k\n        return x\n\n",
        )],
        false,
    )
    .expect("a unique old side is applied");
    assert_eq!(
        p.text,
        "def load(path):\n    if x is None:\n        total += k\n\n        total += k\n        return x\n\n    print(k)\n"
    );
}

// Regression cases distilled from the held-out replays (bench/edit-replay.py and
// bench/patch-replay.py on histories nobody tuned the matcher on): each the
// shape of a wrong file found there, written small by hand.

/// JavaScript, dedent, newText cut like oldText: the line after a closing `}`
/// stands beside it, so a one-line oldText moved into the block it follows is
/// relative to its cut, not as written.
#[test]
fn regression_heldout_js_line_after_a_closer_old_frame() {
    right_or_refused(
        "const f = () => {\n  if (t) {\n    const u = () => {\n      stop();\n    }\n\n  signals.forEach((s) => s && s.on(u));\n  }\n};\n",
        "signals.forEach((s) => s && s.on(u));\n",
        "  signals.forEach((s) => s.on(u));\n",
        "const f = () => {\n  if (t) {\n    const u = () => {\n      stop();\n    }\n\n    signals.forEach((s) => s.on(u));\n  }\n};\n",
    );
}

/// JavaScript, dedent, newText cut like oldText: a block the edit opens (its
/// `}` still to come) must not take the enclosing function's `}` as its own.
#[test]
fn regression_heldout_js_open_block_old_frame() {
    right_or_refused(
        "const g = () => {\n  let a = 1;\n\n  let aborted;\n\n  go(a);\n};\n",
        "let aborted;\n",
        "if (a || b) {\n  let aborted;\n",
        "const g = () => {\n  let a = 1;\n\n  if (a || b) {\n    let aborted;\n\n  go(a);\n};\n",
    );
}

/// C, dedent, newText at the file's indentation opening with a directive at
/// column 0: the directive tells nothing of the frame.
#[test]
fn regression_heldout_c_directive_first_file_frame() {
    right_or_refused(
        "static void f(void) {\n  /* init */\n  init_fns();\n  run();\n}\n",
        "/* init */\ninit_fns();\n",
        "#if !defined(__linux__)\n  works = 1;\n#else\n  int status;\n#endif\n",
        "static void f(void) {\n#if !defined(__linux__)\n  works = 1;\n#else\n  int status;\n#endif\n  run();\n}\n",
    );
}

/// C with tabs, dedent, newText cut like oldText: the alignment spaces after a
/// tab (`\t    (`) stay spaces.
#[test]
fn regression_heldout_c_alignment_after_tab_old_frame() {
    right_or_refused(
        "void f(void)\n{\n\tif (x) {\n\t\tinit(w);\n\t\tw->flags |= Z;\n\t}\n}\n",
        "init(w);\nw->flags |= Z;\n",
        "init(w);\nif (a ||\n    b)\n\treturn;\nw->flags |= Z;\n",
        "void f(void)\n{\n\tif (x) {\n\t\tinit(w);\n\t\tif (a ||\n\t\t    b)\n\t\t\treturn;\n\t\tw->flags |= Z;\n\t}\n}\n",
    );
}

/// Go, dedent, one-line oldText, newText cut like oldText: a copy of the line at
/// the file's indentation (moved into a new `else` by exactly the cut) and
/// sibling first lines disagree: refused, never as written.
#[test]
fn regression_heldout_go_moved_copy_old_frame() {
    right_or_refused(
        "func (r *R) close() {\n\tr.flush()\n\tr.csi(\"?2004l\")\n}\n",
        "r.csi(\"?2004l\")\n",
        "// Put it back.\nif r.was {\n\tr.csi(\"?2004h\")\n} else {\n\tr.csi(\"?2004l\")\n}\n",
        "func (r *R) close() {\n\tr.flush()\n\t// Put it back.\n\tif r.was {\n\t\tr.csi(\"?2004h\")\n\t} else {\n\t\tr.csi(\"?2004l\")\n\t}\n}\n",
    );
}

/// apply_patch, C with tabs, every line of the hunk cut one tab: a braceless
/// `if (x)` governs the deeper line after it.
#[test]
fn regression_heldout_hunk_c_braceless_if_old_frame() {
    hunk_right_or_refused(
        "void f(void)\n{\n\tif (style == 2) {\n\t\tif (wide)\n\t\t\tshow(a);\n\t\telse\n\t\t\tshow(b);\n\t}\n}\n",
        "\tif (wide)\n\t\tshow(a);\n\telse\n\t\tshow(b);\n",
        "\tif (wide)\n\t\tprint(a, 2);\n\telse\n\t\tprint(b, 2);\n",
        "void f(void)\n{\n\tif (style == 2) {\n\t\tif (wide)\n\t\t\tprint(a, 2);\n\t\telse\n\t\t\tprint(b, 2);\n\t}\n}\n",
    );
}

/// C, dedent, newText cut like oldText: oldText is a closing `}` and a blank
/// line; newText's first line at the `}`'s indentation and the `}` itself cut
/// to column 0 disagree: refused, never written as given.
#[test]
fn regression_c_closer_and_blank_old_frame() {
    right_or_refused(
        "{\n    switch (x) {\n    default:\n        x = compute(y);\n        break;\n    }\n\n}\n",
        "}\n\n",
        "    total += v;\n}\n\n",
        "{\n    switch (x) {\n    default:\n        x = compute(y);\n        break;\n        total += v;\n    }\n\n}\n",
    );
}

// One unchanged line at the file's column (issue 54's "-both" shape): both texts
// cut by the same depth, where the commit moved the block in by exactly that
// depth. The very same call is what a model sends for another commit that left
// the block where it was, newText at the file's indentation; the copy is all
// that speaks, so the edit is refused, naming both readings. Before the rule
// each of these wrote the lines short by the cut.

/// Refused, the file untouched, and the refusal shows both readings of `line`.
fn refused_naming_both(text: &str, old: &str, new: &str, as_written: &str, shifted: &str) {
    match apply_edit(text, old, new, false) {
        Ok(r) => panic!("expected a refusal, got {:?}", r.text),
        Err(e) => {
            let m = e.message("f");
            assert!(
                m.contains("could be written at the file's indentation or at oldText's"),
                "{m}"
            );
            assert!(m.contains(&format!("{as_written:?} as written")), "{m}");
            assert!(
                m.contains(&format!("{shifted:?} shifted like oldText")),
                "{m}"
            );
        }
    }
}

/// YAML (Slim's phpstan.neon, re-indented from 2 to 4 spaces while a key was
/// replaced): `level: max` kept, at the file's column 2 as cut.
#[test]
fn regression_yaml_reindented_block_one_copy_both_cut() {
    refused_naming_both(
        "parameters:\n  level: max\n  inferPrivatePropertyTypeFromConstructor: true\n",
        "level: max\ninferPrivatePropertyTypeFromConstructor: true\n",
        "  level: max\n  paths:\n      - Slim\n",
        "  level: max",
        "    level: max",
    );
}

/// PHP, a function body moved from 2 to 4 spaces while one line changed
/// (below a comment, which tells nothing of the depth).
#[test]
fn regression_php_reindented_body_one_copy_both_cut() {
    refused_naming_both(
        "<?php\nfunction f() {\n  // set up\n  $a = 1;\n  $b = 2;\n}\n",
        "$a = 1;\n$b = 2;\n",
        "  $a = 1;\n  $b = 3;\n",
        "  $a = 1;",
        "    $a = 1;",
    );
}

/// Markdown, a nested list moved from 2 to 4 spaces while an item changed.
#[test]
fn regression_markdown_reindented_list_one_copy_both_cut() {
    refused_naming_both(
        "# T\n\n- item\n  - sub one\n  - sub two\n",
        "- sub one\n- sub two\n",
        "  - sub one\n  - sub 2\n",
        "  - sub one",
        "    - sub one",
    );
}

/// What still decides it: a witness that reads the file around the
/// replacement. Here the edge: the statement above stands at column 2, and the
/// first line as written stands beside it; shifted, it would stand deeper.
#[test]
fn one_copy_with_the_edge_agreeing_is_decided() {
    let text = "<?php\nfunction f() {\n  $z = 0;\n  $a = 1;\n  $b = 2;\n}\n";
    let r = apply_edit(text, "$a = 1;\n$b = 2;\n", "  $a = 1;\n  $b = 3;\n", false);
    assert_eq!(
        r.unwrap().text,
        "<?php\nfunction f() {\n  $z = 0;\n  $a = 1;\n  $b = 3;\n}\n"
    );
}

/// Or the block the line above opens: as written, the first line stands one
/// step inside it; shifted, two.
#[test]
fn one_copy_one_step_inside_the_opener_above_is_decided() {
    let text = "impl A {\n    fn f(&self) {\n        one();\n    }\n}\n";
    let r = apply_edit(
        text,
        "fn f(&self) {\n    one();\n}\n",
        "    fn f(&self) {\n        two();\n    }\n",
        false,
    );
    assert_eq!(
        r.unwrap().text,
        "impl A {\n    fn f(&self) {\n        two();\n    }\n}\n"
    );
}

/// Two copies at the file's column are two witnesses: decided as written.
#[test]
fn two_copies_at_the_files_column_decide() {
    let text = "- item\n  - sub one\n  - sub two\n  - sub three\n";
    let r = apply_edit(
        text,
        "- sub one\n- sub two\n- sub three\n",
        "  - sub one\n  - sub two\n  - sub 3\n",
        false,
    );
    assert_eq!(
        r.unwrap().text,
        "- item\n  - sub one\n  - sub two\n  - sub 3\n"
    );
}

/// Markdown (fd's README, an option line replaced by one moved further in):
/// a one-line oldText found right after a line's indentation, and newText's
/// first line deeper than that indentation. As written it moves the line in
/// by the difference; cut like oldText, by its whole depth. Refused.
#[test]
fn regression_markdown_one_line_first_line_deeper_than_the_match_both_cut() {
    let text = "Options:\n  -C, --base <path>  Change the path\n  -h, --help  Print help\n";
    match apply_edit(
        text,
        "-C, --base <path>  Change the path\n",
        "    --ignore <name>  Ignore\n",
        false,
    ) {
        Ok(r) => panic!("expected a refusal, got {:?}", r.text),
        Err(e) => {
            let m = e.message("f");
            assert!(
                m.contains("could be meant as written or relative to that line"),
                "{m}"
            );
            assert!(
                m.contains("\"      --ignore <name>  Ignore\" relative to it"),
                "{m}"
            );
        }
    }
    // At the match's own indentation it is written as it stands.
    let r = apply_edit(
        text,
        "-C, --base <path>  Change the path\n",
        "  --ignore <name>  Ignore\n",
        false,
    );
    assert_eq!(
        r.unwrap().text,
        "Options:\n  --ignore <name>  Ignore\n  -h, --help  Print help\n"
    );
}

/// YAML (sinatra's and fd's workflows), first line cut in both texts: a key at
/// column 0 above a sequence item is the first line cut like oldText's, not a
/// C label standing at column 0 as written. Refused, never written at column 0.
#[test]
fn regression_yaml_key_above_a_sequence_is_no_label_first_line_both_cut() {
    let text = "jobs:\n  test:\n    steps:\n      - uses: actions/checkout@v4\n    secrets:\n      TOKEN: x\n";
    let r = apply_edit(
        text,
        "secrets:\n      TOKEN: x\n",
        "steps:\n      - uses: zzak/action-discord@v3\n",
        false,
    );
    if let Ok(r) = r {
        assert_eq!(
            r.text,
            "jobs:\n  test:\n    steps:\n      - uses: actions/checkout@v4\n    steps:\n      - uses: zzak/action-discord@v3\n"
        );
    }
}
