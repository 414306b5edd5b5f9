//! The two plan-mode markers. Neither flips a mode: a host watching the results
//! sees `enterPlanMode` / `exitPlan` and acts (asks for approval, gates tools).
//! `exit_plan_mode` also keeps the plan as a file in the session's folder, named
//! `plans/<base36 epoch-ms>-<slug>.md`, so an approved plan outlives the call and
//! repeated plans never overwrite each other.

use crate::kernel::fields::{Field, Kind};
use crate::kernel::{Seat, ToolMeta};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::{Value, json};

use crate::kernel::clock::base36;
use crate::kernel::input::Args;
use crate::kernel::{DefinedTool, Tool, ToolContext, ToolResult, define_tool};
use crate::state::StateDir;
use crate::tools::text_and_record;

use super::session::session_dir;

/// The folder of plan files inside a session's folder.
pub const PLANS_DIRNAME: &str = "plans";
/// The longest slug a plan file name carries.
pub const SLUG_MAX: usize = 48;

const ENTER_GUIDANCE: &str = "Plan mode: explore only. Read, search and ask; do not write, edit or run commands that change anything. When the plan is ready, present it with exit_plan_mode for approval.";

/// The slug of a plan: its first non-empty line, lower-cased, every run of
/// characters other than ASCII letters and digits made one `-`, trimmed of `-`,
/// at most [`SLUG_MAX`] characters; `plan` when nothing is left.
pub fn plan_slug(plan: &str) -> String {
    let first = plan.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let mut slug = String::new();
    for c in first.chars() {
        if c.is_ascii_alphanumeric() {
            if slug.len() == SLUG_MAX {
                break;
            }
            slug.push(c.to_ascii_lowercase());
        } else if !slug.is_empty() && !slug.ends_with('-') {
            if slug.len() + 1 >= SLUG_MAX {
                break;
            }
            slug.push('-');
        }
    }
    let slug = slug.trim_end_matches('-');
    if slug.is_empty() {
        "plan".to_string()
    } else {
        slug.to_string()
    }
}

/// `<session_dir>/plans/<name>.md`.
pub fn plan_file_path(session_dir: &Path, name: &str) -> PathBuf {
    session_dir.join(PLANS_DIRNAME).join(format!("{name}.md"))
}

