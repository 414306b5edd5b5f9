//! A tool's input assembled from argv: `--json`, positionals, one flag per input
//! key (typed by the schema), and standard input for the tool's stdin key. Sizes
//! are bounded before anything is held in memory.

use std::io::{IsTerminal, Read};

use clap::ArgMatches;
use serde_json::{Map, Value};

use super::command::{self, positional_id};
use super::error::{CliResult, UsageError};
use super::tools::{ToolRow, row_of};
use crate::kernel::ToolDescriptor;

/// Read all of `reader`, but never more than `limit` bytes: past that, an error
/// naming `what` and the limit, without holding the rest in memory.
pub(crate) fn read_bounded(reader: impl Read, limit: usize, what: &str) -> CliResult<Vec<u8>> {
    read_bounded_sized(reader, limit, what, 0)
}

/// [`read_bounded`] into a buffer made for `size` bytes.
fn read_bounded_sized(
    reader: impl Read,
    limit: usize,
    what: &str,
    size: usize,
) -> CliResult<Vec<u8>> {
    let mut buf = Vec::with_capacity(size);
    reader
        .take(limit as u64 + 1)
        .read_to_end(&mut buf)
        .map_err(|e| UsageError(format!("cannot read {what}: {e}")))?;
    if buf.len() > limit {
        return Err(UsageError(format!(
            "{what} is over {} MiB; indus-tool does not hold more than that in memory",
            limit / (1024 * 1024)
        )));
    }
    Ok(buf)
}

/// Read a JSON argument spelled inline, as `-` (stdin) or as `@FILE`, each at
/// most one batch line's worth.
pub(crate) fn read_json_arg(what: &str, raw: &str) -> CliResult<Value> {
    let limit = crate::interop::batch::MAX_LINE;
    let bytes;
    let text = if raw == "-" {
        bytes = read_bounded(std::io::stdin().lock(), limit, &format!("{what} on stdin"))?;
        &bytes[..]
    } else if let Some(file) = raw.strip_prefix('@') {
        let f = std::fs::File::open(file)
            .map_err(|e| UsageError(format!("{what}: cannot read {file}: {e}")))?;
        bytes = read_bounded(f, limit, &format!("{what} file {file}"))?;
        &bytes[..]
    } else {
        raw.as_bytes()
    };
    serde_json::from_slice(text).map_err(|e| UsageError(format!("{what}: malformed JSON: {e}")))
}

/// Turn a flag's text into the JSON value of its input key, typed by the schema.
pub(crate) fn flag_value(key: &str, schema: &Value, raw: &str) -> CliResult<Value> {
    let ty = schema
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("string");
    Ok(match ty {
        "boolean" => Value::Bool(raw == "true"),
        // A number that does not parse goes through as text, so the tool's own
        // validation names the field and what it accepts.
        "integer" | "number" => {
            let value = serde_json::from_str::<Value>(raw)
                .ok()
                .filter(Value::is_number)
                .unwrap_or_else(|| Value::String(raw.to_string()));
            // A flag takes no more than the tool can honour: past its ceiling
            // (an agent's call is pinned to it, as the seeds say) a person is told
            // the maximum instead of getting less than asked in silence.
            if let (Some(n), Some(max)) = (
                value.as_f64(),
                schema.get("maximum").and_then(Value::as_f64),
            ) && n > max
            {
                return Err(UsageError(format!(
                    "--{}: {raw} is more than it takes; at most {max}",
                    command::kebab(key)
                )));
            }
            value
        }
        // A list of words takes one word as it is (`--keys Enter`), as the
        // tool takes a lone string for a list of one.
        "array" if !raw.trim_start().starts_with('[') && items_are_strings(schema) => {
            Value::String(raw.to_string())
        }
        "array" | "object" => serde_json::from_str(raw)
            .map_err(|e| UsageError(format!("--{}: malformed JSON: {e}", command::kebab(key))))?,
        _ => Value::String(raw.to_string()),
    })
}

