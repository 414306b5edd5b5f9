//! The grammars `outline` and `sgrep` parse with (issue 58): which language a
//! file is, and the parse itself.
//!
//! Both tools stand on ast-grep's crates rather than on tree-sitter and the
//! grammar crates alone. `ast-grep-core` is the matcher of the ast-grep CLI
//! (metavariables, `$$$` lists, templates, the pre-processing that lets `$X` be
//! written in languages where `$` is no identifier character), so a pattern
//! matches here what it matches there; `ast-grep-language` maps extensions to
//! languages the way that CLI does, so the two agree on which files are which
//! language. The outline walks the same trees. Only the grammars this module
//! names are built in (Cargo.toml's `code` feature): ast-grep-language panics
//! on a language whose grammar is left out, so every language passes through
//! [`carried`] first.

#[cfg(feature = "code")]
pub use ast_grep_language::SupportLang as Lang;

/// The languages this build parses, as `lang` names them, with the aliases
/// accepted for each (ast-grep's spellings among them).
pub const LANGUAGES: &[(&str, &[&str])] = &[
    ("rust", &["rs"]),
    ("python", &["py"]),
    ("javascript", &["js", "jsx"]),
    ("typescript", &["ts"]),
    ("tsx", &[]),
    ("go", &["golang"]),
    ("c", &[]),
    ("cpp", &["c++", "cc", "cxx"]),
    ("java", &[]),
    ("ruby", &["rb"]),
];

/// What the `lang` field is told to expect.
pub const LANG_EXPECTED: &str =
    "one of rust, python, javascript, typescript, tsx, go, c, cpp, java or ruby";

/// The canonical name of a language this build parses, from a name or alias
/// (any case); `None` for anything else.
pub fn canonical(name: &str) -> Option<&'static str> {
    let lower = name.to_ascii_lowercase();
    LANGUAGES
        .iter()
        .find(|(n, aliases)| *n == lower || aliases.contains(&lower.as_str()))
        .map(|(n, _)| *n)
}

#[cfg(feature = "code")]
mod parse {
    use ast_grep_core::tree_sitter::StrDoc;
    use ast_grep_core::{AstGrep, Language};
    use ast_grep_language::LanguageExt;
    use ast_grep_language::SupportLang as Lang;

    /// A parsed file.
    pub type Tree = AstGrep<StrDoc<Lang>>;

    /// The language of a canonical name (see `canonical`).
    pub fn by_name(name: &str) -> Option<Lang> {
        Some(match crate::tools::code::grammar::canonical(name)? {
            "rust" => Lang::Rust,
            "python" => Lang::Python,
            "javascript" => Lang::JavaScript,
            "typescript" => Lang::TypeScript,
            "tsx" => Lang::Tsx,
            "go" => Lang::Go,
            "c" => Lang::C,
            "cpp" => Lang::Cpp,
            "java" => Lang::Java,
            "ruby" => Lang::Ruby,
            _ => return None,
        })
    }

    /// Whether this build carries the language's grammar.
    pub fn carried(lang: Lang) -> bool {
        matches!(
            lang,
            Lang::Rust
                | Lang::Python
                | Lang::JavaScript
                | Lang::TypeScript
                | Lang::Tsx
                | Lang::Go
                | Lang::C
                | Lang::Cpp
                | Lang::Java
                | Lang::Ruby
        )
    }

    /// The language of a path by its extension, as the ast-grep CLI picks it,
    /// when this build carries it.
    pub fn of_path(path: &str) -> Option<Lang> {
        Lang::from_path(path).filter(|l| carried(*l))
    }

    /// The canonical name of a carried language.
    pub fn name_of(lang: Lang) -> &'static str {
        match lang {
            Lang::Rust => "rust",
            Lang::Python => "python",
            Lang::JavaScript => "javascript",
            Lang::TypeScript => "typescript",
            Lang::Tsx => "tsx",
            Lang::Go => "go",
            Lang::C => "c",
            Lang::Cpp => "cpp",
            Lang::Java => "java",
            Lang::Ruby => "ruby",
            _ => "other",
        }
    }

    /// Parse `text` (the language must be carried).
    pub fn parse(lang: Lang, text: &str) -> Tree {
        debug_assert!(carried(lang));
        lang.ast_grep(text)
    }

    /// Whether the tree holds a syntax error (tree-sitter still gives a tree).
    pub fn has_error(tree: &Tree) -> bool {
        tree.root().get_inner_node().has_error()
    }
}

#[cfg(feature = "code")]
pub use parse::{Tree, by_name, carried, has_error, name_of, of_path, parse};

/// What a build without the grammars answers.
pub const NOT_BUILT: &str = "this build of indus-tool parses no code: it was built without the `code` feature (cargo build --features code)";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_aliases_resolve() {
        assert_eq!(canonical("RS"), Some("rust"));
        assert_eq!(canonical("c++"), Some("cpp"));
        assert_eq!(canonical("kotlin"), None);
    }

    #[cfg(feature = "code")]
    #[test]
    fn paths_pick_only_carried_grammars() {
        assert_eq!(of_path("a/b.rs").map(name_of), Some("rust"));
        assert_eq!(of_path("x.h").map(name_of), Some("c"));
        assert_eq!(of_path("x.tsx").map(name_of), Some("tsx"));
        // ast-grep knows Kotlin, but this build does not carry it.
        assert!(of_path("x.kt").is_none());
        assert!(of_path("Makefile").is_none());
        for (name, _) in LANGUAGES {
            let lang = by_name(name).unwrap();
            assert!(carried(lang));
            assert_eq!(name_of(lang), *name);
            let _ = parse(lang, "x");
        }
    }
}
