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
//! Lines are read ahead of the calls they carry (up to [`MAX_WAITING`] calls wait
//! their turn), so that a line `{"cancel": ID}` reaches a call that is already
//! running: the clients (`python/`, `npm/`) keep one batch for a whole session and
//! must be able to stop one call of it, as MCP's `notifications/cancelled` does.
//!
//! Two faces (see [`Face`]): the default answers the `ToolOutcome`
//! `{"id","output","is_error"}` with the projected output, for programs;
//! `--format text` answers `{"id","text","is_error"}` whose `text` is exactly the
//! text the command line prints for that outcome (`kernel::render_text`), for an
//! agent loop that shows a model what a person would see. A call may name its
//! checkpoint turn (`"turn"`), so each turn of a long run can be rewound alone.

use std::collections::VecDeque;
use std::io::Write;
use std::sync::Arc;

use serde_json::{Value, json};
use tokio::io::{AsyncBufRead, AsyncBufReadExt};
use tokio::sync::mpsc;

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

/// One input line, or the length of one that was too long to hold and its first
/// [`ID_HEAD`] bytes (where a client's call names its id).
#[derive(Debug)]
enum Line {
    Whole(Vec<u8>),
    TooLong { len: u64, head: Vec<u8> },
}

/// How much of an over-long line is kept: enough for `{"id": …` to be read
/// from it, so the call is answered to its caller rather than with id null.
const ID_HEAD: usize = 256;

