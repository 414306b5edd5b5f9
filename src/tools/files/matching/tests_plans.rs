//! The engine's tests through its plans: decoding, `edit`'s ladder and refusals,
//! several edits, the closest region, apply_patch's hunks; properties with
//! proptest. Scenario folders run the real tool in `tests/it/edit_scenarios.rs`.

use super::{closest::*, codec::*, hunks::*, refusal::*, snippet::*, stages::*};
use memchr::memmem;
use proptest::prelude::*;

fn edit(text: &str, old: &str, new: &str) -> Result<String, EditFailure> {
    apply_edit(text, old, new, false).map(|a| a.text)
}

/// A hunk's refusal speaks of the hunk's sides, in grammatical sentences,
/// and offers no `replaceAll`, which a patch does not have.
#[test]
fn hunk_refusals_are_worded_for_a_patch() {
    let m = |f: EditFailure| HunkFailure::Match(f).message("app.py", 1);
    assert_eq!(
        m(EditFailure::AlreadyApplied),
        "hunk 1: The hunk appears to be already applied: the new side is present in app.py and the old side is not."
    );
    assert_eq!(
        m(EditFailure::NotFound { closest: None }),
        "hunk 1: the old side was not found in app.py."
    );
    assert_eq!(
        m(EditFailure::FoundMany {
            count: 2,
            lines: vec![3, 9],
            stage: MatchStage::Exact,
            overlapping: false,
        }),
        "hunk 1: the old side was found 2 times in app.py (lines 3, 9); add context lines to make it unique."
    );
}

#[test]
fn exact_unique_replacement() {
    let r = apply_edit("one\ntwo\nthree\n", "two", "TWO", false).unwrap();
    assert_eq!(r.text, "one\nTWO\nthree\n");
    assert_eq!(r.replacements, 1);
    assert_eq!(r.stage, MatchStage::Exact);
}

#[test]
fn exact_match_wins_over_fuzzy() {
    // "a  b" is there literally; the single-spaced "a b" must not be touched.
    let r = apply_edit("a b\na  b\n", "a  b", "X", false).unwrap();
    assert_eq!(r.text, "a b\nX\n");
    assert_eq!(r.stage, MatchStage::Exact);
}

#[test]
fn empty_old_is_refused() {
    let e = apply_edit("abc", "", "x", false).unwrap_err();
    assert_eq!(e, EditFailure::EmptyOld);
    assert_eq!(e.message("f.txt"), "oldText must not be empty.");
}

#[test]
fn identical_texts_are_refused() {
    let e = apply_edit("abc", "b", "b", false).unwrap_err();
    assert_eq!(e, EditFailure::Identical);
    assert_eq!(
        e.message("f.txt"),
        "oldText and newText are identical; there is nothing to change."
    );
    // Differing only in how lines end is no difference either.
    assert_eq!(
        apply_edit("a\nb\n", "a\r\nb", "a\nb", false).unwrap_err(),
        EditFailure::Identical
    );
}

#[test]
fn a_change_that_changes_nothing_is_refused() {
    // Fuzzy finds "a b" for "a  b"; writing "a b" back changes nothing.
    let e = apply_edit("x\na b\n", "     2\ta b", "2\ta b", false).unwrap_err();
    assert_eq!(e, EditFailure::Unchanged);
    assert_eq!(e.message("src/x.rs"), "The edit would not change src/x.rs.");
}

#[test]
fn many_matches_are_refused_with_their_lines() {
    let text = "a\nfoo\nb\nfoo\nfoo bar foo\n";
    let e = apply_edit(text, "foo", "baz", false).unwrap_err();
    assert_eq!(
        e,
        EditFailure::FoundMany {
            count: 4,
            lines: vec![2, 4, 5],
            stage: MatchStage::Exact,
            overlapping: false,
        }
    );
    assert_eq!(
        e.message("PATH"),
        "oldText was found 4 times in PATH (lines 2, 4, 5); add surrounding context to make it unique, or set replaceAll to replace every occurrence."
    );
    let e = apply_edit("x x\n", "x", "y", false).unwrap_err();
    assert_eq!(
        e.message("p"),
        "oldText was found 2 times in p (line 1); add surrounding context to make it unique, or set replaceAll to replace every occurrence."
    );
}

#[test]
fn many_matches_list_at_most_twenty_lines() {
    let text = "k\n".repeat(25);
    let e = apply_edit(&text, "k", "j", false).unwrap_err();
    let lines: Vec<String> = (1..=20).map(|i| i.to_string()).collect();
    assert_eq!(
        e.message("p"),
        format!(
            "oldText was found 25 times in p (lines {} and 5 more); add surrounding context to make it unique, or set replaceAll to replace every occurrence.",
            lines.join(", ")
        )
    );
}

#[test]
fn many_match_lines_point_at_the_first_visible_character() {
    let text = "x\n  foo\ny\n  foo\n";
    let e = apply_edit(text, "\n  foo", "\n  bar", false).unwrap_err();
    assert_eq!(
        e,
        EditFailure::FoundMany {
            count: 2,
            lines: vec![2, 4],
            stage: MatchStage::Exact,
            overlapping: false,
        }
    );
}

