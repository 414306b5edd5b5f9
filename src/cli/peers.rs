//! How a peer flag works: the flags people already type, spelled as the peer tool
//! spells them (ripgrep's for `grep`, fd's for `find`, the command-line-only
//! switches `-q`, `-0`, `--stats`, `bash --exit-status`). Which tool has which is
//! written in its row (`tools`); this is the mechanism every row's flags share.
//!
//! Each flag maps onto a tool input key (a switch that sets a value, a value
//! typed by the key's schema, or a repeatable flag collected into an array), so
//! the tools keep one input shape for every face and the command line holds no
//! search logic. A peer flag claims its long and short spellings; the generated
//! flag of an input key with the same long name gives way to it.

use clap::builder::{PossibleValue, PossibleValuesParser};
use clap::{Arg, ArgAction};

/// The clap ids of the command-line-only switches (read by `shell::ShellOpts`).
pub const QUIET: &str = "quiet@shell";
pub const PRINT0: &str = "print0@shell";
pub const STATS: &str = "stats@shell";
pub const EXIT_STATUS: &str = "exit-status@shell";

/// What a peer flag does to the tool's input.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// A switch setting `key` to a JSON value (written as JSON text).
    Set(&'static str, &'static str),
    /// One value for `key`, typed by the key's schema.
    Value(&'static str),
    /// Repeatable; every value is collected into the array `key`.
    Append(&'static str),
    /// A switch the command line keeps to itself (its clap id), or one that
    /// changes nothing because the tool already behaves so (`rg -n`).
    Cli(&'static str),
}

#[derive(Debug, Clone, Copy)]
pub struct PeerFlag {
    pub long: &'static str,
    pub short: Option<char>,
    pub effect: Effect,
    pub value_name: &'static str,
    /// The values offered by completion (and accepted); hidden ones are accepted
    /// but not offered.
    pub values: &'static [&'static str],
    pub hidden_values: &'static [&'static str],
    pub help: &'static str,
}

/// A switch (no value).
pub const fn flag(
    short: Option<char>,
    long: &'static str,
    effect: Effect,
    help: &'static str,
) -> PeerFlag {
    valued(short, long, effect, "", help)
}

/// A flag taking a value named `value_name`.
pub const fn valued(
    short: Option<char>,
    long: &'static str,
    effect: Effect,
    value_name: &'static str,
    help: &'static str,
) -> PeerFlag {
    PeerFlag {
        long,
        short,
        effect,
        value_name,
        values: &[],
        hidden_values: &[],
        help,
    }
}

/// The no-op clap id of `rg -n` (line numbers are always shown).
pub const LINE_NUMBER: &str = "line-number@shell";

/// The clap id of a peer flag.
pub fn peer_id(f: &PeerFlag) -> String {
    match f.effect {
        Effect::Cli(id) => id.to_string(),
        _ => format!("{}@peer", f.long),
    }
}

/// Whether a peer flag takes a value (the next word).
pub fn takes_value(f: &PeerFlag) -> bool {
    matches!(f.effect, Effect::Value(_) | Effect::Append(_))
}

/// The clap argument of a peer flag.
pub fn peer_arg(f: &PeerFlag) -> Arg {
    let mut arg = Arg::new(peer_id(f)).long(f.long).help(f.help);
    if let Some(c) = f.short {
        arg = arg.short(c);
    }
    match f.effect {
        Effect::Set(..) | Effect::Cli(_) => arg.action(ArgAction::SetTrue),
        Effect::Value(_) | Effect::Append(_) => {
            arg = arg
                .value_name(f.value_name)
                .allow_hyphen_values(false)
                .action(if matches!(f.effect, Effect::Append(_)) {
                    ArgAction::Append
                } else {
                    ArgAction::Set
                });
            if !f.values.is_empty() {
                let values = f.values.iter().map(|v| PossibleValue::new(*v)).chain(
                    f.hidden_values
                        .iter()
                        .map(|v| PossibleValue::new(*v).hide(true)),
                );
                arg = arg.value_parser(PossibleValuesParser::new(values));
            }
            arg
        }
    }
}

/// The single-valued key a repeatable flag fills when given once (`-g` → `glob`).
pub fn singular_of(key: &str) -> Option<&'static str> {
    match key {
        "globs" => Some("glob"),
        _ => None,
    }
}
