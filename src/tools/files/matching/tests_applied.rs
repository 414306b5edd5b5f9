//! "Already applied" or the closest region (`applied`): the refusal claims an
//! edit was made only when the file shows it (issue 39). The cases the issue
//! names and the ones the properties found, and properties with proptest: an
//! edit asked for twice is recognized, a typo in oldText never is.

use super::{applied::*, hunks::*, refusal::*, snippet::*};
use memchr::memmem;
use proptest::prelude::*;

const SUM: &str = "fn sum(a: usize, l: usize, total: usize) -> usize {\n    let m = l * 2;\n    let n = a.saturating_add(l - 2) + total;\n    n + m\n}\n";

const APPLIED: &str =
    "The edit appears to be already applied: newText is present in PATH and oldText is not.";

/// `total` stands on the closest line, but oldText (`l - 3` for the file's
/// `l - 2`) lines up with `saturating_add(l - 2)`, not with it.
#[test]
fn a_typo_in_oldtext_is_not_taken_for_an_applied_edit() {
    let e = apply_edit(SUM, "saturating_add(l - 3)", "total", false).unwrap_err();
    assert_eq!(
        e.message("PATH"),
        "oldText was not found in PATH. The closest match is at line 3:\n    let n = a.saturating_add(l - 2) + total;"
    );
}

/// The same edit of a Cargo.toml twice: the second is already applied, though
/// `rust-version = "1.70"` is near oldText too.
#[test]
fn an_edit_made_twice_is_already_applied() {
    let text = "[package]\nname = \"demo\"\nversion = \"1.0.0\"\nedition = \"2021\"\nrust-version = \"1.70\"\ndescription = \"A small demo crate\"\nlicense = \"MIT\"\nreadme = \"README.md\"\n\n[dependencies]\nserde = { version = \"1.0\", features = [\"derive\"] }\n";
    let (old, new) = ("version = \"1.0.0\"", "version = \"2.0.0\"");
    let once = apply_edit(text, old, new, false).unwrap();
    assert_eq!(once.text, text.replace("\"1.0.0\"", "\"2.0.0\""));
    let e = apply_edit(&once.text, old, new, false).unwrap_err();
    assert_eq!(e.message("PATH"), APPLIED);
}

/// A hunk of whole lines: `old` and `new`, and which lines of `new` are context.
fn hunk(old: &[&str], new: &[&str]) -> HunkSpec {
    let lines = |ls: &[&str]| ls.iter().map(|l| format!("{l}\n")).collect::<String>();
    HunkSpec {
        old: lines(old),
        new: lines(new),
        at_line: None,
        anchor: None,
        at_end: false,
        new_no_newline: false,
        context: new
            .iter()
            .map(|l| old.iter().position(|o| o == l))
            .collect(),
    }
}

fn hunk_failure(text: &str, h: HunkSpec) -> EditFailure {
    match plan_hunks(text, &[h], false) {
        Err(mut failures) => match failures.pop() {
            Some((0, HunkFailure::Match(f))) => f,
            other => panic!("{other:?}"),
        },
        Ok(plan) => panic!("placed: {:?}", plan.placed),
    }
}

/// apply_patch's hunks are judged as `edit`'s oldText: a hunk made already is
/// recognized; a hunk whose removed line has a typo is not, though its
/// context lines (several, non-blank) stand right there.
#[test]
fn hunks_already_applied_only_when_true() {
    let text = "[package]\nname = \"demo\"\nversion = \"2.0.0\"\nedition = \"2021\"\nrust-version = \"1.70\"\n";
    let h = hunk(
        &[
            "name = \"demo\"",
            "version = \"1.0.0\"",
            "edition = \"2021\"",
        ],
        &[
            "name = \"demo\"",
            "version = \"2.0.0\"",
            "edition = \"2021\"",
        ],
    );
    assert_eq!(hunk_failure(text, h), EditFailure::AlreadyApplied);
    // Before, several lines of the new side present were taken for the edit.
    let h = hunk(
        &[
            "    let n = a.saturating_add(l - 3) + total;",
            "    n + m",
            "}",
        ],
        &["    n + m", "}"],
    );
    assert_eq!(
        HunkFailure::Match(hunk_failure(SUM, h)).message("sum.rs", 1),
        "hunk 1: the old side was not found in sum.rs. The closest match is at line 3:\n    let n = a.saturating_add(l - 2) + total;\n    n + m\n}"
    );
}

