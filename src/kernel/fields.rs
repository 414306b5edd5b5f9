//! A tool's input fields, declared once as a table in its descriptor
//! ([`super::ToolMeta::fields`]).
//!
//! The table is the one statement of a tool's input shape. From it come the
//! JSON Schema a model sees ([`parameters`]), the check every call's input
//! passes before the tool runs ([`check`]: types, limits and enum values, with
//! the same words as [`super::input::Args`]'s getters, which a tool may still
//! call for what the table cannot say), the command line's flags (read from the
//! schema) and the tests' bad-input cases (generated from the schema). Before,
//! each shape was written three times — a `json!` schema, a hand parser and a
//! test table — and they drifted: four minimums the parsers enforced were not
//! in the schemas, and the test table covered 45 of the fields.
//!
//! What a table cannot say stays with the tool: fields required by one action
//! only, fields that exclude each other, a value's meaning.

use serde_json::{Map, Value, json};

use super::input::{Args, invalid};

/// What a field holds, and so how it is checked and advertised.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A string; empty allowed (an empty one may be the tool's own refusal).
    Text,
    /// A string that must not be empty.
    Name,
    Bool,
    /// An integer of at least `min` (0 or 1). `max` is advertised as the
    /// schema's `maximum`; the tool lowers a larger value to it.
    Int {
        min: u64,
        max: Option<u64>,
    },
    /// A line number: positive from the start (1 is the first line), negative
    /// from the end (-1 is the last, as Python indexes); 0 is refused.
    Line,
    /// A positive number of milliseconds (fractions floored); `max` as for
    /// [`Kind::Int`].
    Millis {
        max: u64,
    },
    /// A string among these.
    Enum(&'static [&'static str]),
    /// [`Kind::Enum`] whose refusal says `expected` rather than listing every
    /// value (`find`'s `type`, whose fd letters are named apart).
    EnumSaid {
        values: &'static [&'static str],
        expected: &'static str,
    },
    /// An array of strings; a lone string counts as an array of one.
    Strings,
    /// An array of objects of these fields, refused when not an array as
    /// `expected` says; the tool checks the elements, in its own words (which
    /// element, which key).
    Objects {
        fields: &'static [Field],
        expected: &'static str,
    },
    /// One of several JSON types (a line number or `"-"`); the tool checks it.
    AnyOf(&'static [&'static str]),
    /// Advertised as this one JSON type, but the tool takes more and checks it
    /// (`saas-action`'s `arguments`: a JSON string, or the object itself).
    Lenient(&'static str),
}

/// One input field of a tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    pub key: &'static str,
    pub kind: Kind,
    /// Listed in the schema's `required`. The check refuses a missing one only
    /// where its words are the getters' (a [`Kind::Name`], [`Kind::Enum`] or
    /// [`Kind::Bool`]); other missing fields are the tool's to word.
    pub required: bool,
    /// A second spelling kept for old callers: advertised as `deprecated`.
    pub deprecated: bool,
    /// What the model is told; empty for none.
    pub description: &'static str,
    /// The tool checks the value in words of its own (what a `flags` string
    /// may hold, which element of `keys` is not a key name): the table only
    /// advertises it.
    pub own_words: bool,
}

impl Field {
    /// An optional field; spelled out with `..Field::new(…)` where it differs.
    pub const fn new(key: &'static str, kind: Kind, description: &'static str) -> Self {
        Field {
            key,
            kind,
            required: false,
            deprecated: false,
            description,
            own_words: false,
        }
    }

    /// The same field, checked by the tool in its own words (see
    /// [`Field::own_words`]).
    pub const fn in_own_words(self) -> Self {
        Field {
            own_words: true,
            ..self
        }
    }

    /// A required field.
    pub const fn required(key: &'static str, kind: Kind, description: &'static str) -> Self {
        Field {
            required: true,
            ..Field::new(key, kind, description)
        }
    }

    /// A deprecated optional field.
    pub const fn deprecated(key: &'static str, kind: Kind, description: &'static str) -> Self {
        Field {
            deprecated: true,
            ..Field::new(key, kind, description)
        }
    }

    /// The field's schema, keys in one order for every field.
    fn schema(&self) -> Value {
        let mut out = Map::new();
        match self.kind {
            Kind::Text | Kind::Name => {
                out.insert("type".into(), json!("string"));
            }
            Kind::Bool => {
                out.insert("type".into(), json!("boolean"));
            }
            Kind::Int { min, max } => {
                out.insert("type".into(), json!("integer"));
                out.insert("minimum".into(), json!(min));
                if let Some(max) = max {
                    out.insert("maximum".into(), json!(max));
                }
            }
            Kind::Line => {
                out.insert("type".into(), json!("integer"));
            }
            Kind::Millis { max } => {
                out.insert("type".into(), json!("number"));
                out.insert("maximum".into(), json!(max));
            }
            Kind::Enum(values) | Kind::EnumSaid { values, .. } => {
                out.insert("type".into(), json!("string"));
                out.insert("enum".into(), json!(values));
            }
            Kind::Strings => {
                out.insert("type".into(), json!("array"));
                out.insert("items".into(), json!({"type": "string"}));
            }
            Kind::Objects { fields, .. } => {
                out.insert("type".into(), json!("array"));
                out.insert("items".into(), parameters(fields));
            }
            Kind::AnyOf(types) => {
                out.insert("type".into(), json!(types));
            }
            Kind::Lenient(type_name) => {
                out.insert("type".into(), json!(type_name));
            }
        }
        if !self.description.is_empty() {
            out.insert("description".into(), json!(self.description));
        }
        if self.deprecated {
            out.insert("deprecated".into(), json!(true));
        }
        Value::Object(out)
    }