#[test]
fn replace_all_replaces_every_occurrence() {
    let r = apply_edit("foo bar foo\nfoo\n", "foo", "qux", true).unwrap();
    assert_eq!(r.text, "qux bar qux\nqux\n");
    assert_eq!(r.replacements, 3);
    // Matches do not overlap.
    let r = apply_edit("aaaa", "aa", "b", true).unwrap();
    assert_eq!((r.text.as_str(), r.replacements), ("bb", 2));
}

#[test]
fn already_applied_is_recognized() {
    let e = apply_edit("let x = 2;\n", "let x = 1;", "let x = 2;", false).unwrap_err();
    assert_eq!(e, EditFailure::AlreadyApplied);
    assert_eq!(
        e.message("a.rs"),
        "The edit appears to be already applied: newText is present in a.rs and oldText is not."
    );
}

#[test]
fn already_applied_only_when_newtext_stands_where_oldtext_would() {
    let text = "fn main() {\n    let total = 1;\n    println!(\"x\");\n}\n";
    // A one-character newText present elsewhere and a typo in oldText: the
    // closest region, not "already applied".
    let e = apply_edit(text, "let totl = 1;", "x", false).unwrap_err();
    assert!(
        matches!(&e, EditFailure::NotFound { closest: Some(c) } if c.line == 2),
        "{e:?}"
    );
    // newText where oldText is closest: already applied.
    let e = apply_edit(text, "let total = 2;", "let total = 1;", false).unwrap_err();
    assert_eq!(e, EditFailure::AlreadyApplied);
    // Several lines of newText present, oldText absent.
    let e = apply_edit(
        text,
        "zzz",
        "    let total = 1;\n    println!(\"x\");",
        false,
    )
    .unwrap_err();
    assert_eq!(e, EditFailure::AlreadyApplied);
}

#[test]
fn not_found_shows_the_closest_region() {
    let text = "fn main() {\n    let a = 1;\n    let b = 2;\n    println!(\"{}\", a + b);\n}\n";
    let e = apply_edit(
        text,
        "    let a = 1;\n    let b = 3;\n",
        "    let a = 1;\n    let b = 4;\n",
        false,
    )
    .unwrap_err();
    assert_eq!(
        e.message("src/main.rs"),
        "oldText was not found in src/main.rs. The closest match is at line 2:\n    let a = 1;\n    let b = 2;"
    );
}

#[test]
fn not_found_falls_back_to_words() {
    let text = "alpha\nbeta gamma_long_word delta\nepsilon\n";
    let e = apply_edit(text, "gamma_long_word delta2", "QQQ", false).unwrap_err();
    assert_eq!(
        e,
        EditFailure::NotFound {
            closest: Some(Closest {
                line: 2,
                region: "beta gamma_long_word delta".into()
            })
        }
    );
}

#[test]
fn not_found_with_nothing_alike() {
    let e = apply_edit("alpha\nbeta\n", "zzz", "QQQ", false).unwrap_err();
    assert_eq!(e, EditFailure::NotFound { closest: None });
    assert_eq!(e.message("f"), "oldText was not found in f.");
    assert_eq!(
        apply_edit("", "zzz", "y", false).unwrap_err(),
        EditFailure::NotFound { closest: None }
    );
}

#[test]
fn closest_region_is_capped() {
    let text: String = (0..100).map(|i| format!("line {i}\n")).collect();
    let old: String = (10..50).map(|i| format!("line {i}\n")).collect::<String>() + "nope\n";
    let e = apply_edit(&text, &old, "x", false).unwrap_err();
    let EditFailure::NotFound {
        closest: Some(Closest { line, region }),
    } = e
    else {
        panic!("{e:?}")
    };
    assert_eq!(line, 11);
    let shown: String = (10..40).map(|i| format!("line {i}\n")).collect();
    assert_eq!(region, format!("{shown}… (11 more lines)"));
}

fn stage_of(text: &str, old: &str, new: &str) -> (MatchStage, String) {
    let r = apply_edit(text, old, new, false).unwrap();
    (r.stage, r.text)
}

#[test]
fn tabs_in_the_file_spaces_in_the_snippet() {
    let text = "fn f() {\n\tif x {\n\t\treturn 1;\n\t}\n}\n";
    let (stage, out) = stage_of(
        text,
        "    if x {\n        return 1;\n    }\n",
        "    if y {\n        return 2;\n    }\n",
    );
    assert_eq!(stage, MatchStage::IndentShifted);
    assert_eq!(out, "fn f() {\n\tif y {\n\t\treturn 2;\n\t}\n}\n");
}

#[test]
fn whole_lines_only_a_reflowed_or_partial_snippet_is_not_found() {
    assert!(matches!(
        apply_edit(
            "call(a,\n     b,   c);\nnext();\n",
            "call(a, b, c);",
            "QQQ",
            false
        ),
        Err(EditFailure::NotFound { .. })
    ));
    assert!(matches!(
        apply_edit("  x = 1\n", "x =  1", "x = 3", false),
        Err(EditFailure::NotFound { .. })
    ));
}

