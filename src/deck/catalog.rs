//! The one catalog: a static slice of rows, built-ins first in the seed's table
//! order, then the app cards in the seed's order. Profiles, titles, the read-only
//! flag and every lookup are read from it, never kept beside it.
//!
//! The profile names are the seed's, with its deliberate inversion kept (and pinned
//! by tests): `authoring` is the observe-only built-ins, `survey` every built-in,
//! `all` every built-in plus the cards.

use crate::builtins::{MUTATING_NAMES, READ_ONLY_NAMES, ToolCollection};
use crate::kernel::{DefinedTool, ToolRegistry, normalize_tool_name};
use crate::tools;

use super::cards;
pub use super::row::{
    BUDDY, BUDDY_AND_ALL, Builder, CARD, CatalogRow, DeckContext, MUTATING, Profile, READ_ONLY,
};

const fn holds(profiles: &[Profile], wanted: Profile) -> bool {
    let mut i = 0;
    while i < profiles.len() {
        if profiles[i] as u8 == wanted as u8 {
            return true;
        }
        i += 1;
    }
    false
}

const fn builtin(
    id: &'static str,
    title: &'static str,
    summary: &'static str,
    profiles: &'static [Profile],
    build: fn() -> DefinedTool,
) -> CatalogRow {
    let build = Builder::Plain(build);
    CatalogRow {
        id,
        title,
        summary,
        profiles,
        // Derived from the membership, so the flag and the profiles never drift.
        read_only: holds(profiles, Profile::Authoring),
        build,
    }
}

static BUILTINS: [CatalogRow; 13] = [
    builtin(
        "read",
        "Read file",
        "Show a file's lines numbered like cat -n, a window at a time.",
        READ_ONLY,
        tools::files::read_tool,
    ),
    builtin(
        "ls",
        "List directory",
        "List a directory's entries with kind and size, directories first.",
        READ_ONLY,
        tools::files::ls_tool,
    ),
    builtin(
        "grep",
        "Search file contents",
        "Find lines matching a regular expression or literal across a tree.",
        READ_ONLY,
        tools::search::grep_tool,
    ),
    builtin(
        "find",
        "Find files by name",
        "Find files and directories by glob or substring beneath a root.",
        READ_ONLY,
        tools::search::find_tool,
    ),
    builtin(
        "websearch",
        "Web search",
        "Search the web and return ranked titles, URLs and snippets.",
        READ_ONLY,
        tools::web::websearch_tool,
    ),
    builtin(
        "webfetch",
        "Fetch URL",
        "Fetch a URL and return its content as text, Markdown or HTML.",
        READ_ONLY,
        tools::web::webfetch_tool,
    ),
    builtin(
        "todo_read",
        "Read checklist",
        "Show the session's checklist.",
        READ_ONLY,
        tools::planning::todo_read_tool,
    ),
    builtin(
        "write",
        "Write file",
        "Create or replace a file atomically, making parent folders.",
        MUTATING,
        tools::files::write_tool,
    ),
    builtin(
        "edit",
        "Edit file",
        "Replace a span of a file's text and show the unified diff.",
        MUTATING,
        tools::files::edit_tool,
    ),
    builtin(
        "bash",
        "Run shell command",
        "Run a shell command and return its output and exit status.",
        MUTATING,
        tools::shell::bash_tool,
    ),
    builtin(
        "process",
        "Manage background processes",
        "Start, poll, feed, stop and list background jobs.",
        MUTATING,
        tools::shell::process_tool,
    ),
    builtin(
        "todo_set",
        "Update checklist",
        "Replace the session's checklist.",
        MUTATING,
        tools::planning::todo_set_tool,
    ),
    // Beyond the seed's twelve: multi-file patches, all or nothing.
    builtin(
        "apply_patch",
        "Apply patch",
        "Apply a multi-file patch (codex envelope or unified diff), all or nothing.",
        MUTATING,
        tools::files::apply_patch_tool,
    ),
];

