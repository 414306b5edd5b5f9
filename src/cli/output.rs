//! Printing outcomes: text blocks to stdout (errors to stderr), or exactly one JSON
//! line. Colour is used only on a terminal (and never under `NO_COLOR` or in JSON).
//! A closed stdout (`| head`) ends the program quietly with status 0.

use std::io::{IsTerminal, Write};
use std::process::ExitCode;

use owo_colors::OwoColorize;
use serde_json::{Value, json};

use crate::kernel::render::{human_size, is_block};
use crate::kernel::{ToolOutcome, render_text};

/// A listing tool's rows straight to stdout as it finds them (see
/// `ToolContext::rows`), block-buffered as rg writes to a pipe. A reader gone
/// (`| head`) ends the program quietly with 0, as everywhere else here.
#[derive(Default)]
pub struct StdoutRows {
    out: std::sync::Mutex<Option<std::io::BufWriter<std::io::Stdout>>>,
}

impl StdoutRows {
    /// `bytes`, a newline after them when `line`, under one lock.
    fn write(&self, bytes: &[u8], line: bool, flush: bool) -> std::io::Result<()> {
        let mut out = self.out.lock().unwrap_or_else(|p| p.into_inner());
        let out = out
            .get_or_insert_with(|| std::io::BufWriter::with_capacity(64 * 1024, std::io::stdout()));
        let done = out
            .write_all(bytes)
            .and_then(|()| if line { out.write_all(b"\n") } else { Ok(()) })
            .and_then(|()| if flush { out.flush() } else { Ok(()) });
        if let Err(e) = &done {
            exit_if_reader_gone(e);
        }
        done
    }
}

impl crate::kernel::RowSink for StdoutRows {
    fn row(&self, row: &str) -> std::io::Result<()> {
        self.write(row.as_bytes(), true, false)
    }

    fn rows(&self, rows: &str) -> std::io::Result<()> {
        self.write(rows.as_bytes(), false, false)
    }

    fn flush(&self) -> std::io::Result<()> {
        self.write(b"", false, true)
    }
}

/// A reader of stdout gone (`| head`) ends the program quietly with status 0:
/// what it wanted, it has.
fn exit_if_reader_gone(e: &std::io::Error) {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
}

/// The `--color` choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColorMode {
    Auto,
    Always,
    Never,
}

fn no_color_env() -> bool {
    std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty())
}

/// Writes to stdout/stderr with the invocation's colour choice.
pub struct Printer {
    color_stderr: bool,
    /// `--format json`: a usage error is a JSON object on stdout too.
    pub json: bool,
}

impl Printer {
    pub fn new(mode: ColorMode) -> Self {
        let color_stderr = match mode {
            ColorMode::Always => true,
            ColorMode::Never => false,
            ColorMode::Auto => !no_color_env() && std::io::stderr().is_terminal(),
        };
        Self {
            color_stderr,
            json: false,
        }
    }

    /// The same printer answering in JSON (`--format json`) or not.
    pub fn with_json(mut self, json: bool) -> Self {
        self.json = json;
        self
    }

    /// Write to stdout; a closed pipe ends the program with status 0.
    pub fn stdout_bytes(&mut self, bytes: &[u8]) {
        let mut out = std::io::stdout().lock();
        if let Err(e) = out.write_all(bytes).and_then(|_| out.flush()) {
            exit_if_reader_gone(&e);
            // Nowhere left to report to but stderr.
            let _ = writeln!(std::io::stderr(), "indus-tool: cannot write output: {e}");
            std::process::exit(1);
        }
    }

    pub fn stdout_raw(&mut self, text: &str) {
        self.stdout_bytes(text.as_bytes());
    }

    /// Print `text` and make sure it ends with a newline.
    pub fn stdout_line(&mut self, text: &str) {
        let mut s = text.to_string();
        if !s.ends_with('\n') {
            s.push('\n');
        }
        self.stdout_raw(&s);
    }

    /// An error text on stderr, red on a colour terminal.
    pub fn error_text(&mut self, text: &str) {
        let mut s = text.to_string();
        if !s.ends_with('\n') {
            s.push('\n');
        }
        let mut err = std::io::stderr().lock();
        if self.color_stderr {
            // Line by line, so every colour reset lands before its newline and a
            // reader (or `grep`) never sees a stray escape at a line's start.
            for line in s.split_inclusive('\n') {
                let body = line.strip_suffix('\n').unwrap_or(line);
                let _ = writeln!(err, "{}", body.red());
            }
        } else {
            let _ = write!(err, "{s}");
        }
    }

