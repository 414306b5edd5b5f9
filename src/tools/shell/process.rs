//! `process`: background jobs that outlive the invocation that started them.
//!
//! Actions: `start` a command as `job-N`, `list` every job, `poll` a job's output
//! since the previous poll, `write` to its stdin, `stop` it, `remove` a finished
//! job and its files. The seed kept its table in memory; a one-shot CLI cannot, so
//! the table lives in `.indus-process/jobs.json` (see `state::jobs`) and the job is
//! handed to the backend's detached, supervised spawn (`Shell::start_job`): the job
//! leads its own session and process group, its streams go to files, and its exit
//! is recorded by a supervisor even when nobody is polling.
//!
//! A job may run in a pseudo-terminal (`tty`): then `isatty` is true for it,
//! `write` takes named keys, `poll` strips its escapes and `screen` draws its
//! screen (see `terminal`). `poll` can wait for a line (see `poll`, `wait`).
//!
//! A job's fate is always read live: the exit record first, then the pid checked
//! against the start time kept in the table, so a zombie or a recycled pid is never
//! reported as running, and `stop` never signals a process that is not the job's.

use crate::kernel::fields::{Field, Kind};
use crate::kernel::{Checkpoint, Effect, ScanWhen, Seat, SeedList, ToolMeta};
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Value, json};

use super::job::{
    Fate, age, fate_of, find_job, job_json, load_table, required_id, seen_of, state_error,
};
use super::shared::{one_line, working_dir};
use crate::kernel::clock::{iso8601_utc, now_ms};
use crate::kernel::input::Args;
use crate::kernel::text::plural;
use crate::kernel::{
    DefinedTool, JobLaunch, JobSignal, JsonSchema, RemoveOptions, Tool, ToolContext, ToolResult,
    TtySize, define_tool,
};
use crate::state::StateDir;
use crate::state::jobs::{JobBook, JobRecord, JobTable, StopRecord};
use crate::tools::{clamp_for, clamp_rows, record_with_rows, text_and_record};

/// How long `stop` waits after SIGTERM before SIGKILL.
pub const STOP_GRACE: Duration = Duration::from_secs(3);
/// How long `write` waits for a job that is not reading its input.
pub const WRITE_TIMEOUT_MS: u64 = 5_000;

const ACTIONS: &[&str] = &["start", "list", "poll", "stop", "write", "remove", "screen"];

const SIGTERM: i32 = 15;
const SIGKILL: i32 = 9;

struct ProcessTool;

/// The `process` tool's descriptor (see [`ToolMeta`]): its facts, declared once.
pub const META: ToolMeta = ToolMeta {
    seat: Seat::Builtin(SeedList::Mutating),
    effect: Effect::Runs,
    checkpoint: Checkpoint::ByScan(ScanWhen::Key {
        key: "action",
        value: Some("start"),
        unless: None,
    }),
    fields: FIELDS,
    description: "Background jobs that outlive this call (servers, REPLs): start (command → id; tty: a terminal), poll (id → new output; until, waitMs: wait for a line), write (input/keys → stdin), screen, stop, remove, list.",
    ..ToolMeta::new(
        "process",
        "Manage background processes",
        "Start, poll, feed, stop and list background jobs.",
    )
};

/// `process`'s input fields: its schema and the check before it runs.
const FIELDS: &[Field] = &[
    Field::required("action", Kind::Enum(ACTIONS), "What to do."),
    Field::new("command", Kind::Text, "start: command line."),
    Field::new("cwd", Kind::Text, "start: directory."),
    Field::new("tty", Kind::Bool, "start: in a terminal."),
    Field::new("size", Kind::Text, "start: COLSxROWS (80x24)."),
    Field::new("id", Kind::Text, "Job id."),
    Field::new("input", Kind::Text, "write: text for stdin."),
    Field::new(
        "keys",
        Kind::Strings,
        "write: keys after input (\"Up Enter\", C-c).",
    ),
    Field::new(
        "until",
        Kind::Text,
        "poll: wait for a line matching this regex.",
    ),
    Field::new(
        "waitMs",
        Kind::Millis {
            max: super::poll::MAX_WAIT_MS,
        },
        "poll: wait at most this long.",
    ),
    Field::new("raw", Kind::Bool, "poll: keep escapes."),
];

#[async_trait]
impl Tool for ProcessTool {
    fn output_schema(&self) -> Option<JsonSchema> {
        Some(job_tool_schema(crate::kernel::schema_text(include_str!(
            "process.output.json"
        ))))
    }

    fn meta(&self) -> Option<&'static ToolMeta> {
        Some(&META)
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        match run_process(&input, ctx).await {
            Ok(r) | Err(r) => r,
        }
    }
}

fn fail(message: impl Into<String>) -> ToolResult {
    ToolResult::failure(message)
}

