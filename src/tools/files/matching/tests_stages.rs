//! The whole-line stages and the frame witnesses, case by case.

use super::{frame::*, lines::*, stages::*};

/// A patch's hunk at one place: oldText, newText and the context map, as
/// `plan_hunks` gives them.
fn hunk_outcome(hay: &str, lines: &[(char, &str)]) -> Result<String, LineOutcome> {
    let (mut old, mut new, mut context) = (String::new(), String::new(), Vec::new());
    let mut old_index = 0;
    for (tag, text) in lines {
        if *tag != '+' {
            old.push_str(text);
            old.push('\n');
        }
        if *tag != '-' {
            new.push_str(text);
            new.push('\n');
            context.push((*tag == ' ').then_some(old_index));
        }
        if *tag != '+' {
            old_index += 1;
        }
    }
    let scope = Scope {
        context: Some(&context),
        ..Scope::WHOLE
    };
    match match_lines(hay, &old, &new, false, &scope) {
        LineOutcome::Applied { replacements, .. } => {
            let r = &replacements[0];
            Ok(format!("{}{}{}", &hay[..r.start], r.text, &hay[r.end..]))
        }
        other => Err(other),
    }
}

/// A hunk that must be placed: the file it gives.
fn hunk(hay: &str, lines: &[(char, &str)]) -> String {
    hunk_outcome(hay, lines).unwrap_or_else(|other| panic!("not applied: {other:?}"))
}

/// A hunk whose frame the evidence may not decide: the intended file, or a
/// refusal naming both readings; never a third file.
fn right_or_refused(hay: &str, lines: &[(char, &str)], want: &str) {
    match hunk_outcome(hay, lines) {
        Ok(got) => assert_eq!(got, want),
        Err(LineOutcome::FrameAmbiguous { .. }) => {}
        Err(other) => panic!("{other:?}"),
    }
}

#[test]
fn a_hunk_written_shallow_throughout_is_placed_at_the_files_depth() {
    let hay = "fn f(x: Option<u8>) -> u8 {\n    match x {\n        None => 0,\n        // Rest.\n        _ => 2,\n    }\n}\n";
    let got = hunk(
        hay,
        &[
            (' ', "match x {"),
            (' ', "    None => 0,"),
            ('+', "    // Large values."),
            ('+', "    Some(v) if v > 9 => large(v),"),
            (' ', "    // Rest."),
            (' ', "    _ => 2,"),
        ],
    );
    assert_eq!(
        got,
        "fn f(x: Option<u8>) -> u8 {\n    match x {\n        None => 0,\n        // Large values.\n        Some(v) if v > 9 => large(v),\n        // Rest.\n        _ => 2,\n    }\n}\n"
    );
}

#[test]
fn a_hunk_whose_context_alone_is_shallow_keeps_its_added_lines() {
    let hay = "fn f() {\n    let a = 1;\n    if a > 0 {\n        go(a);\n    }\n}\n";
    let got = hunk(
        hay,
        &[
            (' ', "let a = 1;"),
            ('+', "    let b = 2;"),
            (' ', "if a > 0 {"),
            (' ', "    go(a);"),
        ],
    );
    assert_eq!(
        got,
        "fn f() {\n    let a = 1;\n    let b = 2;\n    if a > 0 {\n        go(a);\n    }\n}\n"
    );
}

#[test]
fn a_chain_ended_by_its_semicolon_is_followed_at_the_statements_depth() {
    // One witness (the layout, or the diff's minimality) speaks for the
    // right reading; a frame now needs two, or one never wrong on the tuned
    // histories, and none against it: right, or refused.
    let hay = "fn f() {\n    {\n        use std::io::Write;\n    }\n    done();\n}\n";
    right_or_refused(
        hay,
        &[
            (' ', "{"),
            (' ', "    use std::io::Write;"),
            ('+', "    out"),
            ('+', "        .flush()"),
            ('+', "        .unwrap();"),
            (' ', "}"),
        ],
        "fn f() {\n    {\n        use std::io::Write;\n        out\n            .flush()\n            .unwrap();\n    }\n    done();\n}\n",
    );
}

