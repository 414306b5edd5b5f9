//! Approval of commands before they run (the buddy seed's `shell_confirm`, plus a
//! policy of allow and deny rules): one wrapper over the tools that run a shell
//! command — `bash`, `process` and `bg-process` (action `start`), and `task`,
//! whose command is the configured agent's — keyed on the tool's name and input,
//! so the tools themselves know nothing of it.
//!
//! The order of decisions: a command any of whose simple commands matches a
//! **deny** rule is refused (always, whenever a policy file has deny rules).
//! Otherwise, with confirmation on (`--confirm`, `INDUS_CONFIRM`, or
//! `"shell_confirm": true` in `buddy.json`): a command whose every simple command
//! matches an **allow** rule runs without asking, unless it escalates privileges
//! (`sudo`, `doas`, `su`, `pkexec`) or its input says `"risk": "high"` or
//! `"privesc": true`, which always ask; anything else asks `Run: <cmd> [y/N] ` on
//! the controlling terminal (`/dev/tty`, never standard input, which may carry
//! `--json -`). With no terminal the answer is no: the seed's
//! `Command execution denied by user.`
//!
//! Rules match on words: a rule is a command prefix (`git push`, `rm -rf`) and
//! matches a simple command whose first words are the rule's. A command line is
//! split into simple commands on `;`, `&`, `&&`, `||`, `|` and newlines outside
//! quotes; the text of `$( … )` and backquotes is checked as commands too; and
//! wrappers are looked through: leading `VAR=value` assignments, `env`, `timeout`,
//! `nice`, `nohup`, `ionice`, `stdbuf`, `command`, `exec`, `time`, `xargs`,
//! `sudo`/`doas`, and `sh -c '…'` (any shell) recursively (the lexer and the
//! looking-through are `kernel::shell_words`).

use std::io::{BufRead, Write};
use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;

use crate::kernel::shell_words::analyse;
use crate::kernel::{Around, DefinedTool, ToolContext, ToolRegistry, ToolResult, wrap_tools};
use crate::state::buddy_config::{Policy, Rule};

/// The seed's answer to a refused command.
pub const DENIED: &str = "Command execution denied by user.";

fn matches(rule: &Rule, command: &[String]) -> bool {
    rule.words.len() <= command.len()
        && rule.words.iter().zip(command).all(|(r, c)| {
            // The program may be spelled with its path.
            r == c || (c.contains('/') && c.rsplit('/').next() == Some(r.as_str()))
        })
}

/// The verdict on one command line.
#[derive(Debug, PartialEq, Eq)]
pub enum Verdict {
    /// Run it.
    Run,
    /// Ask the person.
    Ask,
    /// A deny rule matched: the refusal's text.
    Deny(String),
}

/// Decide on `line` under `policy`; `confirm` says whether unlisted commands
/// are asked about, `high` whether the caller declared high risk or privesc.
pub fn decide(line: &str, policy: &Policy, confirm: bool, high: bool) -> Verdict {
    let analysis = analyse(line);
    for command in &analysis.commands {
        if let Some(rule) = policy.deny.iter().find(|r| matches(r, command)) {
            return Verdict::Deny(format!(
                "Command denied by policy: `{}` matches the deny rule \"{}\" of {}.",
                command.join(" "),
                rule.text,
                rule.file.display()
            ));
        }
    }
    if !confirm {
        return Verdict::Run;
    }
    let allowed = !analysis.commands.is_empty()
        && analysis
            .commands
            .iter()
            .all(|c| policy.allow.iter().any(|r| matches(r, c)));
    if allowed && !analysis.privesc && !high {
        Verdict::Run
    } else {
        Verdict::Ask
    }
}

/// Ask `Run: <cmd> [y/N] ` on the controlling terminal; no terminal is a no.
fn ask_terminal(command: &str) -> bool {
    let Ok(tty) = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")
    else {
        return false;
    };
    let mut writer = &tty;
    if write!(writer, "Run: {command} [y/N] ")
        .and_then(|_| writer.flush())
        .is_err()
    {
        return false;
    }
    let mut answer = String::new();
    if std::io::BufReader::new(&tty)
        .read_line(&mut answer)
        .is_err()
    {
        return false;
    }
    matches!(answer.trim().to_ascii_lowercase().as_str(), "y" | "yes")
}

/// The command a call of `tool` with `input` would run, if it runs one.
fn command_of(tool: &str, input: &Value) -> Option<String> {
    let field = |k: &str| input.get(k).and_then(Value::as_str).map(str::to_string);
    match tool {
        "bash" | "run_shell" => field("command"),
        "process" | "bg-process" if field("action").as_deref() == Some("start") => field("command"),
        "send-keys" => field("literal_text").or_else(|| match input.get("keys") {
            Some(Value::Array(keys)) => Some(
                keys.iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join(" "),
            ),
            Some(Value::String(k)) => Some(k.clone()),
            _ => None,
        }),
        _ => None,
    }
}

/// The tools whose commands are approved.
pub const APPROVED_TOOLS: &[&str] = &[
    "bash",
    "process",
    "bg-process",
    "run_shell",
    "send-keys",
    "task",
];