fn items_are_strings(schema: &Value) -> bool {
    schema.pointer("/items/type").and_then(Value::as_str) == Some("string")
}

/// The value standard input gives a tool's stdin key: verbatim text for a string
/// key; for an array or object key (`todo_set`'s `items`) the text parsed as JSON,
/// where empty or blank input (`< /dev/null`, a closed pipe) gives nothing, so the
/// tool reports the key as missing.
pub(crate) fn stdin_value(
    key: &str,
    schema: Option<&Value>,
    text: &str,
) -> CliResult<Option<Value>> {
    let ty = schema
        .and_then(|s| s.get("type"))
        .and_then(Value::as_str)
        .unwrap_or("string");
    match ty {
        "array" | "object" if text.trim().is_empty() => Ok(None),
        "array" | "object" => serde_json::from_str(text)
            .map(Some)
            .map_err(|e| UsageError(format!("stdin for \"{key}\": malformed JSON: {e}"))),
        _ => Ok(Some(Value::String(text.to_string()))),
    }
}

/// Assemble a tool's input from `--json`, positionals, flags and (for the tool's
/// stdin key) standard input. Later sources win: flags override `--json`.
pub(crate) fn assemble_input(descriptor: &ToolDescriptor, m: &ArgMatches) -> CliResult<Value> {
    let (mut input, mut stdin_used) = json_base(m)?;
    let props = command::properties(descriptor);
    for (key, schema) in props {
        if let Ok(Some(raw)) = m.try_get_one::<String>(key) {
            input.insert(key.clone(), flag_value(key, schema, raw)?);
        }
    }
    let row = row_of(&descriptor.name);
    stdin_used |= positionals_into(descriptor, row, m, &mut input)?;
    peer_input(descriptor, m, &mut input)?;
    everything_default(row, m, &mut input);
    if let Ok(Some(words)) = m.try_get_many::<String>(command::GRAFTED_WORDS) {
        grafted_words_into(descriptor, words, &mut input)?;
    }
    second_word_moved(row, m, &mut input);
    stdin_into(descriptor, row, m, stdin_used, &mut input)?;
    Ok(Value::Object(input))
}

/// What `--json` gives (an object), and whether it read standard input.
fn json_base(m: &ArgMatches) -> CliResult<(Map<String, Value>, bool)> {
    let Some(raw) = m.get_one::<String>("json") else {
        return Ok((Map::new(), false));
    };
    match read_json_arg("--json", raw)? {
        Value::Object(map) => Ok((map, raw == "-")),
        other => Err(UsageError(format!(
            "--json: expected a JSON object, got {}",
            crate::kernel::input::describe_value(&other)
        ))),
    }
}

/// Positional words fill the positional keys that no flag gave, in order, so
/// `grep -e PATTERN PATH` reads PATH as the path; a last positional given
/// several times (`grep PATTERN a b`) fills the shape's array key instead.
/// Returns whether a file positional read standard input (`-`).
fn positionals_into(
    descriptor: &ToolDescriptor,
    row: &ToolRow,
    m: &ArgMatches,
    input: &mut Map<String, Value>,
) -> CliResult<bool> {
    let mut stdin_used = false;
    let props = command::properties(descriptor);
    let positionals = row.positionals;
    let given = |k: &str| matches!(m.try_get_one::<String>(k), Ok(Some(_)));
    let mut words: Vec<&String> = Vec::new();
    for k in positionals {
        if let Ok(Some(values)) = m.try_get_many::<String>(&positional_id(k)) {
            words.extend(values);
        }
    }
    let free: Vec<&str> = positionals.iter().copied().filter(|k| !given(k)).collect();
    let many = row.many;
    let mut words = words.into_iter().peekable();
    for key in &free {
        let Some(word) = words.next() else {
            break;
        };
        // A key that is itself the array (`diagnose a.py`) takes one word as
        // an array of one.
        if let Some(many) = many
            && Some(key) == positionals.last()
            && (words.peek().is_some() || many == *key)
        {
            let all: Vec<Value> = std::iter::once(word)
                .chain(words.by_ref())
                .map(|w| Value::String(w.clone()))
                .collect();
            input.insert(many.to_string(), Value::Array(all));
            break;
        }
        if row.file_positional == Some(*key) {
            stdin_used |= word == "-";
            input.insert(key.to_string(), Value::String(file_positional(word)?));
            continue;
        }
        if let Some(schema) = props.get(*key) {
            input.insert(key.to_string(), flag_value(key, schema, word)?);
        }
    }
    if let Some(word) = words.next() {
        let upper = |ks: Vec<&&str>| {
            ks.iter()
                .map(|k| k.to_uppercase())
                .collect::<Vec<_>>()
                .join(" ")
        };
        let by_flag = positionals.iter().filter(|k| given(k)).collect();
        return Err(UsageError(format!(
            "unexpected argument '{word}': {} takes {} as words, and a flag already gave {}",
            descriptor.name,
            upper(positionals.iter().collect()),
            upper(by_flag)
        )));
    }
    Ok(stdin_used)
}