/// The operator's tools of the buddy seed, in the seed's order (those built so
/// far: the tmux-backed shell and pane tools are not among them yet).
fn operator_rows() -> Vec<CatalogRow> {
    let row = |id, title, summary, profiles, read_only, build| CatalogRow {
        id,
        title,
        summary,
        profiles,
        read_only,
        build: Builder::Plain(build),
    };
    vec![
        row(
            "run_shell",
            "Run shell command (risk-annotated)",
            "Run a command, stating its risk, directly or typed into a managed tmux pane.",
            BUDDY,
            false,
            tools::operator::run_shell_tool,
        ),
        row(
            "read_file",
            "Read file (text)",
            "Return a file's text as is, up to 8,000 characters.",
            BUDDY,
            true,
            tools::operator::read_file_tool,
        ),
        row(
            "write_file",
            "Write file (text)",
            "Create or replace a file atomically and say how many bytes were written.",
            BUDDY,
            false,
            tools::operator::write_file_tool,
        ),
        row(
            "fetch_url",
            "Fetch URL body",
            "HTTP GET a URL and return its body, up to 8,000 characters.",
            BUDDY,
            true,
            tools::operator::fetch_url_tool,
        ),
        row(
            "web_search",
            "Web search (top 8)",
            "Search the web and return up to eight numbered results.",
            BUDDY,
            true,
            tools::operator::web_search_tool,
        ),
        row(
            "capture-pane",
            "Capture tmux pane",
            "Return the text on a tmux pane's screen, up to its last 8,000 characters.",
            BUDDY,
            true,
            tools::operator::capture_pane_tool,
        ),
        row(
            "send-keys",
            "Send keys to tmux pane",
            "Type literal text and tmux key names into a tmux pane.",
            BUDDY,
            false,
            tools::operator::send_keys_tool,
        ),
        row(
            "tmux-create-session",
            "Create tmux session",
            "Create or reuse a managed tmux session with its shared pane.",
            BUDDY,
            false,
            tools::operator::tmux_create_session_tool,
        ),
        row(
            "tmux-kill-session",
            "Kill tmux session",
            "Kill a managed tmux session (never the shared one).",
            BUDDY,
            false,
            tools::operator::tmux_kill_session_tool,
        ),
        row(
            "tmux-create-pane",
            "Create tmux pane",
            "Create or reuse a managed pane in a managed tmux session.",
            BUDDY,
            false,
            tools::operator::tmux_create_pane_tool,
        ),
        row(
            "tmux-kill-pane",
            "Kill tmux pane",
            "Kill a managed pane (never a session's shared pane).",
            BUDDY,
            false,
            tools::operator::tmux_kill_pane_tool,
        ),
        row(
            "time",
            "Current time",
            "Return the harness's wall-clock time in epoch, ISO-8601 and RFC 2822 forms.",
            BUDDY_AND_ALL,
            true,
            tools::operator::time_tool,
        ),
    ]
}

/// Every row: the twelve built-ins in the seed's table order, then the app cards
/// in the seed's order, then the operator's tools. The same slice on every call.
pub fn catalog() -> &'static [CatalogRow] {
    static ROWS: std::sync::OnceLock<Vec<CatalogRow>> = std::sync::OnceLock::new();
    ROWS.get_or_init(|| {
        BUILTINS
            .iter()
            .copied()
            .chain(cards::app_cards())
            .chain(operator_rows())
            .collect()
    })
}

/// The tools that overwrite or delete files or run programs: what an MCP client
/// is told is destructive, and what, having succeeded, may have fixed the cause
/// of a repeated failure (suppression forgets its counts). Named once here.
pub const CHANGES_THE_WORLD: &[&str] = &[
    "write",
    "edit",
    "apply_patch",
    "bash",
    "process",
    "bg-process",
    "task",
    "saas-action",
    "run_shell",
    "send-keys",
    "write_file",
];

/// Whether `name` (the wire name) is one of [`CHANGES_THE_WORLD`].
pub fn changes_the_world(name: &str) -> bool {
    CHANGES_THE_WORLD.contains(&name)
}

/// The row of a tool, by its id or any spelling the name normalisation accepts.
pub fn find_row(name: &str) -> Option<&'static CatalogRow> {
    let rows = catalog();
    rows.iter().find(|r| r.id == name).or_else(|| {
        // The rows' normalized ids, made once: `list` looks up every grafted
        // tool, and normalizing the catalog per lookup was most of its time.
        static NORMALIZED: std::sync::OnceLock<Vec<String>> = std::sync::OnceLock::new();
        let ids =
            NORMALIZED.get_or_init(|| rows.iter().map(|r| normalize_tool_name(r.id)).collect());
        let wanted = normalize_tool_name(name);
        ids.iter().position(|id| *id == wanted).map(|i| &rows[i])
    })
}

/// The rows a profile holds, in catalog order.
pub fn rows_for_profile(profile: Profile) -> impl Iterator<Item = &'static CatalogRow> {
    catalog().iter().filter(move |r| r.in_profile(profile))
}

/// [`deck_registry_for`] a context that reads no configuration: the same tools and
/// descriptions on every machine.
pub fn deck_registry() -> ToolRegistry {
    deck_registry_for(&DeckContext::default())
}

/// One registry holding every catalog row's tool built for `ctx`, in catalog
/// order, with the standard collections of S0 (`read-only`, `coding`, `all`) over
/// the built-ins.
pub fn deck_registry_for(ctx: &DeckContext) -> ToolRegistry {
    let mut reg = ToolRegistry::new();
    reg.register_all(catalog().iter().map(|r| r.build_in(ctx)));
    let builtin_ids: Vec<&str> = BUILTINS.iter().map(|r| r.id).collect();
    let read_only: Vec<&str> = builtin_ids
        .iter()
        .copied()
        .filter(|id| READ_ONLY_NAMES.contains(id))
        .collect();
    let coding: Vec<&str> = builtin_ids
        .iter()
        .copied()
        .filter(|id| READ_ONLY_NAMES.contains(id) || MUTATING_NAMES.contains(id))
        .collect();
    for (collection, members) in [
        (ToolCollection::ReadOnly, read_only),
        (ToolCollection::Coding, coding),
        (ToolCollection::All, builtin_ids),
    ] {
        reg.collection(collection.name(), &members)
            .expect("the built-ins are registered");
    }
    reg
}