/// Read one line (with its newline) of at most `max` bytes; a longer one is read
/// to its end but only its head kept. `None` at end of input.
async fn read_line_bounded<R: AsyncBufRead + Unpin>(
    input: &mut R,
    max: usize,
) -> std::io::Result<Option<Line>> {
    let mut buf = Vec::new();
    let mut seen = 0u64;
    let mut whole = true;
    let line = |buf: Vec<u8>, whole: bool, len: u64| match whole {
        true => Line::Whole(buf),
        false => Line::TooLong { len, head: buf },
    };
    loop {
        let chunk = input.fill_buf().await?;
        if chunk.is_empty() {
            return Ok((seen > 0).then(|| line(buf, whole, seen)));
        }
        let (take, done) = match memchr::memchr(b'\n', chunk) {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        if whole && buf.len() + take <= max {
            buf.extend_from_slice(&chunk[..take]);
        } else if whole {
            whole = false;
            let keep = take.min(ID_HEAD.saturating_sub(buf.len()));
            buf.extend_from_slice(&chunk[..keep]);
            buf.truncate(ID_HEAD);
            buf.shrink_to_fit();
        }
        seen += take as u64;
        input.consume(take);
        if done {
            return Ok(Some(line(buf, whole, seen)));
        }
    }
}

/// A parsed line: the call to run and the id to echo (as sent).
#[derive(Debug)]
pub struct Parsed {
    pub call: ToolCall,
    pub echo_id: Value,
}

/// What one input line asks for.
#[derive(Debug)]
pub enum Request {
    /// Run a call.
    Call(Parsed),
    /// `{"cancel": ID}`: cancel every waiting or running call whose id is ID (as
    /// sent, so `1` and `"1"` are different ids).
    Cancel(Value),
}

fn error_line(id: Value, message: String) -> Value {
    json!({ "id": id, "output": message, "is_error": true })
}

/// Turn input line `number` (1-based) into a call or a cancel, or into the error
/// outcome that answers it.
pub fn parse_line(line: &[u8], number: u64) -> Result<Request, Value> {
    let value: Value = serde_json::from_slice(line).map_err(|e| {
        error_line(
            leading_id(line),
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
    if let Some(target) = obj.remove("cancel") {
        return parse_cancel(target, &obj, number).map(Request::Cancel);
    }
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
    Ok(Request::Call(Parsed {
        call: ToolCall {
            id,
            name,
            input,
            turn,
        },
        echo_id,
    }))
}

/// The id of a line that is not JSON, when the line opens with it (`{"id": …`, as
/// the clients write their calls), so that the caller waiting for that id gets
/// the answer; else `null`. A string the JSON reader refuses (a lone surrogate
/// escape in the input, say) fails one call, not the caller's matching.
fn leading_id(line: &[u8]) -> Value {
    let rest = line.trim_ascii_start();
    let Some(rest) = rest.strip_prefix(b"{") else {
        return Value::Null;
    };
    let Some(rest) = rest.trim_ascii_start().strip_prefix(b"\"id\"") else {
        return Value::Null;
    };
    let Some(rest) = rest.trim_ascii_start().strip_prefix(b":") else {
        return Value::Null;
    };
    match serde_json::Deserializer::from_slice(rest.trim_ascii_start())
        .into_iter::<Value>()
        .next()
    {
        Some(Ok(id @ (Value::String(_) | Value::Number(_)))) => id,
        _ => Value::Null,
    }
}

/// The id a cancel line names; the line is refused when it says anything more, or
/// names no id a call could carry.
fn parse_cancel(
    target: Value,
    rest: &serde_json::Map<String, Value>,
    number: u64,
) -> Result<Value, Value> {
    if let Some(key) = rest.keys().next() {
        return Err(error_line(
            Value::Null,
            format!(
                "Line {number}: a cancel line takes only \"cancel\" (the id of the call to cancel), got {} too.",
                Value::from(key.as_str())
            ),
        ));
    }
    match target {
        id @ (Value::String(_) | Value::Number(_)) => Ok(id),
        other => Err(error_line(
            Value::Null,
            format!(
                "Line {number}: \"cancel\" must be the id of a call, a string or a number, got {}.",
                describe_value(&other)
            ),
        )),
    }
}

/// How many calls may wait for their turn while lines are read ahead. Past it no
/// further line is read until one starts, so a cancel line sent behind more than
/// this many waiting calls is read only when their number falls.
pub const MAX_WAITING: usize = 256;

/// A line read and not yet answered: a call waiting to start, or (with one job, so
/// that answers keep input order) an answer waiting for the calls before it.
enum Waiting {
    Call(u64, Parsed, CancellationToken),
    Answer(Value),
}

/// Run a whole batch: read `input` to its end, answer every line on `out` in
/// `face`.
/// Returns `Ok(false)` when `out` closed early (a reader that stopped listening is
/// not an error; no further line is read or run once it is seen), `Ok(true)`
/// otherwise. On `cancel`, reading stops, calls in flight and waiting are
/// cancelled through their tokens, and their answers are still written.
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
    let mut lines = spawn_reader(input);
    let (done_tx, mut done) = mpsc::unbounded_channel::<(u64, Value)>();
    let mut waiting: VecDeque<Waiting> = VecDeque::new();
    // Every call read and not yet answered, by its place in the input: what a
    // cancel line looks through.
    let mut live: Vec<(u64, Value, CancellationToken)> = Vec::new();
    let mut number = 0u64;
    let mut open = true;
    let mut reading = true;
    let mut running = 0usize;
    // Answers are buffered while more work is already waiting and flushed before
    // the loop would wait: a caller that sends one call and waits gets its answer
    // at once, and a stream of calls costs one write per burst, not per answer.
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, out);
    loop {
        // Start what may start; with one job an answer waits for the call before it.
        while match waiting.front() {
            Some(Waiting::Answer(_)) => running == 0,
            Some(Waiting::Call(..)) => running < jobs,
            None => false,
        } {
            match waiting.pop_front().expect("the front was looked at") {
                Waiting::Answer(v) => open = open && emit(&mut out, &v)?,
                Waiting::Call(seq, parsed, token) => {
                    let runner = Arc::clone(&runner);
                    let done_tx = done_tx.clone();
                    running += 1;
                    tokio::spawn(async move {
                        let v = answer(&*runner, parsed, face, token).await;
                        let _ = done_tx.send((seq, v));
                    });
                }
            }
        }
        if !reading && running == 0 && waiting.is_empty() {
            break;
        }
        // About to wait: nothing finished, and no line to take now (none came,
        // or enough calls wait already that none is taken). A stream of calls
        // read ahead must not hold back the answers already made.
        let line_ready = reading && waiting.len() < MAX_WAITING && !lines.is_empty();
        if !line_ready && done.is_empty() {
            open = open && flush(&mut out)?;
        }
        // The reader is gone (`batch | head -1`): no answer can reach anyone, so
        // no more calls are started, as a shell stops at its SIGPIPE; calls in
        // flight finish. Without this, an endless input ran forever (and a
        // finite one read ahead ran to its end).
        if !open && (reading || !waiting.is_empty()) {
            reading = false;
            waiting.clear();
            continue;
        }
        tokio::select! {
            biased;
            Some((seq, v)) = done.recv(), if running > 0 => {
                running -= 1;
                live.retain(|l| l.0 != seq);
                open = open && emit(&mut out, &v)?;
            }
            _ = cancel.cancelled(), if reading => reading = false,
            line = lines.recv(), if reading && waiting.len() < MAX_WAITING => {
                let line = match line {
                    None => {
                        reading = false;
                        continue;
                    }
                    Some(line) => line?,
                };
                number += 1;
                let mut intake = Intake {
                    waiting: &mut waiting,
                    live: &mut live,
                    open: &mut open,
                    jobs,
                    face,
                };
                intake.take(&mut out, line, number, &cancel)?;
            }
        }
    }
    Ok(open && flush(&mut out)?)
}

/// Reads `input` line by line on a task of its own, so that finished answers
/// are written while the next line is still being waited for.
fn spawn_reader<R>(input: R) -> mpsc::Receiver<std::io::Result<Line>>
where
    R: AsyncBufRead + Unpin + Send + 'static,
{
    let (line_tx, lines) = mpsc::channel::<std::io::Result<Line>>(64);
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
    lines
}

/// Where an input line goes: a call to the queue (and the calls a cancel line
/// can reach), a line's own answer to the output or behind the calls before it.
struct Intake<'a> {
    waiting: &'a mut VecDeque<Waiting>,
    live: &'a mut Vec<(u64, Value, CancellationToken)>,
    open: &'a mut bool,
    jobs: usize,
    face: Face,
}

impl Intake<'_> {
    /// Takes input line `number`: an oversize line and a line that is no call
    /// are answered; a call is queued; a cancel line cancels the live calls of
    /// its id.
    fn take(
        &mut self,
        out: &mut impl Write,
        line: Line,
        number: u64,
        cancel: &CancellationToken,
    ) -> std::io::Result<()> {
        let line = match line {
            Line::Whole(line) => line,
            Line::TooLong { len, head } => {
                let message = format!(
                    "Line {number} is {len} bytes long, over the batch limit of {} MiB; it was skipped.",
                    MAX_LINE / (1024 * 1024)
                );
                let line = in_face(self.face, error_line(leading_id(&head), message));
                return queue_answer(self.waiting, out, self.open, self.jobs, line);
            }
        };
        if line.iter().all(u8::is_ascii_whitespace) {
            return Ok(());
        }
        match parse_line(&line, number) {
            Ok(Request::Call(parsed)) => {
                let token = cancel.child_token();
                self.live
                    .push((number, parsed.echo_id.clone(), token.clone()));
                self.waiting.push_back(Waiting::Call(number, parsed, token));
            }
            // A call that already answered (or never was) is not an error:
            // the canceller raced its answer, and has it.
            Ok(Request::Cancel(id)) => self
                .live
                .iter()
                .filter(|l| l.1 == id)
                .for_each(|l| l.2.cancel()),
            Err(answer) => {
                let line = in_face(self.face, answer);
                queue_answer(self.waiting, out, self.open, self.jobs, line)?;
            }
        }
        Ok(())
    }
}