/// A file positional's text: the file named, or standard input for `-`.
fn file_positional(word: &str) -> CliResult<String> {
    let limit = crate::tools::files::edit::EDIT_MAX_BYTES;
    let bytes = if word == "-" {
        read_bounded(std::io::stdin().lock(), limit, "stdin")?
    } else {
        std::fs::File::open(word)
            .map_err(|e| UsageError(format!("{word}: {e}")))
            .and_then(|f| {
                // Sized once from the file's length: a patch of
                // megabytes is not copied through doubling buffers.
                let len = f.metadata().map_or(0, |m| m.len() as usize);
                read_bounded_sized(f, limit, word, len.min(limit) + 1)
            })?
    };
    String::from_utf8(bytes).map_err(|_| UsageError(format!("{word} is not valid UTF-8")))
}

/// fd lists everything below the root when no pattern is given (`find -e
/// rs`, `find -t d`): `**/*` matches every path below the root, never the root.
/// `find . src` is fd's "everything under src" (its pattern is a regex, and
/// `.` matches any name); taken as the substring ".", it would skip `Makefile`.
/// Only a pattern typed (or left out) on the command line; `--json` says
/// exactly what it means.
fn everything_default(row: &ToolRow, m: &ArgMatches, input: &mut Map<String, Value>) {
    let given = |k: &str| matches!(m.try_get_one::<String>(k), Ok(Some(_)));
    let from_json = matches!(m.try_get_one::<String>("json"), Ok(Some(_)));
    let typed = |key: &str| {
        given(key) || matches!(m.try_get_many::<String>(&positional_id(key)), Ok(Some(_)))
    };
    if let Some((key, everything)) = row.everything
        && ((!input.contains_key(key) && !from_json)
            || (typed(key) && input.get(key) == Some(&Value::from("."))))
    {
        input.insert(key.to_string(), Value::from(everything));
    }
}

