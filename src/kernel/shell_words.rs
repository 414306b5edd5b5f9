//! Shell command lines read as words: split into simple commands on `;`, `&`,
//! `&&`, `||`, `|` and newlines outside quotes, with the text of `$( … )` and
//! backquotes read as commands too, and wrappers looked through (leading
//! `VAR=value` assignments, `env`, `timeout`, `nice`, `nohup`, `ionice`,
//! `stdbuf`, `command`, `exec`, `time`, `xargs`, `sudo`/`doas`, and `sh -c '…'`
//! of any shell, recursively). The other half of [`sh_quote`](super::sh_quote):
//! that one writes words for a shell, this one reads them back.
//!
//! Approval decides on the commands found here, the buddy config reads its
//! rules' words with it, and the tmux backend refuses a line that would end the
//! shared pane's shell ([`shell_killer`]), so it lives in the kernel, below all
//! three. Written here because no maintained crate splits shell operators while
//! keeping quotes (`shlex`/`shell-words` split words only, full shell parsers are
//! far larger than this need); it errs towards finding commands, never towards
//! hiding them.

/// One word of a command line, and whether an operator ended a command after it.
#[derive(Debug, PartialEq)]
enum Token {
    Word(String),
    Break,
    /// `(` and `)`: a break that also opens or closes a subshell.
    Open,
    Close,
}

/// What the lexer saw besides words: the text of substitutions, collected apart,
/// and whether anything but plain words was met.
#[derive(Debug, Default)]
struct Marks {
    inner: Vec<String>,
    /// An unquoted `<` or `>` (a redirection), or a `$` or backquote outside
    /// single quotes (an expansion or a substitution): what makes a command line
    /// more than its words.
    special: bool,
}

/// Split a command line into words and command breaks; quotes are removed, the
/// text of substitutions is collected apart in `marks`.
fn lex(line: &str, marks: &mut Marks) -> Vec<Token> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let chars: Vec<char> = line.chars().collect();
    let mut i = 0;
    let flush = |word: &mut String, in_word: &mut bool, out: &mut Vec<Token>| {
        if *in_word {
            out.push(Token::Word(std::mem::take(word)));
            *in_word = false;
        }
    };
    while i < chars.len() {
        let c = chars[i];
        match c {
            '\'' => {
                in_word = true;
                i += 1;
                while i < chars.len() && chars[i] != '\'' {
                    word.push(chars[i]);
                    i += 1;
                }
            }
            '"' => {
                in_word = true;
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    if matches!(chars[i], '$' | '`') {
                        marks.special = true;
                    }
                    if chars[i] == '\\' && i + 1 < chars.len() {
                        i += 1;
                    } else if chars[i] == '$' && chars.get(i + 1) == Some(&'(') {
                        let (text, end) = balanced(&chars, i + 2);
                        marks.inner.push(text.clone());
                        word.push_str(&format!("$({text})"));
                        i = end;
                        continue;
                    } else if chars[i] == '`' {
                        let end = chars[i + 1..]
                            .iter()
                            .position(|&c| c == '`')
                            .map_or(chars.len(), |p| i + 1 + p);
                        marks.inner.push(chars[i + 1..end].iter().collect());
                        i = end + 1;
                        continue;
                    }
                    word.push(chars[i.min(chars.len() - 1)]);
                    i += 1;
                }
            }
            '\\' => {
                in_word = true;
                if let Some(&next) = chars.get(i + 1) {
                    if next != '\n' {
                        word.push(next);
                    }
                    i += 1;
                }
            }
            '$' if chars.get(i + 1) == Some(&'(') => {
                in_word = true;
                marks.special = true;
                let (text, end) = balanced(&chars, i + 2);
                marks.inner.push(text.clone());
                word.push_str(&format!("$({text})"));
                i = end;
                continue;
            }
            '`' => {
                in_word = true;
                marks.special = true;
                let end = chars[i + 1..]
                    .iter()
                    .position(|&c| c == '`')
                    .map_or(chars.len(), |p| i + 1 + p);
                let text: String = chars[i + 1..end].iter().collect();
                word.push_str(&format!("`{text}`"));
                marks.inner.push(text);
                i = end;
            }
            ';' | '&' | '|' | '\n' | '(' | ')' => {
                flush(&mut word, &mut in_word, &mut out);
                out.push(match c {
                    '(' => Token::Open,
                    ')' => Token::Close,
                    _ => Token::Break,
                });
            }
            c if c.is_whitespace() => flush(&mut word, &mut in_word, &mut out),
            '#' if !in_word => {
                // A comment runs to the end of the line.
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                continue;
            }
            c => {
                if matches!(c, '$' | '<' | '>') {
                    marks.special = true;
                }
                in_word = true;
                word.push(c);
            }
        }
        i += 1;
    }
    flush(&mut word, &mut in_word, &mut out);
    out
}

