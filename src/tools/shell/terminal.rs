//! The terminal of a `process start --tty` job, read and typed at as a person
//! would: named keys (`Enter`, `C-c`, `Up`) become the bytes a terminal sends,
//! output loses its escapes through a real VT parser (`vte`) with carriage
//! returns and line erasures applied, so a progress bar reads as its last
//! state, and `process screen` draws the screen with a terminal emulator
//! (`vt100`) fed the job's output.
//!
//! The job's raw output (escapes and all) is what its supervisor keeps; every
//! view here is computed from it when asked, so `--raw` is always possible and
//! no view is ever stored.

use vte::{Params, Parser, Perform};

use crate::kernel::TtySize;

/// The size a `--tty` job gets unless told: the classic terminal's.
pub const DEFAULT_SIZE: TtySize = TtySize { cols: 80, rows: 24 };
/// The largest `cols` or `rows` taken (a screen is drawn in memory).
pub const MAX_SIDE: u64 = 1000;
/// How much of the newest output `screen` replays to draw the screen.
pub const SCREEN_REPLAY: u64 = 4 * 1024 * 1024;

/// The keys `process write` names, in the words tmux's `send-keys` uses.
const NAMED: &[(&str, &[u8])] = &[
    ("Enter", b"\r"),
    ("Tab", b"\t"),
    ("BTab", b"\x1b[Z"),
    ("Escape", b"\x1b"),
    ("Esc", b"\x1b"),
    ("Space", b" "),
    ("BSpace", b"\x7f"),
    ("Backspace", b"\x7f"),
    ("Up", b"\x1b[A"),
    ("Down", b"\x1b[B"),
    ("Right", b"\x1b[C"),
    ("Left", b"\x1b[D"),
    ("Home", b"\x1b[H"),
    ("End", b"\x1b[F"),
    ("PageUp", b"\x1b[5~"),
    ("PPage", b"\x1b[5~"),
    ("PageDown", b"\x1b[6~"),
    ("NPage", b"\x1b[6~"),
    ("Insert", b"\x1b[2~"),
    ("IC", b"\x1b[2~"),
    ("Delete", b"\x1b[3~"),
    ("DC", b"\x1b[3~"),
    ("F1", b"\x1bOP"),
    ("F2", b"\x1bOQ"),
    ("F3", b"\x1bOR"),
    ("F4", b"\x1bOS"),
    ("F5", b"\x1b[15~"),
    ("F6", b"\x1b[17~"),
    ("F7", b"\x1b[18~"),
    ("F8", b"\x1b[19~"),
    ("F9", b"\x1b[20~"),
    ("F10", b"\x1b[21~"),
    ("F11", b"\x1b[23~"),
    ("F12", b"\x1b[24~"),
];

/// Control keys that mean a signal or an end of input only to a terminal's
/// line discipline: on pipes they would arrive as bare bytes.
const TERMINAL_ONLY: &[u8] = &[0x03, 0x04, 0x1a, 0x1c];

/// The bytes of one named key: a name of [`NAMED`] (any case), `C-x` for a
/// control key, `M-x` for Meta (Escape, then the key). `terminal`: `Enter` is
/// the carriage return a terminal sends; on pipes it is a newline, and the
/// control keys a pipe cannot carry are refused.
pub fn key_bytes(name: &str, terminal: bool) -> Result<Vec<u8>, String> {
    if let Some(rest) = name.strip_prefix("M-").filter(|r| !r.is_empty()) {
        let mut bytes = vec![0x1b];
        bytes.extend(key_bytes(rest, terminal)?);
        return Ok(bytes);
    }
    if let Some(rest) = name.strip_prefix("C-").filter(|r| !r.is_empty()) {
        let byte = control_byte(rest).ok_or_else(|| unknown_key(name))?;
        if !terminal && TERMINAL_ONLY.contains(&byte) {
            return Err(format!(
                "the key {name:?} means something only to a terminal; this job runs on pipes, where it would arrive as a bare byte. Stop the job with `process stop`, or start it with --tty."
            ));
        }
        return Ok(vec![byte]);
    }
    if name.eq_ignore_ascii_case("Enter") && !terminal {
        return Ok(b"\n".to_vec());
    }
    NAMED
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map(|(_, b)| b.to_vec())
        .or_else(|| (name.chars().count() == 1).then(|| name.as_bytes().to_vec()))
        .ok_or_else(|| unknown_key(name))
}

fn control_byte(key: &str) -> Option<u8> {
    let mut chars = key.chars();
    let c = chars.next()?;
    if chars.next().is_some() {
        return (key.eq_ignore_ascii_case("Space")).then_some(0);
    }
    match c.to_ascii_lowercase() {
        c @ 'a'..='z' => Some(c as u8 - b'a' + 1),
        '@' | ' ' | '2' => Some(0),
        '[' => Some(0x1b),
        '\\' => Some(0x1c),
        ']' => Some(0x1d),
        '^' => Some(0x1e),
        '_' | '/' => Some(0x1f),
        '?' => Some(0x7f),
        _ => None,
    }
}

fn unknown_key(name: &str) -> String {
    let names: Vec<&str> = NAMED.iter().map(|(n, _)| *n).collect();
    format!(
        "unknown key {name:?}: expected one of {}, C-<letter>, M-<key>, or one character",
        names.join(", ")
    )
}

/// A terminal's output as plain text: printable characters kept, escapes
/// dropped, and the few controls that move within a line applied (carriage
/// return, backspace, erase-in-line, cursor left/right/column), so what a
/// line ends as is what a person saw on it. A line still being written comes
/// last, without a newline.
pub fn plain_text(bytes: &[u8]) -> String {
    let mut lines = Lines::default();
    let mut parser = Parser::new();
    parser.advance(&mut lines, bytes);
    let mut text = lines.done;
    text.extend(lines.line);
    text
}