/// A grafted tool's words: `KEY=VALUE` for any key, and bare values for its
/// required keys, then its optional string ones, in the schema's order, as a
/// built-in takes `grep PATTERN [PATH]`.
fn grafted_words_into<'w>(
    descriptor: &ToolDescriptor,
    words: impl Iterator<Item = &'w String>,
    input: &mut Map<String, Value>,
) -> CliResult<()> {
    let props = command::properties(descriptor);
    let required = command::required(descriptor);
    let mut bare: Vec<&String> = Vec::new();
    for word in words {
        match word.split_once('=') {
            Some((key, raw)) if props.contains_key(key) => {
                input.insert(key.to_string(), flag_value(key, &props[key], raw)?);
            }
            _ => bare.push(word),
        }
    }
    // Bare words fill the required keys, then the optional string ones, in
    // the schema's order, as a built-in takes `grep PATTERN [PATH]`.
    let is_string = |k: &str| {
        props
            .get(k)
            .and_then(|p| p.get("type"))
            .and_then(Value::as_str)
            == Some("string")
    };
    let in_order: Vec<&str> = props
        .keys()
        .map(String::as_str)
        .filter(|k| required.contains(k))
        .chain(required.iter().copied().filter(|k| !props.contains_key(*k)))
        .chain(
            props
                .keys()
                .map(String::as_str)
                .filter(|k| !required.contains(k) && is_string(k)),
        )
        .collect();
    let open: Vec<&str> = in_order
        .iter()
        .copied()
        .filter(|k| !input.contains_key(*k))
        .collect();
    let mut free = open.into_iter();
    for word in bare {
        let Some(key) = free.next() else {
            return Err(UsageError(format!(
                "unexpected argument '{word}': {} takes KEY=VALUE words, and bare values for its required keys, then its string keys, in order ({})",
                descriptor.name,
                if in_order.is_empty() {
                    "none".to_string()
                } else {
                    in_order.join(", ")
                }
            )));
        };
        let schema = props.get(key).cloned().unwrap_or(Value::Null);
        input.insert(key.to_string(), flag_value(key, &schema, word)?);
    }
    Ok(())
}

/// `process start CMD`: the second word is the command, not a job id.
fn second_word_moved(row: &ToolRow, m: &ArgMatches, input: &mut Map<String, Value>) {
    if let Some((action, from, to)) = row.second_word
        && let Some(first) = row.positionals.first()
        && input.get(*first).and_then(Value::as_str) == Some(action)
        && !input.contains_key(to)
        && m.try_get_one::<String>(&positional_id(from))
            .ok()
            .flatten()
            .is_some()
        && let Some(word) = input.remove(from)
    {
        input.insert(to.to_string(), word);
    }
}

/// The tool's stdin key from standard input: `--KEY -` reads it even from a
/// terminal; otherwise a pipe or a file is read when no other source gave the
/// key, and `write FILE` with nothing given and nothing piped is refused.
fn stdin_into(
    descriptor: &ToolDescriptor,
    row: &ToolRow,
    m: &ArgMatches,
    stdin_used: bool,
    input: &mut Map<String, Value>,
) -> CliResult<()> {
    let props = command::properties(descriptor);
    let stdin_is_terminal = std::io::stdin().is_terminal()
        // Forwarded from a terminal (`--exec`): the local stdin stayed local.
        || std::env::var_os("INDUS_STDIN_TERMINAL").is_some_and(|v| v == "1");
    let stdin_key = row.stdin_key;
    // `--content -` (any stdin key spelled `-`): read standard input, even a terminal's.
    let dash = stdin_key.is_some_and(|key| {
        input.get(key).and_then(Value::as_str) == Some("-")
            && matches!(m.try_get_one::<String>(key), Ok(Some(_)))
    });
    if dash && let Some(key) = stdin_key {
        input.remove(key);
    }
    // `write FILE` with no content from a terminal or from /dev/null would
    // truncate the file to nothing: a slip (a forgotten --content), never what
    // was meant. A pipe or a file is content, an empty one included.
    if row.stdin_required
        && let Some(key) = stdin_key
        && !input.contains_key(key)
        && !stdin_used
        && !dash
        // What stands for "no content" besides a terminal: a character device
        // such as /dev/null (cron, CI and xargs hand one over), or no stdin at
        // all; asked only here, so no other call pays the fstat.
        && let Some(what) = if stdin_is_terminal {
            Some("a terminal")
        } else {
            stdin_holds_nothing()
        }
    {
        return Err(UsageError(format!(
            "{}: no content given and standard input is {what}; pass --{} TEXT (--{} '' for an empty file), pipe the content in, or --{} - to type it",
            descriptor.name,
            command::kebab(key),
            command::kebab(key),
            command::kebab(key),
        )));
    }
    if let Some(key) = stdin_key
        && !input.contains_key(key)
        && !stdin_used
        && (dash || !stdin_is_terminal)
    {
        let buf = read_bounded(
            std::io::stdin().lock(),
            crate::tools::files::edit::EDIT_MAX_BYTES,
            &format!("stdin for \"{key}\""),
        )?;
        let text = String::from_utf8(buf)
            .map_err(|_| UsageError(format!("stdin for \"{key}\" is not valid UTF-8")))?;
        if let Some(value) = stdin_value(key, props.get(key), &text)? {
            input.insert(key.to_string(), value);
        }
    }
    Ok(())
}