/// How approval is configured for an invocation.
#[derive(Debug, Clone)]
pub struct Approval {
    pub confirm: bool,
    pub policy: Arc<Policy>,
}

struct Approving {
    approval: Approval,
    /// The command a `task` call would run (its agent's, read from the roster):
    /// given by whoever installs approval, as the roster is the task card's.
    task_command: fn(&Path, &Value) -> Option<String>,
}

#[async_trait]
impl Around for Approving {
    async fn call(&self, inner: &DefinedTool, input: Value, ctx: &ToolContext) -> ToolResult {
        // `task` runs the agent its roster names: that agent's command line is
        // what is approved (the prompt, one argument, is not shown).
        let command = if inner.name() == "task" {
            (self.task_command)(Path::new(&ctx.cwd), &input)
        } else {
            command_of(inner.name(), &input)
        };
        let Some(command) = command else {
            return inner.run_result(input, ctx).await;
        };
        let high = input.get("risk").and_then(Value::as_str) == Some("high")
            || input.get("privesc").and_then(Value::as_bool) == Some(true);
        match decide(&command, &self.approval.policy, self.approval.confirm, high) {
            Verdict::Run => inner.run_result(input, ctx).await,
            Verdict::Deny(why) => ToolResult::failure(why),
            Verdict::Ask => {
                let shown = command.clone();
                let yes = tokio::task::spawn_blocking(move || ask_terminal(&shown))
                    .await
                    .unwrap_or(false);
                if yes {
                    inner.run_result(input, ctx).await
                } else {
                    ToolResult::failure(DENIED)
                }
            }
        }
    }
}

/// Wrap the command-running tools of `registry` in approval, when it can change
/// anything (confirmation on, or a policy with deny rules). `task_command` names
/// the command a `task` call would run.
pub fn install_approval(
    registry: &mut ToolRegistry,
    approval: Approval,
    task_command: fn(&Path, &Value) -> Option<String>,
) {
    if !approval.confirm && approval.policy.deny.is_empty() {
        return;
    }
    let around = Approving {
        approval,
        task_command,
    };
    wrap_tools(registry, APPROVED_TOOLS, Arc::new(around));
}

/// The policy of `cwd`, with its files' warnings.
pub fn policy_of(cwd: &Path) -> (Policy, Vec<String>) {
    Policy::load(cwd)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kernel::shell_words::words_of;
    use std::path::PathBuf;

    fn policy(allow: &[&str], deny: &[&str]) -> Policy {
        let rule = |t: &&str| Rule {
            text: t.to_string(),
            words: words_of(t),
            file: PathBuf::from("policy.json"),
        };
        Policy {
            allow: allow.iter().map(rule).collect(),
            deny: deny.iter().map(rule).collect(),
        }
    }

    #[test]
    fn deny_wins_wherever_the_command_hides() {
        let p = policy(&["timeout", "sh", "git"], &["rm -rf", "git push"]);
        for line in [
            "timeout 5 sh -c 'rm -rf x'",
            "env A=1 git push",
            "nice -n 5 nohup git push",
            "ls; /usr/bin/git push --force",
            "echo $(rm -rf y)",
        ] {
            assert!(
                matches!(decide(line, &p, false, false), Verdict::Deny(_)),
                "{line}"
            );
            assert!(
                matches!(decide(line, &p, true, false), Verdict::Deny(_)),
                "{line}"
            );
        }
        // A quoted `;` is not a command break.
        assert_eq!(
            decide("echo 'rm -rf x; git push'", &p, false, false),
            Verdict::Run
        );
        let Verdict::Deny(why) = decide("git push", &p, false, false) else {
            panic!()
        };
        assert_eq!(
            why,
            "Command denied by policy: `git push` matches the deny rule \"git push\" of policy.json."
        );
    }

    #[test]
    fn allowed_commands_run_and_high_risk_or_privesc_always_asks() {
        let p = policy(&["git status", "ls"], &[]);
        assert_eq!(
            decide("git status && ls -la", &p, true, false),
            Verdict::Run
        );
        assert_eq!(decide("git status; make", &p, true, false), Verdict::Ask);
        assert_eq!(decide("git status", &p, true, true), Verdict::Ask);
        assert_eq!(
            decide("sudo ls", &policy(&["ls", "sudo"], &[]), true, false),
            Verdict::Ask
        );
        assert_eq!(decide("make", &p, false, false), Verdict::Run);
    }

    #[test]
    fn commands_are_found_in_every_tool_that_runs_one() {
        let v = |s: &str| serde_json::from_str::<Value>(s).unwrap();
        assert_eq!(
            command_of("bash", &v(r#"{"command":"ls"}"#)).as_deref(),
            Some("ls")
        );
        assert_eq!(
            command_of("process", &v(r#"{"action":"start","command":"make"}"#)).as_deref(),
            Some("make")
        );
        assert_eq!(
            command_of("process", &v(r#"{"action":"poll","id":"job-1"}"#)),
            None
        );
        assert_eq!(
            command_of("send-keys", &v(r#"{"keys":["C-c","Enter"]}"#)).as_deref(),
            Some("C-c Enter")
        );
        assert_eq!(command_of("read", &v(r#"{"path":"x"}"#)), None);
    }
}