/// The counterexample the typo property found before: `aa0` (for `a00`), and
/// `b` standing as a whole line where nothing lines up with oldText.
#[test]
fn a_newtext_line_with_nothing_near_oldtext_is_not_enough() {
    let e = apply_edit("let\nlet\na00\nb\n", "aa0", "b", false).unwrap_err();
    assert_eq!(e.message("PATH"), "oldText was not found in PATH.");
    // Nothing within a typo of oldText anywhere: newText as a line is the edit.
    let e = apply_edit("alpha\nbeta gamma\ndelta\n", "epsilon", "beta gamma", false).unwrap_err();
    assert_eq!(e.message("PATH"), APPLIED);
}

/// Where two texts are equally near oldText and one is newText, nothing tells
/// a typo from the edit made: the closest region.
#[test]
fn a_tie_decides_nothing() {
    let text = SUM.replace("    n + m\n", "    n + m + a.saturating_add(l - 4)\n");
    let e = apply_edit(
        &text,
        "saturating_add(l - 3)",
        "saturating_add(l - 4)",
        false,
    )
    .unwrap_err();
    assert!(matches!(e, EditFailure::NotFound { .. }), "{e:?}");
    // Only newText that near: the edit was made.
    let e = apply_edit(
        &text.replace("l - 2", "l + 2"),
        "saturating_add(l - 3)",
        "saturating_add(l - 4)",
        false,
    )
    .unwrap_err();
    assert_eq!(e, EditFailure::AlreadyApplied);
}

/// An edit that adds text around oldText, made twice: all of oldText stands
/// in newText, which a text a typo away elsewhere does not outweigh.
#[test]
fn an_insertion_made_twice_is_already_applied() {
    let text = "fn a() {}\nfn b() {\n}\n";
    let (old, new) = ("fn a() {}\n", "fn a() {\n    todo!()\n}\n");
    let once = apply_edit(text, old, new, false).unwrap().text;
    assert_eq!(
        apply_edit(&once, old, new, false).unwrap_err(),
        EditFailure::AlreadyApplied
    );
}

/// The work is bounded: a big file where newText is seen on every line.
#[test]
fn a_big_file_and_a_common_newtext_cost_little() {
    let text = "let x = total + 1;\n".repeat(50_000);
    let started = std::time::Instant::now();
    let e = apply_edit(&text, "let y = totl - 2;", "x", false).unwrap_err();
    assert!(matches!(e, EditFailure::NotFound { .. }), "{e:?}");
    // Every line is a typo away from oldText: more near matches than are
    // looked at, so no claim.
    let e = apply_edit(&text, "let x = total + 2;", "let x = total + 1;", false).unwrap_err();
    assert!(matches!(e, EditFailure::NotFound { .. }), "{e:?}");
    let e = apply_edit(&text, "total + 2;", "x", false).unwrap_err();
    assert!(matches!(e, EditFailure::NotFound { .. }), "{e:?}");
    // Generous for a debug build on a busy machine; it takes a fraction.
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
}

/// Text of one file line, as pieces: what an edit's oldText is cut from.
fn piece() -> impl Strategy<Value = String> {
    const WORDS: &[&str] = &[
        "let",
        "fn",
        "total",
        "n",
        "a",
        "l",
        "x",
        "self",
        "value",
        "count",
        "größe",
        "naïve",
        "saturating_add",
        "version",
        "name",
        "Ok",
        "None",
    ];
    const PUNCTS: &[&str] = &[
        "(", ")", " = ", ";", ", ", ".", " + ", " - ", "\"", " ", "{", "}", ": ", "->", " → ",
        "::", "[", "]",
    ];
    prop_oneof![
        3 => prop::sample::select(WORDS).prop_map(String::from),
        2 => "[a-z_][a-z0-9_]{0,7}",
        2 => "[0-9]{1,3}(\\.[0-9]{1,2})?",
        4 => prop::sample::select(PUNCTS).prop_map(String::from),
    ]
}

