//! `indus-tool batch`: one `ToolCall` JSON object per line on stdin, one
//! `ToolOutcome` line per call on stdout, flushed after each.
//!
//! A process start per call costs more than most calls; a batch pays it once. Lines
//! are answered in input order, or with `jobs > 1` as calls finish (each outcome
//! carries its call's id, echoed exactly as sent, string or number). A line that is
//! not a call gets an `is_error` outcome (with the id when one can be recovered,
//! else `null`) and the stream goes on; blank lines are skipped; end of input ends
//! the run once every call has answered.
//!
//! Two faces (see [`Face`]): the default answers the `ToolOutcome`
//! `{"id","output","is_error"}` with the projected output, for programs;
//! `--format text` answers `{"id","text","is_error"}` whose `text` is exactly the
//! text the command line prints for that outcome (`kernel::render_text`), for an
//! agent loop that shows a model what a person would see. A call may name its
//! checkpoint turn (`"turn"`), so each turn of a long run can be rewound alone.

use std::io::Write;
use std::sync::Arc;

use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt};
use tokio::sync::{Semaphore, mpsc};

use crate::kernel::input::describe_value;
use crate::kernel::{CancellationToken, ToolCall, ToolOutcome, ToolRunner, render_text};

/// What each answer line carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Face {
    /// `{"id","output","is_error"}`: the seed's projected output (the default).
    #[default]
    Json,
    /// `{"id","text","is_error"}`: the text the command line prints.
    Text,
}

/// The answer line of `outcome` in `face`, its id echoed as `id` (as sent: a
/// number stays a number). `indus-tool --exact=batch` prints the same line.
pub fn answer_line(face: Face, id: Value, outcome: &ToolOutcome) -> Value {
    match face {
        Face::Json => json!({
            "id": id,
            "output": crate::kernel::program_view(&outcome.output),
            "is_error": outcome.is_error,
        }),
        Face::Text => json!({
            "id": id,
            "text": render_text(&outcome.output),
            "is_error": outcome.is_error,
        }),
    }
}

/// A JSON-face line (an input line's error answer) in `face`.
fn in_face(face: Face, line: Value) -> Value {
    match face {
        Face::Json => line,
        Face::Text => json!({
            "id": line["id"],
            "text": render_text(&line["output"]),
            "is_error": line["is_error"],
        }),
    }
}

/// The longest input line a batch holds: 64 MiB. A longer line is answered with an
/// error and skipped without being held, so no input can exhaust memory.
pub const MAX_LINE: usize = 64 * 1024 * 1024;

/// One input line, or the length of one that was too long to hold.
#[derive(Debug)]
enum Line {
    Whole(Vec<u8>),
    TooLong(u64),
}