    /// Checks the field in `args`, in the getters' words.
    fn check(&self, args: &Args<'_>) -> Result<(), String> {
        let key = self.key;
        if self.own_words {
            return Ok(());
        }
        match self.kind {
            Kind::Text => args.opt_str(key).map(drop),
            Kind::Name if self.required => args.required_str(key).map(drop),
            Kind::Name => match args.get(key) {
                None => Ok(()),
                Some(_) => args.required_str(key).map(drop),
            },
            Kind::Bool if self.required && args.get(key).is_none() => {
                Err(format!("Missing \"{key}\": expected true or false."))
            }
            Kind::Bool => args.opt_bool(key).map(drop),
            Kind::Int { min, .. } => check_int(args, key, min),
            Kind::Line => args.opt_line(key).map(drop),
            Kind::Millis { .. } => match args.get(key) {
                None => Ok(()),
                Some(value) => match value.as_f64() {
                    Some(f) if f.is_finite() && f >= 1.0 => Ok(()),
                    _ => Err(invalid(key, "a positive number of milliseconds", value)),
                },
            },
            Kind::Enum(values) if self.required => args.required_enum(key, values).map(drop),
            Kind::Enum(values) => args.opt_enum(key, values).map(drop),
            Kind::EnumSaid { values, expected } => match args.get(key) {
                Some(v) if !v.as_str().is_some_and(|v| values.contains(&v)) => {
                    Err(invalid(key, expected, v))
                }
                _ => Ok(()),
            },
            Kind::Strings => args.opt_str_array(key).map(drop),
            Kind::Objects { expected, .. } => match args.get(key) {
                Some(v) if !v.is_array() => Err(invalid(key, expected, v)),
                _ => Ok(()),
            },
            Kind::AnyOf(_) | Kind::Lenient(_) => Ok(()),
        }
    }
}

fn check_int(args: &Args<'_>, key: &str, min: u64) -> Result<(), String> {
    match min {
        0 => args.opt_non_negative_int(key).map(drop),
        _ => args.opt_positive_int(key).map(drop),
    }
}

/// The JSON Schema of an object of these fields.
pub fn parameters(fields: &[Field]) -> Value {
    let properties: Map<String, Value> = fields
        .iter()
        .map(|f| (f.key.to_string(), f.schema()))
        .collect();
    let required: Vec<&str> = fields
        .iter()
        .filter(|f| f.required)
        .map(|f| f.key)
        .collect();
    let mut schema = json!({"type": "object", "properties": properties});
    if !required.is_empty() {
        schema["required"] = json!(required);
    }
    schema
}

/// Checks `input` against the table, field by field in the table's order: the
/// first field that holds the wrong thing is named.
pub fn check(tool: &str, fields: &[Field], input: &Value) -> Result<(), String> {
    let args = Args::new(tool, input)?;
    fields.iter().try_for_each(|f| f.check(&args))
}

#[cfg(test)]
mod tests {
    use super::*;

    const FIELDS: &[Field] = &[
        Field::required("path", Kind::Name, "File path."),
        Field::new(
            "limit",
            Kind::Int {
                min: 1,
                max: Some(9),
            },
            "",
        ),
        Field::deprecated("depth", Kind::Int { min: 0, max: None }, "Old."),
        Field::new("mode", Kind::Enum(&["a", "b"]), "Mode."),
        Field::new(
            "items",
            Kind::Objects {
                fields: &[Field::required("id", Kind::Text, "")],
                expected: "an array of {id} objects",
            },
            "Items.",
        ),
    ];

    #[test]
    fn the_schema_says_what_the_check_enforces() {
        let schema = parameters(FIELDS);
        assert_eq!(
            schema.to_string(),
            concat!(
                r#"{"type":"object","properties":{"path":{"type":"string","description":"File path."},"#,
                r#""limit":{"type":"integer","minimum":1,"maximum":9},"#,
                r#""depth":{"type":"integer","minimum":0,"description":"Old.","deprecated":true},"#,
                r#""mode":{"type":"string","enum":["a","b"],"description":"Mode."},"#,
                r#""items":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"}},"required":["id"]},"description":"Items."}},"#,
                r#""required":["path"]}"#
            )
        );
    }

    #[test]
    fn the_check_words_its_refusals_as_the_getters_do() {
        let check = |input: Value| check("t", FIELDS, &input);
        assert_eq!(check(json!({"path": "p"})), Ok(()));
        assert_eq!(
            check(json!({})),
            Err("Missing \"path\": expected a non-empty string.".into())
        );
        assert_eq!(
            check(json!({"path": "p", "limit": 0})),
            Err("Invalid \"limit\": expected a positive integer, got the number 0.".into())
        );
        // A maximum is the tool's to pin, not the check's to refuse.
        assert_eq!(check(json!({"path": "p", "limit": 10})), Ok(()));
        assert_eq!(check(json!({"path": "p", "depth": 0})), Ok(()));
        assert_eq!(
            check(json!({"path": "p", "items": "x"})),
            Err(
                "Invalid \"items\": expected an array of {id} objects, got the string \"x\"."
                    .into()
            )
        );
        assert_eq!(
            check(json!({"path": "p", "mode": "c"})),
            Err("Invalid \"mode\": expected one of \"a\", \"b\", got the string \"c\".".into())
        );
        // The first wrong field in the table's order is the one named.
        assert_eq!(
            check(json!({"path": 1, "limit": 0})),
            Err("Invalid \"path\": expected a non-empty string, got the number 1.".into())
        );
        assert_eq!(
            check(json!("x")),
            Err(
                "Invalid input for t: expected a JSON object of named fields, got the string \"x\"."
                    .into()
            )
        );
    }
}