/// Write `plan` as a new file `plans/<base36 epoch-ms>-<slug>.md` of the session's
/// folder and return its path. A name already taken (another plan in the same
/// millisecond, from this process or another) gets `-2`, `-3`, … before `.md`;
/// the file is created exclusively, so two writers never share one.
pub fn write_plan(session_dir: &Path, plan: &str) -> std::io::Result<PathBuf> {
    let stem = format!(
        "{}-{}",
        base36(crate::kernel::clock::now_ms()),
        plan_slug(plan)
    );
    std::fs::create_dir_all(session_dir.join(PLANS_DIRNAME))?;
    for n in 1u32.. {
        let name = if n == 1 {
            stem.clone()
        } else {
            format!("{stem}-{n}")
        };
        let path = plan_file_path(session_dir, &name);
        match std::fs::File::options()
            .write(true)
            .create_new(true)
            .open(&path)
        {
            Ok(mut file) => {
                file.write_all(plan.as_bytes())?;
                file.sync_all()?;
                return Ok(path);
            }
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
    unreachable!("the suffixes do not run out")
}

/// A plan file's text, or `None` when it is missing or unreadable.
pub fn read_plan(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

struct EnterPlanMode;

/// The `enter_plan_mode` tool's descriptor (see [`ToolMeta`]): its facts, declared once.
pub const ENTER_PLAN_MODE: ToolMeta = ToolMeta {
    seat: Seat::Card,
    description: "Start a planning phase: explore and read, change nothing, then call exit_plan_mode with the plan.",
    output: Some(include_str!("enter_plan_mode.output.json")),
    ..ToolMeta::new(
        "enter_plan_mode",
        "Enter plan mode",
        "Mark the start of an explore-only planning phase.",
    )
};

#[async_trait]
impl Tool for EnterPlanMode {
    fn meta(&self) -> Option<&'static ToolMeta> {
        Some(&ENTER_PLAN_MODE)
    }

    async fn run(&self, input: Value, _ctx: &ToolContext) -> ToolResult {
        if let Err(e) = Args::new(ENTER_PLAN_MODE.name, &input) {
            return ToolResult::failure(e);
        }
        text_and_record(
            ENTER_GUIDANCE.to_string(),
            json!({"enterPlanMode": true, "applied": false}),
            false,
        )
    }
}

struct ExitPlanMode;

/// The `exit_plan_mode` tool's descriptor (see [`ToolMeta`]): its facts, declared once.
pub const EXIT_PLAN_MODE: ToolMeta = ToolMeta {
    seat: Seat::Card,
    fields: EXIT_PLAN_MODE_FIELDS,
    description: "Present the finished plan (Markdown) for approval; it is kept as a file under .indus-process/ and returned.",
    output: Some(include_str!("exit_plan_mode.output.json")),
    ..ToolMeta::new(
        "exit_plan_mode",
        "Exit plan mode",
        "Present a finished plan for approval and keep it as a file.",
    )
};

/// `exit_plan_mode`'s input fields: its schema and the check before it runs.
const EXIT_PLAN_MODE_FIELDS: &[Field] = &[Field::required(
    "plan",
    Kind::Name,
    "The plan, in Markdown.",
)];

#[async_trait]
impl Tool for ExitPlanMode {
    fn meta(&self) -> Option<&'static ToolMeta> {
        Some(&EXIT_PLAN_MODE)
    }

    async fn run(&self, input: Value, ctx: &ToolContext) -> ToolResult {
        let plan = match Args::new(EXIT_PLAN_MODE.name, &input).and_then(|a| a.required_str("plan"))
        {
            Ok(plan) => plan,
            Err(e) => return ToolResult::failure(e),
        };
        // The plans' folder made (and checked: no link on the way) first.
        if let Err(e) = StateDir::of(ctx).make_dirs(super::session::session_rel(ctx, PLANS_DIRNAME))
        {
            return ToolResult::failure(format!("exit_plan_mode could not keep the plan: {e}"));
        }
        let path = match write_plan(&session_dir(ctx), plan) {
            Ok(path) => path,
            Err(e) => {
                return ToolResult::failure(format!(
                    "exit_plan_mode could not keep the plan under {}: {e}",
                    session_dir(ctx).join(PLANS_DIRNAME).display()
                ));
            }
        };
        let path = path.to_string_lossy().into_owned();
        text_and_record(
            format!("Plan ready for approval (kept in {path}):\n\n{plan}"),
            json!({"exitPlan": true, "plan": plan, "path": path}),
            false,
        )
    }
}

/// The `enter_plan_mode` card.
pub fn enter_plan_mode_card() -> DefinedTool {
    define_tool(Arc::new(EnterPlanMode))
}

/// The `exit_plan_mode` card.
pub fn exit_plan_mode_card() -> DefinedTool {
    define_tool(Arc::new(ExitPlanMode))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_follow_the_rules() {
        assert_eq!(
            plan_slug("# Refactor the Parser!\nmore"),
            "refactor-the-parser"
        );
        assert_eq!(plan_slug("\n\n  \n  Step one: read  "), "step-one-read");
        assert_eq!(plan_slug(""), "plan");
        assert_eq!(plan_slug("   \n***\n"), "plan");
        assert_eq!(plan_slug("../../etc/passwd"), "etc-passwd");
        assert_eq!(plan_slug("Édition spéciale"), "dition-sp-ciale");
        let long = plan_slug(&"word ".repeat(40));
        assert!(long.len() <= SLUG_MAX, "{long}");
        assert!(!long.ends_with('-'));
        assert_eq!(plan_slug(&"x".repeat(100)), "x".repeat(48));
    }

    #[test]
    fn base36_is_javascripts() {
        assert_eq!(base36(0), "0");
        assert_eq!(base36(35), "z");
        assert_eq!(base36(36), "10");
        assert_eq!(base36(1_700_000_000_000), "loyw3v28");
    }

    #[test]
    fn plans_in_one_millisecond_never_collide() {
        let dir = tempfile::tempdir().unwrap();
        let paths: Vec<PathBuf> = (0..20)
            .map(|i| write_plan(dir.path(), &format!("Same title\n{i}")).unwrap())
            .collect();
        let unique: std::collections::HashSet<_> = paths.iter().collect();
        assert_eq!(unique.len(), 20);
        for (i, p) in paths.iter().enumerate() {
            assert_eq!(read_plan(p).unwrap(), format!("Same title\n{i}"));
            let name = p.file_name().unwrap().to_string_lossy();
            assert!(name.contains("-same-title"), "{name}");
        }
        assert!(read_plan(&dir.path().join("nope.md")).is_none());
    }
}
