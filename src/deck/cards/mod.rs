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

use super::row::{Builder, CatalogRow};

/// The cards' rows, in the seed's order.
pub fn app_cards() -> Vec<CatalogRow> {
    let card = |meta, build| CatalogRow::of(meta, Builder::Plain(build));
    vec![
        card(&todo::META, todo::todo_card),
        card(&bg_process::META, bg_process::bg_process_card),
        // The description lists the agents configured for the working directory.
        CatalogRow::of(&task::META, Builder::InContext(task::task_card)),
        card(&saas::META, saas::saas_card),
        card(&memory::META, memory::memory_card),
        card(&plan::ENTER_PLAN_MODE, plan::enter_plan_mode_card),
        card(&plan::EXIT_PLAN_MODE, plan::exit_plan_mode_card),
    ]
}
