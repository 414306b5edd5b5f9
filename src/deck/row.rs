//! The shapes the catalog is made of: a profile, a row (a tool's wire id, title,
//! summary, profiles, read-only flag and how to build it), the context a deck is
//! built in, and the memberships a row may have. Apart from the catalog itself so
//! that the app cards, which each supply rows, and the catalog, which lists them,
//! both import these and neither imports the other's insides.

use crate::kernel::{DefinedTool, Seat, ToolMeta};

/// A named selection over the catalog.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Profile {
    /// The observe-only built-ins (the seed's name; not a typo for "read-only").
    Authoring,
    /// Every built-in, mutating ones included.
    Survey,
    /// Every built-in and every app card.
    All,
    /// The operator's tools of the buddy seed: time, a risk-annotated shell,
    /// tmux sessions and panes, and the seed's file and web front ends.
    Buddy,
}

impl Profile {
    pub const ALL: [Profile; 4] = [Self::Authoring, Self::Survey, Self::All, Self::Buddy];
    /// The profile names, for a flag's allowed values.
    pub const NAMES: [&'static str; 4] = ["authoring", "survey", "all", "buddy"];

    pub fn name(self) -> &'static str {
        match self {
            Self::Authoring => "authoring",
            Self::Survey => "survey",
            Self::All => "all",
            Self::Buddy => "buddy",
        }
    }

    pub fn from_name(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// One catalog row: what a tool is called, how it is titled and summarised, which
/// profiles hold it, and how to build it.
#[derive(Clone, Copy)]
pub struct CatalogRow {
    /// The wire name a model or a script calls.
    pub id: &'static str,
    pub title: &'static str,
    pub summary: &'static str,
    pub profiles: &'static [Profile],
    /// The tool only observes (never changes files, state or the world).
    pub read_only: bool,
    pub build: Builder,
    /// Where all of the above come from, with the tool's other facts.
    pub meta: &'static ToolMeta,
}

/// The profiles a descriptor's seat and effect put a tool in: an observe-only
/// built-in in `authoring` (the seed's deliberate inversion), every built-in in
/// `survey`, an operator's tool in `buddy`, a card in `all`.
pub const fn profiles_of(meta: &ToolMeta) -> &'static [Profile] {
    match meta.seat {
        Seat::Builtin(_) if meta.effect.observes_only() => READ_ONLY,
        Seat::Builtin(_) => MUTATING,
        Seat::Operator { in_all: true } => BUDDY_AND_ALL,
        Seat::Operator { in_all: false } => BUDDY,
        Seat::Card => CARD,
    }
}

/// How a row makes its tool: most need nothing; a card whose description or
/// behaviour depends on where it runs (the `task` card's roster of configured
/// agents) reads the [`DeckContext`].
#[derive(Clone, Copy)]
pub enum Builder {
    Plain(fn() -> DefinedTool),
    InContext(fn(&DeckContext) -> DefinedTool),
}

/// Where a deck is built: the working directory whose configuration (such as
/// `.indusvx/`) a card may read, or none for a deck that must not depend on the
/// machine (generated docs, completions).
#[derive(Debug, Clone, Default)]
pub struct DeckContext {
    pub cwd: Option<std::path::PathBuf>,
}

impl DeckContext {
    /// A deck built for `cwd`.
    pub fn at(cwd: impl Into<std::path::PathBuf>) -> Self {
        Self {
            cwd: Some(cwd.into()),
        }
    }
}

impl CatalogRow {
    /// The row of a tool from its descriptor: id, title, summary, read-only flag
    /// and profiles are all read from it, never written beside it.
    pub const fn of(meta: &'static ToolMeta, build: Builder) -> Self {
        CatalogRow {
            id: meta.name,
            title: meta.title,
            summary: meta.summary,
            profiles: profiles_of(meta),
            read_only: meta.effect.observes_only(),
            build,
            meta,
        }
    }

    /// The row's tool, built for `ctx`.
    pub fn build_in(&self, ctx: &DeckContext) -> DefinedTool {
        match self.build {
            Builder::Plain(f) => f(),
            Builder::InContext(f) => f(ctx),
        }
    }

    pub fn in_profile(&self, profile: Profile) -> bool {
        self.profiles.contains(&profile)
    }

    /// The profile names holding this row, in [`Profile::ALL`] order.
    pub fn profile_names(&self) -> Vec<&'static str> {
        Profile::ALL
            .into_iter()
            .filter(|p| self.in_profile(*p))
            .map(Profile::name)
            .collect()
    }
}

impl std::fmt::Debug for CatalogRow {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CatalogRow")
            .field("id", &self.id)
            .field("title", &self.title)
            .field("profiles", &self.profiles)
            .field("read_only", &self.read_only)
            .finish_non_exhaustive()
    }
}

/// Membership of an observe-only built-in (the seed's `READ_ONLY` tag).
pub const READ_ONLY: &[Profile] = &[Profile::Authoring, Profile::Survey, Profile::All];
/// Membership of a mutating built-in (the seed's `MUTATING` tag).
pub const MUTATING: &[Profile] = &[Profile::Survey, Profile::All];
/// Membership of an app card.
pub const CARD: &[Profile] = &[Profile::All];
/// Membership of an operator's tool of the buddy seed.
pub const BUDDY: &[Profile] = &[Profile::Buddy];
/// Membership of an operator's tool the whole deck holds as well (`time`).
pub const BUDDY_AND_ALL: &[Profile] = &[Profile::All, Profile::Buddy];