#[derive(Default)]
struct Lines {
    done: String,
    line: Vec<char>,
    col: usize,
}

impl Lines {
    fn put(&mut self, c: char) {
        if self.col > self.line.len() {
            self.line.resize(self.col, ' ');
        }
        if self.col < self.line.len() {
            self.line[self.col] = c;
        } else {
            self.line.push(c);
        }
        self.col += 1;
    }
}

fn first_param(params: &Params, default: usize) -> usize {
    match params.iter().next().and_then(|p| p.first()) {
        Some(&n) if n > 0 => n as usize,
        _ => default,
    }
}

impl Perform for Lines {
    fn print(&mut self, c: char) {
        self.put(c);
    }

    fn execute(&mut self, byte: u8) {
        match byte {
            b'\n' => {
                self.done.extend(self.line.drain(..));
                self.done.push('\n');
                self.col = 0;
            }
            b'\r' => self.col = 0,
            0x08 => self.col = self.col.saturating_sub(1),
            b'\t' => self.put('\t'),
            _ => {}
        }
    }

    fn csi_dispatch(&mut self, params: &Params, intermediates: &[u8], _ignore: bool, c: char) {
        if !intermediates.is_empty() {
            return;
        }
        match c {
            // Erase in line: to its end (0), its start (1), all of it (2).
            'K' => match params.iter().next().and_then(|p| p.first()).copied() {
                None | Some(0) => self.line.truncate(self.col),
                Some(1) => {
                    let end = self.col.min(self.line.len());
                    self.line[..end].iter_mut().for_each(|c| *c = ' ');
                }
                _ => self.line.clear(),
            },
            'C' => self.col += first_param(params, 1),
            'D' => self.col = self.col.saturating_sub(first_param(params, 1)),
            'G' => self.col = first_param(params, 1) - 1,
            _ => {}
        }
    }
}

/// A terminal's screen, as `process screen` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Screen {
    /// Every row, trailing blanks trimmed.
    pub rows: Vec<String>,
    /// The cursor's row and column, from 0.
    pub cursor: (u16, u16),
    /// A full-screen program (an editor, `less`, `top`) is drawing on the
    /// alternate screen.
    pub alternate: bool,
}

/// The screen a terminal of `size` shows after `bytes`.
pub fn screen(bytes: &[u8], size: TtySize) -> Screen {
    let side = |n: u16| std::num::NonZeroU16::new(n).unwrap_or(std::num::NonZeroU16::MIN);
    let mut parser = vt100::Parser::new(side(size.rows), side(size.cols), 0);
    parser.process(bytes);
    let s = parser.screen();
    let rows = s
        .rows(0, size.cols.max(1))
        .map(|r| r.trim_end().to_string())
        .collect();
    Screen {
        rows,
        cursor: s.cursor_position(),
        alternate: s.alternate_screen(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn named_keys_are_the_bytes_a_terminal_sends() {
        assert_eq!(key_bytes("Enter", true).unwrap(), b"\r");
        assert_eq!(key_bytes("enter", false).unwrap(), b"\n");
        assert_eq!(key_bytes("C-c", true).unwrap(), [3]);
        assert_eq!(key_bytes("C-D", true).unwrap(), [4]);
        assert_eq!(key_bytes("Up", true).unwrap(), b"\x1b[A");
        assert_eq!(key_bytes("M-x", true).unwrap(), b"\x1bx");
        assert_eq!(key_bytes("M-Enter", true).unwrap(), b"\x1b\r");
        assert_eq!(key_bytes("F12", true).unwrap(), b"\x1b[24~");
        assert_eq!(key_bytes("q", true).unwrap(), b"q");
        assert!(
            key_bytes("Hyper", true)
                .unwrap_err()
                .contains("unknown key")
        );
        assert!(key_bytes("C-", true).is_err());
        let e = key_bytes("C-c", false).unwrap_err();
        assert!(e.contains("runs on pipes"), "{e}");
        // A pipe can still take the keys that are only bytes.
        assert_eq!(key_bytes("Tab", false).unwrap(), b"\t");
    }

    #[test]
    fn plain_text_applies_what_moves_within_a_line() {
        assert_eq!(plain_text(b"\x1b[1;32mok\x1b[0m\r\nnext"), "ok\nnext");
        // A progress bar reads as its last state.
        assert_eq!(plain_text(b"10%\r50%\r100%\r\n"), "100%\n");
        // Overwriting part of a line keeps the rest, as a terminal does.
        assert_eq!(plain_text(b"abcdef\rXY\r\n"), "XYcdef\n");
        // Erase to the end of the line, and backspace.
        assert_eq!(plain_text(b"abcdef\r\x1b[Kxy\n"), "xy\n");
        assert_eq!(plain_text(b"ab\x08c\n"), "ac\n");
        // An OSC title and a bell leave nothing.
        assert_eq!(plain_text(b"\x1b]0;title\x07>>> "), ">>> ");
        // A cut sequence at the end leaves nothing either.
        assert_eq!(plain_text(b"done\x1b[3"), "done");
    }

    #[test]
    fn the_screen_is_what_a_person_sees() {
        let s = screen(b"hello\r\nworld\x1b[1;1HJ", TtySize { cols: 20, rows: 3 });
        assert_eq!(s.rows, ["Jello", "world", ""]);
        assert_eq!(s.cursor, (0, 1));
        assert!(!s.alternate);
        let full = screen(b"\x1b[?1049hedit", TtySize { cols: 10, rows: 2 });
        assert!(full.alternate);
        assert_eq!(full.rows[0], "edit");
    }
}