async fn run_process(input: &Value, ctx: &ToolContext) -> Result<ToolResult, ToolResult> {
    let args = Args::new(META.name, input).map_err(fail)?;
    let Some(action) = args.opt_enum("action", ACTIONS).map_err(fail)? else {
        return Err(fail(format!(
            "Missing \"action\": expected one of {}.",
            ACTIONS
                .iter()
                .map(|a| format!("\"{a}\""))
                .collect::<Vec<_>>()
                .join(", ")
        )));
    };
    // start and list are the tool's own jobs; an action on one id finds it
    // in its book (`lsp-1`, the language-server broker).
    let id = match action {
        "start" | "list" => None,
        _ => args.opt_str("id").ok().flatten(),
    };
    let book = JobBook::for_id(StateDir::of(ctx), id);
    book.guard().map_err(state_error)?;
    let (text, record) = match action {
        "start" => start(ctx, &args, &book).await?,
        "list" => list(ctx, &book).await?,
        "poll" => super::poll::poll(ctx, &args, &book).await?,
        "screen" => super::poll::screen(ctx, &args, &book).await?,
        "write" => write(ctx, &args, &book).await?,
        "stop" => stop(ctx, &args, &book).await?,
        _ => remove(ctx, &args, &book).await?,
    };
    // People read the text; programs the record (the job's fields).
    Ok(text_and_record(
        clamp_for(ctx, "process", &text),
        record,
        false,
    ))
}

/// Delete a job's folder and everything in it (absent is fine).
async fn remove_tree(ctx: &ToolContext, dir: &str) -> std::io::Result<()> {
    let options = RemoveOptions {
        recursive: true,
        ignore_missing: true,
    };
    ctx.fs.rm(dir, options).await
}

pub(crate) async fn start(
    ctx: &ToolContext,
    args: &Args<'_>,
    book: &JobBook,
) -> Result<(String, Value), ToolResult> {
    let command = args.required_str("command").map_err(fail)?;
    let tty = terminal_size(args).map_err(fail)?;
    let cwd = working_dir(ctx, args).await.map_err(fail)?;
    if ctx.cancel.is_cancelled() {
        return Err(fail("process was cancelled before the job started."));
    }
    // One transaction: the id is claimed and the job recorded under the lock, so
    // concurrent starts get distinct ids and nobody sees a half-made entry.
    let lock = book.state.lock().map_err(state_error)?;
    let mut table: JobTable = book.state.read(&lock, &book.table).map_err(state_error)?;
    let id = table.next_id_with(book.prefix);
    let files = book.files(&id);
    let dir = files.dir_str();
    // A folder left by a table that was deleted by hand holds nothing we know.
    let _ = remove_tree(ctx, &dir).await;
    ctx.fs
        .mkdir(&dir, true)
        .await
        .map_err(|e| fail(format!("process cannot create {dir}: {e}")))?;
    let launch = JobLaunch {
        command: command.to_string(),
        cwd: Some(cwd.clone()),
        stdin_fifo: files.stdin(),
        stdout_path: files.stdout(),
        stderr_path: files.stderr(),
        exit_path: files.exit(),
        tty,
    };
    let started_at = now_ms();
    let identity = match ctx.shell.start_job(&launch).await {
        Ok(identity) => identity,
        Err(e) => {
            let _ = remove_tree(ctx, &dir).await;
            return Err(fail(format!("process could not start the job: {e}")));
        }
    };
    table.jobs.push(
        JobRecord {
            id: id.clone(),
            command: command.to_string(),
            cwd,
            pid: identity.pid,
            pgid: identity.pgid,
            start_time: identity.start_time,
            started_at,
            cursor: Default::default(),
            stopped: None,
            tty,
            seal: None,
        }
        .seal(),
    );
    if let Err(e) = book.state.write(&lock, &book.table, &table) {
        // Do not leave a job running that no table knows about.
        let _ = ctx.shell.signal_job(&identity, SIGKILL);
        return Err(state_error(e));
    }
    drop(lock);
    let on = tty.map_or(String::new(), |t| {
        format!(" in a {}x{} terminal", t.cols, t.rows)
    });
    let text = format!(
        "Started {id} (pid {}){on}: {}",
        identity.pid,
        one_line(command)
    );
    let record = json!({
        "id": id,
        "pid": identity.pid,
        "status": "running",
        "command": command,
        "startedAt": iso8601_utc(started_at),
        "tty": tty.map(|t| json!({"cols": t.cols, "rows": t.rows})),
    });
    Ok((text, record))
}

