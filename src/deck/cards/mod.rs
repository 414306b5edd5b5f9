//! The seed's app cards: tools the built-ins do not provide, in the profile `all`
//! only. Each keys its behaviour on its input, answers bad input with an
//! `is_error` result naming the field, and keeps what must outlive one invocation
//! in the session's folder of the state store (`.indus-process/sessions/<session>/`),
//! so state survives across invocations and two sessions never share it.

pub mod bg_process;
pub mod memory;
pub mod plan;
pub mod saas;
pub mod session;
pub mod task;
pub mod todo;

use super::row::{Builder, CARD, CatalogRow};

/// The cards' rows, in the seed's order.
pub fn app_cards() -> Vec<CatalogRow> {
    let card = |id, title, summary, read_only, build| CatalogRow {
        id,
        title,
        summary,
        profiles: CARD,
        read_only,
        build: Builder::Plain(build),
    };
    vec![
        card(
            "todo",
            "Checklist",
            "Read or wholesale replace a checklist of weighted items with four states.",
            false,
            todo::todo_card,
        ),
        card(
            "bg-process",
            "Background process",
            "Start, poll and stop long-lived commands, keeping the last 2,000 lines per stream.",
            false,
            bg_process::bg_process_card,
        ),
        CatalogRow {
            id: "task",
            title: "Delegate task",
            summary: "Hand a self-contained objective to a configured sub-agent CLI and return its answer.",
            profiles: CARD,
            read_only: false,
            // The description lists the agents configured for the working directory.
            build: Builder::InContext(task::task_card),
        },
        card(
            "saas-action",
            "SaaS action",
            "Discover and run third-party SaaS actions through the Composio REST API.",
            false,
            saas::saas_card,
        ),
        card(
            "memory",
            "Working memory",
            "Read, replace or append to the session's working-memory note.",
            false,
            memory::memory_card,
        ),
        card(
            "enter_plan_mode",
            "Enter plan mode",
            "Mark the start of an explore-only planning phase.",
            true,
            plan::enter_plan_mode_card,
        ),
        card(
            "exit_plan_mode",
            "Exit plan mode",
            "Present a finished plan for approval and keep it as a file.",
            true,
            plan::exit_plan_mode_card,
        ),
    ]
}