/// An input line's own answer: written now when answers go out as calls finish,
/// else queued behind the calls read before it.
fn queue_answer(
    waiting: &mut VecDeque<Waiting>,
    out: &mut impl Write,
    open: &mut bool,
    jobs: usize,
    line: Value,
) -> std::io::Result<()> {
    if jobs == 1 {
        waiting.push_back(Waiting::Answer(line));
    } else {
        *open = *open && emit(out, &line)?;
    }
    Ok(())
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
                Line::TooLong { len, head } => {
                    assert!(head.len() <= ID_HEAD);
                    format!("<{len}>")
                }
            });
        }
        assert_eq!(got, ["short\n", "<17>", "\n", "<15>"]);
    }

    /// An over-long call is answered to the id it opens with: its head is kept.
    #[tokio::test]
    async fn an_over_long_line_keeps_the_head_that_names_its_id() {
        let mut data = br#"{"id":"c7","name":"write","input":{"content":""#.to_vec();
        data.extend(std::iter::repeat_n(b'x', 5000));
        data.extend(b"\"}}\n");
        let mut input = tokio::io::BufReader::with_capacity(64, &data[..]);
        let Some(Line::TooLong { len, head }) = read_line_bounded(&mut input, 1000).await.unwrap()
        else {
            panic!("not cut")
        };
        assert_eq!((len, head.len()), (data.len() as u64, ID_HEAD));
        assert_eq!(leading_id(&head), json!("c7"));
    }

    fn call(line: &[u8], number: u64) -> Parsed {
        match parse_line(line, number) {
            Ok(Request::Call(p)) => p,
            other => panic!("not a call: {other:?}"),
        }
    }

    #[test]
    fn cancel_lines_name_one_id_and_nothing_else() {
        for (line, id) in [
            (&br#"{"cancel":"c1"}"#[..], json!("c1")),
            (br#"{"cancel":7}"#, json!(7)),
        ] {
            match parse_line(line, 1) {
                Ok(Request::Cancel(got)) => assert_eq!(got, id),
                other => panic!("not a cancel: {other:?}"),
            }
        }
        let e = parse_line(br#"{"cancel":"c1","name":"ls"}"#, 2).unwrap_err();
        assert_eq!(
            e["output"],
            "Line 2: a cancel line takes only \"cancel\" (the id of the call to cancel), got \"name\" too."
        );
        let e = parse_line(br#"{"cancel":null}"#, 3).unwrap_err();
        assert_eq!(
            e["output"],
            "Line 3: \"cancel\" must be the id of a call, a string or a number, got null."
        );
    }

    #[test]
    fn lines_parse_into_calls_or_answers() {
        let p = call(br#"{"id":"a","name":"ls","input":{"path":"."}}"#, 1);
        assert_eq!(p.call.name, "ls");
        assert_eq!(p.echo_id, json!("a"));
        let p = call(br#"{"id":7,"name":"todo_read"}"#, 2);
        assert_eq!((p.call.id.as_str(), p.echo_id), ("7", json!(7)));
        assert_eq!(p.call.input, Value::Null);

        // A line that is not JSON still answers the id it opens with.
        let e =
            parse_line(br#"{"id":"7","name":"read","input":{"path":"\ud800"}}"#, 9).unwrap_err();
        assert_eq!(e["id"], "7");
        assert!(
            e["output"]
                .as_str()
                .unwrap()
                .starts_with("Line 9 is not a JSON ToolCall: ")
        );
        let e = parse_line(br#" { "id" : 12 , oops"#, 9).unwrap_err();
        assert_eq!(e["id"], 12);
        for line in [
            &br#"{"name":"x","id":"7",oops"#[..],
            br#"{"id":["x"],oops"#,
            b"{\"id\":\"\\ud800\",\n",
        ] {
            assert_eq!(parse_line(line, 9).unwrap_err()["id"], Value::Null);
        }
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
        let p = call(br#"{"id":"t","name":"write","turn":"t1"}"#, 7);
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
