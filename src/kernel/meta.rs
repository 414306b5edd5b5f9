//! A tool's descriptor: every fact about a tool that some other part of the
//! toolbox needs without running it — its wire name, title and one-line summary,
//! where it sits (a seed built-in, an operator's tool, an app card), what it does
//! to the world, whether it reaches the web, how a checkpoint covers it, and
//! whether a server should run it off its protocol thread.
//!
//! Each tool declares its descriptor once, as a `const` beside its code. The
//! catalog and its profiles, the MCP behaviour hints, the deck's checkpoint
//! wrapper, the suppression wrapper's "changes the world" and the MCP server's
//! core and off-thread sets are all read from it, so two faces cannot disagree
//! about a tool (a test over every descriptor checks that they do not).
//!
//! Here, in the kernel, because tools (a floor below the deck) declare it and the
//! deck and the interop faces (floors above) read it.

/// What a call of the tool can do to the world. One answer, from which the MCP
/// hints (`readOnlyHint`, `destructiveHint`, `idempotentHint`), the catalog's
/// read-only flag and "changes the world" all derive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Effect {
    /// Only looks: files, the session's records, the web, a terminal's screen.
    Observes,
    /// Changes the session's own records (a checklist, a note) or the toolbox's
    /// own terminal sessions, never the project's files nor a program's world:
    /// not destructive. `idempotent`: the same call twice leaves what once does.
    Records { idempotent: bool },
    /// Creates, overwrites or deletes files.
    Writes { idempotent: bool },
    /// Runs programs, or types into a terminal that does.
    Runs,
}

impl Effect {
    /// Whether the tool only observes.
    pub const fn observes_only(self) -> bool {
        matches!(self, Effect::Observes)
    }

    /// Whether a successful call may have changed files or run a program: what
    /// an MCP client is told is destructive, and what, having succeeded, may have
    /// fixed the cause of a repeated failure.
    pub const fn changes_the_world(self) -> bool {
        matches!(self, Effect::Writes { .. } | Effect::Runs)
    }

    /// Whether repeating the call changes nothing more (meaningful only for a
    /// tool that does not merely observe).
    pub const fn idempotent(self) -> bool {
        matches!(
            self,
            Effect::Records { idempotent: true } | Effect::Writes { idempotent: true }
        )
    }
}

/// The seed's lists a built-in is named in (`READ_ONLY_NAMES`, `MUTATING_NAMES`),
/// which fix the `read-only` and `coding` collections. They are the seed's
/// membership, not a claim about effects: `todo_read` observes only, yet the
/// seed names it among the mutating tools (the `coding` collection needs it and
/// the `read-only` one does not hold it), and [`Effect`] says what it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SeedList {
    ReadOnly,
    Mutating,
    /// Beyond the seed's two lists (in `all` only).
    Neither,
}

/// Where a tool sits, which decides the catalog's profiles.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seat {
    /// A built-in of the kernel seed.
    Builtin(SeedList),
    /// An operator's tool of the buddy seed; `in_all`: the whole deck holds it
    /// too (`time`).
    Operator { in_all: bool },
    /// An app card of the deck seed.
    Card,
}

/// How a checkpoint covers a call of the tool.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checkpoint {
    /// Not covered: the tool writes no project file.
    No,
    /// The tree is scanned before and after each call [`ScanWhen`] picks (a
    /// command may touch any file).
    ByScan(ScanWhen),
    /// The file named by the input's `path` is saved before the call.
    ByPath,
    /// Every file the input's patch names is saved before the call.
    ByPatch,
}

/// Which calls of a [`Checkpoint::ByScan`] tool are scanned: those that may
/// change the tree. A call the rule passes over is not held up by the two
/// scans (seconds on a large tree, and the session's first scan keeps a copy
/// of every file).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ScanWhen {
    /// Every call: a command may touch any file.
    Always,
    /// Only a call whose input has `key` (equal to `value`, when one is named)
    /// and does not set the boolean `unless` true: a job's `start`, sgrep's
    /// `rewrite` without `check`.
    Key {
        key: &'static str,
        value: Option<&'static str>,
        unless: Option<&'static str>,
    },
}

