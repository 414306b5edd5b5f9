//! `diff`: two files, or with `-r` two trees, compared with the diff engine `edit`
//! uses, spoken as GNU diff speaks: `-u`/`-U N` unified output (the only format),
//! `-q` to say only which files differ, `-r` to recurse, exit 0 equal, 1
//! different, 2 trouble.
//!
//! The tree walk is here rather than in a tool because it is the command line's
//! face of the one diff engine (`tools::files::diff`); every file pair still goes
//! through it. Its messages are GNU diff's (`Only in A: x`, `Binary files … differ`,
//! `Common subdirectories: …`), so scripts that read diff's output keep working,
//! and its output applies with `patch -p0` (or `-p1` under a common prefix).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::ArgMatches;
use serde_json::{Value, json};

use super::error::{CliResult, UsageError};
use super::globals::Globals;
use super::input::read_bounded;
use super::output::Printer;
use crate::backends::local_fs::open_confined;
use crate::kernel::text::inert;
use crate::tools::files::diff::{render_unified_diff_with_headers, rendered_counts};

/// The options of one `diff` invocation.
struct Options<'a> {
    context: usize,
    brief: bool,
    recursive: bool,
    globals: &'a Globals,
    /// The folders (device, inode) being compared on the way down, per side: a
    /// symlink back to one of them is a loop, reported once as GNU diff does,
    /// not followed until the path is too long.
    open_dirs: std::cell::RefCell<Vec<[(u64, u64); 2]>>,
}

/// What comparing one pair found; each kind is reported as GNU diff reports it.
enum Finding {
    /// A unified diff of two text files (with the counts, for JSON).
    Changed {
        a: String,
        b: String,
        patch: String,
        added: usize,
        removed: usize,
    },
    /// Two files whose bytes differ but that are not both UTF-8 text.
    Binary { a: String, b: String },
    /// An entry on one side only.
    Only { dir: String, name: String },
    /// A file on one side, a folder on the other.
    Mismatch {
        a: String,
        a_kind: &'static str,
        b: String,
        b_kind: &'static str,
    },
    /// Two folders met without `-r`.
    CommonDirs { a: String, b: String },
    /// Something could not be read: reported, and the exit status is 2.
    Trouble(String),
}

/// A path as given joined with a name below it, spelled as diff spells it.
fn join_shown(base: &str, name: &str) -> String {
    if base.ends_with('/') {
        format!("{base}{name}")
    } else {
        format!("{base}/{name}")
    }
}

enum Content {
    Text(String),
    Bytes(Vec<u8>),
}