/// Lines of code-like text: an indentation and a few pieces each.
fn lines() -> impl Strategy<Value = Vec<(&'static str, Vec<String>)>> {
    prop::collection::vec(
        (
            prop::sample::select(&["", "    ", "        ", "\t"][..]),
            prop::collection::vec(piece(), 1..8),
        ),
        3..14,
    )
}

/// Pieces as a line holds them: two words apart, as code writes them.
fn render(pieces: &[String]) -> String {
    let mut out = String::new();
    for p in pieces {
        let wordy = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || c == '_');
        if wordy(out.chars().last()) && wordy(p.chars().next()) {
            out.push(' ');
        }
        out.push_str(p);
    }
    out
}

fn join(lines: &[(&str, Vec<String>)]) -> String {
    lines
        .iter()
        .map(|(indent, pieces)| format!("{indent}{}\n", render(pieces)))
        .collect()
}

/// The context two texts share: their longest common prefix and suffix, by
/// characters, not overlapping.
fn shared(a: &str, b: &str) -> String {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let p = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let s = a[p..]
        .iter()
        .rev()
        .zip(b[p..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    a[..p].iter().chain(&a[a.len() - s..]).collect()
}

fn count(hay: &str, needle: &str) -> usize {
    memmem::find_iter(hay.as_bytes(), needle.as_bytes()).count()
}

/// Levenshtein distance of two texts, by characters.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, x) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, &y) in b.iter().enumerate() {
            let here = row[j + 1];
            row[j + 1] = (prev + usize::from(x != y)).min(row[j] + 1).min(here + 1);
            prev = here;
        }
    }
    row[b.len()]
}

/// The fewest character edits that make `old` of a part of `text` reaching
/// outside the byte range `inside` (Sellers' table, a match may start and end
/// anywhere; each cell also knows whether its part reaches outside).
fn nearest_outside(text: &str, old: &str, inside: std::ops::Range<usize>) -> usize {
    const FAR: usize = usize::MAX / 4;
    let old: Vec<char> = old.chars().collect();
    let m = old.len();
    let mut column: Vec<[usize; 2]> = (0..=m).map(|i| [i, FAR]).collect();
    let mut best = FAR;
    for (at, c) in text.char_indices() {
        let out = usize::from(!inside.contains(&at));
        let prev = column.clone();
        // A part may begin after this character, or with it (an insertion).
        column[0] = [
            0,
            (prev[0][1] + 1).min(if out == 1 { prev[0][0] + 1 } else { FAR }),
        ];
        for i in 1..=m {
            let cost = usize::from(old[i - 1] != c);
            // Taking this character (matched, or inserted) marks the part as
            // reaching outside when the character is outside.
            let take = |f: usize| (prev[i - 1][f] + cost).min(prev[i][f] + 1);
            let mut cell = [FAR, FAR];
            cell[out] = cell[out].min(take(0));
            cell[1] = cell[1].min(take(1));
            // Or oldText's character dropped.
            column[i] = [
                cell[0].min(column[i - 1][0] + 1),
                cell[1].min(column[i - 1][1] + 1),
            ];
        }
        best = best.min(column[m][1]);
    }
    best
}

/// Where texts within `k` edits of `old` end in `text` (byte offsets past
/// their last character), by Sellers' algorithm.
fn near_ends_by_table(text: &str, old: &str, k: usize) -> Vec<usize> {
    let old: Vec<char> = old.chars().collect();
    let mut column: Vec<usize> = (0..=old.len()).collect();
    let mut ends = Vec::new();
    for (at, c) in text.char_indices() {
        let mut diag = column[0];
        for i in 1..=old.len() {
            let here = column[i];
            column[i] = (diag + usize::from(old[i - 1] != c))
                .min(column[i - 1] + 1)
                .min(here + 1);
            diag = here;
        }
        if column[old.len()] <= k {
            ends.push(at + c.len_utf8());
        }
    }
    ends
}

