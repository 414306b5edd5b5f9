//! Permissive-but-exact parsing of a tool's JSON input.
//!
//! Every tool validates its own input and answers a bad field with an `is_error`
//! result that names the field, says what it accepts and shows what it got. These
//! helpers keep that wording identical across tools, and `null` counts as absent.
//!
//! A key the schema does not name is refused before the tool runs
//! ([`unknown_keys`]), with the known key it most likely meant: a model's
//! near-miss name (`timeout` for `timeoutMs`, `replace_all`, another tool
//! layer's `old_string`) is its commonest slip, and ignoring it would run a
//! different call than the one asked for (a 5 s command past a 1 s timeout).

use serde_json::{Map, Value};

/// A short, model-readable rendering of what a field held.
pub fn describe_value(value: &Value) -> String {
    match value {
        Value::Null => "null".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => format!("the number {n}"),
        Value::String(s) => {
            let mut shown: String = s.chars().take(40).collect();
            if shown.len() < s.len() {
                shown.push('…');
            }
            format!("the string {}", Value::String(shown))
        }
        Value::Array(_) => "an array".to_string(),
        Value::Object(_) => "an object".to_string(),
    }
}

/// The message for a field holding the wrong thing.
pub fn invalid(field: &str, expected: &str, got: &Value) -> String {
    format!(
        "Invalid \"{field}\": expected {expected}, got {}.",
        describe_value(got)
    )
}

/// `one of "a", "b"`: how an enum's accepted values are named in messages.
fn one_of(allowed: &[&str]) -> String {
    format!(
        "one of {}",
        allowed
            .iter()
            .map(|a| format!("\"{a}\""))
            .collect::<Vec<_>>()
            .join(", ")
    )
}

/// A view of a tool's input object, or of an object nested in it (see
/// [`Args::nested`]), whose messages then name the field by its whole path.
pub struct Args<'a> {
    map: &'a Map<String, Value>,
    /// The path of this object inside the input (`items[2]`); empty at the top.
    path: String,
}

impl<'a> Args<'a> {
    /// The input must be a JSON object; anything else is refused with `tool`'s name.
    pub fn new(tool: &str, input: &'a Value) -> Result<Self, String> {
        match input {
            Value::Object(map) => Ok(Self {
                map,
                path: String::new(),
            }),
            other => Err(format!(
                "Invalid input for {tool}: expected a JSON object of named fields, got {}.",
                describe_value(other)
            )),
        }
    }

    /// The view of an input the tool's field table has checked (see
    /// `kernel::fields::check`, run before every call of a tool with a
    /// descriptor), so it is an object; anything else reads as one with no
    /// fields, whose required ones are then missing.
    pub fn checked(input: &'a Value) -> Self {
        static NONE: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
        Self {
            map: input
                .as_object()
                .unwrap_or_else(|| NONE.get_or_init(Map::new)),
            path: String::new(),
        }
    }

    /// A view of an object nested in the input at `path` (`items[2]`): its fields
    /// are looked up by their own keys, and messages name them as `items[2].id`.
    pub fn nested(map: &'a Map<String, Value>, path: impl Into<String>) -> Self {
        Self {
            map,
            path: path.into(),
        }
    }

    /// How messages name `field`: the key itself, or its path below the top.
    fn name(&self, field: &str) -> String {
        if self.path.is_empty() {
            field.to_string()
        } else {
            format!("{}.{field}", self.path)
        }
    }