impl Options<'_> {
    fn absolute(&self, given: &str) -> PathBuf {
        crate::kernel::root::tidy(&Path::new(&self.globals.cwd).join(given))
    }

    fn admit(&self, given: &str) -> Result<PathBuf, String> {
        let path = self.absolute(given);
        if let Some(root) = &self.globals.root {
            root.admit(given, &path)?;
        }
        Ok(path)
    }

    fn read(&self, given: &str, top: bool) -> Result<Content, String> {
        let path = self.admit(given)?;
        let file = open_confined(&path.to_string_lossy(), self.globals.root.as_deref(), false)
            .and_then(|file| {
                if !file.metadata()?.is_file() {
                    return Err(std::io::Error::other("not a regular file"));
                }
                Ok(file)
            })
            .map_err(|e| format!("cannot read {given}: {e}"))?;
        // Both files are held whole to be aligned; edit's ceiling bounds them.
        let bytes = read_bounded(file, crate::tools::files::edit::EDIT_MAX_BYTES, given)
            .map_err(|e| e.0)?;
        // Content with a NUL byte is binary, as GNU diff judges it, named
        // outright or in a tree (`/proc/self/environ` is no text to print); two
        // files named outright are otherwise text or an error (a diff of them is
        // the point), and in a tree, files that are not text are binary.
        Ok(match String::from_utf8(bytes) {
            Ok(text) if !text.contains('\0') => Content::Text(text),
            Ok(text) => Content::Bytes(text.into_bytes()),
            Err(_) if top => return Err(format!("{given} is not valid UTF-8 text")),
            Err(e) => Content::Bytes(e.into_bytes()),
        })
    }

    /// Compare two files.
    fn files(&self, a: &str, b: &str, top: bool, out: &mut Vec<Finding>) {
        let (left, right) = match (self.read(a, top), self.read(b, top)) {
            (Ok(l), Ok(r)) => (l, r),
            (Err(e), _) | (_, Err(e)) => return out.push(Finding::Trouble(e)),
        };
        match (left, right) {
            (Content::Text(l), Content::Text(r)) => {
                if l == r {
                    return;
                }
                // The headers are text: a name's control characters escaped,
                // so it can neither forge a line nor drive a terminal.
                let patch =
                    render_unified_diff_with_headers(&l, &r, self.context, &inert(a), &inert(b));
                let (added, removed) = rendered_counts(&patch);
                out.push(Finding::Changed {
                    a: a.to_string(),
                    b: b.to_string(),
                    patch,
                    added,
                    removed,
                });
            }
            (l, r) => {
                let bytes = |c: Content| match c {
                    Content::Text(t) => t.into_bytes(),
                    Content::Bytes(b) => b,
                };
                if bytes(l) != bytes(r) {
                    out.push(Finding::Binary {
                        a: a.to_string(),
                        b: b.to_string(),
                    });
                }
            }
        }
    }

    /// The names in a folder, byte-sorted (GNU diff's order in the C locale).
    fn names(&self, given: &str) -> Result<Vec<String>, String> {
        let path = self.admit(given)?;
        let entries = std::fs::read_dir(&path).map_err(|e| format!("cannot read {given}: {e}"))?;
        let mut names = Vec::new();
        for entry in entries {
            let entry = entry.map_err(|e| format!("cannot read {given}: {e}"))?;
            let name = entry.file_name();
            let Some(name) = name.to_str() else {
                return Err(format!(
                    "{}: a name that is not UTF-8 text",
                    join_shown(given, &name.to_string_lossy())
                ));
            };
            names.push(name.to_string());
        }
        names.sort_unstable();
        Ok(names)
    }

    fn kind(&self, given: &str) -> Result<&'static str, String> {
        let path = self.admit(given)?;
        // Symlinks are followed, as GNU diff follows them.
        let meta = std::fs::metadata(&path).map_err(|e| format!("cannot read {given}: {e}"))?;
        Ok(if meta.is_dir() {
            "directory"
        } else if meta.is_file() {
            "regular file"
        } else {
            "special file"
        })
    }

    /// Compare two folders' entries (recursing with `-r`).
    fn dirs(&self, a: &str, b: &str, out: &mut Vec<Finding>) {
        use std::os::unix::fs::MetadataExt;
        let id = |given: &str| {
            std::fs::metadata(self.absolute(given))
                .map(|m| (m.dev(), m.ino()))
                .map_err(|e| format!("cannot read {given}: {e}"))
        };
        let pair = match (id(a), id(b)) {
            (Ok(x), Ok(y)) => [x, y],
            (Err(e), _) | (_, Err(e)) => return out.push(Finding::Trouble(e)),
        };
        let looped = self
            .open_dirs
            .borrow()
            .iter()
            .any(|open| open[0] == pair[0] || open[1] == pair[1]);
        if looped {
            return out.push(Finding::Trouble(format!("{a}: recursive directory loop")));
        }
        self.open_dirs.borrow_mut().push(pair);
        self.dirs_entries(a, b, out);
        self.open_dirs.borrow_mut().pop();
    }

    fn dirs_entries(&self, a: &str, b: &str, out: &mut Vec<Finding>) {
        let (left, right) = match (self.names(a), self.names(b)) {
            (Ok(l), Ok(r)) => (l, r),
            (Err(e), _) | (_, Err(e)) => return out.push(Finding::Trouble(e)),
        };
        let mut all: Vec<&String> = left.iter().chain(right.iter()).collect();
        all.sort_unstable();
        all.dedup();
        for name in all {
            let (pa, pb) = (join_shown(a, name), join_shown(b, name));
            match (left.contains(name), right.contains(name)) {
                (true, false) => out.push(Finding::Only {
                    dir: a.to_string(),
                    name: name.clone(),
                }),
                (false, true) => out.push(Finding::Only {
                    dir: b.to_string(),
                    name: name.clone(),
                }),
                _ => self.pair(&pa, &pb, false, out),
            }
        }
    }

    /// Compare whatever two paths are: files, folders, or one of each.
    fn pair(&self, a: &str, b: &str, top: bool, out: &mut Vec<Finding>) {
        let (ka, kb) = match (self.kind(a), self.kind(b)) {
            (Ok(x), Ok(y)) => (x, y),
            (Err(e), _) | (_, Err(e)) => return out.push(Finding::Trouble(e)),
        };
        match (ka, kb) {
            ("directory", "directory") if top || self.recursive => self.dirs(a, b, out),
            ("directory", "directory") => out.push(Finding::CommonDirs {
                a: a.to_string(),
                b: b.to_string(),
            }),
            // At the top, `diff FILE DIR` compares FILE with DIR/FILE's name.
            ("directory", _) if top => {
                let name = Path::new(b)
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned());
                match name {
                    Some(name) => self.files(&join_shown(a, &name), b, true, out),
                    None => out.push(Finding::Trouble(format!("{b}: no file name"))),
                }
            }
            (_, "directory") if top => {
                let name = Path::new(a)
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned());
                match name {
                    Some(name) => self.files(a, &join_shown(b, &name), true, out),
                    None => out.push(Finding::Trouble(format!("{a}: no file name"))),
                }
            }
            ("regular file", "regular file") => self.files(a, b, top, out),
            // Named outright, a FIFO or device could block or never end.
            ("special file", _) if top => out.push(Finding::Trouble(format!(
                "cannot read {a}: not a regular file"
            ))),
            (_, "special file") if top => out.push(Finding::Trouble(format!(
                "cannot read {b}: not a regular file"
            ))),
            _ => out.push(Finding::Mismatch {
                a: a.to_string(),
                a_kind: ka,
                b: b.to_string(),
                b_kind: kb,
            }),
        }
    }
}