/// The text up to the `)` matching an opened `$(` (nesting counted), and the
/// index after it.
fn balanced(chars: &[char], start: usize) -> (String, usize) {
    let mut depth = 1;
    let mut i = start;
    while i < chars.len() {
        match chars[i] {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return (chars[start..i].iter().collect(), i + 1);
                }
            }
            _ => {}
        }
        i += 1;
    }
    (chars[start..].iter().collect(), chars.len())
}

/// The words of a rule or a command with no operators (quotes removed).
pub fn words_of(text: &str) -> Vec<String> {
    lex(text, &mut Marks::default())
        .into_iter()
        .filter_map(|t| match t {
            Token::Word(w) => Some(w),
            Token::Break | Token::Open | Token::Close => None,
        })
        .collect()
}

/// How deep substitutions and `sh -c` scripts are read; a command nested deeper
/// is not seen, and says so ([`Analysis::opaque`]).
pub const MAX_DEPTH: usize = 8;

/// What a command line runs: each simple command's words after wrappers, whether
/// anything escalates privileges, and what the reading could not see through.
#[derive(Debug, Default, PartialEq)]
pub struct Analysis {
    pub commands: Vec<Vec<String>>,
    pub privesc: bool,
    /// Why some command could not be read (`eval`, a command word that is a
    /// variable or a substitution, a shell reading its commands from input,
    /// nesting deeper than [`MAX_DEPTH`]): a deny rule cannot rule it out.
    pub opaque: Vec<String>,
}

/// Split `line` into its simple commands, looking through wrappers.
pub fn analyse(line: &str) -> Analysis {
    let mut analysis = Analysis::default();
    analyse_into(line, &mut analysis, 0);
    analysis
}

/// The words of `line` when it is a plain command: one simple command of words
/// only — no assignment before it, no redirection, no expansion or substitution
/// (`$`, backquotes), no operator or separator, no subshell (a comment, never
/// run, may follow). `None` otherwise. What an allow rule may approve: the shell runs exactly these words,
/// so a rule that names them names what runs (`PATH=. ls`, `cat a > f`,
/// `git status; sh` are not `ls`, `cat` or `git status`).
pub fn plain_words(line: &str) -> Option<Vec<String>> {
    let mut marks = Marks::default();
    let tokens = lex(line, &mut marks);
    if marks.special || !marks.inner.is_empty() {
        return None;
    }
    let mut words = Vec::with_capacity(tokens.len());
    for token in tokens {
        match token {
            Token::Word(w) => words.push(w),
            Token::Break | Token::Open | Token::Close => return None,
        }
    }
    let first = words.first()?;
    if is_assignment(first) || KEYWORDS.contains(&first.as_str()) {
        return None;
    }
    Some(words)
}

fn analyse_into(line: &str, analysis: &mut Analysis, depth: usize) {
    if depth > MAX_DEPTH {
        analysis.opaque.push(format!(
            "it nests commands deeper than the {MAX_DEPTH} levels the policy reads"
        ));
        return;
    }
    let mut marks = Marks::default();
    let tokens = lex(line, &mut marks);
    let mut current: Vec<String> = Vec::new();
    let finish = |words: &mut Vec<String>, analysis: &mut Analysis| {
        if !words.is_empty() {
            unwrap(std::mem::take(words), analysis, depth);
        }
    };
    for token in tokens {
        match token {
            Token::Word(w) => current.push(w),
            Token::Break | Token::Open | Token::Close => finish(&mut current, analysis),
        }
    }
    finish(&mut current, analysis);
    for text in marks.inner {
        analyse_into(&text, analysis, depth + 1);
    }
}

fn is_assignment(word: &str) -> bool {
    match word.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !name.starts_with(|c: char| c.is_ascii_digit())
        }
        None => false,
    }
}

