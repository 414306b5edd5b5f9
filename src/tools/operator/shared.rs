//! What the operator's tools share: the seed's text cap and its marker, the
//! safety fields every command-running tool takes (`risk`, `mutation`,
//! `privesc`, `why`), durations given as seconds, and the tmux engine of a call.
//! Apart from the family's `mod.rs` so the tools import it and the family's front
//! door only lists them.

use crate::kernel::fields::{Field, Kind};
use std::time::Duration;

use serde_json::{Value, json};

use crate::backends::tmux::Tmux;
use crate::kernel::ToolContext;
use crate::kernel::input::{Args, invalid};

/// The seed's cap for file and page text: 8,000 characters.
pub const TEXT_CAP: usize = 8000;
/// The seed's marker after a cut text.
pub const TRUNCATED: &str = "...[truncated]";

/// `text` cut to [`TEXT_CAP`] characters (never inside a character), with
/// [`TRUNCATED`] appended when anything was cut.
pub fn cap_text(text: &str) -> String {
    cap_text_at(text, TEXT_CAP)
}

/// [`cap_text`] with another cap (`run_shell`'s streams keep 4,000).
pub fn cap_text_at(text: &str, cap: usize) -> String {
    match text.char_indices().nth(cap) {
        Some((at, _)) => format!("{}{TRUNCATED}", &text[..at]),
        None => text.to_string(),
    }
}

// The seed's safety fields, required wherever a tool acts on a machine
// (`run_shell`, `send-keys`, the `tmux-*` tools), in each one's field table.

/// The safety field `risk`.
pub const RISK: Field = Field::required(
    "risk",
    Kind::Enum(&["low", "medium", "high"]),
    "Estimated risk of the action: low, medium or high.",
);
/// The safety field `mutation`.
pub const MUTATION: Field = Field::required(
    "mutation",
    Kind::Bool,
    "Whether the action changes the system's state.",
);
/// The safety field `privesc`.
pub const PRIVESC: Field = Field::required(
    "privesc",
    Kind::Bool,
    "Whether the action uses privilege escalation (sudo, su, doas).",
);
/// The safety field `why`.
pub const WHY: Field = Field::required(
    "why",
    Kind::Name,
    "A short reason for the action and a justification of its risk.",
);

/// Check the safety fields of an input.
pub fn check_safety(args: &Args<'_>) -> Result<(), String> {
    args.required_enum("risk", &["low", "medium", "high"])?;
    for field in ["mutation", "privesc"] {
        if args.opt_bool(field)?.is_none() {
            return Err(format!("Missing \"{field}\": expected true or false."));
        }
    }
    args.required_str("why")?;
    Ok(())
}

/// A duration field: a number of seconds, or a string such as `"500ms"`,
/// `"30s"`, `"10m"`, `"1h"` (or a bare number of seconds).
pub fn duration_of(field: &str, value: &Value) -> Result<Duration, String> {
    let expected = "a number of seconds or a duration such as \"500ms\", \"30s\", \"10m\", \"1h\"";
    match value {
        Value::Number(n) => match n.as_f64() {
            Some(f) if (0.0..=86_400.0 * 365.0).contains(&f) => Ok(Duration::from_secs_f64(f)),
            _ => Err(invalid(field, expected, value)),
        },
        Value::String(s) => {
            let t = s.trim();
            if let Ok(secs) = t.parse::<f64>() {
                return duration_of(field, &json!(secs));
            }
            humantime::parse_duration(t).map_err(|_| invalid(field, expected, value))
        }
        _ => Err(invalid(field, expected, value)),
    }
}

/// The tmux engine of a context.
pub fn tmux_of(ctx: &ToolContext) -> Result<Tmux, String> {
    if let Some(target) = &ctx.remote {
        return Err(format!(
            "the tmux tools need indus-tool itself on {target}, which cannot run it there"
        ));
    }
    Tmux::new(
        std::path::Path::new(&ctx.cwd),
        ctx.framework.session.as_deref(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_in_the_seeds_spellings() {
        let d = |v: Value| duration_of("wait", &v);
        assert_eq!(d(json!(5)).unwrap(), Duration::from_secs(5));
        assert_eq!(d(json!("30s")).unwrap(), Duration::from_secs(30));
        assert_eq!(d(json!("10m")).unwrap(), Duration::from_secs(600));
        assert_eq!(d(json!("1h")).unwrap(), Duration::from_secs(3600));
        assert_eq!(d(json!("500ms")).unwrap(), Duration::from_millis(500));
        assert_eq!(d(json!("2")).unwrap(), Duration::from_secs(2));
        for bad in [json!("soon"), json!(-1), json!([1]), json!("")] {
            assert!(d(bad).unwrap_err().starts_with("Invalid \"wait\""));
        }
    }

    #[test]
    fn texts_are_cut_by_characters_with_the_seeds_marker() {
        assert_eq!(cap_text("short"), "short");
        let exact = "é".repeat(TEXT_CAP);
        assert_eq!(cap_text(&exact), exact);
        let over = format!("{exact}x");
        assert_eq!(cap_text(&over), format!("{exact}{TRUNCATED}"));
    }
}