/// Read one line (with its newline) of at most `max` bytes; a longer one is read
/// to its end but not kept. `None` at end of input.
async fn read_line_bounded<R: AsyncBufRead + Unpin>(
    input: &mut R,
    max: usize,
) -> std::io::Result<Option<Line>> {
    let mut buf = Vec::new();
    let mut seen = 0u64;
    loop {
        let chunk = input.fill_buf().await?;
        if chunk.is_empty() {
            return Ok(match seen {
                0 => None,
                _ if buf.len() as u64 == seen => Some(Line::Whole(buf)),
                _ => Some(Line::TooLong(seen)),
            });
        }
        let (take, done) = match memchr::memchr(b'\n', chunk) {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        if buf.len() as u64 == seen && buf.len() + take <= max {
            buf.extend_from_slice(&chunk[..take]);
        } else {
            buf = Vec::new();
        }
        seen += take as u64;
        input.consume(take);
        if done {
            return Ok(Some(if buf.len() as u64 == seen {
                Line::Whole(buf)
            } else {
                Line::TooLong(seen)
            }));
        }
    }
}

/// A parsed line: the call to run and the id to echo (as sent).
#[derive(Debug)]
pub struct Parsed {
    pub call: ToolCall,
    pub echo_id: Value,
}

fn error_line(id: Value, message: String) -> Value {
    json!({ "id": id, "output": message, "is_error": true })
}

/// Turn input line `number` (1-based) into a call, or into the error outcome that
/// answers it.
pub fn parse_line(line: &[u8], number: u64) -> Result<Parsed, Value> {
    let value: Value = serde_json::from_slice(line).map_err(|e| {
        error_line(
            Value::Null,
            format!("Line {number} is not a JSON ToolCall: {e}."),
        )
    })?;
    let Value::Object(mut obj) = value else {
        return Err(error_line(
            Value::Null,
            format!(
                "Line {number}: expected a ToolCall object {{\"id\", \"name\", \"input\"}}, got {}.",
                describe_value(&value)
            ),
        ));
    };
    let echo_id = match obj.remove("id") {
        None | Some(Value::Null) => Value::Null,
        Some(id @ (Value::String(_) | Value::Number(_))) => id,
        Some(other) => {
            return Err(error_line(
                Value::Null,
                format!(
                    "Line {number}: \"id\" must be a string or a number, got {}.",
                    describe_value(&other)
                ),
            ));
        }
    };
    let id = match &echo_id {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        _ => String::new(),
    };
    let name = match obj.remove("name") {
        Some(Value::String(n)) if !n.is_empty() => n,
        other => {
            let got = other
                .as_ref()
                .map(describe_value)
                .unwrap_or_else(|| "nothing".into());
            return Err(error_line(
                echo_id,
                format!("Line {number}: \"name\" must name a tool, got {got}."),
            ));
        }
    };
    let input = obj.remove("input").unwrap_or(Value::Null);
    let turn = match obj.remove("turn") {
        None | Some(Value::Null) => None,
        Some(Value::String(t)) => Some(t).filter(|t| !t.is_empty()),
        Some(other) => {
            return Err(error_line(
                echo_id,
                format!(
                    "Line {number}: \"turn\" must be a string naming the checkpoint turn, got {}.",
                    describe_value(&other)
                ),
            ));
        }
    };
    if let Some(message) = crate::kernel::input::unknown_call_keys(obj.keys()) {
        return Err(error_line(echo_id, format!("Line {number}: {message}.")));
    }
    Ok(Parsed {
        call: ToolCall {
            id,
            name,
            input,
            turn,
        },
        echo_id,
    })
}

/// Run a whole batch: read `input` to its end, answer every line on `out` in
/// `face`.
/// Returns `Ok(false)` when `out` closed early (a reader that stopped listening is
/// not an error; no further line is read or run once it is seen), `Ok(true)`
/// otherwise. On `cancel`, reading stops, calls in flight
/// are cancelled through their context's token, and their answers are still written.
pub async fn run_batch<R, W>(
    runner: Arc<dyn ToolRunner>,
    input: R,
    out: W,
    jobs: usize,
    face: Face,
    cancel: CancellationToken,
) -> std::io::Result<bool>
where
    R: AsyncBufRead + Unpin + Send + 'static,
    W: Write,
{
    let jobs = jobs.max(1);
    // Lines arrive on their own task so that finished answers are written while the
    // next line is still being waited for (an agent sends a call and waits).
    let (line_tx, mut lines) = mpsc::channel::<std::io::Result<Line>>(64);
    tokio::spawn(async move {
        let mut input = input;
        loop {
            match read_line_bounded(&mut input, MAX_LINE).await {
                Ok(None) => break,
                Ok(Some(line)) => {
                    if line_tx.send(Ok(line)).await.is_err() {
                        break;
                    }
                }
                Err(e) => {
                    let _ = line_tx.send(Err(e)).await;
                    break;
                }
            }
        }
    });
    let permits = Arc::new(Semaphore::new(jobs));
    let (done_tx, mut done) = mpsc::unbounded_channel::<Value>();
    let mut number = 0u64;
    let mut open = true;
    let mut reading = true;
    let mut pending = 0usize;
    // Answers are buffered while more work is already waiting and flushed before
    // the loop would wait: a caller that sends one call and waits gets its answer
    // at once, and a stream of calls costs one write per burst, not per answer.
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, out);
    while reading || pending > 0 {
        if lines.is_empty() && done.is_empty() {
            open = open && flush(&mut out)?;
        }
        // The reader is gone (`batch | head -1`): no answer can reach anyone, so
        // no more calls are started, as a shell stops at its SIGPIPE; calls in
        // flight finish. Without this, an endless input ran forever.
        if !open && reading {
            reading = false;
            continue;
        }
        tokio::select! {
            biased;
            Some(v) = done.recv(), if pending > 0 => {
                pending -= 1;
                open = open && emit(&mut out, &v)?;
            }
            _ = cancel.cancelled(), if reading => reading = false,
            line = lines.recv(), if reading => {
                let line = match line {
                    None => {
                        reading = false;
                        continue;
                    }
                    Some(line) => line?,
                };
                number += 1;
                let line = match line {
                    Line::Whole(line) => line,
                    Line::TooLong(len) => {
                        let message = format!(
                            "Line {number} is {len} bytes long, over the batch limit of {} MiB; it was skipped.",
                            MAX_LINE / (1024 * 1024)
                        );
                        let line = in_face(face, error_line(Value::Null, message));
                        open = open && emit(&mut out, &line)?;
                        continue;
                    }
                };
                if line.iter().all(u8::is_ascii_whitespace) {
                    continue;
                }
                let parsed = match parse_line(&line, number) {
                    Ok(p) => p,
                    Err(answer) => {
                        open = open && emit(&mut out, &in_face(face, answer))?;
                        continue;
                    }
                };
                if jobs == 1 {
                    let v = answer(&*runner, parsed, face, cancel.child_token()).await;
                    open = open && emit(&mut out, &v)?;
                    continue;
                }
                let permit = Arc::clone(&permits)
                    .acquire_owned()
                    .await
                    .expect("the semaphore is never closed");
                let runner = Arc::clone(&runner);
                let done_tx = done_tx.clone();
                let token = cancel.child_token();
                pending += 1;
                tokio::spawn(async move {
                    let v = answer(&*runner, parsed, face, token).await;
                    drop(permit);
                    let _ = done_tx.send(v);
                });
            }
        }
    }
    Ok(open && flush(&mut out)?)
}

