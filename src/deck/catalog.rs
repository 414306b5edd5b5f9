//! The one catalog: a static slice of rows, built-ins first in the seed's table
//! order, then the app cards in the seed's order. Profiles, titles, the read-only
//! flag and every lookup are read from it, never kept beside it.
//!
//! The profile names are the seed's, with its deliberate inversion kept (and pinned
//! by tests): `authoring` is the observe-only built-ins, `survey` every built-in,
//! `all` every built-in plus the cards.

use crate::builtins::{MUTATING_NAMES, READ_ONLY_NAMES, ToolCollection};
use crate::kernel::{Checkpoint, Seat, SeedList, ToolMeta, ToolRegistry, normalize_tool_name};
use crate::tools;

use super::cards;
pub use super::row::{
    BUDDY, BUDDY_AND_ALL, Builder, CARD, CatalogRow, DeckContext, MUTATING, Profile, READ_ONLY,
    profiles_of,
};

/// The built-ins' rows in the seed's table order, which the registration order
/// gives by one rule: the seed's read-only list first, then the seed's other
/// tools that only observe (`todo_read`), then the seed's others, then the
/// built-ins beyond the seed, each part in registration order.
fn builtin_rows() -> Vec<CatalogRow> {
    let rank = |m: &ToolMeta| match (m.seat, m.effect.observes_only()) {
        (Seat::Builtin(SeedList::ReadOnly), _) => 0,
        (Seat::Builtin(SeedList::Mutating), true) => 1,
        (Seat::Builtin(SeedList::Mutating), false) => 2,
        _ => 3,
    };
    let mut rows: Vec<CatalogRow> = crate::builtins::BUILTINS
        .iter()
        .map(|b| CatalogRow::of(b.meta, Builder::Plain(b.build)))
        .collect();
    rows.sort_by_key(|r| rank(r.meta));
    rows
}

/// The operator's tools of the buddy seed, in the seed's order.
fn operator_rows() -> Vec<CatalogRow> {
    tools::operator::OPERATOR_TOOLS
        .iter()
        .map(|r| CatalogRow::of(r.meta, Builder::Plain(r.build)))
        .collect()
}

/// Every row: the twelve built-ins in the seed's table order, then the app cards
/// in the seed's order, then the operator's tools. The same slice on every call.
pub fn catalog() -> &'static [CatalogRow] {
    static ROWS: std::sync::OnceLock<Vec<CatalogRow>> = std::sync::OnceLock::new();
    ROWS.get_or_init(|| {
        builtin_rows()
            .into_iter()
            .chain(cards::app_cards())
            .chain(operator_rows())
            .collect()
    })
}

/// Whether `name` (the wire name) is a catalog tool that overwrites or deletes
/// files or runs programs ([`Effect::changes_the_world`](crate::kernel::Effect)):
/// what an MCP client is told is destructive, and what, having succeeded, may
/// have fixed the cause of a repeated failure (suppression forgets its counts).
pub fn changes_the_world(name: &str) -> bool {
    catalog()
        .iter()
        .any(|r| r.id == name && r.meta.effect.changes_the_world())
}

/// How a checkpoint covers the catalog tool named exactly `name` (a host's own
/// or a grafted tool: not at all).
pub fn checkpoint_of(name: &str) -> Checkpoint {
    catalog()
        .iter()
        .find(|r| r.id == name)
        .map_or(Checkpoint::No, |r| r.meta.checkpoint)
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
    // In catalog order, as the rows are.
    let builtin_ids: Vec<&str> = catalog()
        .iter()
        .filter(|r| matches!(r.meta.seat, Seat::Builtin(_)))
        .map(|r| r.id)
        .collect();
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
        // "authoring" is the observe-only set: the seed's seven first, then
        // any built-in beyond the seed that only observes; "survey" every
        // built-in.
        let authoring = of(Profile::Authoring);
        assert_eq!(
            authoring[..7],
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
        for id in &authoring[7..] {
            let meta = find_row(id).unwrap().meta;
            assert_eq!(meta.seat, Seat::Builtin(SeedList::Neither), "{id}");
            assert!(meta.effect.observes_only(), "{id}");
        }
        assert_eq!(
            of(Profile::Survey),
            &catalog().iter().map(|r| r.id).collect::<Vec<_>>()[..crate::builtins::BUILTINS.len()]
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
        assert_eq!(
            reg.members_of("all").unwrap(),
            &ids[..crate::builtins::BUILTINS.len()]
        );
        assert_eq!(
            reg.members_of("read-only").unwrap().len(),
            READ_ONLY_NAMES.len()
        );
        assert_eq!(find_row("Todo-Read").map(|r| r.id), Some("todo_read"));
        assert!(find_row("nope").is_none());
    }
}