/// `tty` and `size` (`COLSxROWS`): the terminal to start in, or none.
fn terminal_size(args: &Args<'_>) -> Result<Option<TtySize>, String> {
    let tty = args.opt_bool("tty")?.unwrap_or(false);
    let size = args.opt_str("size")?;
    if !tty {
        return match size {
            None => Ok(None),
            Some(_) => Err("\"size\" sizes a terminal; add \"tty\": true to start in one.".into()),
        };
    }
    let Some(size) = size else {
        return Ok(Some(super::terminal::DEFAULT_SIZE));
    };
    let max = super::terminal::MAX_SIDE;
    let side = |n: &str| {
        n.trim()
            .parse::<u64>()
            .ok()
            .filter(|&n| (1..=max).contains(&n))
    };
    match size.split_once(['x', 'X']) {
        Some((c, r)) if side(c).is_some() && side(r).is_some() => Ok(Some(TtySize {
            cols: side(c).unwrap_or(80) as u16,
            rows: side(r).unwrap_or(24) as u16,
        })),
        _ => Err(format!(
            "Invalid \"size\": expected COLSxROWS, each from 1 to {max} (120x40), got {size:?}."
        )),
    }
}

pub(crate) async fn list(ctx: &ToolContext, book: &JobBook) -> Result<(String, Value), ToolResult> {
    let table = load_table(book)?;
    if table.jobs.is_empty() {
        return Ok(("No background jobs.".into(), json!({"jobs": []})));
    }
    let now = now_ms();
    let mut rows = Vec::with_capacity(table.jobs.len());
    let mut jobs = Vec::with_capacity(table.jobs.len());
    for job in &table.jobs {
        let seen = seen_of(ctx, &book.files(&job.id), job).await?;
        jobs.push(job_json(job, &seen));
        let state = match &seen.waiting {
            Some(_) => "running, waiting for input".to_string(),
            None => seen.fate.short(job.stopped.is_some()),
        };
        rows.push([job.id.clone(), state, age(job, now), one_line(&job.command)]);
    }
    let width = |i: usize| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0);
    let (w0, w1, w2) = (width(0), width(1), width(2));
    let lines: Vec<String> = rows
        .iter()
        .map(|r| format!("{:<w0$}  {:<w1$}  {:>w2$}  {}", r[0], r[1], r[2], r[3]))
        .collect();
    // A long table is cut between jobs, in both forms.
    let text = clamp_rows(ctx, "process", "", &lines, "");
    let record = record_with_rows(serde_json::Map::new(), "jobs", jobs, ctx.budget.max_bytes);
    Ok((text, record))
}

async fn write(
    ctx: &ToolContext,
    args: &Args<'_>,
    book: &JobBook,
) -> Result<(String, Value), ToolResult> {
    let id = required_id(args)?;
    let text = args.opt_str("input").map_err(fail)?;
    let keys = args.opt_str_array("keys").map_err(fail)?;
    if text.is_none() && keys.is_none() {
        return Err(fail(
            "Missing \"input\" or \"keys\": expected text, named keys, or both.",
        ));
    }
    let table = load_table(book)?;
    let job = find_job(&table, id)?;
    let mut input = text.unwrap_or_default().as_bytes().to_vec();
    // `["Up", "Up", "Enter"]` or `"Up Up Enter"`: keys are words.
    for key in keys
        .unwrap_or_default()
        .iter()
        .flat_map(|k| k.split_whitespace())
    {
        input.extend(super::terminal::key_bytes(key, job.tty.is_some()).map_err(fail)?);
    }
    let files = book.files(id);
    let seen = fate_of(ctx, &files, &job).await?;
    if seen.fate != Fate::Running {
        return Err(fail(format!(
            "{id} is not running ({}); nothing reads its input any more.",
            seen.fate.phrase()
        )));
    }
    let sent = ctx
        .shell
        .write_job_input(&files.stdin(), &input, WRITE_TIMEOUT_MS)
        .await
        .map_err(|e| fail(format!("Cannot write to {id}'s input: {e}")))?;
    if sent < input.len() {
        return Err(fail(format!(
            "Sent {sent} of {} bytes to {id}'s stdin; it stopped reading for {} s.",
            input.len(),
            WRITE_TIMEOUT_MS / 1000
        )));
    }
    Ok((
        format!(
            "Sent {} to {id}'s stdin.",
            plural(sent as u64, "byte", "bytes")
        ),
        json!({"id": id, "bytes": sent}),
    ))
}