#[test]
fn a_single_line_at_another_indentation() {
    let (stage, out) = stage_of("  x = 1\n  y = 2\n", "    x = 1\n", "    x = 3\n");
    assert_eq!(stage, MatchStage::IndentShifted);
    assert_eq!(out, "  x = 3\n  y = 2\n");
    // Without the final line break the line's own break stays.
    let (_, out) = stage_of("  x = 1\n  y = 2\n", "    x = 1", "    x = 3");
    assert_eq!(out, "  x = 3\n  y = 2\n");
}

#[test]
fn fuzzy_keeps_the_following_line_intact() {
    let text = "a {\n  b;\n  c;\n}\n";
    let (stage, out) = stage_of(text, "b;\n c;\n", "B;\n C;\n");
    assert_eq!(stage, MatchStage::FirstLineIndent);
    assert_eq!(out, "a {\n  B;\n  C;\n}\n");
}

#[test]
fn an_anchored_one_liner_split_over_lines_is_told_by_its_brackets() {
    // `(` … `),` written from column 0 or relative to the line: both close
    // where they open, so the brackets tell nothing: refused (once, the reading
    // not shallower than the line was taken; a guess).
    let text = "    let rows = [\n        (\"1\", \"one\"),\n        (\"2\", \"two\"),\n    ];\n";
    assert!(matches!(
        apply_edit(
            text,
            "(\"2\", \"two\"),",
            "(\n    \"2\",\n    \"two\",\n),",
            false,
        ),
        Err(EditFailure::IndentAmbiguous { .. })
    ));
    // Python: a `def` line's body is deeper than it, so the body of an
    // anchored one-line oldText's replacement is relative to the line.
    let text = "class A:\n    def f(self):\n        return 1\n";
    let r = apply_edit(
        text,
        "def f(self):",
        "def f(self, x):\n    if x:\n        return 2",
        false,
    )
    .unwrap();
    assert_eq!(
        r.text,
        "class A:\n    def f(self, x):\n        if x:\n            return 2\n        return 1\n"
    );
    // A closing line that closes the enclosing block as written: taken so.
    let text = "fn f() {\n    true\n}\n";
    let r = apply_edit(text, "true", "}\n\nfn g() {\n    false", false).unwrap();
    assert_eq!(r.text, "fn f() {\n}\n\nfn g() {\n    false\n}\n");
}

#[test]
fn newtext_at_one_places_indentation_picks_it() {
    // Exact, after the indentation of two lines: newText written at one of
    // them (its first line a version of oldText's) says which.
    let text = "a:\n    run(x)\nb:\n        run(x)\n";
    let r = apply_edit(text, "run(x)", "        run(y)", false).unwrap();
    assert_eq!(r.text, "a:\n    run(x)\nb:\n        run(y)\n");
    // Unindented newText, or a first line that is something else: refused.
    for new in ["run(y)", "        stop()"] {
        let e = apply_edit(text, "run(x)", new, false).unwrap_err();
        assert!(
            matches!(e, EditFailure::FoundMany { count: 2, .. }),
            "{new}: {e:?}"
        );
    }
    // Whole lines at another indentation, the same way.
    let text = "fn a() {\n    if x {\n        go();\n    }\n}\nfn b() {\n    {\n        if x {\n            go();\n        }\n    }\n}\n";
    let old = "if x {\n    go();\n}\n";
    let new = "        if y {\n            go();\n        }\n";
    let r = apply_edit(text, old, new, false).unwrap();
    assert_eq!(r.text, text.replacen("        if x {", "        if y {", 1));
    let e = apply_edit(text, old, "if y {\n    go();\n}\n", false).unwrap_err();
    assert!(
        matches!(e, EditFailure::FoundMany { count: 2, .. }),
        "{e:?}"
    );
}

#[test]
fn fuzzy_ambiguity_is_refused_with_the_lines() {
    let text = "if x {\n}\n  if x {\n  }\n    if x {\n    }\n";
    let e = apply_edit(text, " if x {\n }\n", "if y {\n}\n", false).unwrap_err();
    assert_eq!(
        e,
        EditFailure::FoundMany {
            count: 3,
            lines: vec![1, 3, 5],
            stage: MatchStage::IndentShifted,
            overlapping: false,
        }
    );
    assert_eq!(
        e.message("f.rs"),
        "oldText matched 3 places in f.rs as whole lines at another indentation (match: indent-shifted; lines 1, 3, 5); add surrounding context to make it unique, or set replaceAll to replace every occurrence."
    );
    let r = apply_edit(text, " if x {\n }\n", " if y {\n }\n", true).unwrap();
    assert_eq!(r.replacements, 3);
    assert_eq!(r.stage, MatchStage::IndentShifted);
    assert_eq!(r.text, "if y {\n}\n  if y {\n  }\n    if y {\n    }\n");
}

#[test]
fn overlapping_places_are_refused_even_with_replace_all() {
    let e = apply_edit("}\n}\n}\n", "  }\n  }\n", "]\n", true).unwrap_err();
    assert_eq!(
        e.message("x.rs"),
        "oldText matched 2 overlapping places in x.rs as whole lines at another indentation (match: indent-shifted; lines 1, 2); add surrounding context to make it unique."
    );
}

