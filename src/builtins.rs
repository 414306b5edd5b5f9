//! The built-ins: every tool this crate ships, registered in the seed's order, the
//! three standard collections over them, and the one-call box helpers. (The
//! kernel's `ToolRegistry` is the structure a host dispatches through; the deck's
//! catalog lists built-ins and app cards with their profiles; this is the list of
//! built-ins they both start from.)
//!
//! Tools land family by family; a collection lists the members of its seed list that
//! are built (`READ_ONLY_NAMES`/`MUTATING_NAMES` keep the whole seed list, so a new
//! tool joins its collections by being registered here).

use std::sync::Arc;

use crate::backends::local::make_local_context;
use crate::kernel::{
    CapabilityError, ContextFactory, DefinedTool, Registration, ToolBox, ToolMeta, ToolRegistry,
};
use crate::tools;

/// The observe-only tools.
pub const READ_ONLY_NAMES: [&str; 6] = ["read", "ls", "grep", "find", "websearch", "webfetch"];
/// The tools that change the workspace or run commands.
pub const MUTATING_NAMES: [&str; 6] = ["write", "edit", "bash", "todo_set", "todo_read", "process"];
/// A standard collection.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ToolCollection {
    ReadOnly,
    Coding,
    All,
}

impl ToolCollection {
    pub const ALL: [ToolCollection; 3] = [Self::ReadOnly, Self::Coding, Self::All];