async fn answer(
    runner: &dyn ToolRunner,
    parsed: Parsed,
    face: Face,
    cancel: CancellationToken,
) -> Value {
    let outcome = runner.run(parsed.call, cancel).await;
    answer_line(face, parsed.echo_id, &outcome)
}

/// Write one answer line; `false` once the reader is gone.
fn emit(out: &mut impl Write, v: &Value) -> std::io::Result<bool> {
    let written = serde_json::to_writer(&mut *out, v)
        .map_err(std::io::Error::from)
        .and_then(|()| out.write_all(b"\n"));
    gone_is_false(written)
}

/// Flush the answers written so far; `false` once the reader is gone.
fn flush(out: &mut impl Write) -> std::io::Result<bool> {
    gone_is_false(out.flush())
}

fn gone_is_false(r: std::io::Result<()>) -> std::io::Result<bool> {
    match r {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(false),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn long_lines_are_measured_not_held() {
        let data = b"short\nthis one is long\n\nlast-no-newline".to_vec();
        // A reader that hands out 3 bytes at a time, to cross chunk edges.
        let mut input = tokio::io::BufReader::with_capacity(3, &data[..]);
        let mut got = Vec::new();
        while let Some(line) = read_line_bounded(&mut input, 8).await.unwrap() {
            got.push(match line {
                Line::Whole(l) => String::from_utf8(l).unwrap(),
                Line::TooLong(n) => format!("<{n}>"),
            });
        }
        assert_eq!(got, ["short\n", "<17>", "\n", "<15>"]);
    }

    #[test]
    fn lines_parse_into_calls_or_answers() {
        let p = parse_line(br#"{"id":"a","name":"ls","input":{"path":"."}}"#, 1).unwrap();
        assert_eq!(p.call.name, "ls");
        assert_eq!(p.echo_id, json!("a"));
        let p = parse_line(br#"{"id":7,"name":"todo_read"}"#, 2).unwrap();
        assert_eq!((p.call.id.as_str(), p.echo_id), ("7", json!(7)));
        assert_eq!(p.call.input, Value::Null);

        let e = parse_line(b"{nope", 3).unwrap_err();
        assert_eq!(e["id"], Value::Null);
        assert_eq!(e["is_error"], true);
        assert!(
            e["output"]
                .as_str()
                .unwrap()
                .starts_with("Line 3 is not a JSON ToolCall: ")
        );
        let e = parse_line(b"[1]", 4).unwrap_err();
        assert_eq!(
            e["output"],
            "Line 4: expected a ToolCall object {\"id\", \"name\", \"input\"}, got an array."
        );
        let e = parse_line(br#"{"id":"x","input":{}}"#, 5).unwrap_err();
        assert_eq!(e["id"], "x");
        assert_eq!(
            e["output"],
            "Line 5: \"name\" must name a tool, got nothing."
        );
        let p = parse_line(br#"{"id":"t","name":"write","turn":"t1"}"#, 7).unwrap();
        assert_eq!(p.call.turn.as_deref(), Some("t1"));
        let e = parse_line(br#"{"id":"t","name":"write","turn":3}"#, 8).unwrap_err();
        assert_eq!(
            e["output"],
            "Line 8: \"turn\" must be a string naming the checkpoint turn, got the number 3."
        );
        assert_eq!(
            in_face(Face::Text, e),
            json!({"id": "t", "text": "Line 8: \"turn\" must be a string naming the checkpoint turn, got the number 3.", "is_error": true})
        );
        let e = parse_line(br#"{"id":[1],"name":"ls"}"#, 6).unwrap_err();
        assert_eq!(
            e["output"],
            "Line 6: \"id\" must be a string or a number, got an array."
        );
    }
}