/// Options of a wrapper that take the next word as their value.
fn takes_value(wrapper: &str, option: &str) -> bool {
    matches!(
        (wrapper, option),
        ("env", "-u" | "-C")
            | ("timeout", "-s" | "-k" | "--signal" | "--kill-after")
            | ("nice", "-n" | "--adjustment")
            | ("ionice", "-c" | "-n" | "-p" | "-t")
            | ("stdbuf", "-i" | "-o" | "-e")
            | (
                "sudo",
                "-u" | "-g" | "-h" | "-p" | "-C" | "-D" | "-R" | "-T" | "-U"
            )
            | ("doas", "-u" | "-C")
            | (
                "xargs",
                "-I" | "-L" | "-n" | "-P" | "-s" | "-d" | "-E" | "-a"
            )
            | ("watch", "-n" | "-d" | "--interval" | "-q")
            | ("exec", "-a")
            | ("flock", "-w" | "-E" | "--timeout")
    )
}

/// The programs that run the rest of their words as a command.
const WRAPPERS: &[&str] = &[
    "env", "timeout", "nice", "nohup", "ionice", "stdbuf", "command", "exec", "time", "xargs",
    "sudo", "doas", "builtin", "setsid", "chrt", "taskset", "flock",
];

/// Where a wrapper's command starts in `words` (its options skipped), and the
/// words an `env -S STRING` splits its string into (they come first).
fn wrapped_start(program: &str, words: &[String]) -> (usize, Vec<String>) {
    let mut split = Vec::new();
    let mut i = 1;
    while i < words.len() {
        let w = &words[i];
        if w == "--" {
            i += 1;
            break;
        }
        if program == "env" && is_assignment(w) {
            i += 1;
            continue;
        }
        if program == "env" {
            // `-S STRING`, `-SSTRING`, `--split-string=STRING`: the string is
            // split into words that come before the rest.
            let string = match w.as_str() {
                "-S" | "--split-string" => {
                    i += 1;
                    words.get(i).cloned()
                }
                _ => w
                    .strip_prefix("--split-string=")
                    .or_else(|| w.strip_prefix("-S").filter(|s| !s.is_empty()))
                    .map(str::to_string),
            };
            if let Some(string) = string {
                split.extend(words_of(&string));
                i += 1;
                continue;
            }
        }
        if !w.starts_with('-') || w == "-" {
            break;
        }
        i += if takes_value(program, w) { 2 } else { 1 };
    }
    match program {
        // `timeout` takes its duration first; `chrt` its priority; `taskset` its
        // mask; `flock` its lock file.
        "timeout" | "chrt" | "taskset" | "flock" if split.is_empty() => i += 1,
        _ => {}
    }
    (i, split)
}

/// The command of a `find … -exec CMD … ;` (also `-execdir`, `-ok`, `-okdir`),
/// each read as a command of its own.
fn find_exec(words: &[String], analysis: &mut Analysis, depth: usize) {
    let mut i = 1;
    while i < words.len() {
        if matches!(words[i].as_str(), "-exec" | "-execdir" | "-ok" | "-okdir") {
            let start = i + 1;
            let end = words[start..]
                .iter()
                .position(|w| w == ";" || w == "+")
                .map_or(words.len(), |p| start + p);
            if start < end {
                unwrap(words[start..end].to_vec(), analysis, depth + 1);
            }
            i = end;
        }
        i += 1;
    }
}