/// Build again, for `ctx`, the tools of `registry` whose rows read their context
/// (the others are the same wherever they are built); each keeps its place.
pub fn rebuild_in_context(registry: &mut ToolRegistry, ctx: &DeckContext) {
    for row in catalog() {
        if matches!(row.build, Builder::InContext(_)) && registry.has(row.id) {
            registry.register(row.build_in(ctx));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_catalog_is_one_slice_in_the_seeds_order() {
        let ids: Vec<&str> = catalog().iter().map(|r| r.id).collect();
        assert_eq!(
            &ids[..12],
            [
                "read",
                "ls",
                "grep",
                "find",
                "websearch",
                "webfetch",
                "todo_read",
                "write",
                "edit",
                "bash",
                "process",
                "todo_set"
            ]
        );
        assert!(std::ptr::eq(catalog().as_ptr(), catalog().as_ptr()));
        // Every built-in of the S0 lists is in the catalog, once.
        let mut builtins: Vec<&str> = ids[..12].to_vec();
        builtins.sort();
        let mut s0: Vec<&str> = READ_ONLY_NAMES
            .iter()
            .chain(MUTATING_NAMES.iter())
            .copied()
            .collect();
        s0.sort();
        assert_eq!(builtins, s0);
    }

    #[test]
    fn the_profiles_keep_the_seeds_inversion() {
        let of = |p: Profile| -> Vec<&str> { rows_for_profile(p).map(|r| r.id).collect() };
        // "authoring" is the observe-only set, "survey" every built-in.
        assert_eq!(
            of(Profile::Authoring),
            [
                "read",
                "ls",
                "grep",
                "find",
                "websearch",
                "webfetch",
                "todo_read"
            ]
        );
        assert_eq!(
            of(Profile::Survey),
            &catalog().iter().map(|r| r.id).collect::<Vec<_>>()[..BUILTINS.len()]
        );
        // `all`: every row but the operator's own (time excepted).
        let all = of(Profile::All);
        for row in catalog() {
            assert_eq!(
                all.contains(&row.id),
                !row.in_profile(Profile::Buddy) || row.id == "time",
                "{}",
                row.id
            );
        }
        assert_eq!(
            of(Profile::Buddy),
            [
                "run_shell",
                "read_file",
                "write_file",
                "fetch_url",
                "web_search",
                "capture-pane",
                "send-keys",
                "tmux-create-session",
                "tmux-kill-session",
                "tmux-create-pane",
                "tmux-kill-pane",
                "time"
            ]
        );
        for row in catalog().iter().filter(|r| !r.in_profile(Profile::Buddy)) {
            assert_eq!(
                row.read_only,
                row.in_profile(Profile::Authoring)
                    || matches!(row.id, "enter_plan_mode" | "exit_plan_mode"),
                "{}",
                row.id
            );
        }
    }

    /// The buddy seed's description guidance: every tool of the profile says when
    /// to use it, when not, how it differs from its neighbours, and shows an
    /// example; a tool asking for a command's safety fields keeps them required.
    #[test]
    fn every_buddy_description_follows_the_seeds_guidance() {
        for row in rows_for_profile(Profile::Buddy) {
            let tool = row.build_in(&DeckContext::default());
            let text = tool.description();
            for section in [
                "When to use:",
                "When NOT to use:",
                "Disambiguation:",
                "Examples:",
            ] {
                assert!(text.contains(section), "{}: no {section}", row.id);
            }
            let schema = tool.parameters();
            let acts = matches!(row.id, "run_shell" | "send-keys") || row.id.starts_with("tmux-");
            assert_eq!(
                schema["properties"].get("risk").is_some(),
                acts,
                "{}",
                row.id
            );
            if acts {
                let required = schema["required"].as_array().expect("required");
                for field in ["risk", "mutation", "privesc", "why"] {
                    assert!(required.contains(&field.into()), "{}: {field}", row.id);
                }
            }
        }
    }

    #[test]
    fn no_profile_holds_two_tools_whose_names_collide() {
        for profile in Profile::ALL {
            let mut seen = std::collections::HashSet::new();
            for row in rows_for_profile(profile) {
                assert!(seen.insert(normalize_tool_name(row.id)), "{}", row.id);
            }
        }
    }

    #[test]
    fn the_registry_holds_every_row_and_the_standard_collections() {
        let reg = deck_registry();
        let ids: Vec<String> = catalog().iter().map(|r| r.id.to_string()).collect();
        assert_eq!(reg.names(), ids);
        for row in catalog() {
            assert_eq!(row.build_in(&DeckContext::default()).name(), row.id);
        }
        assert_eq!(reg.members_of("all").unwrap(), &ids[..BUILTINS.len()]);
        assert_eq!(
            reg.members_of("read-only").unwrap().len(),
            READ_ONLY_NAMES.len()
        );
        assert_eq!(find_row("Todo-Read").map(|r| r.id), Some("todo_read"));
        assert!(find_row("nope").is_none());
    }
}