#[test]
fn an_unplaceable_line_is_refused_with_its_number() {
    let e = apply_edit("a\nb\n", "    a\n    b\n", "  x\n    b\n", false).unwrap_err();
    assert_eq!(
        e.message("f"),
        "oldText matched in f as whole lines at another indentation (match: indent-shifted), but line 1 of newText is indented less than that match lets it be placed; give oldText and newText at the file's indentation."
    );
}

#[test]
fn typography_and_gutter_stages_through_apply_edit() {
    let (stage, out) = stage_of("a \u{2014} b\n", "a - b\n", "a -- b\n");
    assert_eq!(stage, MatchStage::Typography);
    assert_eq!(out, "a -- b\n");
    let (stage, out) = stage_of("x\ny\n", "     1\tx\n     2\ty\n", "     1\tx\n     2\tz\n");
    assert_eq!(stage, MatchStage::GutterStripped);
    assert_eq!(out, "x\nz\n");
}

#[test]
fn an_exact_match_at_a_lines_indentation_writes_whole_lines() {
    let text = "fn f() {\n    go();\n}\n";
    // One line quoted without its indentation; newText in that line's frame.
    let r = apply_edit(text, "go();\n", "go();\nstop();\n", false).unwrap();
    assert_eq!(r.text, "fn f() {\n    go();\n    stop();\n}\n");
    assert!(r.anchored && r.stage == MatchStage::Exact);
    // Later lines all at least as deep could be meant either way: refused.
    let e = apply_edit(text, "go();", "go();\n    stop();", false).unwrap_err();
    assert!(matches!(e, EditFailure::IndentAmbiguous { line: 2, .. }));
    assert_eq!(
        e.message("f.rs"),
        "oldText starts after the indentation of line 2 in f.rs, and the later lines of newText could be meant as written or relative to that line. Line 3 would read \"    stop();\" as written, or \"        stop();\" relative to it. Include the line's indentation in oldText and write newText at the file's indentation."
    );
    // newText's first line at the file's indentation: newText is in the
    // file's frame, its lines stand as written (never a doubled indentation).
    let r = apply_edit(text, "go();", "    go();\n    stop();", false).unwrap();
    assert_eq!(r.text, "fn f() {\n    go();\n    stop();\n}\n");
    let r = apply_edit(
        "mod t {\n    #[test]\n    fn a() {}\n}\n",
        "#[test]\n    fn a() {}",
        "    #[test]\n    fn b() {}",
        false,
    )
    .unwrap();
    assert_eq!(r.text, "mod t {\n    #[test]\n    fn b() {}\n}\n");
    // With the indentation in oldText it is a plain literal edit.
    let r = apply_edit(text, "    go();", "    go();\n    stop();", false).unwrap();
    assert_eq!(r.text, "fn f() {\n    go();\n    stop();\n}\n");
    assert!(!r.anchored);
    // Deleting the line deletes its indentation too.
    let r = apply_edit(text, "go();\n", "", false).unwrap();
    assert_eq!(r.text, "fn f() {\n}\n");
    assert!(r.anchored);
    // Several lines, the first without its indentation: the rest is the file's
    // frame already, and an emptied first line keeps no indentation.
    let text = "a {\n    b;\n    c;\n}\n";
    let r = apply_edit(text, "b;\n    c;\n", "\n    c;\n", false).unwrap();
    assert_eq!(r.text, "a {\n\n    c;\n}\n");
    let r = apply_edit(text, "b;\n    c;\n", "B;\n    C;\n", false).unwrap();
    assert_eq!(r.text, "a {\n    B;\n    C;\n}\n");
    assert!(!r.anchored);
    // A match inside a line, or ending inside one, is literal.
    let r = apply_edit("    x = f(a);\n", "f(a", "g(\nb", false).unwrap();
    assert_eq!(r.text, "    x = g(\nb);\n");
    let r = apply_edit("    go(a);\n", "go(", "run(\n", false).unwrap();
    assert_eq!(r.text, "    run(\na);\n");
    assert!(!r.anchored);
}

#[test]
fn whitespace_only_old_is_never_fuzzy() {
    assert!(matches!(
        apply_edit("a\tb", "   ", "x", false),
        Err(EditFailure::NotFound { .. })
    ));
}

#[test]
fn unicode_exact_edits() {
    assert_eq!(edit("α β γ\n", "β", "δ").unwrap(), "α δ γ\n");
    assert_eq!(edit("😀x", "x", "😀").unwrap(), "😀😀");
}

#[test]
fn decode_and_encode_round_trip_crlf_and_bom() {
    let bytes = b"\xEF\xBB\xBFone\r\ntwo\r\nthree\r\n";
    let d = decode(bytes).unwrap();
    assert!(d.bom && d.crlf);
    assert_eq!(d.text, "one\ntwo\nthree\n");
    assert_eq!(encode(&d, &d.text), bytes);
    let r = apply_edit(&d.text, "two\nthree\n", "2\n3\n4\n", false).unwrap();
    assert_eq!(encode(&d, &r.text), b"\xEF\xBB\xBFone\r\n2\r\n3\r\n4\r\n");
    // A model may also send CRLF itself.
    let r = apply_edit(&d.text, "one\r\ntwo", "1\r\n2", false).unwrap();
    assert_eq!(encode(&d, &r.text), b"\xEF\xBB\xBF1\r\n2\r\nthree\r\n");
}