fn unwrap(mut words: Vec<String>, analysis: &mut Analysis, depth: usize) {
    if depth > MAX_DEPTH {
        analysis.opaque.push(format!(
            "it nests commands deeper than the {MAX_DEPTH} levels the policy reads"
        ));
        return;
    }
    loop {
        while words.first().is_some_and(|w| is_assignment(w)) {
            words.remove(0);
        }
        // A compound command's keyword is not the command it runs.
        while words
            .first()
            .is_some_and(|w| KEYWORDS.contains(&w.as_str()) && w != "time")
        {
            words.remove(0);
        }
        let Some(first) = words.first().cloned() else {
            return;
        };
        // A command word that expands (a variable, a substitution, a glob or a
        // brace list: `/bin/r?`, `{rm,-rf,x}`) is known only when it runs.
        let expands = first.contains(['$', '`', '*', '?'])
            || (first.contains('{') && first.contains('}'))
            || (first.contains('[') && first != "[" && first != "[[");
        if expands {
            analysis.opaque.push(format!(
                "its command word `{first}` is a variable, a substitution or a pattern, known only when it runs"
            ));
            analysis.commands.push(words);
            return;
        }
        let program = first.rsplit('/').next().unwrap_or(&first).to_string();
        match program.as_str() {
            "sudo" | "doas" | "su" | "pkexec" => analysis.privesc = true,
            _ => {}
        }
        let p = program.as_str();
        if WRAPPERS.contains(&p) || p == "watch" {
            let (i, split) = wrapped_start(p, &words);
            if i >= words.len() && split.is_empty() {
                analysis.commands.push(words);
                return;
            }
            if p == "watch" {
                // watch hands its words to `sh -c` as one script.
                analysis.commands.push(words.clone());
                analyse_into(&words[i.min(words.len())..].join(" "), analysis, depth + 1);
                return;
            }
            let rest = words.split_off(i.min(words.len()));
            words = split.into_iter().chain(rest).collect();
            continue;
        }
        match p {
            "eval" => {
                analysis
                    .opaque
                    .push("`eval` runs text the policy cannot read before it runs".into());
                analysis.commands.push(words.clone());
                analyse_into(&words[1..].join(" "), analysis, depth + 1);
            }
            "find" => {
                analysis.commands.push(words.clone());
                find_exec(&words, analysis, depth);
            }
            "trap" if words.len() > 2 => {
                analysis.commands.push(words.clone());
                analyse_into(&words[1], analysis, depth + 1);
            }
            "su" => {
                analysis.commands.push(words.clone());
                if let Some(at) = words.iter().position(|w| w == "-c" || w == "--command")
                    && let Some(script) = words.get(at + 1)
                {
                    analyse_into(script, analysis, depth + 1);
                }
            }
            "sh" | "bash" | "dash" | "zsh" | "ksh" | "ash" | "mksh" | "busybox" => {
                shell(words, analysis, depth);
            }
            _ => analysis.commands.push(words),
        }
        return;
    }
}

/// A shell run as a command: `-c SCRIPT` is read recursively; a shell reading
/// its commands from its input (no operand, or `-s`) cannot be seen through.
fn shell(words: Vec<String>, analysis: &mut Analysis, depth: usize) {
    let program = words[0].rsplit('/').next().unwrap_or(&words[0]).to_string();
    let mut rest = &words[1..];
    if program == "busybox" {
        match rest.first().map(String::as_str) {
            Some("sh" | "ash") => rest = &rest[1..],
            // `busybox APPLET ARGS` runs the applet: read it as the command.
            Some(_) => {
                analysis.commands.push(words.clone());
                unwrap(words[1..].to_vec(), analysis, depth + 1);
                return;
            }
            None => {
                analysis.commands.push(words);
                return;
            }
        }
    }
    // `-c SCRIPT`, also combined (`-lc`, `-ec`) or after other options
    // (`-o pipefail -c`): the script is the first word after that option that
    // is not one itself (an `-o`/`+o` takes a name).
    let short = |w: &str, c: char| {
        (w.starts_with('-') || w.starts_with('+')) && !w.starts_with("--") && w.contains(c)
    };
    if let Some(at) = rest.iter().position(|w| short(w, 'c')) {
        let mut i = at + 1;
        while i < rest.len() && (rest[i].starts_with('-') || rest[i].starts_with('+')) {
            i += if short(&rest[i], 'o') { 2 } else { 1 };
        }
        match rest.get(i) {
            Some(script) => {
                let script = script.clone();
                analysis.commands.push(words);
                analyse_into(&script, analysis, depth + 1);
            }
            None => {
                analysis.opaque.push(format!(
                    "`{program} -c` is given no script the policy can read"
                ));
                analysis.commands.push(words);
            }
        }
        return;
    }
    let flags: Vec<&String> = rest.iter().take_while(|w| w.starts_with('-')).collect();
    if flags.iter().any(|f| short(f, 's')) || rest.len() == flags.len() {
        analysis.opaque.push(format!(
            "`{program}` reads the commands it runs from its input"
        ));
    }
    analysis.commands.push(words);
}

/// Words that open a compound command; what follows them is the command run.
const KEYWORDS: &[&str] = &[
    "{", "!", "if", "then", "else", "elif", "while", "until", "do", "time",
];