/// One change of a list of pieces: one replaced, one inserted or one removed.
#[derive(Debug, Clone)]
enum Change {
    Replace(prop::sample::Index, String),
    Insert(prop::sample::Index, String),
    Remove(prop::sample::Index),
}

fn change() -> impl Strategy<Value = Change> {
    prop_oneof![
        3 => (any::<prop::sample::Index>(), piece()).prop_map(|(i, p)| Change::Replace(i, p)),
        1 => (any::<prop::sample::Index>(), piece()).prop_map(|(i, p)| Change::Insert(i, p)),
        1 => any::<prop::sample::Index>().prop_map(Change::Remove),
    ]
}

fn changed(pieces: &[String], change: &Change) -> Vec<String> {
    let mut out = pieces.to_vec();
    match change {
        Change::Replace(i, p) => {
            let i = i.index(out.len());
            out[i] = p.clone();
        }
        Change::Insert(i, p) => out.insert(i.index(out.len() + 1), p.clone()),
        Change::Remove(i) => {
            out.remove(i.index(out.len()));
        }
    }
    out
}

/// One character of a text changed, inserted or removed.
fn typo(text: &str, at: prop::sample::Index, kind: u8, c: char) -> String {
    let chars: Vec<char> = text.chars().collect();
    let i = at.index(chars.len());
    let mut out = chars.clone();
    match kind % 3 {
        0 => out[i] = c,
        1 => out.insert(i, c),
        _ => {
            out.remove(i);
        }
    }
    out.into_iter().collect()
}