#[test]
fn decode_leaves_lf_mixed_and_unterminated_files_alone() {
    for text in [
        "a\nb\n",
        "a\r\nb\n",
        "no newline",
        "",
        "lone\rcr\n",
        "a\r\nb\nc\r\n",
    ] {
        let d = decode(text.as_bytes()).unwrap();
        assert!(!d.crlf && !d.bom, "{text:?}");
        assert_eq!(d.text, text);
        assert_eq!(encode(&d, &d.text), text.as_bytes());
    }
    let d = decode(b"a\r\nb").unwrap();
    assert!(d.crlf);
    assert_eq!(d.text, "a\nb");
    // \r\r\n keeps its first \r as text.
    let d = decode(b"a\r\r\nb\r\n").unwrap();
    assert!(d.crlf);
    assert_eq!(d.text, "a\r\nb\n");
    assert_eq!(encode(&d, &d.text), b"a\r\r\nb\r\n");
}

#[test]
fn invalid_utf8_is_refused_with_its_offset() {
    let e = decode(b"ok\n\xFFbad").unwrap_err();
    assert_eq!(e, NotUtf8 { offset: 3 });
    assert_eq!(
        e.message("bin.dat"),
        "bin.dat is not valid UTF-8 (first bad byte at offset 3); edit refuses to rewrite it."
    );
    assert_eq!(decode(b"\xEF\xBB\xBFab\xC3").unwrap_err().offset, 5);
    assert_eq!(
        decode_vec(b"\xEF\xBB\xBFab\xC3".to_vec())
            .unwrap_err()
            .offset,
        5
    );
    assert_eq!(
        decode_vec(b"\xEF\xBB\xBFa\r\n".to_vec()).unwrap(),
        decode(b"\xEF\xBB\xBFa\r\n").unwrap()
    );
}

#[test]
fn mixed_endings_match_both_kinds_and_keep_each() {
    let text = "lf one\nlf two\ncr one\r\ncr two\r\nlast\n";
    let d = decode(text.as_bytes()).unwrap();
    assert!(!d.crlf);
    // Written with \n, matching CRLF lines; the replacement is CRLF too.
    let r = apply_edit(&d.text, "cr one\ncr two\n", "CR\nCR2\nCR3\n", false).unwrap();
    assert_eq!(
        encode(&d, &r.text),
        b"lf one\nlf two\nCR\r\nCR2\r\nCR3\r\nlast\n"
    );
    // LF lines get LF.
    let r = apply_edit(&d.text, "lf one\nlf two", "X\nY", false).unwrap();
    assert_eq!(r.text, "X\nY\ncr one\r\ncr two\r\nlast\n");
    // A one-line match takes its line's ending for inserted lines.
    let r = apply_edit(&d.text, "cr one", "cr one\nnew", false).unwrap();
    assert_eq!(r.text, "lf one\nlf two\ncr one\r\nnew\r\ncr two\r\nlast\n");
    let r = apply_edit(&d.text, "last", "last\nmore", false).unwrap();
    assert_eq!(r.text, "lf one\nlf two\ncr one\r\ncr two\r\nlast\nmore\n");
    // A span across both kinds, with a tie, takes its last line's ending.
    let r = apply_edit(&d.text, "lf two\ncr one\n", "a\nb\n", false).unwrap();
    assert_eq!(r.text, "lf one\na\r\nb\r\ncr two\r\nlast\n");
    // Counting and line numbers see CRLF lines as lines.
    let e = apply_edit("x\r\ny\nx\r\n", "x\n", "z\n", false).unwrap_err();
    assert_eq!(
        e,
        EditFailure::FoundMany {
            count: 2,
            lines: vec![1, 3],
            stage: MatchStage::Exact,
            overlapping: false,
        }
    );
}

#[test]
fn fuzzy_works_in_mixed_files() {
    let text = "a\r\n\tb  c\r\nd\n";
    let r = apply_edit(text, "  b  c\n", "  B\n  C\n", false).unwrap();
    assert_eq!(r.stage, MatchStage::IndentShifted);
    assert_eq!(r.text, "a\r\n\tB\r\n\tC\r\nd\n");
}

#[test]
fn lone_carriage_returns_stay_put() {
    let text = "a\rb\nc\n";
    let r = apply_edit(text, "b\nc", "B\nC", false).unwrap();
    assert_eq!(r.text, "a\rB\nC\n");
}

#[test]
fn display_uses_a_generic_name() {
    assert_eq!(
        EditFailure::Unchanged.to_string(),
        "The edit would not change the file."
    );
}