/// The peer flags' part of the input (see `peers`): switches set their value,
/// valued flags are typed by the key's schema, repeatable ones collected into
/// the key's array (after what `--json` gave).
fn peer_input(
    descriptor: &ToolDescriptor,
    m: &ArgMatches,
    input: &mut Map<String, Value>,
) -> CliResult<()> {
    use super::peers::{Effect, peer_id};
    let props = command::properties(descriptor);
    let schema_of = |key: &str, flag: &str| {
        props.get(key).ok_or_else(|| {
            UsageError(format!(
                "--{flag}: this build's {} has no \"{key}\" input",
                descriptor.name
            ))
        })
    };
    for f in row_of(&descriptor.name).peers {
        let id = peer_id(f);
        match f.effect {
            Effect::Set(key, json) => {
                if matches!(m.try_get_one::<bool>(&id), Ok(Some(true))) {
                    schema_of(key, f.long)?;
                    let value = serde_json::from_str(json).expect("peer values are JSON");
                    input.insert(key.to_string(), value);
                }
            }
            Effect::Value(key) => {
                if let Ok(Some(raw)) = m.try_get_one::<String>(&id) {
                    let schema = schema_of(key, f.long)?;
                    input.insert(key.to_string(), flag_value(key, schema, raw)?);
                }
            }
            Effect::Append(key) => {
                if let Ok(Some(values)) = m.try_get_many::<String>(&id) {
                    schema_of(key, f.long)?;
                    // One `-g GLOB` is the tool's own `glob` key, so its errors name
                    // the flag that was typed; several are collected in `globs`.
                    let values: Vec<&String> = values.collect();
                    if let Some(single) = super::peers::singular_of(key)
                        && values.len() == 1
                        && !input.contains_key(single)
                        && !input.contains_key(key)
                        && props.contains_key(single)
                    {
                        input.insert(single.to_string(), Value::String(values[0].clone()));
                        continue;
                    }
                    let slot = input
                        .entry(key.to_string())
                        .or_insert_with(|| Value::Array(Vec::new()));
                    if let Value::Array(items) = slot {
                        items.extend(values.into_iter().map(|v| Value::String(v.clone())));
                    }
                }
            }
            Effect::Cli(_) => {}
        }
    }
    Ok(())
}

/// Whether standard input, not being a terminal, still holds no content: a
/// character device (`/dev/null`, what cron, CI runners and `xargs` give) or a
/// closed descriptor. Said as the refusal names it.
fn stdin_holds_nothing() -> Option<&'static str> {
    use nix::sys::stat::{SFlag, fstat};
    use std::os::fd::AsFd;
    match fstat(std::io::stdin().as_fd()) {
        Err(_) => Some("closed"),
        Ok(st) if SFlag::from_bits_truncate(st.st_mode) & SFlag::S_IFMT == SFlag::S_IFCHR => {
            Some("a character device (such as /dev/null)")
        }
        Ok(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_bounded_takes_up_to_the_limit_and_refuses_past_it() {
        let ok = read_bounded(&b"12345"[..], 5, "input").unwrap();
        assert_eq!(ok, b"12345");
        let err = read_bounded(&[0u8; 3 * 1024 * 1024][..], 2 * 1024 * 1024, "stdin").unwrap_err();
        assert_eq!(
            err.0,
            "stdin is over 2 MiB; indus-tool does not hold more than that in memory"
        );
        // The refusal reads at most one byte past the limit.
        let mut source = std::io::Cursor::new(vec![7u8; 100]);
        assert!(read_bounded(&mut source, 10, "x").is_err());
        assert_eq!(source.position(), 11);
    }
}