    /// The field's value, with `null` treated as absent.
    pub fn get(&self, field: &str) -> Option<&'a Value> {
        self.map.get(field).filter(|v| !v.is_null())
    }

    /// A required string that must not be empty.
    pub fn required_str(&self, field: &str) -> Result<&'a str, String> {
        let name = self.name(field);
        match self.get(field) {
            None => Err(format!("Missing \"{name}\": expected a non-empty string.")),
            Some(Value::String(s)) if s.is_empty() => Err(format!(
                "Invalid \"{name}\": expected a non-empty string, got an empty string."
            )),
            Some(Value::String(s)) => Ok(s),
            Some(other) => Err(invalid(&name, "a non-empty string", other)),
        }
    }

    /// An optional string (empty allowed).
    pub fn opt_str(&self, field: &str) -> Result<Option<&'a str>, String> {
        match self.get(field) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(invalid(&self.name(field), "a string", other)),
        }
    }

    /// An optional string where an empty one counts as not given: the filler a
    /// strict-mode caller (every key required, none nullable) sends for a key it
    /// does not mean.
    pub fn opt_filled_str(&self, field: &str) -> Result<Option<&'a str>, String> {
        Ok(self.opt_str(field)?.filter(|s| !s.is_empty()))
    }

    /// An optional array of strings (empty strings and an empty array allowed). A
    /// lone string counts as an array of one, since models often send `"rust"` for
    /// `["rust"]`; an element of another type is refused naming its index.
    pub fn opt_str_array(&self, field: &str) -> Result<Option<Vec<&'a str>>, String> {
        match self.get(field) {
            None => Ok(None),
            Some(Value::String(s)) => Ok(Some(vec![s.as_str()])),
            Some(Value::Array(items)) => items
                .iter()
                .enumerate()
                .map(|(i, item)| match item {
                    Value::String(s) => Ok(s.as_str()),
                    other => Err(invalid(
                        &format!("{}[{i}]", self.name(field)),
                        "a string",
                        other,
                    )),
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            Some(other) => Err(invalid(&self.name(field), "an array of strings", other)),
        }
    }

    /// An optional boolean.
    pub fn opt_bool(&self, field: &str) -> Result<Option<bool>, String> {
        match self.get(field) {
            None => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(other) => Err(invalid(&self.name(field), "true or false", other)),
        }
    }

    /// An optional number of milliseconds (a [`Kind::Millis`] field): positive and
    /// finite, fractions floored, a value past `max` pinned to it (the deadlines'
    /// ceilings, as the seeds say).
    ///
    /// [`Kind::Millis`]: crate::kernel::fields::Kind::Millis
    pub fn opt_millis(&self, field: &str, max: u64) -> Result<Option<u64>, String> {
        match self.get(field) {
            None => Ok(None),
            Some(value) => match value.as_f64() {
                Some(f) if f.is_finite() && f >= 1.0 => Ok(Some((f.floor() as u64).min(max))),
                _ => Err(invalid(
                    &self.name(field),
                    "a positive number of milliseconds",
                    value,
                )),
            },
        }
    }

    /// An optional finite positive integer (`5` and `5.0` pass; `0`, `-1`, `2.5`,
    /// strings and values beyond `u64` are refused).
    pub fn opt_positive_int(&self, field: &str) -> Result<Option<u64>, String> {
        self.opt_int_at_least(field, 1, "a positive integer")
    }

    /// An optional positive integer no larger than `max`: a value the tool cannot
    /// honour is refused naming the maximum, never quietly lowered to it.
    pub fn opt_positive_int_at_most(&self, field: &str, max: u64) -> Result<Option<u64>, String> {
        let expected = format!("a positive integer of at most {max}");
        match self.opt_int_at_least(field, 1, &expected)? {
            Some(n) if n > max => Err(invalid(&self.name(field), &expected, &Value::from(n))),
            n => Ok(n),
        }
    }

    /// An optional line number (a [`Kind::Line`] field): a non-zero integer,
    /// negative counting from the end.
    ///
    /// [`Kind::Line`]: crate::kernel::fields::Kind::Line
    pub fn opt_line(&self, field: &str) -> Result<Option<i64>, String> {
        let Some(value) = self.get(field) else {
            return Ok(None);
        };
        let n = match value {
            Value::Number(n) => n.as_i64().or_else(|| {
                n.as_f64()
                    .filter(|f| f.is_finite() && f.fract() == 0.0 && f.abs() < 9.0e15)
                    .map(|f| f as i64)
            }),
            _ => None,
        };
        match n {
            Some(n) if n != 0 => Ok(Some(n)),
            _ => Err(invalid(
                &self.name(field),
                "a line number (1 is the first line, -1 the last)",
                value,
            )),
        }
    }

    /// An optional integer `>= 0`.
    pub fn opt_non_negative_int(&self, field: &str) -> Result<Option<u64>, String> {
        self.opt_int_at_least(field, 0, "a non-negative integer")
    }

    fn opt_int_at_least(
        &self,
        field: &str,
        min: u64,
        expected: &str,
    ) -> Result<Option<u64>, String> {
        let Some(value) = self.get(field) else {
            return Ok(None);
        };
        let n = match value {
            Value::Number(n) => {
                if let Some(u) = n.as_u64() {
                    Some(u)
                } else if let Some(f) = n.as_f64() {
                    (f.is_finite() && f.fract() == 0.0 && f >= 0.0 && f < u64::MAX as f64)
                        .then_some(f as u64)
                } else {
                    None
                }
            }
            _ => None,
        };
        match n {
            Some(n) if n >= min => Ok(Some(n)),
            _ => Err(invalid(&self.name(field), expected, value)),
        }
    }

    /// An optional string restricted to `allowed`.
    pub fn opt_enum(&self, field: &str, allowed: &[&str]) -> Result<Option<&'a str>, String> {
        match self.get(field) {
            None => Ok(None),
            Some(Value::String(s)) if allowed.contains(&s.as_str()) => Ok(Some(s)),
            Some(other) => Err(invalid(&self.name(field), &one_of(allowed), other)),
        }
    }

    /// A required string restricted to `allowed`.
    pub fn required_enum(&self, field: &str, allowed: &[&str]) -> Result<&'a str, String> {
        self.opt_enum(field, allowed)?.ok_or_else(|| {
            format!(
                "Missing \"{}\": expected {}.",
                self.name(field),
                one_of(allowed)
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn input_must_be_an_object() {
        let err = Args::new("read", &json!("x")).err().unwrap();
        assert_eq!(
            err,
            "Invalid input for read: expected a JSON object of named fields, got the string \"x\"."
        );
    }

    #[test]
    fn required_strings() {
        let v = json!({"path": "", "n": 3, "ok": "a"});
        let a = Args::new("t", &v).unwrap();
        assert_eq!(
            a.required_str("missing").unwrap_err(),
            "Missing \"missing\": expected a non-empty string."
        );
        assert_eq!(
            a.required_str("path").unwrap_err(),
            "Invalid \"path\": expected a non-empty string, got an empty string."
        );
        assert_eq!(
            a.required_str("n").unwrap_err(),
            "Invalid \"n\": expected a non-empty string, got the number 3."
        );
        assert_eq!(a.required_str("ok").unwrap(), "a");
    }

    #[test]
    fn positive_integers() {
        let v =
            json!({"a": 5, "b": 5.0, "c": 0, "d": -1, "e": 2.5, "f": "7", "g": 1e308, "h": null});
        let a = Args::new("t", &v).unwrap();
        assert_eq!(a.opt_positive_int("a").unwrap(), Some(5));
        assert_eq!(a.opt_positive_int("b").unwrap(), Some(5));
        assert_eq!(
            a.opt_positive_int("c").unwrap_err(),
            "Invalid \"c\": expected a positive integer, got the number 0."
        );
        assert!(a.opt_positive_int("d").is_err());
        assert!(a.opt_positive_int("e").is_err());
        assert!(a.opt_positive_int("f").is_err());
        assert!(a.opt_positive_int("g").is_err());
        assert_eq!(a.opt_positive_int("h").unwrap(), None);
        assert_eq!(a.opt_positive_int("zz").unwrap(), None);
        assert_eq!(a.opt_non_negative_int("c").unwrap(), Some(0));
    }

    #[test]
    fn enums_and_bools() {
        let v = json!({"type": "dir", "bad": "folder", "flag": "yes"});
        let a = Args::new("t", &v).unwrap();
        assert_eq!(a.opt_enum("type", &["file", "dir"]).unwrap(), Some("dir"));
        assert_eq!(
            a.opt_enum("bad", &["file", "dir"]).unwrap_err(),
            "Invalid \"bad\": expected one of \"file\", \"dir\", got the string \"folder\"."
        );
        assert_eq!(
            a.required_enum("missing", &["file", "dir"]).unwrap_err(),
            "Missing \"missing\": expected one of \"file\", \"dir\"."
        );
        assert_eq!(a.required_enum("type", &["file", "dir"]).unwrap(), "dir");
        assert_eq!(
            a.opt_bool("flag").unwrap_err(),
            "Invalid \"flag\": expected true or false, got the string \"yes\"."
        );
    }

    #[test]
    fn string_arrays() {
        let v = json!({"a": ["x", ""], "b": "one", "c": [], "d": 3, "e": ["x", 2], "f": null});
        let a = Args::new("t", &v).unwrap();
        assert_eq!(a.opt_str_array("a").unwrap(), Some(vec!["x", ""]));
        assert_eq!(a.opt_str_array("b").unwrap(), Some(vec!["one"]));
        assert_eq!(a.opt_str_array("c").unwrap(), Some(vec![]));
        assert_eq!(
            a.opt_str_array("d").unwrap_err(),
            "Invalid \"d\": expected an array of strings, got the number 3."
        );
        assert_eq!(
            a.opt_str_array("e").unwrap_err(),
            "Invalid \"e[1]\": expected a string, got the number 2."
        );
        assert_eq!(a.opt_str_array("f").unwrap(), None);
        assert_eq!(a.opt_str_array("zz").unwrap(), None);
    }

    #[test]
    fn nested_objects_name_fields_by_path() {
        let v = json!({"id": "", "n": 3, "status": "doing"});
        let item = v.as_object().unwrap();
        let a = Args::nested(item, "items[2]");
        assert_eq!(
            a.required_str("id").unwrap_err(),
            "Invalid \"items[2].id\": expected a non-empty string, got an empty string."
        );
        assert_eq!(
            a.required_str("text").unwrap_err(),
            "Missing \"items[2].text\": expected a non-empty string."
        );
        assert_eq!(
            a.required_str("n").unwrap_err(),
            "Invalid \"items[2].n\": expected a non-empty string, got the number 3."
        );
        assert_eq!(
            a.required_enum("status", &["pending", "done"]).unwrap_err(),
            "Invalid \"items[2].status\": expected one of \"pending\", \"done\", got the string \"doing\"."
        );
        assert_eq!(a.opt_positive_int("n").unwrap(), Some(3),);
        assert_eq!(
            a.opt_bool("n").unwrap_err(),
            "Invalid \"items[2].n\": expected true or false, got the number 3."
        );
    }
}

/// Names other tool layers give to what a schema here calls otherwise, checked
/// only when the tool has the key on the right: what a model trained on them
/// most often sends.
const OTHER_NAMES: &[(&str, &str)] = &[
    ("file_path", "path"),
    ("filepath", "path"),
    ("file", "path"),
    ("dir", "path"),
    ("directory", "path"),
    ("old_string", "oldText"),
    ("new_string", "newText"),
    ("old_str", "oldText"),
    ("new_str", "newText"),
    ("include", "glob"),
    ("regex", "pattern"),
    ("query", "pattern"),
    ("cmd", "command"),
    ("head_limit", "limit"),
    ("max_results", "limit"),
    ("case_insensitive", "ignoreCase"),
    ("arguments", "input"),
    ("args", "input"),
    ("params", "input"),
    ("parameters", "input"),
    ("tool", "name"),
];

/// The keys of a ToolCall object (`call`, a `batch` line).
pub const CALL_KEYS: &[&str] = &["id", "name", "input", "turn"];

/// What is wrong with a ToolCall object holding `keys` beyond [`CALL_KEYS`]
/// (the ones left after those were taken out), or `None`: a call whose input
/// went under `arguments` would otherwise run with no input at all.
pub fn unknown_call_keys<'a>(keys: impl IntoIterator<Item = &'a String>) -> Option<String> {
    let named: Vec<String> = keys
        .into_iter()
        .map(|k| match closest_key(k, CALL_KEYS) {
            Some(near) => format!(
                "{} (did you mean {}?)",
                Value::from(k.as_str()),
                Value::from(near)
            ),
            None => Value::from(k.as_str()).to_string(),
        })
        .collect();
    match named.len() {
        0 => None,
        1 => Some(format!(
            "unknown key {} in the ToolCall; it takes \"id\", \"name\", \"input\" and \"turn\"",
            named[0]
        )),
        _ => Some(format!(
            "unknown keys {} in the ToolCall; it takes \"id\", \"name\", \"input\" and \"turn\"",
            named.join(", ")
        )),
    }
}

/// A key as compared for near misses: lower case, without `_` and `-`.
fn folded(key: &str) -> String {
    key.chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

/// The known key `unknown` most likely meant, if one is close: the same name
/// in another case or spelling (`replace_all`), a name another tool layer
/// uses, one a prefix of the other (`timeout`, `timeoutMs`), or at most two
/// letters apart (one for short names).
pub fn closest_key<'k>(unknown: &str, known: &[&'k str]) -> Option<&'k str> {
    let u = folded(unknown);
    if u.is_empty() {
        return None;
    }
    let folded_known: Vec<(String, &'k str)> = known.iter().map(|k| (folded(k), *k)).collect();
    if let Some((_, k)) = folded_known.iter().find(|(f, _)| *f == u) {
        return Some(k);
    }
    if let Some(k) = OTHER_NAMES
        .iter()
        .filter(|(other, _)| folded(other) == u)
        .find_map(|(_, to)| known.iter().find(|k| *k == to))
    {
        return Some(k);
    }
    let prefix = folded_known
        .iter()
        .filter(|(f, _)| {
            u.len().min(f.len()) >= 4 && (f.starts_with(&u) || u.starts_with(f.as_str()))
        })
        .min_by_key(|(f, _)| f.len().abs_diff(u.len()));
    if let Some((_, k)) = prefix {
        return Some(k);
    }
    let allowed = if u.len() <= 4 { 1 } else { 2 };
    folded_known
        .iter()
        .map(|(f, k)| (strsim::damerau_levenshtein(f, &u), *k))
        .filter(|(d, _)| *d <= allowed)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// How many unknown keys a refusal names before it counts the rest.
const MAX_NAMED_KEYS: usize = 20;

/// The refusal of an input holding keys `schema` does not name (at the top or
/// in an object nested below one the schema describes), or `None`. An object
/// schema with `additionalProperties` not `false`-or-absent (an open map, a
/// pass-through `arguments`) and one without `properties` are not checked.
pub fn unknown_keys(tool: &str, schema: &Value, input: &Value) -> Option<String> {
    let mut found = Vec::new();
    collect_unknown(schema, input, "", &mut found);
    if found.is_empty() {
        return None;
    }
    // The first few are named; a flood of stray keys is counted, not echoed.
    let named: Vec<String> = found
        .iter()
        .take(MAX_NAMED_KEYS)
        .map(|(key, near)| match near {
            Some(k) => format!(
                "{} (did you mean {}?)",
                Value::from(key.as_str()),
                Value::from(k.as_str())
            ),
            None => Value::from(key.as_str()).to_string(),
        })
        .collect();
    let noun = if found.len() == 1 { "key" } else { "keys" };
    let mut message = if let [(key, Some(near))] = found.as_slice() {
        format!(
            "Invalid input for {tool}: unknown key {}; did you mean {}?",
            Value::from(key.as_str()),
            Value::from(near.as_str())
        )
    } else {
        let more = match found.len().saturating_sub(MAX_NAMED_KEYS) {
            0 => String::new(),
            n => format!(" and {n} more"),
        };
        format!(
            "Invalid input for {tool}: unknown {noun} {}{more}.",
            named.join(", ")
        )
    };
    // Where nothing was close, what the object takes (each object once).
    let mut listed: Vec<&str> = Vec::new();
    for (key, near) in found.iter().take(MAX_NAMED_KEYS) {
        let owner = key.rfind('.').map_or("", |dot| &key[..dot]);
        if near.is_some() || listed.contains(&owner) {
            continue;
        }
        listed.push(owner);
        if let Some(props) = object_schema_at(schema, owner)
            .and_then(|o| o.get("properties"))
            .and_then(Value::as_object)
        {
            // The keys a model is shown (a second spelling is still taken, but
            // naming it would only invite it).
            let keys: Vec<&str> = props
                .iter()
                .filter(|(_, s)| s.get("deprecated") != Some(&Value::Bool(true)))
                .map(|(k, _)| k.as_str())
                .collect();
            let who = if owner.is_empty() { tool } else { owner };
            if keys.is_empty() {
                message.push_str(&format!(" {who} takes no input."));
            } else {
                message.push_str(&format!(" {who} takes: {}.", keys.join(", ")));
            }
        }
    }
    Some(message)
}

/// The schema of the object at `path` (`items[2]`, `a.b`; empty: the top).
fn object_schema_at<'s>(schema: &'s Value, path: &str) -> Option<&'s Value> {
    let mut at = schema;
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (name, indexed) = match part.find('[') {
            Some(i) => (&part[..i], part[i..].matches('[').count()),
            None => (part, 0),
        };
        at = at.get("properties")?.get(name)?;
        for _ in 0..indexed {
            at = at.get("items")?;
        }
    }
    Some(at)
}