#[test]
fn a_removed_line_that_comes_back_was_moved_not_kept() {
    // One witness (the layout, or the diff's minimality) speaks for the
    // right reading; a frame now needs two, or one never wrong on the tuned
    // histories, and none against it: right, or refused.
    // Written one level shallow throughout: the copy of the removed line,
    // read at the file's depth, would equal it, and a diff would have kept it
    // as context; it came back deeper, under the new `else:`.
    let hay = "def f(xs, st):\n    for x in xs:\n        k = key(x)\n        st[k] += 1\n        done(x)\n";
    right_or_refused(
        hay,
        &[
            (' ', "    k = key(x)"),
            ('-', "    st[k] += 1"),
            ('+', "    if skip(x):"),
            ('+', "        st[\"skip\"][k] += 1"),
            ('+', "    else:"),
            ('+', "        st[k] += 1"),
            (' ', "    done(x)"),
        ],
        "def f(xs, st):\n    for x in xs:\n        k = key(x)\n        if skip(x):\n            st[\"skip\"][k] += 1\n        else:\n            st[k] += 1\n        done(x)\n",
    );
}

#[test]
fn a_line_continuing_an_open_bracket_aligns_with_it() {
    // One witness (the layout, or the diff's minimality) speaks for the
    // right reading; a frame now needs two, or one never wrong on the tuned
    // histories, and none against it: right, or refused.
    let hay = "def f(s):\n    if True:\n        if any(s[c] or s[d]\n               for c in C):\n            go()\n";
    let want = "def f(s):\n    if True:\n        if any(s[c] or s[d]\n               or s[e]\n               for c in C):\n            go()\n";
    // The whole hunk one level shallow (the frame of its own lines)...
    right_or_refused(
        hay,
        &[
            (' ', "    if any(s[c] or s[d]"),
            ('+', "           or s[e]"),
            (' ', "           for c in C):"),
            (' ', "        go()"),
        ],
        want,
    );
    // ...and its context alone shallow, the added line at the file's depth.
    right_or_refused(
        hay,
        &[
            (' ', "if any(s[c] or s[d]"),
            ('+', "               or s[e]"),
            (' ', "       for c in C):"),
            (' ', "    go()"),
        ],
        want,
    );
}

#[test]
fn a_patch_keeps_the_trailing_whitespace_it_adds() {
    // The writer put a trailing blank on the removed line the file does not
    // have; the added line's is meant all the same: it stays.
    let hay = "a\nb\n";
    let got = hunk(hay, &[('-', "a "), ('+', "c "), (' ', "b")]);
    assert_eq!(got, "c \nb\n");
}

#[test]
fn python_headers_are_whole_statements() {
    assert!(python_header("else:"));
    assert!(python_header("if x in (1, 2):"));
    assert!(!python_header("else occurs(state, r[0])):"));
    assert!(!python_header("else x:"));
    assert!(!python_header("if f(a,"));
}

fn run(hay: &str, old: &str, new: &str) -> LineOutcome {
    match_lines(hay, old, new, false, &Scope::WHOLE)
}