    pub fn name(self) -> &'static str {
        match self {
            Self::ReadOnly => "read-only",
            Self::Coding => "coding",
            Self::All => "all",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// Every built tool, in the seed's registration order: the one list a built-in
/// joins. The catalog, the collections, the MCP hints and the checkpoint wrapper
/// read each tool's facts from its descriptor here.
pub static BUILTINS: [Registration; 17] = [
    Registration::new(&tools::files::read::META, tools::files::read_tool),
    Registration::new(&tools::files::write::META, tools::files::write_tool),
    Registration::new(&tools::files::edit::META, tools::files::edit_tool),
    Registration::new(&tools::files::ls::META, tools::files::ls_tool),
    Registration::new(&tools::search::grep::META, tools::search::grep_tool),
    Registration::new(&tools::search::find::META, tools::search::find_tool),
    Registration::new(&tools::shell::bash::META, tools::shell::bash_tool),
    Registration::new(&tools::shell::process::META, tools::shell::process_tool),
    Registration::new(&tools::code::diagnose::META, tools::code::diagnose_tool),
    Registration::new(&tools::code::navigate::META, tools::code::lsp_tool),
    Registration::new(&tools::code::outline::META, tools::code::outline_tool),
    Registration::new(&tools::code::sgrep::META, tools::code::sgrep_tool),
    Registration::new(
        &tools::planning::todo::TODO_SET,
        tools::planning::todo_set_tool,
    ),
    Registration::new(
        &tools::planning::todo::TODO_READ,
        tools::planning::todo_read_tool,
    ),
    Registration::new(&tools::web::websearch::META, tools::web::websearch_tool),
    Registration::new(&tools::web::webfetch::META, tools::web::webfetch_tool),
    Registration::new(
        &tools::files::apply_patch::META,
        tools::files::apply_patch_tool,
    ),
];

/// The descriptor of the built-in named exactly `name`.
pub fn builtin_meta(name: &str) -> Option<&'static ToolMeta> {
    BUILTINS.iter().map(|b| b.meta).find(|m| m.name == name)
}

/// Every built tool, in the seed's registration order.
pub fn builtin_tools() -> Vec<DefinedTool> {
    BUILTINS.iter().map(|b| (b.build)()).collect()
}

/// A fresh registry holding every built tool and the three standard collections.
pub fn builtin_registry() -> ToolRegistry {
    let mut reg = ToolRegistry::new();
    reg.register_all(builtin_tools());
    let built = |names: &[&'static str]| -> Vec<&'static str> {
        names.iter().copied().filter(|n| reg.has(n)).collect()
    };
    let read_only = built(&READ_ONLY_NAMES);
    let coding: Vec<&str> = built(&READ_ONLY_NAMES)
        .into_iter()
        .chain(built(&MUTATING_NAMES))
        .collect();
    let all_names = reg.names();
    let all: Vec<&str> = all_names.iter().map(String::as_str).collect();
    // Members were filtered to registered names above, so these cannot fail.
    for (collection, members) in [
        (ToolCollection::ReadOnly, read_only),
        (ToolCollection::Coding, coding),
        (ToolCollection::All, all),
    ] {
        reg.collection(collection.name(), &members)
            .expect("standard collection members are registered");
    }
    reg
}

fn local_factory(cwd: Option<String>) -> ContextFactory {
    let cwd = cwd.unwrap_or_else(|| {
        std::env::current_dir()
            .map(|p| p.to_string_lossy().into_owned())
            .unwrap_or_else(|_| ".".to_string())
    });
    Arc::new(move || make_local_context(&cwd, None, None, None))
}

/// A runnable box for a standard collection over the local backend rooted at `cwd`
/// (default: the process's cwd).
pub fn tool_box(collection: ToolCollection, cwd: Option<String>) -> ToolBox {
    try_tool_box(collection.name(), cwd).expect("standard collections are always registered")
}

/// Like [`tool_box`], by collection name, reporting an unknown name.
pub fn try_tool_box(
    collection_name: &str,
    cwd: Option<String>,
) -> Result<ToolBox, CapabilityError> {
    builtin_registry().to_tool_box(local_factory(cwd), Some(collection_name))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn standard_collections_follow_the_seed_lists() {
        let reg = builtin_registry();
        assert_eq!(reg.collection_names(), ["read-only", "coding", "all"]);
        let read_only = reg.members_of("read-only").unwrap();
        let coding = reg.members_of("coding").unwrap();
        let all = reg.members_of("all").unwrap();
        assert_eq!(all, reg.names());
        for name in &read_only {
            assert!(READ_ONLY_NAMES.contains(&name.as_str()));
            assert!(coding.contains(name));
        }
        for name in reg.names() {
            if builtin_meta(&name).map(|m| m.seat)
                == Some(crate::kernel::Seat::Builtin(
                    crate::kernel::SeedList::Neither,
                ))
            {
                assert!(!coding.contains(&name), "{name} is not the seed's");
                continue;
            }
            assert!(
                READ_ONLY_NAMES.contains(&name.as_str()) || MUTATING_NAMES.contains(&name.as_str()),
                "{name} is in no seed list"
            );
            assert!(coding.contains(&name), "{name} missing from coding");
        }
    }

    #[test]
    fn the_todo_pair_is_in_coding_and_all_but_not_read_only() {
        let reg = builtin_registry();
        for name in ["todo_set", "todo_read"] {
            assert!(reg.has(name));
            assert!(
                !reg.members_of("read-only")
                    .unwrap()
                    .contains(&name.to_string())
            );
            assert!(
                reg.members_of("coding")
                    .unwrap()
                    .contains(&name.to_string())
            );
            assert!(reg.members_of("all").unwrap().contains(&name.to_string()));
        }
        let names = reg.names();
        let at = |n: &str| names.iter().position(|x| x == n).unwrap();
        assert!(at("find") < at("todo_set") && at("todo_set") + 1 == at("todo_read"));
    }

    #[test]
    fn try_tool_box_reports_unknown_collections() {
        assert_eq!(
            try_tool_box("nope", None).err().unwrap().to_string(),
            "No collection named \"nope\" is registered."
        );
        assert!(!tool_box(ToolCollection::All, None).descriptors().is_empty());
        assert_eq!(
            ToolCollection::from_name("coding"),
            Some(ToolCollection::Coding)
        );
    }
}