/// `diff BEFORE AFTER`: relative paths resolve against `--cwd`; the headers spell
/// the paths as given.
pub(crate) fn diff(
    globals: &Globals,
    m: &ArgMatches,
    printer: &mut Printer,
) -> CliResult<ExitCode> {
    let given = |key: &str| -> String {
        m.get_one::<PathBuf>(key)
            .expect("required")
            .to_string_lossy()
            .into_owned()
    };
    let (before, after) = (given("before"), given("after"));
    let options = Options {
        context: *m.get_one::<usize>("context").expect("defaulted"),
        brief: m.get_flag("brief"),
        recursive: m.get_flag("recursive"),
        globals,
        open_dirs: Default::default(),
    };
    let mut findings = Vec::new();
    options.pair(&before, &after, true, &mut findings);
    let trouble = findings.iter().any(|f| matches!(f, Finding::Trouble(_)));
    let differ = findings.iter().any(|f| !matches!(f, Finding::Trouble(_)));
    // Two plain files that cannot be read: a usage-style error, as before.
    if let [Finding::Trouble(message)] = findings.as_slice() {
        return Err(UsageError(format!("diff: {message}")));
    }
    if globals.json {
        printer.stdout_line(&record(&before, &after, &findings).to_string());
    } else {
        let mut out = String::new();
        // Names with their control characters escaped (the JSON keeps them).
        let e = |t: &str| inert(t).into_owned();
        for f in &findings {
            match f {
                Finding::Changed { a, b, patch, .. } => {
                    let (a, b) = (e(a), e(b));
                    if options.brief {
                        out.push_str(&format!("Files {a} and {b} differ\n"));
                    } else {
                        if options.recursive {
                            out.push_str(&format!("diff -ru {a} {b}\n"));
                        }
                        out.push_str(patch);
                    }
                }
                Finding::Binary { a, b } => {
                    let (a, b) = (e(a), e(b));
                    if options.brief {
                        out.push_str(&format!("Files {a} and {b} differ\n"));
                    } else {
                        out.push_str(&format!("Binary files {a} and {b} differ\n"));
                    }
                }
                Finding::Only { dir, name } => {
                    out.push_str(&format!("Only in {}: {}\n", e(dir), e(name)))
                }
                Finding::Mismatch {
                    a,
                    a_kind,
                    b,
                    b_kind,
                } => out.push_str(&format!(
                    "File {} is a {a_kind} while file {} is a {b_kind}\n",
                    e(a),
                    e(b)
                )),
                Finding::CommonDirs { a, b } => {
                    out.push_str(&format!("Common subdirectories: {} and {}\n", e(a), e(b)))
                }
                Finding::Trouble(message) => {
                    printer.stdout_raw(&out);
                    out.clear();
                    printer.error_text(&format!("indus-tool: diff: {}", e(message)));
                }
            }
        }
        printer.stdout_raw(&out);
    }
    // `Common subdirectories` alone is no difference (GNU diff exits 0 for it).
    let differ = differ
        && findings
            .iter()
            .any(|f| !matches!(f, Finding::Trouble(_) | Finding::CommonDirs { .. }));
    Ok(if trouble {
        ExitCode::from(2)
    } else if differ {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}

/// The JSON answer: for two files the one record it has always been
/// (`{before, after, equal, added, removed, diff}`); for two trees the same keys
/// summed, with `files` (one row per finding) beside them.
fn record(before: &str, after: &str, findings: &[Finding]) -> Value {
    let mut diff = String::new();
    let (mut added, mut removed) = (0, 0);
    let mut rows = Vec::new();
    for f in findings {
        rows.push(match f {
            Finding::Changed {
                a,
                b,
                patch,
                added: x,
                removed: y,
            } => {
                diff.push_str(patch);
                added += x;
                removed += y;
                json!({"status": "modified", "before": a, "after": b, "added": x, "removed": y})
            }
            Finding::Binary { a, b } => json!({"status": "binary", "before": a, "after": b}),
            Finding::Only { dir, name } => {
                json!({"status": "only", "path": join_shown(dir, name)})
            }
            Finding::Mismatch { a, b, .. } => json!({"status": "kind", "before": a, "after": b}),
            Finding::CommonDirs { a, b } => {
                json!({"status": "subdirectories", "before": a, "after": b})
            }
            Finding::Trouble(m) => json!({"status": "error", "message": m}),
        });
    }
    let equal = findings
        .iter()
        .all(|f| matches!(f, Finding::CommonDirs { .. }));
    let mut record = json!({
        "before": before,
        "after": after,
        "equal": equal,
        "added": added,
        "removed": removed,
        "diff": diff,
    });
    let single = matches!(findings, [] | [Finding::Changed { .. }]);
    if !single {
        record["files"] = Value::Array(rows);
    }
    record
}