fn applied(hay: &str, old: &str, new: &str) -> (MatchStage, String) {
    match run(hay, old, new) {
        LineOutcome::Applied {
            stage,
            replacements,
        } => {
            let mut out = String::new();
            let mut prev = 0;
            for r in replacements {
                out.push_str(&hay[prev..r.start]);
                out.push_str(&r.text);
                prev = r.end;
            }
            out.push_str(&hay[prev..]);
            (stage, out)
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn parts_split_indent_core_and_trail() {
    let p = parts("\t  let x = 1; \t");
    assert_eq!((p.indent, p.core, p.trail), ("\t  ", "let x = 1;", " \t"));
    let p = parts("   ");
    assert!(p.blank());
    assert_eq!(p.trail, "   ");
    assert!(parts("").blank());
}

#[test]
fn snippets_know_their_final_break() {
    let s = Snippet::new("a\nb\n");
    assert_eq!((s.lines, s.newline), (vec!["a", "b"], true));
    let s = Snippet::new("a");
    assert_eq!((s.lines, s.newline), (vec!["a"], false));
    let s = Snippet::new("\n");
    assert_eq!((s.lines, s.newline), (vec![""], true));
    assert!(Snippet::new("").lines.is_empty());
}

#[test]
fn indent_maps_are_inferred_and_applied() {
    let m = IndentMap::infer(&[("", "    "), ("    ", "        ")]).unwrap();
    assert_eq!(m.apply("  ").unwrap(), "      ");
    let m = IndentMap::infer(&[("        ", "    "), ("            ", "        ")]).unwrap();
    assert_eq!(m.apply("    ").unwrap(), "");
    assert_eq!(m.apply("").as_deref(), None);
    // Spaces in the snippet, tabs in the file: columns at width 4.
    let m = IndentMap::infer(&[("    ", "\t"), ("        ", "\t\t")]).unwrap();
    assert_eq!(m.apply("            ").unwrap(), "\t\t\t");
    // One level only still maps deeper levels by columns, not by prefix.
    let m = IndentMap::infer(&[("    ", "\t"), ("    ", "\t")]).unwrap();
    assert_eq!(m.apply("        ").unwrap(), "\t\t");
    // Tabs in the snippet, spaces in the file.
    let m = IndentMap::infer(&[("\t", "    "), ("\t\t", "        ")]).unwrap();
    assert_eq!(m.apply("\t\t\t").unwrap(), "            ");
    // Structure that differs has no mapping.
    assert_eq!(IndentMap::infer(&[("", ""), ("    ", "")]), None);
    assert_eq!(
        IndentMap::infer(&[("", "  "), ("  ", "    "), ("  ", "      ")]),
        None
    );
}

#[test]
fn trailing_whitespace_is_ignored_and_kept_as_the_file_has_it() {
    let hay = "fn f() {   \n    a();\n}\n";
    let (stage, out) = applied(hay, "fn f() {\n    a();\n", "fn f() {\n    b();\n");
    assert_eq!(stage, MatchStage::LineTrimmed);
    assert_eq!(out, "fn f() {   \n    b();\n}\n");
    // Spaces the snippet added everywhere are not written either.
    let (_, out) = applied(
        "x = 1\ny = 2\n",
        "x = 1 \ny = 2 \n",
        "x = 1 \ny = 3 \nz = 4 \n",
    );
    assert_eq!(out, "x = 1\ny = 3\nz = 4\n");
}

#[test]
fn newtext_at_the_files_indentation_is_written_as_it_stands() {
    let hay = "impl A {\n    fn f(&self) {\n        one();\n    }\n}\n";
    // oldText dedented, newText as the file has it (read, then rewritten).
    let (stage, out) = applied(
        hay,
        "fn f(&self) {\n    one();\n}\n",
        "    fn f(&self) {\n        two();\n    }\n",
    );
    assert_eq!(stage, MatchStage::IndentShifted);
    assert_eq!(
        out,
        "impl A {\n    fn f(&self) {\n        two();\n    }\n}\n"
    );
    // The same edit with newText in oldText's frame: shifted like oldText.
    let (_, out) = applied(
        hay,
        "fn f(&self) {\n    one();\n}\n",
        "fn f(&self) {\n    two();\n}\n",
    );
    assert_eq!(
        out,
        "impl A {\n    fn f(&self) {\n        two();\n    }\n}\n"
    );
    // The first line's indentation cut from oldText only.
    let (stage, out) = applied(
        hay,
        "fn f(&self) {\n        one();\n",
        "    fn f(&self) {\n        one();\n        two();\n",
    );
    assert_eq!(stage, MatchStage::FirstLineIndent);
    assert_eq!(
        out,
        "impl A {\n    fn f(&self) {\n        one();\n        two();\n    }\n}\n"
    );
    // ... and from both texts.
    let (_, out) = applied(
        hay,
        "fn f(&self) {\n        one();\n",
        "fn f(&self) {\n        one();\n        two();\n",
    );
    assert_eq!(
        out,
        "impl A {\n    fn f(&self) {\n        one();\n        two();\n    }\n}\n"
    );
}

#[test]
fn a_call_with_rewritten_arguments_is_a_version_of_the_line() {
    assert!(alike(
        ".is_some_and(|w| command::TREELESS_META.contains(&w));",
        ".is_some_and(command::treeless_meta);"
    ));
    assert!(alike(
        "assert_eq!(a, b);",
        "assert_eq!(out.code(), Some(1));"
    ));
    // Short heads and heads that are not a bare name say nothing.
    assert!(!alike("Some(first_value_here)", "Some(x)"));
    assert!(!alike("if (ready && waiting) {", "if (done) {"));
    assert!(!alike("value.unwrap_or(0)", "other.expect(\"x\")"));
}

#[test]
fn a_frame_nothing_decides_is_refused_with_both_readings() {
    // No line of newText repeats one of oldText, and its outermost level is
    // neither oldText's nor the file's: either reading could be meant.
    let hay = "a {\n    b {\n        c;\n    }\n}\n";
    match run(hay, "b {\n    c;\n}\n", "  x;\n") {
        LineOutcome::FrameAmbiguous {
            line,
            as_written,
            shifted,
            ..
        } => {
            assert_eq!(line, 2);
            assert_eq!(as_written, "  x;");
            assert_eq!(shifted, "      x;");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_dedented_snippet_is_written_at_the_files_depth() {
    let hay = "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        pass\n";
    let (stage, out) = applied(
        hay,
        "def f(self):\n    return 1\n",
        "def f(self):\n    if self:\n        return 2\n    return 1\n",
    );
    assert_eq!(stage, MatchStage::IndentShifted);
    assert_eq!(
        out,
        "class A:\n    def f(self):\n        if self:\n            return 2\n        return 1\n\n    def g(self):\n        pass\n"
    );
}

#[test]
fn a_first_line_without_its_indentation() {
    let hay = "fn main() {\n    if x {\n        go();\n    }\n}\n";
    let (stage, out) = applied(
        hay,
        "if x {\n        go();\n    }\n",
        "if y {\n        stop();\n    }\n",
    );
    assert_eq!(stage, MatchStage::FirstLineIndent);
    assert_eq!(out, "fn main() {\n    if y {\n        stop();\n    }\n}\n");
}

#[test]
fn a_read_gutter_is_stripped() {
    let hay = "a\n    b\nc\n";
    let (stage, out) = applied(
        hay,
        "     2\t    b\n     3\tc\n",
        "     2\t    B\n     3\tc\n",
    );
    assert_eq!(stage, MatchStage::GutterStripped);
    assert_eq!(out, "a\n    B\nc\n");
    // Numbers that do not count up are not a gutter.
    assert_eq!(strip_gutter("     2\ta\n     5\tb\n", true), None);
    assert_eq!(strip_gutter("2\ta\n3\t\n", true).unwrap(), "a\n\n");
}

#[test]
fn typography_is_read_as_ascii_and_the_file_keeps_its_own() {
    let hay = "say(\u{201C}hi\u{201D}) \u{2013} ok\nnext\n";
    let (stage, out) = applied(hay, "say(\"hi\") - ok\nnext\n", "say(\"hi\") - ok\nlast\n");
    assert_eq!(stage, MatchStage::Typography);
    assert_eq!(out, "say(\u{201C}hi\u{201D}) \u{2013} ok\nlast\n");
}

#[test]
fn several_places_are_ambiguous_with_their_lines() {
    let hay = "fn a() {\n    if x {\n    }\n}\nfn b() {\n        if x {\n        }\n}\n";
    assert_eq!(
        run(hay, "if x {\n}\n", "if y {\n}\n"),
        LineOutcome::Ambiguous {
            stage: MatchStage::IndentShifted,
            lines: vec![2, 6],
            overlapping: false
        }
    );
    // Overlapping places are refused even with replaceAll.
    let hay = "}\n}\n}\n";
    assert_eq!(
        match_lines(hay, " }\n }\n", "]\n]\n", true, &Scope::WHOLE),
        LineOutcome::Ambiguous {
            stage: MatchStage::IndentShifted,
            lines: vec![1, 2],
            overlapping: true
        }
    );
}

#[test]
fn a_line_the_mapping_cannot_place_is_refused() {
    let hay = "a\nb\n";
    assert_eq!(
        run(hay, "        a\n        b\n", "    x\n        b\n"),
        LineOutcome::Unplaceable {
            stage: MatchStage::IndentShifted,
            new_line: 1
        }
    );
}

#[test]
fn the_files_last_line_without_a_break_stays_so() {
    let (_, out) = applied("x\n  y", "x \n  y\n", "x \n  z\n");
    assert_eq!(out, "x\n  z");
}

#[test]
fn brackets_against_the_placements_depth_refuse() {
    // A replacement that closes the block and opens another: its `}` stands
    // under the `if` it closes only as written, but as written it reaches
    // shallower than everything it replaces, which the placement witness
    // speaks against. Two witnesses disagree: refused, both readings named.
    let hay =
        "fn main() {\n    let a = 1;\n    if a > 0 {\n        run(a);\n        stop();\n    }\n}\n";
    let new = "        finish();\n    }\n    if b {\n        more();\n";
    assert!(matches!(
        run(hay, "run(a);\nstop();\n", new),
        LineOutcome::FrameAmbiguous { line: 4, .. }
    ));
}

#[test]
fn brackets_against_the_first_and_outermost_lines_refuse() {
    // First line and outermost depth say "as written", but the file's `}` after
    // the place closes the `} else {` only when it is shifted. Before witnesses
    // had to agree, the brackets outweighed the others and the shifted reading
    // was written; now it is refused.
    let hay = "fn f() {\n    // Look first.\n    if let Ok(md) = d.metadata() {\n        if md.hidden() {\n            return true;\n        }\n    }\n    false\n}\n";
    let old = "// Look first.\nif let Ok(md) = d.metadata() {\n    if md.hidden() {\n";
    let new = "    if let Some(n) = d.name() {\n        n.starts_with('.')\n    } else {\n        false\n";
    assert!(matches!(
        run(hay, old, new),
        LineOutcome::FrameAmbiguous { .. }
    ));
}

#[test]
fn the_bracket_witness_skips_strings_characters_and_comments() {
    let hay = "fn f() {\n    let s = \"{ ( [\";\n    let c = '{';\n    // } ) ]\n    x();\n}\n";
    let at = hay.find("    x();").unwrap();
    let r = |text: &str| Replacement {
        start: at,
        end: at + "    x();\n".len(),
        text: text.to_string(),
    };
    // `}` under `fn f() {` agrees; one level in, it does not.
    assert_eq!(
        bracket_fit(hay, &r("}\nfn g() {\n")),
        Fit {
            agree: 2,
            disagree: 0
        }
    );
    assert_eq!(
        bracket_fit(hay, &r("    }\n    fn g() {\n")),
        Fit {
            agree: 0,
            disagree: 2
        }
    );
    assert_eq!(bracket_fit(hay, &r("    y();\n")), Fit::default());
    // A shell's `${x//a/b}` is no comment and its quoted `'*}'` no closer;
    // a brace that does not end its line opens no block.
    let sh = "f() {\n  x=1\n}\n";
    let at = sh.find("  x=1").unwrap();
    let r = |text: &str| Replacement {
        start: at,
        end: at + "  x=1\n".len(),
        text: text.to_string(),
    };
    assert_eq!(
        bracket_fit(sh, &r("e=( ${e//:/\\:} )\ncompset -P '*}'\n")),
        Fit::default()
    );
    assert_eq!(bracket_fit(sh, &r("  if x; then { y\n")), Fit::default());
    assert_eq!(
        bracket_fit(sh, &r("  g() {\n")),
        Fit {
            agree: 0,
            disagree: 1
        }
    );
}
