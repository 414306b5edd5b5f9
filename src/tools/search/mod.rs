//! The search family: `grep` (content) and `find` (names).
//!
//! Both walk through the `Fs` seam's parallel fast path (`Fs::walk_tree`) and then
//! order what they found, so their output is byte-stable at any thread count;
//! `walk` holds what they share.

pub mod find;
pub mod grep;
pub mod walk;

pub use find::find_tool;
pub use grep::grep_tool;

/// A search tool's text, its record and whether it failed, run on `dir` with the
/// local backend: the unit tests' one way to call grep and find.
#[cfg(test)]
pub(crate) async fn run_in(
    tool: crate::kernel::DefinedTool,
    dir: &std::path::Path,
    input: serde_json::Value,
) -> (String, serde_json::Value, bool) {
    use crate::kernel::ToolContentBlock;
    let ctx = crate::backends::local::make_local_context(dir.to_str().unwrap(), None, None, None);
    let result = tool.run_result(input, &ctx).await;
    let text = match &result.content[0] {
        ToolContentBlock::Text(t) => t.clone(),
        ToolContentBlock::Json(v) => v.to_string(),
    };
    let record = match result.content.get(1) {
        Some(ToolContentBlock::Json(v)) => v.clone(),
        _ => serde_json::Value::Null,
    };
    (text, record, result.is_error)
}

#[cfg(test)]
mod tests {
    use std::io;
    use std::sync::Arc;

    use async_trait::async_trait;
    use serde_json::{Value, json};

    use crate::backends::local::{local_shell, make_local_context, standard_budget};
    use crate::backends::local_fs::LocalFs;
    use crate::kernel::{
        CancellationToken, DirChild, Framework, Fs, FsEntryInfo, RemoveOptions, ToolContext,
    };

    /// The local filesystem without the walk fast path, as a backend that only has
    /// the plain calls would be.
    struct PlainFs;

    #[async_trait]
    impl Fs for PlainFs {
        async fn read_text(&self, path: &str) -> io::Result<String> {
            LocalFs::default().read_text(path).await
        }
        async fn read_bytes(&self, path: &str) -> io::Result<Vec<u8>> {
            LocalFs::default().read_bytes(path).await
        }
        async fn write_file(&self, path: &str, data: &str) -> io::Result<()> {
            LocalFs::default().write_file(path, data).await
        }
        async fn stat(&self, path: &str) -> io::Result<FsEntryInfo> {
            LocalFs::default().stat(path).await
        }
        async fn read_dir(&self, path: &str) -> io::Result<Vec<DirChild>> {
            LocalFs::default().read_dir(path).await
        }
        async fn mkdir(&self, path: &str, recursive: bool) -> io::Result<()> {
            LocalFs::default().mkdir(path, recursive).await
        }
        async fn rm(&self, path: &str, options: RemoveOptions) -> io::Result<()> {
            LocalFs::default().rm(path, options).await
        }
        async fn exists(&self, path: &str) -> bool {
            LocalFs::default().exists(path).await
        }
    }