/// A line of text from pieces that exercise endings, unicode and whitespace.
fn piece() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        Just("a"),
        Just("b "),
        Just("\t"),
        Just("é"),
        Just("日本"),
        Just("\r"),
        Just("  "),
        Just("x"),
    ]
}

fn body(crlf: bool) -> impl Strategy<Value = String> {
    prop::collection::vec((prop::collection::vec(piece(), 0..5), any::<bool>()), 0..8).prop_map(
        move |lines| {
            let mut out = String::new();
            for (pieces, terminated) in lines {
                out.push_str(&pieces.concat());
                // A `.` keeps a lone `\r` piece from turning into a CRLF.
                if terminated {
                    out.push_str(if crlf { ".\r\n" } else { ".\n" });
                }
            }
            out
        },
    )
}

proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        #[test]
        fn decode_encode_round_trips(
            bom in any::<bool>(),
            parts in prop::collection::vec(
                prop_oneof![Just("\r\n"), Just("\n"), Just("\r"), Just("a"), Just("ü"), Just(" ")],
                0..20,
            ),
        ) {
            let mut bytes = if bom { BOM.to_vec() } else { Vec::new() };
            bytes.extend_from_slice(parts.concat().as_bytes());
            let d = decode(&bytes).unwrap();
            prop_assert_eq!(d.bom, bom);
            prop_assert_eq!(encode(&d, &d.text), bytes.clone());
            prop_assert_eq!(encode_owned(&d, d.text.clone()), bytes.clone());
            prop_assert_eq!(decode_vec(bytes).unwrap(), d);
        }

        /// A unique edit changes exactly the edited bytes, through decode and encode,
        /// for LF and CRLF files, with or without a BOM.
        #[test]
        fn unique_edit_preserves_everything_else(
            crlf in any::<bool>(),
            bom in any::<bool>(),
            before in body(false),
            after in body(false),
            old_tail in "[a-z]{0,3}",
            new in "[A-Z]{0,3}(\n[A-Z]{1,3}){0,2}",
        ) {
            let eol = if crlf { "\r\n" } else { "\n" };
            let (before, after) = (before.replace('\n', eol), after.replace('\n', eol));
            // Only the old text holds the marker, so it is unique.
            let old = format!("«{old_tail}»");
            let mut bytes = if bom { BOM.to_vec() } else { Vec::new() };
            bytes.extend_from_slice(format!("{before}{old}{after}").as_bytes());
            let d = decode(&bytes).unwrap();
            let r = apply_edit(&d.text, &old, &new, false);
            if new == old {
                prop_assert_eq!(r.unwrap_err(), EditFailure::Identical);
            } else {
                let r = r.unwrap();
                prop_assert_eq!(r.replacements, 1);
                let out = encode(&d, &r.text);
                // A match right after a line's indentation that ends the line is
                // written as whole lines at that indentation: the later lines of
                // `new` (never indented here) under it, an empty first line bare.
                let prefix = before.rsplit('\n').next().unwrap_or(&before);
                let anchored = !prefix.is_empty()
                    && prefix.bytes().all(|b| b == b' ' || b == b'\t')
                    && (after.is_empty() || after.starts_with('\n') || after.starts_with("\r\n"));
                prop_assert_eq!(r.anchored, anchored && (new.is_empty() || new.contains('\n')));
                let (head, new) = if anchored {
                    let lines: Vec<String> = new
                        .split('\n')
                        .map(|l| if l.is_empty() { String::new() } else { format!("{prefix}{l}") })
                        .collect();
                    (&before[..before.len() - prefix.len()], lines.join("\n"))
                } else {
                    (before.as_str(), new.clone())
                };
                // Inserted lines take the file's ending where the file has one.
                let has_crlf = format!("{before}{after}").contains("\r\n");
                let new_raw = if has_crlf { new.replace('\n', "\r\n") } else { new.clone() };
                let mut want = if bom { BOM.to_vec() } else { Vec::new() };
                want.extend_from_slice(format!("{head}{new_raw}{after}").as_bytes());
                prop_assert_eq!(out, want);
            }
        }

        /// Applying an edit and then its reverse gives the original back.
        #[test]
        fn edit_then_reverse_is_identity(
            crlf in any::<bool>(),
            before in body(false),
            after in body(false),
            old in "«[a-z ]{0,4}(\n[a-z]{0,3})?»",
            new in "‹[A-Z ]{0,4}(\n[A-Z]{0,3})?›",
        ) {
            // A line break after the edit tells which ending inserted lines take.
            let eol = if crlf { "\r\n" } else { "\n" };
            let text = format!("{before}{old}{after}end\n").replace('\n', eol);
            let once = apply_edit(&text, &old, &new, false).unwrap();
            let back = apply_edit(&once.text, &new, &old, false).unwrap();
            prop_assert_eq!(back.text, text);
        }

        /// Whatever a whole-line stage matches, it replaces one block of at most as
        /// many lines as `oldText` has: no line outside the matched block changes.
        #[test]
        fn fuzzy_edits_touch_only_the_matched_block(
            lines in prop::collection::vec((0usize..4, 0usize..8, any::<bool>()), 1..24),
            start in any::<prop::sample::Index>(),
            len in 1usize..5,
            perturb in 0u8..5,
            change in any::<prop::sample::Index>(),
        ) {
            let pool = ["fn a() {", "}", "x = 1;", "return y;", "", "// c", "if z {", "}"];
            let text: String = lines
                .iter()
                .map(|&(depth, w, trail)| {
                    let indent = if pool[w].is_empty() { String::new() } else { "    ".repeat(depth) };
                    format!("{indent}{}{}\n", pool[w], if trail { " " } else { "" })
                })
                .collect();
            let file: Vec<&str> = text.split_inclusive('\n').collect();
            let s = start.index(file.len());
            let k = len.min(file.len() - s);
            let block: Vec<String> = file[s..s + k].iter().map(|l| l.to_string()).collect();
            let old_lines: Vec<String> = block
                .iter()
                .enumerate()
                .map(|(i, l)| match perturb {
                    0 => l.replacen("    ", "", 1),
                    1 => format!("  {l}"),
                    2 => l.replace(" \n", "\n").replace('\n', "  \n"),
                    3 if i == 0 => l.trim_start().to_string(),
                    3 => l.clone(),
                    _ => format!("{:>6}\t{l}", s + i + 1),
                })
                .collect();
            let old = old_lines.concat();
            let mut new_lines = old_lines.clone();
            let c = change.index(new_lines.len());
            new_lines[c] = new_lines[c].replace('\n', "");
            new_lines[c].push_str(" changed\n");
            let new = new_lines.concat();
            if let Ok(r) = apply_edit(&text, &old, &new, false)
                && r.stage != MatchStage::Exact
            {
                let out: Vec<&str> = r.text.split_inclusive('\n').collect();
                let p = file.iter().zip(&out).take_while(|(a, b)| a == b).count();
                let q = file[p..]
                    .iter()
                    .rev()
                    .zip(out[p..].iter().rev())
                    .take_while(|(a, b)| a == b)
                    .count();
                prop_assert!(file.len() - p - q <= k, "{} lines changed for a {}-line oldText: {:?} -> {:?}", file.len() - p - q, k, text, r.text);
            }
        }

        /// The same block at two depths: a snippet at a third depth matches both
        /// through indentation, and the edit is refused, never placed at one;
        /// unless its tabs span the very columns of exactly one of them.
        #[test]
        fn an_ambiguous_fuzzy_match_is_always_refused(
            block in prop::collection::vec((0usize..3, 0usize..4), 2..5),
            depths in (1usize..4, 1usize..4).prop_filter("two depths", |(a, b)| a != b),
            filler in prop::collection::vec("[a-z]{1,6};", 0..4),
            replace_all in any::<bool>(),
        ) {
            let pool = ["open {", "close }", "call(x);", "let y = 2;"];
            let at = |base: usize| -> String {
                block
                    .iter()
                    .map(|&(d, w)| format!("{}{}\n", "  ".repeat(base + d), pool[w]))
                    .collect()
            };
            let fill: String = filler.iter().map(|f| format!("{f}\n")).collect();
            let text = format!("{fill}{}{fill}{}{fill}", at(depths.0 * 2), at(depths.1 * 2));
            let old = at(0).replace("  ", "\t");
            let new = format!("{old}added();\n");
            // The tabs (one per level) read at tab width 4, 8 or 2 as exactly
            // the columns of the block at `base`.
            let same_columns = |base: usize| {
                [4, 8, 2].iter().any(|w| block.iter().all(|&(d, _)| d * w == 2 * (base + d)))
            };
            let exact: Vec<usize> = [depths.0 * 2, depths.1 * 2]
                .into_iter()
                .filter(|&b| same_columns(b))
                .collect();
            if let [base] = exact[..] && !replace_all {
                let r = apply_edit(&text, &old, &new, false).unwrap();
                // At the very columns, both frames are one: newText as written.
                let edit = |b: usize| if b == base { format!("{}added();\n", at(b)) } else { at(b) };
                let want = format!("{fill}{}{fill}{}{fill}", edit(depths.0 * 2), edit(depths.1 * 2));
                prop_assert_eq!(r.text, want);
                return Ok(());
            }
            match apply_edit(&text, &old, &new, replace_all) {
                Ok(r) => prop_assert!(
                    replace_all && r.replacements == 2,
                    "applied at {} place(s) through {:?}",
                    r.replacements,
                    r.stage
                ),
                // Found at both depths, or (an oldText with no indentation at
                // all, placed at each) a frame the witnesses do not agree on.
                Err(e) => prop_assert!(
                    matches!(e, EditFailure::FoundMany { count, .. } if count >= 2)
                        || matches!(e, EditFailure::FrameAmbiguous { .. }),
                    "{e:?}"
                ),
            }
        }

        /// Whole-line edits of an indented file, called with the slips models make
        /// in oldText (its common indentation, or its first line's, cut) and newText
        /// in either convention (at the file's indentation, or cut like oldText):
        /// the written file is the intended one, or the edit is refused. Never a
        /// third result.
        #[test]
        fn whole_line_edits_in_either_frame_are_right_or_refused(
            file in prop::collection::vec((0usize..4, 0usize..6), 3..14),
            span in (0usize..14, 1usize..5),
            repl in prop::collection::vec((0usize..4, 0usize..8), 0..5),
            slip in 0usize..3,
            file_frame in any::<bool>(),
        ) {
            let words = ["fn a() {", "}", "x += 1;", "return y;", "if z {", "let w = 2;", "call(q);", "// note"];
            let line = |&(d, w): &(usize, usize)| format!("{}{}", "    ".repeat(d), words[w]);
            // The file is code: its depth follows its blocks, each `}` under the
            // line that opened it (starting at the first token's depth).
            let mut depth = file[0].0;
            let file: Vec<(usize, usize)> = file
                .iter()
                .map(|&(_, w)| match w {
                    0 | 4 => {
                        depth += 1;
                        (depth - 1, w)
                    }
                    1 if depth > 0 => {
                        depth -= 1;
                        (depth, w)
                    }
                    1 => (depth, 2),
                    _ => (depth, w),
                })
                .collect();
            let lines: Vec<String> = file.iter().map(line).collect();
            let start = span.0 % lines.len();
            let end = (start + span.1).min(lines.len());
            let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
            let old_lines = &lines[start..end];
            // The replacement sits where the replaced lines sit, as real edits do:
            // a line that repeats a replaced line stays at its level, the first
            // line is at the first replaced line's level, the others at the
            // block's outermost level or up to two deeper. (Text alone cannot
            // tell a kept line moved by exactly the slip's depth from one left
            // alone, nor place a replacement at an unrelated level.)
            let block = &file[start..end];
            let base = block.iter().map(|&(d, _)| d).min().unwrap_or(0);
            let new_lines: Vec<String> = repl
                .iter()
                .enumerate()
                .map(|(k, &(d, w))| {
                    let word = w % 6 + 2;
                    let level = match block.iter().find(|&&(_, bw)| bw == word) {
                        Some(&(kept, _)) => kept,
                        None if k == 0 => block[0].0,
                        None => base + d % 3,
                    };
                    line(&(level, word))
                })
                .collect();
            let intended: String = lines[..start]
                .iter()
                .chain(new_lines.iter())
                .chain(lines[end..].iter())
                .map(|l| format!("{l}\n"))
                .collect();
            let indent_of = |l: &str| l.len() - l.trim_start().len();
            let join = |ls: &[String]| ls.iter().map(|l| format!("{l}\n")).collect::<String>();
            // The slip: 0 none, 1 the common indentation cut, 2 the first line's.
            let cut_all = old_lines.iter().map(|l| indent_of(l)).min().unwrap_or(0);
            let cut_first = old_lines.first().map_or(0, |l| indent_of(l));
            let (old, new) = match slip {
                0 => (join(old_lines), join(&new_lines)),
                1 => {
                    let cut = |ls: &[String]| -> Option<Vec<String>> {
                        ls.iter()
                            .map(|l| l.get(cut_all..).filter(|_| indent_of(l) >= cut_all).map(str::to_string))
                            .collect()
                    };
                    let old = cut(old_lines).unwrap();
                    let new = if file_frame { Some(new_lines.clone()) } else { cut(&new_lines) };
                    prop_assume!(new.is_some());
                    (join(&old), join(&new.unwrap()))
                }
                _ => {
                    let mut old = old_lines.to_vec();
                    old[0] = old[0].trim_start().to_string();
                    let mut new = new_lines.clone();
                    if !file_frame && !new.is_empty() {
                        // Both first lines lose their indentation; when newText's
                        // had another, cutting it lost what no frame can restore.
                        prop_assume!(indent_of(&new[0]) == cut_first);
                        new[0] = new[0].trim_start().to_string();
                    }
                    (join(&old), join(&new))
                }
            };
            prop_assume!(!old.trim().is_empty() && old != new);
            // The intended file is code too (the bracket witness reads a closing
            // line's depth from its opener's): a replacement that leaves a `}`
            // under another depth than its block's is not a real edit's result.
            let well_formed = |t: &str| {
                let mut open = Vec::new();
                t.lines().all(|l| {
                    let (d, core) = (indent_of(l), l.trim_start());
                    if core.ends_with('{') {
                        open.push(d);
                    } else if core == "}" {
                        return open.pop().is_none_or(|o| o == d);
                    }
                    true
                })
            };
            prop_assume!(well_formed(&intended));
            // oldText as sent must not also stand somewhere else in the file: then
            // no tool can know which place was meant.
            let region = (
                lines[..start].iter().map(|l| l.len() + 1).sum::<usize>(),
                lines[..end].iter().map(|l| l.len() + 1).sum::<usize>(),
            );
            let elsewhere = memmem::find_iter(text.as_bytes(), old.as_bytes())
                .any(|at| at < region.0 || at > region.0 + cut_first);
            prop_assume!(!elsewhere);
            if let Ok(r) = apply_edit(&text, &old, &new, false) {
                prop_assert_eq!(
                    &r.text, &intended,
                    "slip {} file_frame {} old {:?} new {:?} stage {:?}", slip, file_frame, old, new, r.stage
                );
            }
        }
}