/// The first directive of `line` that would end or poison the persistent shell
/// it is typed into (the buddy seed's shared-pane guardrails): `set -e` and its
/// spellings (`set -o errexit`, `setopt errexit`, flag clusters such as
/// `set -eu`), `exit`, `logout` and `exec`. Only commands the shell itself runs
/// count: a subshell `( … )` or a child shell (`bash -c '…'`) is the advised way
/// out, so neither is looked into.
pub fn shell_killer(line: &str) -> Option<String> {
    let mut depth = 0usize;
    let mut current: Vec<String> = Vec::new();
    let mut found = None;
    let mut check = |words: &mut Vec<String>, depth: usize| {
        let command = std::mem::take(words);
        if depth > 0 || found.is_some() {
            return;
        }
        let mut rest: &[String] = &command;
        while rest
            .first()
            .is_some_and(|w| KEYWORDS.contains(&w.as_str()) || is_assignment(w))
        {
            rest = &rest[1..];
        }
        let Some(first) = rest.first() else {
            return;
        };
        let all_args = &rest[1..];
        // Words after `--` are positional parameters, not options.
        let args = &all_args[..all_args
            .iter()
            .position(|a| a == "--")
            .unwrap_or(all_args.len())];
        let errexit = |name: &str| {
            name.chars()
                .filter(|c| *c != '_')
                .collect::<String>()
                .eq_ignore_ascii_case("errexit")
        };
        let hit = match first.as_str() {
            "exit" | "logout" | "exec" => true,
            "set" => args.iter().enumerate().any(|(i, a)| {
                let short = a.len() > 1
                    && a.starts_with('-')
                    && !a.starts_with("--")
                    && a[1..].chars().all(|c| c.is_ascii_alphabetic());
                (short && a[1..].contains('e'))
                    || (short
                        && a.ends_with('o')
                        && args.get(i + 1).is_some_and(|v| v == "errexit"))
            }),
            "setopt" => args.iter().any(|a| errexit(a)),
            _ => false,
        };
        if hit {
            found = Some(
                std::iter::once(first.as_str())
                    .chain(all_args.iter().map(String::as_str))
                    .collect::<Vec<_>>()
                    .join(" "),
            );
        }
    };
    for token in lex(line, &mut Marks::default()) {
        match token {
            Token::Word(w) => current.push(w),
            Token::Break => check(&mut current, depth),
            Token::Open => {
                check(&mut current, depth);
                depth += 1;
            }
            Token::Close => {
                check(&mut current, depth);
                depth = depth.saturating_sub(1);
            }
        }
    }
    check(&mut current, depth);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmds(line: &str) -> Vec<String> {
        analyse(line).commands.iter().map(|c| c.join(" ")).collect()
    }

    #[test]
    fn compound_commands_split_on_operators_but_not_inside_quotes() {
        assert_eq!(
            cmds("git status; ls -la && make || echo 'a; b' | wc -l"),
            ["git status", "ls -la", "make", "echo a; b", "wc -l"]
        );
        assert_eq!(
            cmds("echo \"x && y\"\nrm -rf a"),
            ["echo x && y", "rm -rf a"]
        );
        assert_eq!(cmds("sleep 1 & git push"), ["sleep 1", "git push"]);
        assert_eq!(cmds("(cd a && rm x)"), ["cd a", "rm x"]);
        assert_eq!(cmds("# just a comment"), Vec::<String>::new());
    }

    #[test]
    fn wrappers_are_looked_through() {
        assert_eq!(cmds("env A=1 B=2 git push"), ["git push"]);
        assert_eq!(cmds("A=1 git push"), ["git push"]);
        assert_eq!(cmds("nice -n 5 nohup git push origin"), ["git push origin"]);
        assert_eq!(cmds("timeout -s KILL 5 make"), ["make"]);
        assert_eq!(
            cmds("timeout 5 sh -c 'rm -rf x; echo done'"),
            ["sh -c rm -rf x; echo done", "rm -rf x", "echo done"]
        );
        assert_eq!(
            cmds("bash -lc \"git push\""),
            ["bash -lc git push", "git push"]
        );
        assert_eq!(
            cmds("echo $(rm -rf /tmp/x)"),
            ["echo $(rm -rf /tmp/x)", "rm -rf /tmp/x"]
        );
        assert_eq!(cmds("echo `git push`"), ["echo `git push`", "git push"]);
        let a = analyse("sudo -u root systemctl restart x");
        assert!(a.privesc);
        assert_eq!(a.commands, [vec!["systemctl", "restart", "x"]]);
    }

    #[test]
    fn more_wrappers_and_find_exec_are_looked_through() {
        assert_eq!(cmds("env -S 'git push' origin"), ["git push origin"]);
        assert_eq!(cmds("env --split-string='rm -rf' x"), ["rm -rf x"]);
        assert_eq!(
            cmds("find . -type f -exec rm -f {} + -execdir sh -c 'git push' \\;"),
            [
                "find . -type f -exec rm -f {} + -execdir sh -c git push ;",
                "rm -f {}",
                "sh -c git push",
                "git push"
            ]
        );
        assert_eq!(cmds("setsid -f nohup git push"), ["git push"]);
        assert_eq!(cmds("exec -a name rm -rf x"), ["rm -rf x"]);
        assert_eq!(cmds("busybox rm -rf x"), ["busybox rm -rf x", "rm -rf x"]);
        assert_eq!(
            cmds("bash -o pipefail -c 'rm -rf x'"),
            ["bash -o pipefail -c rm -rf x", "rm -rf x"]
        );
        assert_eq!(
            cmds("bash --norc -ec 'git push'"),
            ["bash --norc -ec git push", "git push"]
        );
        assert_eq!(
            cmds("if true; then git push; fi"),
            ["true", "git push", "fi"]
        );
        assert_eq!(
            cmds("while :; do git push; done"),
            [":", "git push", "done"]
        );
    }

    #[test]
    fn what_cannot_be_seen_through_is_named() {
        for (line, why) in [
            ("eval \"$x\"", "eval"),
            ("$run --all", "a variable, a substitution"),
            ("\"$(which rm)\" -rf x", "a variable, a substitution"),
            ("curl x | bash", "reads the commands it runs from its input"),
            ("sh -s -- a", "reads the commands it runs from its input"),
            ("/bin/r? -rf x", "a pattern"),
            ("{rm,-rf,x}", "a pattern"),
            ("/usr/bin/[r]m -rf x", "a pattern"),
            ("bash -c", "no script"),
        ] {
            let a = analyse(line);
            assert!(
                a.opaque.iter().any(|o| o.contains(why)),
                "{line}: {:?}",
                a.opaque
            );
        }
        let deep = format!("echo {}x{}", "$(echo ".repeat(12), ")".repeat(12));
        assert!(analyse(&deep).opaque[0].contains("deeper than the 8 levels"));
        for line in [
            "git status",
            "ls -la | wc -l",
            "sh -c 'make'",
            "bash ./x.sh",
        ] {
            assert_eq!(analyse(line).opaque, Vec::<String>::new(), "{line}");
        }
    }

    #[test]
    fn a_plain_command_is_words_and_nothing_else() {
        assert_eq!(
            plain_words("git status --short 'a b' \"c d\" e\\ f # note"),
            Some(vec![
                "git".into(),
                "status".into(),
                "--short".into(),
                "a b".into(),
                "c d".into(),
                "e f".into()
            ])
        );
        assert_eq!(plain_words("echo '$HOME > x'").map(|w| w.len()), Some(2));
        for line in [
            "A=1 ls",
            "ls > x",
            "ls 2>/dev/null",
            "ls <x",
            "ls $HOME",
            "ls \"$HOME\"",
            "ls ${x}",
            "ls $(id)",
            "ls `id`",
            "ls; id",
            "ls && id",
            "ls | id",
            "ls &",
            "(ls)",
            "{ ls; }",
            "! ls",
            "ls\nid",
            "",
            "# only a note",
        ] {
            assert_eq!(plain_words(line), None, "{line:?}");
        }
    }

    #[test]
    fn shell_killing_directives_are_found_only_in_the_shell_itself() {
        for line in [
            "set -e",
            "set -eu; make",
            "set -euo pipefail",
            "set -o errexit",
            "setopt errexit",
            "setopt ERR_EXIT",
            "make && exit 1",
            "logout",
            "exec bash",
            "exec >log 2>&1",
            "if true; then exit; fi",
            "{ cd /tmp; exit 3; }",
            "FOO=1 exit",
        ] {
            assert!(shell_killer(line).is_some(), "{line}");
        }
        assert_eq!(shell_killer("cd /x && set -eu").as_deref(), Some("set -eu"));
        for line in [
            "bash -lc 'set -e; make'",
            "(set -e; make)",
            "( exit 3 )",
            "echo exit",
            "echo \"set -e\"",
            "set +e",
            "set -- -e",
            "setopt noerrexit",
            "x=$(exit 1)",
            "git commit -m 'exit early'",
            "make # then exit",
            "sh -c 'exec foo'",
        ] {
            assert_eq!(shell_killer(line), None, "{line}");
        }
    }
}
