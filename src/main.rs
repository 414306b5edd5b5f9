//! The `indus-tool` binary: everything lives in the library's `cli` module.

fn main() -> std::process::ExitCode {
    indus_tool::cli::run(std::env::args_os().collect())
}
