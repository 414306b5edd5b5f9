//! Every file a model meets (issue 57), through the real binary and against
//! programs nobody here wrote: images (an MCP image block through the official
//! Python SDK; a 40-megapixel image downscaled; a decompression bomb refused
//! by its header), PDF text layers against poppler's `pdftotext` on PDFs made
//! by groff and ghostscript, notebooks checked by `nbformat.validate` and
//! `git diff`, legacy encodings against `iconv`, the tail of a large file,
//! binary files named by their magic number, and malformed inputs.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::{TestEnv, code, stderr, stdout};
use serde_json::{Value, json};

fn have(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// A PNG of `w`×`h` written by Python's zlib (no imaging library needed):
/// `noise` makes it incompressible-ish, as a photograph is.
fn png(path: &Path, w: u32, h: u32) {
    let script = r#"
import sys, zlib, struct
w, h, path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
row = lambda y: b"\0" + bytes(((x * 7 + y * 13) ^ (x * y)) % 256 for x in range(w * 3))
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
c = zlib.compressobj(6); body = b"".join(c.compress(row(y)) for y in range(h)) + c.flush()
open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) + chunk(b"IDAT", body) + chunk(b"IEND", b""))
"#;
    let out = Command::new("python3")
        .args(["-c", script, &w.to_string(), &h.to_string()])
        .arg(path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// A 50,000 × 50,000 PNG in a few KB: a valid header over a short stream of
/// zeros.
fn bomb(path: &Path) {
    let script = r#"
import sys, zlib, struct
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
c = zlib.compressobj(9); d = c.compress(b"\0" * (4 << 20)) + c.flush(zlib.Z_SYNC_FLUSH)
open(sys.argv[1], "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 50000, 50000, 8, 2, 0, 0, 0)) + chunk(b"IDAT", d) + chunk(b"IEND", b""))
"#;
    assert!(
        Command::new("python3")
            .args(["-c", script])
            .arg(path)
            .status()
            .unwrap()
            .success()
    );
}

fn blocks(v: &Value) -> Vec<Value> {
    v["output"].as_array().cloned().unwrap_or_default()
}

fn decoded_png_size(b64: &str) -> (u32, u32) {
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(b64)
        .unwrap();
    let d = image::ImageReader::new(std::io::Cursor::new(bytes))
        .with_guessed_format()
        .unwrap()
        .into_dimensions()
        .unwrap();
    (d.0, d.1)
}

#[test]
fn an_image_is_a_header_and_an_image_block_of_the_stated_size() {
    let env = TestEnv::new();
    png(&env.path("small.png"), 64, 48);
    let (v, out) = env.run_json(&["read", "small.png"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let blocks = blocks(&v);
    let header = blocks[0]["text"].as_str().unwrap();
    assert!(
        header.starts_with("small.png: image/png, 64×48, "),
        "{header}"
    );
    let image = &blocks[1]["value"];
    assert_eq!(image["type"], "image");
    assert_eq!(image["mimeType"], "image/png");
    assert_eq!(decoded_png_size(image["data"].as_str().unwrap()), (64, 48));
    let record = &blocks[2]["value"];
    assert_eq!(
        (record["width"].as_u64(), record["downscaled"].as_bool()),
        (Some(64), Some(false))
    );
    // The terminal says in words what it cannot show.
    let out = env
        .cmd()
        .env_remove("INDUS_EXACT")
        .args(["read", "small.png"])
        .output()
        .unwrap();
    let said = format!("{}{}", stdout(&out), stderr(&out));
    assert!(
        said.contains("[image/png") && said.contains("--save-media"),
        "{said}"
    );
}

#[test]
fn a_40_megapixel_image_is_downscaled_under_the_caps() {
    let env = TestEnv::new();
    png(&env.path("big.png"), 7700, 5200);
    let (v, out) = env.run_json(&["read", "big.png"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let blocks = blocks(&v);
    let sent = &blocks[2]["value"]["sent"];
    assert!(sent["width"].as_u64().unwrap() <= 1568 && sent["height"].as_u64().unwrap() <= 1568);
    assert!(sent["bytes"].as_u64().unwrap() <= 3_932_160);
    let (w, h) = decoded_png_size(blocks[1]["value"]["data"].as_str().unwrap());
    assert_eq!(
        (u64::from(w), u64::from(h)),
        (
            sent["width"].as_u64().unwrap(),
            sent["height"].as_u64().unwrap()
        )
    );
    assert!(blocks[0]["text"].as_str().unwrap().contains("7700×5200"));
    assert!(
        blocks[0]["text"]
            .as_str()
            .unwrap()
            .contains("Sent downscaled to")
    );
    // The caps are the caller's to change.
    let (v, _) = env.run_json(&["read", "big.png", "--max-image-side", "200"]);
    assert_eq!(blocks_of_sent(&v), 200);
}

fn blocks_of_sent(v: &Value) -> u64 {
    let b = blocks(v);
    b[2]["value"]["sent"]["width"]
        .as_u64()
        .unwrap()
        .max(b[2]["value"]["sent"]["height"].as_u64().unwrap())
}

#[test]
fn a_decompression_bomb_is_refused_by_its_header_in_bounded_memory() {
    let env = TestEnv::new();
    bomb(&env.path("bomb.png"));
    assert!(std::fs::metadata(env.path("bomb.png")).unwrap().len() < 64 * 1024);
    let out = Command::new("/usr/bin/time")
        .args(["-f", "MAXRSS %M"])
        .arg(assert_cmd::cargo::cargo_bin("indus-tool"))
        .args(["read", "bomb.png"])
        .current_dir(env.root())
        .env("HOME", common::no_home())
        .output();
    let Ok(out) = out else {
        return common::missing("/usr/bin/time is needed", "no /usr/bin/time");
    };
    let err = stderr(&out);
    assert_eq!(code(&out), 1, "{err}");
    assert!(
        err.contains("50000×50000") && err.contains("decompression bomb"),
        "{err}"
    );
    let rss: u64 = err
        .lines()
        .find_map(|l| l.strip_prefix("MAXRSS "))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(rss < 100_000, "the bomb cost {rss} KB");
}

#[test]
fn the_sdk_client_receives_an_image_block_and_a_valid_record() {
    let python = common::mcp_peers_dir().join("venv/bin/python");
    if !python.exists() {
        return common::missing(
            "the MCP Python SDK venv (.ci/run makes it)",
            "MCP Python SDK venv",
        );
    }
    let env = TestEnv::new();
    png(&env.path("shot.png"), 320, 200);
    let client = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/peers/py_client.py");
    let out = assert_cmd::Command::new(&python)
        .arg(client)
        .arg(assert_cmd::cargo::cargo_bin("indus-tool"))
        .arg("mcp")
        .current_dir(env.root())
        .env("HOME", common::no_home())
        .write_stdin(json!([["read", {"path": "shot.png"}]]).to_string())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    let result = &got["results"][0];
    assert_eq!(
        result.get("isError").and_then(Value::as_bool),
        Some(false),
        "{result}"
    );
    let image = result["content"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["type"] == "image")
        .unwrap();
    assert_eq!(
        decoded_png_size(image["data"].as_str().unwrap()),
        (320, 200)
    );
    assert_eq!(result["structuredContent"]["kind"], "image");
}

#[test]
fn the_typescript_sdk_client_receives_the_image_block() {
    let modules = common::mcp_peers_dir().join("node_modules/@modelcontextprotocol/sdk");
    if !modules.exists() {
        return common::missing(
            "the TypeScript MCP SDK in the MCP peers' node_modules (.ci/run installs it)",
            "TypeScript MCP SDK",
        );
    }
    let env = TestEnv::new();
    png(&env.path("shot.png"), 300, 120);
    png(&env.path("huge.png"), 6000, 2000);
    // Beside the peers' node_modules, so `import "@modelcontextprotocol/sdk"` resolves.
    let script = common::mcp_peers_dir().join(format!("ts_mcp_read-{}.mjs", std::process::id()));
    std::fs::copy(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/peers/ts_mcp_read.mjs"),
        &script,
    )
    .unwrap();
    for (file, long_side) in [("shot.png", 300), ("huge.png", 1568)] {
        let out = Command::new("node")
            .arg(&script)
            .arg(assert_cmd::cargo::cargo_bin("indus-tool"))
            .arg(env.root())
            .arg(file)
            .env("HOME", common::no_home())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let result: Value = serde_json::from_slice(&out.stdout).unwrap();
        let image = result["content"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["type"] == "image")
            .expect("an image block");
        let (w, h) = decoded_png_size(image["data"].as_str().unwrap());
        assert_eq!(w.max(h), long_side, "{file}");
        assert_eq!(result["structuredContent"]["sent"]["width"], w, "{file}");
    }
    let _ = std::fs::remove_file(script);
}

/// A PDF of a man page, made as Debian makes one: groff's PostScript through
/// ghostscript's ps2pdf.
fn man_pdf(page: &str, out: &Path) -> bool {
    let Some(src) = ["/usr/share/man/man1", "/usr/share/man/man8"]
        .iter()
        .map(|d| PathBuf::from(d).join(format!("{page}.gz")))
        .find(|p| p.exists())
    else {
        return false;
    };
    let script = format!(
        "zcat {} | groff -man -Tps 2>/dev/null | ps2pdf - {}",
        src.display(),
        out.display()
    );
    Command::new("sh")
        .args(["-c", &script])
        .status()
        .is_ok_and(|s| s.success())
}

fn normalized(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.split_whitespace().collect::<Vec<_>>().join(" "))
        .filter(|l| !l.is_empty())
        .collect()
}

/// Lines of `ours` matched, in order, by `theirs` (a longest common
/// subsequence), over the longer of the two.
fn agreement(ours: &[String], theirs: &[String]) -> (usize, usize) {
    let (n, m) = (ours.len(), theirs.len());
    let mut dp = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            dp[i][j] = if ours[i] == theirs[j] {
                dp[i + 1][j + 1] + 1
            } else {
                dp[i + 1][j].max(dp[i][j + 1])
            };
        }
    }
    (dp[0][0] as usize, n.max(m))
}

#[test]
fn pdf_pages_agree_with_pdftotext_on_held_out_man_pages() {
    if !(have("pdftotext") && have("ps2pdf") && have("groff")) {
        return common::missing(
            "pdftotext, ps2pdf and groff (poppler-utils, ghostscript, groff-base)",
            "PDF peers",
        );
    }
    let env = TestEnv::new();
    // The layout was tuned on ls, grep, tar, less, dd and df; these were only
    // measured. The first eight were measured once before the block layout
    // (0.897; tmux's key tables showed what was missing), the last eight never
    // before it was done.
    let held_out = [
        "find.1", "sed.1", "date.1", "cp.1", "tmux.1", "ssh.1", "diff.1", "patch.1", "curl.1",
        "dpkg.1", "chmod.1", "file.1", "ed.1", "bc.1", "dash.1", "column.1",
    ];
    let (mut same, mut total, mut docs) = (0, 0, 0);
    for page in held_out {
        let pdf = env.path(&format!("{page}.pdf"));
        if !man_pdf(page, &pdf) {
            continue;
        }
        docs += 1;
        let peer = Command::new("pdftotext")
            .arg(&pdf)
            .arg("-")
            .output()
            .unwrap();
        let peer_pages: Vec<&str> = std::str::from_utf8(&peer.stdout)
            .unwrap()
            .split('\u{c}')
            .collect();
        let count = peer_pages.len() - 1;
        let (v, out) = env.run_json(&[
            "--max-bytes",
            "100000000",
            "read",
            &format!("{page}.pdf"),
            "--limit",
            "10000000",
        ]);
        assert_eq!(code(&out), 0, "{}", stderr(&out));
        let record = &v["output"];
        assert_eq!(
            record["pageCount"].as_u64(),
            Some(count as u64),
            "{page}: page count"
        );
        assert_eq!(
            record["stoppedAtBudget"], false,
            "{page}: the whole text fits"
        );
        let lines: Vec<String> = record["lines"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l.as_str().unwrap().to_string())
            .collect();
        // Split our rendering at its `Page N of M` lines.
        let mut ours: Vec<Vec<String>> = Vec::new();
        for l in &lines {
            if l.starts_with("Page ") && l.ends_with(&format!(" of {count}")) {
                ours.push(Vec::new());
            } else if let Some(p) = ours.last_mut() {
                p.push(l.clone());
            }
        }
        assert_eq!(ours.len(), count, "{page}: pages rendered");
        for (mine, theirs) in ours.iter().zip(&peer_pages) {
            let (s, t) = agreement(&normalized(&mine.join("\n")), &normalized(theirs));
            same += s;
            total += t;
        }
    }
    if docs < 8 {
        return common::missing("at least 3 man pages to render", "man pages");
    }
    let ratio = same as f64 / total as f64;
    eprintln!("pdf held-out agreement: {same}/{total} lines = {ratio:.3} over {docs} documents");
    // Measured here: 0.958 on the first eight, 0.978 on the last eight.
    assert!(ratio >= 0.95, "{same}/{total} = {ratio:.3}");
}

#[test]
fn pdf_windows_pages_and_refusals() {
    if !(have("ps2pdf") && have("groff")) {
        return common::missing("ps2pdf and groff", "PDF makers");
    }
    let env = TestEnv::new();
    assert!(man_pdf("ls.1", &env.path("ls.pdf")) || man_pdf("cp.1", &env.path("ls.pdf")));
    let out = env.run(&["read", "ls.pdf", "--pages", "2"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out)
            .lines()
            .nth(1)
            .unwrap()
            .ends_with("\tPage 2 of 4")
            || stdout(&out).contains("\tPage 2 of ")
    );
    // A typo in pages is the field's, said before any worker starts.
    let out = env.run(&["read", "ls.pdf", "--pages", "3-x"]);
    assert_eq!(
        stderr(&out),
        "pages: \"3-x\" is not a page or range (give 3, 3-5, 1,4-6 or 7-).\n"
    );
    let out = env.run(&["read", "ls.pdf", "--pages", "99"]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("page 99 is past the end"),
        "{}",
        stderr(&out)
    );
    // A page with no text layer: a drawing only.
    let ps = "%!PS\nnewpath 100 100 moveto 300 300 lineto stroke showpage\n";
    env.write("drawing.ps", ps);
    assert!(
        Command::new("ps2pdf")
            .arg("drawing.ps")
            .arg("scan.pdf")
            .current_dir(env.root())
            .status()
            .unwrap()
            .success()
    );
    let out = env.run(&["read", "scan.pdf"]);
    assert!(
        stdout(&out).contains("(no text layer on page 1: a scanned page?)"),
        "{}",
        stdout(&out)
    );
    // Garbage, a truncated PDF and a page tree that loops: an error, never a hang.
    env.write("junk.pdf", "%PDF-1.4\nthis is not a PDF at all\n");
    let pdf = std::fs::read(env.path("ls.pdf")).unwrap();
    env.write("cut.pdf", &pdf[..pdf.len() / 2]);
    env.write("loop.pdf", looping_pdf());
    for name in ["junk.pdf", "cut.pdf", "loop.pdf"] {
        let started = std::time::Instant::now();
        let out = env.run(&["read", name]);
        assert!(started.elapsed().as_secs() < 40, "{name} took too long");
        let said = format!("{}{}", stdout(&out), stderr(&out));
        assert!(!said.contains("panicked at"), "{name}: {said}");
        if code(&out) != 0 {
            assert!(said.contains(name), "{name}: {said}");
        }
    }
}

/// A PDF whose page tree's Kids point back at itself.
fn looping_pdf() -> Vec<u8> {
    let objs = [
        "1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n",
        "2 0 obj << /Type /Pages /Kids [2 0 R 3 0 R] /Count 2 >> endobj\n",
        "3 0 obj << /Type /Pages /Kids [2 0 R] /Parent 2 0 R /Count 1 >> endobj\n",
    ];
    let mut out = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for o in objs {
        offsets.push(out.len());
        out.extend_from_slice(o.as_bytes());
    }
    let xref = out.len();
    out.extend_from_slice(format!("xref\n0 {}\n0000000000 65535 f \n", objs.len() + 1).as_bytes());
    for o in offsets {
        out.extend_from_slice(format!("{o:010} 00000 n \n").as_bytes());
    }
    out.extend_from_slice(
        format!(
            "trailer << /Size {} /Root 1 0 R >>\nstartxref\n{xref}\n%%EOF\n",
            objs.len() + 1
        )
        .as_bytes(),
    );
    out
}

fn nbformat_python() -> Option<PathBuf> {
    let python = common::mcp_peers_dir().join("venv/bin/python");
    let ok = Command::new(&python)
        .args(["-c", "import nbformat"])
        .output()
        .is_ok_and(|o| o.status.success());
    if ok {
        Some(python)
    } else {
        common::missing(
            "nbformat in the MCP peers' venv (.ci/run installs it)",
            "nbformat",
        );
        None
    }
}

#[test]
fn a_notebook_cell_edit_passes_nbformat_and_git_diff_shows_only_the_cell() {
    let Some(python) = nbformat_python() else {
        return;
    };
    let env = TestEnv::new();
    // A notebook written by nbformat itself, with outputs and an image.
    let make = r##"
import nbformat, sys, base64
from nbformat.v4 import new_notebook, new_code_cell, new_markdown_cell, new_output
png = base64.b64encode(open(sys.argv[2], "rb").read()).decode()
nb = new_notebook(cells=[
    new_markdown_cell("# Analysis\nSome *text* é."),
    new_code_cell("import math\ndef area(r):\n    return math.pi * r ** 2\nprint(area(2))", execution_count=1,
                  outputs=[new_output("stream", name="stdout", text="12.566370614359172\n")]),
    new_code_cell("plot()", execution_count=2,
                  outputs=[new_output("display_data", data={"image/png": png, "text/plain": "<Figure>"})]),
])
nbformat.write(nb, sys.argv[1])
"##;
    png(&env.path("fig.png"), 40, 30);
    let out = Command::new(&python)
        .args(["-c", make])
        .arg(env.path("nb.ipynb"))
        .arg(env.path("fig.png"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(env.root())
            .output()
            .unwrap()
    };
    git(&["init", "-q"]);
    git(&[
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "add",
        "nb.ipynb",
    ]);
    git(&[
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-qm",
        "nb",
    ]);
    let (v, out) = env.run_json(&["read", "nb.ipynb"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = blocks(&v)[0]["text"].as_str().unwrap().to_string();
    assert!(
        text.contains("[cell 2 code id=") && text.contains("execution_count=1]"),
        "{text}"
    );
    assert!(text.contains("12.566370614359172"));
    assert!(
        blocks(&v).iter().any(|b| b["value"]["type"] == "image"),
        "the image output is an image block"
    );
    let id = text
        .split("[cell 2 code id=")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap()
        .to_string();
    let out = env.run(&[
        "edit",
        "nb.ipynb",
        "--cell",
        &id,
        "--old-text",
        "math.pi * r ** 2",
        "--new-text",
        "math.pi * r * r",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let check = Command::new(&python)
        .args(["-c", "import nbformat, sys; nbformat.validate(nbformat.read(sys.argv[1], as_version=4)); print('valid')"])
        .arg(env.path("nb.ipynb"))
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&check.stdout).trim(),
        "valid",
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
    let diff = String::from_utf8(git(&["diff", "-U0"]).stdout).unwrap();
    let changed: Vec<&str> = diff
        .lines()
        .filter(|l| {
            (l.starts_with('+') || l.starts_with('-'))
                && !l.starts_with("+++")
                && !l.starts_with("---")
        })
        .collect();
    assert_eq!(
        changed,
        vec![
            "-    \"    return math.pi * r ** 2\\n\",",
            "+    \"    return math.pi * r * r\\n\","
        ],
        "{diff}"
    );
    // Insert and delete keep it valid too.
    let out = env.run(&[
        "edit",
        "nb.ipynb",
        "--cell",
        "0",
        "--cell-action",
        "insert",
        "--cell-type",
        "markdown",
        "--new-text",
        "Intro",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = env.run(&["edit", "nb.ipynb", "--cell", "4", "--cell-action", "delete"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let check = Command::new(&python)
        .args(["-c", "import nbformat, sys; nb = nbformat.read(sys.argv[1], as_version=4); nbformat.validate(nb); print(len(nb.cells), nb.cells[0].source)"])
        .arg(env.path("nb.ipynb"))
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&check.stdout).trim(),
        "3 Intro",
        "{}",
        String::from_utf8_lossy(&check.stderr)
    );
}

#[test]
fn a_notebook_of_100000_cells_reads_within_the_budget() {
    let env = TestEnv::new();
    let cells: Vec<Value> = (0..100_000)
        .map(|i| json!({"cell_type": "code", "execution_count": null, "id": format!("c{i}"), "metadata": {}, "outputs": [], "source": [format!("x = {i}")]}))
        .collect();
    env.write(
        "big.ipynb",
        json!({"cells": cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}).to_string(),
    );
    let out = env.run(&["read", "big.ipynb", "--limit", "4"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("A notebook of 100000 cells")
            && stdout(&out).contains("199996 lines remain"),
        "{}",
        stdout(&out)
    );
    let (v, _) = env.run_json(&["read", "big.ipynb"]);
    assert!(
        v["output"]["stoppedAtBudget"] == true
            || v["output"]["endLine"].as_u64().unwrap() < 200_000
    );
    // Malformed notebooks are named, not panicked on.
    for (name, body) in [
        ("a.ipynb", "{"),
        ("b.ipynb", "{\"nbformat\": 3, \"worksheets\": []}"),
        ("c.ipynb", "{\"nbformat\": 4}"),
        ("d.ipynb", "[1,2]"),
    ] {
        env.write(name, body);
        let out = env.run(&["read", name]);
        assert_eq!(code(&out), 1, "{name}");
        assert!(stderr(&out).starts_with(name), "{name}: {}", stderr(&out));
    }
}

/// `text` as iconv converts it to `charset`.
fn iconv(text: &str, charset: &str) -> Vec<u8> {
    use std::io::Write;
    let mut child = Command::new("iconv")
        .args(["-f", "UTF-8", "-t", charset])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(text.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "iconv to {charset}");
    out.stdout
}

#[test]
fn legacy_encodings_are_edited_in_place_byte_exact_against_iconv() {
    if !have("iconv") {
        return common::missing("iconv (libc-bin)", "iconv");
    }
    let env = TestEnv::new();
    let cases = [
        (
            "latin1",
            "ISO-8859-1",
            "Größe: 10 €\r\nnaïve café\r\n",
            "naïve café",
            "crème brûlée",
        ),
        (
            "shift_jis",
            "SHIFT_JIS",
            "日本語のテキスト\n二行目です\n",
            "二行目です",
            "三行目です",
        ),
        ("gbk", "GBK", "中文文本\n第二行\n", "第二行", "第三行"),
        (
            "utf-16le",
            "UTF-16LE",
            "\u{feff}wide text\nsecond\n",
            "second",
            "zweite",
        ),
    ];
    for (label, charset, before, old, new) in cases {
        // iconv's Latin-1 has no €: ISO-8859-1 files here hold only its characters.
        let before = if charset == "ISO-8859-1" {
            before.replace(" €", "")
        } else {
            before.to_string()
        };
        let file = format!("{label}.txt");
        env.write(&file, iconv(&before, charset));
        let out = env.run(&["read", &file, "--encoding", label]);
        assert_eq!(code(&out), 0, "{label}: {}", stderr(&out));
        assert!(stdout(&out).contains(old), "{label}: {}", stdout(&out));
        let out = env.run(&[
            "edit",
            &file,
            "--old-text",
            old,
            "--new-text",
            new,
            "--encoding",
            label,
        ]);
        assert_eq!(code(&out), 0, "{label}: {}", stderr(&out));
        assert_eq!(
            env.read(&file),
            iconv(&before.replace(old, new), charset),
            "{label}: byte-exact"
        );
    }
    // Without the flag the file is refused, naming the likely encoding.
    let out = env.run(&[
        "edit",
        "shift_jis.txt",
        "--old-text",
        "x",
        "--new-text",
        "y",
    ]);
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains("--encoding"), "{}", stderr(&out));
    // A character the encoding lacks is refused by name, and nothing changes.
    let kept = env.read("gbk.txt");
    let out = env.run(&[
        "edit",
        "gbk.txt",
        "--old-text",
        "第三行",
        "--new-text",
        "ü☃",
        "--encoding",
        "gbk",
    ]);
    assert_eq!(code(&out), 1);
    assert!(stderr(&out).contains("U+2603"), "{}", stderr(&out));
    assert_eq!(env.read("gbk.txt"), kept);
    // write keeps the file's encoding with auto (UTF-16's BOM included).
    let out = env.run(&[
        "write",
        "utf-16le.txt",
        "--content",
        "neu\n",
        "--encoding",
        "auto",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(env.read("utf-16le.txt"), iconv("\u{feff}neu\n", "UTF-16LE"));
}

#[test]
fn a_legacy_edit_under_a_checkpoint_rewinds_byte_exact() {
    let env = TestEnv::new();
    let before = iconv_or_skip("日本語\r\n二行目\r\n", "SHIFT_JIS");
    let Some(before) = before else { return };
    env.write("sj.txt", &before);
    assert_eq!(
        code(&env.run(&["read", "sj.txt", "--encoding", "shift_jis"])),
        0
    );
    let (v, out) = env.run_json(&[
        "--checkpoint",
        "edit",
        "sj.txt",
        "--old-text",
        "二行目",
        "--new-text",
        "三行目",
        "--encoding",
        "shift_jis",
    ]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_ne!(env.read("sj.txt"), before);
    let _ = v;
    let list = env
        .cmd()
        .args(["--format", "json", "checkpoint", "list"])
        .output()
        .unwrap();
    let list: Value = serde_json::from_slice(&list.stdout).unwrap();
    let node = list
        .as_array()
        .and_then(|a| a.last())
        .and_then(|n| n["node"].as_str())
        .unwrap_or_else(|| panic!("no node in {list}"))
        .to_string();
    let out = env.run(&["checkpoint", "rewind", &node]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        env.read("sj.txt"),
        before,
        "the Shift_JIS bytes are back exactly"
    );
}

fn iconv_or_skip(text: &str, charset: &str) -> Option<Vec<u8>> {
    if !have("iconv") {
        common::missing("iconv (libc-bin)", "iconv");
        return None;
    }
    Some(iconv(text, charset))
}

#[test]
fn tail_reads_the_end_with_real_line_numbers_and_ignores_planted_marks() {
    let env = TestEnv::new();
    // Past the size counted whole (64 MiB), so a line mark is kept.
    let line = "x".repeat(99);
    let mut body = String::with_capacity(80 << 20);
    let n = 800_000u64;
    for i in 1..=n {
        body.push_str(&format!("{i:07} {line}\n"));
    }
    env.write("big.log", &body);
    drop(body);
    let out = env.run(&["read", "big.log", "--tail", "2"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        format!(
            "Showing lines 799999–800000 of 800000 in big.log.\n799999\t0799999 {line}\n800000\t0800000 {line}\n"
        )
    );
    // The log grows; the next tail counts from the mark and is still right.
    use std::io::Write;
    let mut f = std::fs::OpenOptions::new()
        .append(true)
        .open(env.path("big.log"))
        .unwrap();
    writeln!(f, "tail one").unwrap();
    let out = env.run(&["read", "big.log", "--tail", "1"]);
    assert!(
        stdout(&out).ends_with("800001\ttail one\n"),
        "{}",
        stdout(&out)
    );
    // A mark planted by a checkout (not sealed by this user) is not believed.
    let marks = env.path(".indus-process/line-marks.json");
    let kept = std::fs::read_to_string(&marks).expect("a line mark is kept");
    assert!(kept.contains("\"lines\": 800000"), "{kept}");
    std::fs::write(&marks, kept.replace("\"lines\": 800000", "\"lines\": 5")).unwrap();
    let out = env.run(&["read", "big.log", "--tail", "1"]);
    assert!(
        stdout(&out).ends_with("800001\ttail one\n"),
        "{}",
        stdout(&out)
    );
    // On an agent's face a tail is not cut by the 500-line window: it ends at
    // the end, with as many lines as the budget holds.
    let out = env.run(&["--exact", "read", "big.log", "--tail", "800"]);
    let text = stdout(&out);
    assert!(
        text.ends_with("800001\ttail one\n"),
        "{}",
        &text[..200.min(text.len())]
    );
    assert!(
        text.lines()
            .next()
            .unwrap()
            .contains("of the 800 lines asked fit the output budget"),
        "{}",
        text.lines().next().unwrap()
    );
    // A negative offset is a tail cut by limit.
    assert_eq!(
        stdout(&env.run(&["read", "big.log", "--offset", "-3", "--limit", "1"])),
        format!(
            "Showing lines 799999–799999 of 800001 in big.log. 2 lines remain; continue with offset=800000.\n799999\t0799999 {line}\n"
        )
    );
    assert!(stderr(&env.run(&["read", "big.log", "--offset", "0"])).contains("-1 the last"));
    // tail and offset together are refused; a small file's tail is plain.
    env.write("s.txt", "a\nb\nc");
    assert_eq!(
        stdout(&env.run(&["read", "s.txt", "--tail", "2"])),
        "Showing lines 2–3 of 3 in s.txt.\n     2\tb\n     3\tc\n"
    );
    assert_eq!(
        code(&env.run(&["read", "s.txt", "--tail", "2", "--offset", "1"])),
        1
    );
}

#[test]
fn binary_files_are_refused_by_their_magic_number() {
    let env = TestEnv::new();
    env.write(
        "data.txt",
        b"SQLite format 3\0\x10\0\x01\x01\0@  \0\0\0\x01".as_slice(),
    );
    let out = env.run(&["read", "data.txt"]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("is a SQLite database"),
        "{}",
        stderr(&out)
    );
    env.write("a.gz", b"\x1f\x8b\x08\0\0\0\0\0\0\x03".as_slice());
    assert!(stderr(&env.run(&["read", "a.gz"])).contains("gzip-compressed data"));
    // edit names what it is instead of guessing an encoding.
    env.write("real.png", b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\xff".as_slice());
    env.run(&["read", "real.png"]);
    let out = env.run(&["edit", "real.png", "--old-text", "IHDR", "--new-text", "x"]);
    assert!(
        stderr(&out).contains("real.png is an image (image/png); edit changes text files only"),
        "{}",
        stderr(&out)
    );
    // No encoding makes a database text: read and edit refuse it with one too.
    let refusals: [&[&str]; 3] = [
        &["read", "data.txt", "--encoding", "latin1"],
        &[
            "edit",
            "data.txt",
            "--old-text",
            "format",
            "--new-text",
            "x",
            "--encoding",
            "latin1",
        ],
        &[
            "edit",
            "data.txt",
            "--old-text",
            "format",
            "--new-text",
            "x",
        ],
    ];
    for args in refusals {
        let out = env.run(args);
        assert!(
            stderr(&out).contains("is a SQLite database"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
    assert!(env.read("data.txt").starts_with(b"SQLite format 3\0"));
    // A text file named .png is text.
    env.write("fake.png", "just text\n");
    assert_eq!(code(&env.run(&["read", "fake.png"])), 0);
}

/// Malformed images, notebooks and PDFs made by flipping and cutting bytes of
/// valid ones (the seeds of fuzz/): a clear error or an answer, never a panic
/// or a hang.
#[test]
fn mutated_media_never_panics() {
    let env = TestEnv::new();
    png(&env.path("seed.png"), 30, 20);
    let seeds: Vec<(&str, Vec<u8>)> = vec![
        ("png", std::fs::read(env.path("seed.png")).unwrap()),
        ("ipynb", br#"{"cells": [{"cell_type": "code", "source": ["x"], "outputs": [{"output_type": "stream", "name": "stdout", "text": "y"}], "metadata": {}}], "metadata": {}, "nbformat": 4, "nbformat_minor": 4}"#.to_vec()),
        ("pdf", looping_pdf()),
    ];
    let mut state = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for (ext, seed) in &seeds {
        for i in 0..12 {
            let mut bytes = seed.clone();
            for _ in 0..(1 + next() % 6) {
                let at = (next() as usize) % bytes.len();
                match next() % 3 {
                    0 => bytes[at] = next() as u8,
                    1 => bytes.truncate(at.max(8)),
                    _ => bytes.insert(at, next() as u8),
                }
            }
            let name = format!("m{i}.{ext}");
            env.write(&name, &bytes);
            let out = env.run(&["read", &name]);
            let said = format!("{}{}", stdout(&out), stderr(&out));
            assert!(!said.contains("panicked"), "{name}: {said}");
            assert!(
                code(&out) == 0 || code(&out) == 1,
                "{name}: exit {}",
                code(&out)
            );
        }
    }
}