proptest! {
    // Most random edits are skipped (oldText not unique, no shared word, a
    // rival as near): room for the rejects.
    #![proptest_config(ProptestConfig {
        cases: 512,
        max_global_rejects: 8192,
        ..ProptestConfig::default()
    })]

    /// The bit-parallel scan for near matches finds what the table does.
    #[test]
    fn near_matches_are_where_the_table_puts_them(
        text in "[ab\\nö ]{0,120}",
        old in "[abö]{1,64}",
        k in 0usize..3,
    ) {
        let mut ends = Vec::new();
        let whole = near_ends(&text, &old, k, |e| {
            ends.push(e);
            true
        });
        prop_assert!(whole);
        prop_assert_eq!(ends, near_ends_by_table(&text, &old, k));
    }

    /// An edit made, then asked for again, is recognized as made: oldText is
    /// gone and newText stands where it was. Pieces of a line (or whole lines)
    /// are changed by one piece, so oldText and newText share context; that
    /// context holds a word, else the file could not tell the edit from a
    /// coincidence.
    #[test]
    fn an_edit_asked_for_twice_is_already_applied(
        file in lines(),
        at in any::<prop::sample::Index>(),
        span in (any::<prop::sample::Index>(), any::<prop::sample::Index>()),
        whole in 0u8..4,
        extra_line in any::<bool>(),
        change in change(),
    ) {
        let text = join(&file);
        let li = at.index(file.len());
        let (indent, pieces) = &file[li];
        // A span of pieces, the whole line, or the line and the one after it.
        let (old, new) = match whole {
            0 | 1 => {
                let (a, b) = (span.0.index(pieces.len()), span.1.index(pieces.len()));
                let (a, b) = (a.min(b), a.max(b) + 1);
                let new = render(&changed(&pieces[a..b], &change));
                (render(&pieces[a..b]), new)
            }
            2 => (
                format!("{indent}{}", render(pieces)),
                format!("{indent}{}", render(&changed(pieces, &change))),
            ),
            _ => {
                prop_assume!(li + 1 < file.len());
                let next = join(&file[li + 1..li + 2]);
                let eol = if extra_line { "\n" } else { "" };
                let one = |p: &[String]| {
                    format!("{indent}{}\n{}{eol}", render(p), next.trim_end_matches('\n'))
                };
                (one(pieces), one(&changed(pieces, &change)))
            }
        };
        prop_assume!(!old.trim().is_empty() && old != new);
        prop_assume!(count(&text, &old) == 1 && count(&text, &new) == 0);
        prop_assume!(shared(&old, &new).chars().any(char::is_alphanumeric));
        let once = apply_edit(&text, &old, &new, false);
        prop_assume!(once.is_ok());
        let once = once.unwrap().text;
        prop_assume!(count(&once, &old) == 0 && count(&once, &new) == 1);
        // Another text as near oldText as newText is (or within a typo of it),
        // not within newText, could as well be what oldText meant: no file
        // can tell the two apart.
        let typo = typo_budget(old.chars().count());
        let at = memmem::find(once.as_bytes(), new.as_bytes()).unwrap();
        let near = distance(&old, &new).max(typo);
        prop_assume!(nearest_outside(&once, &old, at..at + new.len()) > near);
        // A whole-line stage may place oldText elsewhere (another indentation
        // of the same line): no refusal, so none to judge. Or find it as the
        // file now has it (newText changed only its indentation): the edit
        // would not change the file, which is as true.
        let twice = apply_edit(&once, &old, &new, false);
        prop_assume!(twice.is_err());
        prop_assert!(
            matches!(twice, Err(EditFailure::AlreadyApplied | EditFailure::Unchanged)),
            "{:?}\nold {:?} new {:?}\n{:?}", once, old, new, twice.map(|r| r.text)
        );
    }

    /// oldText with a typo (one character changed, added or dropped) never
    /// claims "already applied", wherever newText stands: on the line oldText
    /// was cut from, or a line of its own. oldText and newText share no
    /// context (no word in a common prefix or suffix).
    #[test]
    fn a_typo_in_oldtext_never_claims_already_applied(
        file in lines(),
        at in any::<prop::sample::Index>(),
        span in (any::<prop::sample::Index>(), any::<prop::sample::Index>()),
        whole in any::<bool>(),
        slip in (
            any::<prop::sample::Index>(),
            0u8..3,
            prop::sample::select(&['a', 'e', 'x', '1', '2', '_', ' ', '(', ')', '.', 'ö'][..]),
        ),
        new in prop::collection::vec(piece(), 1..4),
        place in 0u8..4,
    ) {
        let li = at.index(file.len());
        let (indent, pieces) = &file[li];
        let target = if whole {
            format!("{indent}{}", render(pieces))
        } else {
            let (a, b) = (span.0.index(pieces.len()), span.1.index(pieces.len()));
            render(&pieces[a.min(b)..a.max(b) + 1])
        };
        prop_assume!(target.chars().count() >= 3);
        let new = render(&new);
        prop_assume!(!new.trim().is_empty());
        // newText on the target's line (after it, before it, at the line's
        // end), or on a line of its own after it.
        let line = format!("{indent}{}", render(pieces));
        let placed = match place {
            0 => line.replacen(&target, &format!("{target} + {new}"), 1),
            1 => line.replacen(&target, &format!("{new}{target}"), 1),
            2 => format!("{line} {new}"),
            _ => format!("{line}\n{indent}{new}"),
        };
        let text = format!("{}{placed}\n{}", join(&file[..li]), join(&file[li + 1..]));
        prop_assume!(count(&text, &target) == 1);
        let old = typo(&target, slip.0, slip.1, slip.2);
        prop_assume!(!old.trim().is_empty() && old != new && count(&text, &old) == 0);
        prop_assume!(!shared(&old, &new).chars().any(char::is_alphanumeric));
        let r = apply_edit(&text, &old, &new, false);
        prop_assert!(
            !matches!(r, Err(EditFailure::AlreadyApplied)),
            "{:?}\nold {:?} (from {:?}) new {:?}", text, old, target, new
        );
    }
}