impl ScanWhen {
    /// Whether this call may change the tree. An input the tool will refuse
    /// (a key of the wrong type) is passed over only when it cannot write: a
    /// `key` that is present but not the named string still counts as absent.
    pub fn covers(&self, input: &serde_json::Value) -> bool {
        let Self::Key { key, value, unless } = *self else {
            return true;
        };
        let present = match (input.get(key), value) {
            (None | Some(serde_json::Value::Null), _) => false,
            (Some(_), None) => true,
            (Some(got), Some(want)) => got.as_str() == Some(want),
        };
        let unless = unless.is_some_and(|u| input.get(u) == Some(&serde_json::Value::Bool(true)));
        present && !unless
    }
}

/// The descriptor. See the module comment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ToolMeta {
    /// The wire name a model or a script calls.
    pub name: &'static str,
    /// The catalog's title (also MCP's `title`).
    pub title: &'static str,
    /// The catalog's one-line summary (`list`).
    pub summary: &'static str,
    pub seat: Seat,
    pub effect: Effect,
    /// Reaches hosts beyond the machine (MCP's `openWorldHint`).
    pub open_world: bool,
    pub checkpoint: Checkpoint,
    /// Among the few tools nearly every coding turn uses: shown from the start
    /// by a deferred tool list (`mcp --tool-search`).
    pub core: bool,
    /// Its work is CPU-bound and grows with the input (matching, diffing): a
    /// server runs it off its protocol thread so that pings still answer.
    pub heavy: bool,
    /// Its input fields (see [`super::fields`]): the schema a model sees and
    /// the check every call passes before the tool runs.
    pub fields: &'static [super::fields::Field],
    /// What a model is told of it (the descriptor's `description`).
    pub description: &'static str,
    /// The JSON Schema of its record (the `*.output.json` beside it, as text,
    /// parsed only when asked for); `None` for a text answer.
    pub output: Option<&'static str>,
}

impl ToolMeta {
    /// A descriptor with the defaults most tools share: a built-in named in no
    /// seed list, observing only, on the machine, not checkpointed, not core,
    /// light. Spelled out with `..ToolMeta::new(…)` in each tool's `const`.
    pub const fn new(name: &'static str, title: &'static str, summary: &'static str) -> Self {
        ToolMeta {
            name,
            title,
            summary,
            seat: Seat::Builtin(SeedList::Neither),
            effect: Effect::Observes,
            open_world: false,
            checkpoint: Checkpoint::No,
            core: false,
            heavy: false,
            fields: &[],
            description: "",
            output: None,
        }
    }

    /// The JSON Schema of the tool's input, from its field table.
    pub fn parameters(&self) -> serde_json::Value {
        super::fields::parameters(self.fields)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn effects_answer_the_hints_consistently() {
        let all = [
            Effect::Observes,
            Effect::Records { idempotent: true },
            Effect::Records { idempotent: false },
            Effect::Writes { idempotent: true },
            Effect::Writes { idempotent: false },
            Effect::Runs,
        ];
        for e in all {
            // Nothing both only observes and changes the world.
            assert!(!(e.observes_only() && e.changes_the_world()), "{e:?}");
            assert!(!(e.observes_only() && e.idempotent()), "{e:?}");
        }
        assert!(Effect::Writes { idempotent: false }.changes_the_world());
        assert!(!Effect::Records { idempotent: true }.changes_the_world());
        assert!(!Effect::Runs.idempotent());
    }

    #[test]
    fn a_scan_rule_covers_every_call_that_may_write() {
        use serde_json::json;
        let rewrite = ScanWhen::Key {
            key: "rewrite",
            value: None,
            unless: Some("check"),
        };
        assert!(rewrite.covers(&json!({"pattern": "f($X)", "rewrite": "g($X)"})));
        // An empty template deletes the matches: it writes.
        assert!(rewrite.covers(&json!({"rewrite": ""})));
        assert!(rewrite.covers(&json!({"rewrite": "g", "check": false})));
        assert!(!rewrite.covers(&json!({"rewrite": "g", "check": true})));
        assert!(!rewrite.covers(&json!({"pattern": "f($X)"})));
        assert!(!rewrite.covers(&json!({"rewrite": null})));
        let start = ScanWhen::Key {
            key: "action",
            value: Some("start"),
            unless: None,
        };
        assert!(start.covers(&json!({"action": "start"})));
        assert!(!start.covers(&json!({"action": "poll"})));
        assert!(!start.covers(&json!({})));
        assert!(ScanWhen::Always.covers(&json!({})));
    }
}