    /// Bytes on stderr as they are (a command's own stderr), no colour.
    pub fn stderr_raw(&mut self, text: &str) {
        let mut err = std::io::stderr().lock();
        let _ = err.write_all(text.as_bytes()).and_then(|_| err.flush());
    }

    /// A usage error: one line on stderr, status 2. Under `--format json` it is
    /// also one JSON object on stdout, `{"error":{"kind":"usage","message":…}}`,
    /// so a program reading stdout always gets JSON.
    pub fn usage(&mut self, message: &str) -> ExitCode {
        if self.json {
            let line = serde_json::json!({"error": {"kind": "usage", "message": message}});
            self.stdout_line(&line.to_string());
        }
        let prefix = "indus-tool: error:";
        let mut err = std::io::stderr().lock();
        let _ = if self.color_stderr {
            writeln!(err, "{} {message}", prefix.red().bold())
        } else {
            writeln!(err, "{prefix} {message}")
        };
        ExitCode::from(2)
    }

    /// Print an outcome: one JSON line, or its text blocks (JSON blocks pretty).
    /// `id`, when given, is the JSON line's id as the caller sent it (a number stays
    /// a number).
    pub fn outcome_as(&mut self, outcome: &ToolOutcome, json: bool, id: Option<&Value>) {
        if json {
            let id = id
                .cloned()
                .unwrap_or_else(|| Value::String(outcome.id.clone()));
            let line = serde_json::json!({
                "id": id,
                "output": crate::kernel::program_view(&outcome.output),
                "is_error": outcome.is_error,
            })
            .to_string();
            self.stdout_line(&line);
            return;
        }
        let text = render_text(&outcome.output);
        if outcome.is_error {
            self.error_text(&text);
        } else if !text.is_empty() {
            self.stdout_line(&text);
        }
    }
}

/// `--save-media DIR`: every image, audio and binary resource block of `output`
/// decoded into a file in `dir` (`TOOL-N.EXT`, N counting from 1, never over an
/// existing file), and replaced by a text block naming the file; the rest
/// unchanged. An error names the file it could not write.
pub fn save_media(output: &Value, dir: &std::path::Path, tool: &str) -> Result<Value, String> {
    use base64::Engine as _;
    let mut n = 0usize;
    let mut save = |v: &Value| -> Result<Option<Value>, String> {
        let (data, mime) = match crate::kernel::media_kind(v) {
            Some("image" | "audio") => (v.get("data"), v.get("mimeType")),
            Some("resource") => {
                let r = &v["resource"];
                (r.get("blob"), r.get("mimeType"))
            }
            _ => return Ok(None),
        };
        let (Some(data), mime) = (data.and_then(Value::as_str), mime.and_then(Value::as_str))
        else {
            return Ok(None);
        };
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(data.trim())
            .map_err(|e| {
                format!(
                    "--save-media: a {} block is not valid base64 ({e})",
                    mime.unwrap_or("media")
                )
            })?;
        std::fs::create_dir_all(dir).map_err(|e| format!("--save-media {}: {e}", dir.display()))?;
        let ext = match mime.unwrap_or("") {
            "image/png" => "png",
            "image/jpeg" => "jpg",
            "image/gif" => "gif",
            "image/webp" => "webp",
            "image/svg+xml" => "svg",
            "audio/wav" | "audio/x-wav" => "wav",
            "audio/mpeg" => "mp3",
            "audio/ogg" => "ogg",
            "application/pdf" => "pdf",
            "application/gzip" => "gz",
            _ => "bin",
        };
        let safe: String = tool
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        loop {
            n += 1;
            let path = dir.join(format!("{safe}-{n}.{ext}"));
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)
            {
                Ok(mut f) => {
                    use std::io::Write;
                    f.write_all(&bytes).map_err(|e| {
                        format!("--save-media: cannot write {}: {e}", path.display())
                    })?;
                    return Ok(Some(json!({"kind": "text", "text": format!(
                        "[{}, {}: {}]",
                        mime.unwrap_or("media"),
                        human_size(bytes.len() as u64),
                        path.display()
                    )})));
                }
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => {
                    return Err(format!(
                        "--save-media: cannot write {}: {e}",
                        path.display()
                    ));
                }
            }
        }
    };
    match output {
        Value::Array(items) if items.iter().all(is_block) => {
            let mut out = Vec::with_capacity(items.len());
            for b in items {
                let saved = match b.get("value") {
                    Some(v) if b.get("kind") == Some(&json!("json")) => save(v)?,
                    _ => None,
                };
                out.push(saved.unwrap_or_else(|| b.clone()));
            }
            Ok(Value::Array(out))
        }
        other => Ok(match save(other)? {
            Some(text) => text["text"].clone(),
            None => other.clone(),
        }),
    }
}