fn collect_unknown(
    schema: &Value,
    value: &Value,
    path: &str,
    found: &mut Vec<(String, Option<String>)>,
) {
    match value {
        Value::Object(map) => {
            let Some(props) = schema.get("properties").and_then(Value::as_object) else {
                return;
            };
            let closed = matches!(
                schema.get("additionalProperties"),
                None | Some(Value::Bool(false))
            );
            let known: Vec<&str> = props.keys().map(String::as_str).collect();
            for (key, v) in map {
                let at = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                match props.get(key) {
                    Some(sub) => collect_unknown(sub, v, &at, found),
                    None if closed => {
                        found.push((at, closest_key(key, &known).map(str::to_string)));
                    }
                    None => {}
                }
            }
        }
        Value::Array(items) => {
            if let Some(item) = schema.get("items") {
                for (i, v) in items.iter().enumerate() {
                    collect_unknown(item, v, &format!("{path}[{i}]"), found);
                }
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod strict_tests {
    use super::*;

    #[test]
    fn near_misses_find_the_key_meant() {
        let bash = ["command", "timeoutMs", "cwd"];
        assert_eq!(closest_key("timeout", &bash), Some("timeoutMs"));
        assert_eq!(closest_key("timeout_ms", &bash), Some("timeoutMs"));
        assert_eq!(closest_key("cmd", &bash), Some("command"));
        assert_eq!(closest_key("comand", &bash), Some("command"));
        assert_eq!(closest_key("env", &bash), None);
        let edit = [
            "path",
            "oldText",
            "newText",
            "replaceAll",
            "edits",
            "expectSha256",
        ];
        assert_eq!(closest_key("replace_all", &edit), Some("replaceAll"));
        assert_eq!(closest_key("old_string", &edit), Some("oldText"));
        assert_eq!(closest_key("file_path", &edit), Some("path"));
        assert_eq!(closest_key("old_text", &edit), Some("oldText"));
        // Another layer's name only for a key the tool has.
        assert_eq!(closest_key("include", &edit), None);
        assert_eq!(closest_key("include", &["pattern", "glob"]), Some("glob"));
        assert_eq!(closest_key("", &edit), None);
        assert_eq!(closest_key("__", &edit), None);
    }

    #[test]
    fn unknown_keys_name_every_one() {
        let schema = serde_json::json!({"type": "object", "properties": {"a": {}, "bee": {}}});
        assert_eq!(
            unknown_keys("t", &schema, &serde_json::json!({"a": 1})),
            None
        );
        assert_eq!(
            unknown_keys("t", &schema, &serde_json::json!({"be": 1})).unwrap(),
            "Invalid input for t: unknown key \"be\"; did you mean \"bee\"?"
        );
        assert_eq!(
            unknown_keys("t", &schema, &serde_json::json!({"qqqq": 1})).unwrap(),
            "Invalid input for t: unknown key \"qqqq\". t takes: a, bee."
        );
        // A flood of stray keys is counted, not echoed.
        let many: serde_json::Map<String, Value> = (0..25)
            .map(|i| (format!("zz{i:02}"), Value::from(1)))
            .collect();
        let message = unknown_keys("t", &schema, &Value::Object(many)).unwrap();
        assert!(message.contains("\"zz19\" and 5 more."), "{message}");
        assert!(!message.contains("zz20"), "{message}");
        // A second spelling is taken but not offered; a tool without keys says so.
        let with_old = serde_json::json!({"type": "object", "properties": {"a": {}, "old": {"deprecated": true}}});
        assert_eq!(
            unknown_keys("t", &with_old, &serde_json::json!({"old": 1})),
            None
        );
        assert_eq!(
            unknown_keys("t", &with_old, &serde_json::json!({"qqqq": 1})).unwrap(),
            "Invalid input for t: unknown key \"qqqq\". t takes: a."
        );
        let none = serde_json::json!({"type": "object", "properties": {}});
        assert_eq!(
            unknown_keys("t", &none, &serde_json::json!({"x": 1})).unwrap(),
            "Invalid input for t: unknown key \"x\". t takes no input."
        );
        // A schema without properties, or open, checks nothing.
        let open = serde_json::json!({"type": "object"});
        assert_eq!(unknown_keys("t", &open, &serde_json::json!({"x": 1})), None);
    }
}