    fn tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let files: &[(&str, &[u8])] = &[
            ("b.txt", b"hit b\n"),
            ("A/x.rs", b"fn hit() {}\nnext\n"),
            ("a/deep/y.rs", b"no\nhit y\n"),
            ("a-b.txt", b"hit dash\n"),
            (".hidden", b"hit hidden\n"),
            (".git/HEAD", b"hit git\n"),
            ("node_modules/m.js", b"hit module\n"),
            ("bin.dat", b"hit\0binary\n"),
        ];
        for (path, content) in files {
            let p = dir.path().join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, content).unwrap();
        }
        std::os::unix::fs::symlink("a", dir.path().join("a/loop")).unwrap();
        std::os::unix::fs::symlink("b.txt", dir.path().join("link.txt")).unwrap();
        dir
    }

    async fn run(ctx: &ToolContext, tool: &str, input: Value) -> (String, bool) {
        let tool = if tool == "grep" {
            super::grep_tool()
        } else {
            super::find_tool()
        };
        let result = tool.run_result(input, ctx).await;
        // The text for people; the record for programs is compared beside it.
        let text = match &result.content[0] {
            crate::kernel::ToolContentBlock::Text(t) => t.clone(),
            crate::kernel::ToolContentBlock::Json(v) => v.to_string(),
        };
        let record = result
            .content
            .get(1)
            .map(|b| b.to_value().to_string())
            .unwrap_or_default();
        (format!("{text}{record}"), result.is_error)
    }

    #[tokio::test]
    async fn the_plain_fs_fallback_gives_the_fast_paths_output() {
        let dir = tree();
        let cwd = dir.path().to_str().unwrap();
        let fast = make_local_context(cwd, None, None, None);
        let plain = ToolContext::new(
            cwd,
            Arc::new(PlainFs),
            local_shell(),
            CancellationToken::new(),
            standard_budget(),
            Framework::default(),
        );
        let calls = [
            ("grep", json!({"pattern": "hit"})),
            ("grep", json!({"pattern": "hit", "context": 1, "limit": 3})),
            (
                "grep",
                json!({"pattern": "HIT", "flags": "i", "glob": "*.rs"}),
            ),
            ("grep", json!({"pattern": "hit", "path": "a"})),
            ("grep", json!({"pattern": "hit", "path": "A/x.rs"})),
            ("find", json!({"pattern": "*"})),
            ("find", json!({"pattern": "a", "type": "dir"})),
            ("find", json!({"pattern": "*.RS", "path": "a", "limit": 1})),
            // Issue 16's inputs: the size limit, named files, dot-entries, path globs.
            ("grep", json!({"pattern": "hit", "maxFileSize": 8})),
            (
                "grep",
                json!({"pattern": "hit", "path": "A/x.rs", "maxFileSize": 1}),
            ),
            ("grep", json!({"pattern": "hit", "skipHidden": true})),
            ("find", json!({"pattern": "*", "skipHidden": true})),
            ("find", json!({"pattern": "a/**/*.rs"})),
            ("find", json!({"pattern": "*.{rs,txt}", "path": "a"})),
        ];
        for (tool, input) in calls {
            let want = run(&fast, tool, input.clone()).await;
            let got = run(&plain, tool, input.clone()).await;
            assert!(!want.1, "{tool} {input}: {}", want.0);
            assert_eq!(got, want, "{tool} {input}");
        }
        let (all, _) = run(&fast, "grep", json!({"pattern": "hit"})).await;
        let all = &all[..all.find("{\"kind\"").unwrap_or(all.len())];
        assert_eq!(
            all,
            ".hidden:1: hit hidden\nA/x.rs:1: fn hit() {}\na/deep/y.rs:2: hit y\na-b.txt:1: hit dash\nb.txt:1: hit b\n\nFound 5 matches in 5 files (searched 5 files). Skipped 1 binary file and 1 node_modules folder (name one as the path to search it)."
        );
    }

    #[tokio::test]
    async fn the_fallback_cannot_honour_ignore_files_and_says_so() {
        let dir = tree();
        let plain = ToolContext::new(
            dir.path().to_str().unwrap(),
            Arc::new(PlainFs),
            local_shell(),
            CancellationToken::new(),
            standard_budget(),
            Framework::default(),
        );
        for tool in ["grep", "find"] {
            let (text, is_error) =
                run(&plain, tool, json!({"pattern": "x", "gitignore": true})).await;
            assert!(is_error);
            assert!(
                text.starts_with("Invalid \"gitignore\": this backend offers no tree walk"),
                "{text}"
            );
        }
    }

    fn plain_context(cwd: &str) -> ToolContext {
        ToolContext::new(
            cwd,
            Arc::new(PlainFs),
            local_shell(),
            CancellationToken::new(),
            standard_budget(),
            Framework::default(),
        )
    }

    #[tokio::test]
    async fn the_fallback_gives_the_fast_paths_output_for_rg_and_fd_keys() {
        let dir = tree();
        let cwd = dir.path().to_str().unwrap();
        let fast = make_local_context(cwd, None, None, None);
        let plain = plain_context(cwd);
        let calls = [
            (
                "grep",
                json!({"pattern": "hit", "paths": ["a", "b.txt", "A"]}),
            ),
            (
                "grep",
                json!({"pattern": "hit", "globs": ["!a/deep", "*.rs"]}),
            ),
            (
                "grep",
                json!({"pattern": "hit", "type": ["rust"], "typeNot": ["txt"]}),
            ),
            (
                "grep",
                json!({"pattern": "hit", "invertMatch": true, "afterContext": 1, "limit": 2}),
            ),
            (
                "grep",
                json!({"pattern": "HIT", "smartCase": true, "wordRegexp": true}),
            ),
            (
                "grep",
                json!({"pattern": "hit", "maxCount": 1, "outputMode": "count"}),
            ),
            (
                "grep",
                json!({"pattern": "hit", "outputMode": "files", "limit": 2}),
            ),
            ("find", json!({"pattern": "*", "maxDepth": 1})),
            (
                "find",
                json!({"pattern": "*", "exclude": ["deep", "*.txt"]}),
            ),
            (
                "find",
                json!({"pattern": "*", "extension": ["rs"], "paths": ["a", "A"]}),
            ),
            ("find", json!({"pattern": "*", "type": "symlink"})),
        ];
        for (tool, input) in calls {
            let want = run(&fast, tool, input.clone()).await;
            let got = run(&plain, tool, input.clone()).await;
            assert!(!want.1, "{tool} {input}: {}", want.0);
            assert_eq!(got, want, "{tool} {input}");
        }
    }

    #[tokio::test]
    async fn the_fallback_cannot_tell_executables_and_says_so() {
        let dir = tree();
        let plain = plain_context(dir.path().to_str().unwrap());
        let (text, is_error) = run(&plain, "find", json!({"pattern": "*", "type": "x"})).await;
        assert!(is_error);
        assert_eq!(
            text,
            "Invalid \"type\": this backend cannot tell which files are executable; ask for \"file\" instead."
        );
    }
}
