//! The operator's family (the buddy seed, `001_…`): the tools of an agent that
//! operates machines, under the seed's names and shapes. `time` is its own; the
//! file and web tools are thin front ends over the toolbox's engines (`write`,
//! `webfetch`, `websearch`, the `Fs` seam and the context's path rules), reshaped
//! to the seed's inputs, limits and outputs, never second implementations.
//!
//! Every description follows the seed's guidance with the sections *When to use*,
//! *When NOT to use*, *Disambiguation* and *Examples* (pinned by a test over the
//! buddy profile).

mod frontends;
mod time;

pub use frontends::{fetch_url_tool, read_file_tool, web_search_tool, write_file_tool};
pub use time::{time_record, time_tool};

/// The seed's cap for file and page text: 8,000 characters.
pub const TEXT_CAP: usize = 8000;
/// The seed's marker after a cut text.
pub const TRUNCATED: &str = "...[truncated]";

/// `text` cut to [`TEXT_CAP`] characters (never inside a character), with
/// [`TRUNCATED`] appended when anything was cut.
pub fn cap_text(text: &str) -> String {
    match text.char_indices().nth(TEXT_CAP) {
        Some((at, _)) => format!("{}{TRUNCATED}", &text[..at]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_are_cut_by_characters_with_the_seeds_marker() {
        assert_eq!(cap_text("short"), "short");
        let exact = "é".repeat(TEXT_CAP);
        assert_eq!(cap_text(&exact), exact);
        let over = format!("{exact}x");
        assert_eq!(cap_text(&over), format!("{exact}{TRUNCATED}"));
    }
}