/// Wait until nothing is left in the job's group, up to `limit`.
async fn group_gone(ctx: &ToolContext, job: &JobRecord, limit: Duration) -> bool {
    let deadline = tokio::time::Instant::now() + limit;
    loop {
        match ctx.shell.signal_job(&job.identity(), 0) {
            Ok(JobSignal::Delivered) => {}
            _ => return true,
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

pub(crate) async fn stop(
    ctx: &ToolContext,
    args: &Args<'_>,
    book: &JobBook,
) -> Result<(String, Value), ToolResult> {
    let id = required_id(args)?;
    let table = load_table(book)?;
    let job = find_job(&table, id)?;
    let files = book.files(id);
    // The lock is not held while waiting out the grace: other invocations go on.
    let first = ctx
        .shell
        .signal_job(&job.identity(), SIGTERM)
        .map_err(|e| fail(format!("process cannot signal {id}: {e}")))?;
    let signal = match first {
        JobSignal::Recycled => {
            let seen = fate_of(ctx, &files, &job).await?;
            let mut record = job_json(&job, &seen);
            record["signalled"] = Value::Null;
            return Ok((
                format!(
                    "{id} is already gone: pid {} now belongs to another process, so nothing was signalled. It {}.",
                    job.pid,
                    seen.fate.sentence()
                ),
                record,
            ));
        }
        JobSignal::NoProcess => {
            let seen = fate_of(ctx, &files, &job).await?;
            let already = if job.stopped.is_some() {
                "was already stopped"
            } else {
                "had already ended"
            };
            let mut record = job_json(&job, &seen);
            record["signalled"] = Value::Null;
            return Ok((
                format!(
                    "{id} {already}; nothing was signalled. It {}.",
                    seen.fate.sentence()
                ),
                record,
            ));
        }
        JobSignal::Delivered => {
            if group_gone(ctx, &job, STOP_GRACE).await {
                "SIGTERM"
            } else {
                let _ = ctx.shell.signal_job(&job.identity(), SIGKILL);
                group_gone(ctx, &job, Duration::from_secs(2)).await;
                "SIGKILL"
            }
        }
    };
    let seen = fate_of(ctx, &files, &job).await?;
    book.state
        .update(&book.table, |t: &mut JobTable| {
            if let Some(entry) = t.find_mut(id) {
                entry.stopped = Some(StopRecord {
                    at: now_ms(),
                    signal: signal.to_string(),
                });
            }
        })
        .map_err(state_error)?;
    let how = if signal == "SIGKILL" {
        "SIGKILL, after SIGTERM went unheeded for 3 s"
    } else {
        "SIGTERM"
    };
    let mut record = job_json(&job, &seen);
    record["stopped"] = json!(true);
    record["signalled"] = json!(signal);
    Ok((
        format!("Stopped {id} with {how}; it {}.", seen.fate.sentence()),
        record,
    ))
}

async fn remove(
    ctx: &ToolContext,
    args: &Args<'_>,
    book: &JobBook,
) -> Result<(String, Value), ToolResult> {
    let id = required_id(args)?;
    let lock = book.state.lock().map_err(state_error)?;
    let mut table: JobTable = book.state.read(&lock, &book.table).map_err(state_error)?;
    let job = find_job(&table, id)?;
    let files = book.files(id);
    let seen = fate_of(ctx, &files, &job).await?;
    if seen.fate == Fate::Running {
        return Err(fail(format!("{id} is still running; stop it first.")));
    }
    if ctx.shell.signal_job(&job.identity(), 0).ok() == Some(JobSignal::Delivered) {
        return Err(fail(format!(
            "{id} has ended but processes it started are still running; stop it first."
        )));
    }
    remove_tree(ctx, &files.dir_str())
        .await
        .map_err(|e| fail(format!("process cannot delete {}: {e}", files.dir_str())))?;
    table.jobs.retain(|j| j.id != id);
    book.state
        .write(&lock, &book.table, &table)
        .map_err(state_error)?;
    Ok((
        format!("Removed {id} and its captured output."),
        json!({"id": id, "removed": true}),
    ))
}

/// The output schema of a job tool (`process`, the deck's `bg-process`) from
/// its own fields (`own`): a job record's fields ([`job_json`], described once
/// in `job.schema.json`) first, then the tool's, and `jobs` a list of job
/// records (its `items` keep any words of the tool's own).
pub(crate) fn job_tool_schema(own: JsonSchema) -> JsonSchema {
    let Value::Object(job) = crate::kernel::schema_text(include_str!("job.schema.json")) else {
        unreachable!("job.schema.json is an object")
    };
    let Value::Object(mut own) = own else {
        return own;
    };
    let mut props = job
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let own_props = own
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    for (key, mut schema) in own_props {
        if key == "jobs"
            && let Value::Object(list) = schema
        {
            let mut items = job.clone();
            if let Some(Value::Object(words)) = list.get("items") {
                items.extend(words.clone());
            }
            let mut jobs = serde_json::Map::new();
            jobs.insert("type".into(), Value::from("array"));
            jobs.insert("items".into(), Value::Object(items));
            jobs.extend(
                list.into_iter()
                    .filter(|(k, _)| k != "type" && k != "items"),
            );
            schema = Value::Object(jobs);
        }
        props.insert(key, schema);
    }
    own.insert("properties".into(), Value::Object(props));
    Value::Object(own)
}

/// The `process` tool.
pub fn process_tool() -> DefinedTool {
    define_tool(Arc::new(ProcessTool))
}
