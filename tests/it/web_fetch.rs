//! `webfetch` through the real binary against a server on 127.0.0.1 that serves
//! hand-written pages and misbehaves on purpose.

use crate::common;

use std::io::Write;
use std::time::{Duration, Instant};

use common::http::{Reply, TestServer};
use common::{TestEnv, code, stderr, stdout};

const ARTICLE: &str = include_str!("../fixtures/web/article.html");
const LINKS: &str = include_str!("../fixtures/web/links.html");
const DDG_PAGE: &str = include_str!("../fixtures/web/ddg-results-page.html");

/// A UTF-8 page that still declares the GB2312 it was once saved in.
const CHINESE: &str = "<html><head><meta charset=\"gb2312\"><title>中文</title></head><body><h1>中文页面</h1><p>这是一个用于测试的中文段落，内容足够长，可以确认编码没有被弄错。</p></body></html>";

/// An article whose markup outweighs its text about seven to one, as on real
/// pages: `paragraphs` paragraphs of `heavy_text(i)` in wrappers, scripts and
/// attributes.
fn heavy_page(paragraphs: usize) -> String {
    let mut page = String::from(
        "<!DOCTYPE html><html><head><meta charset=\"utf-8\"><title>A long article</title></head><body><main><article><h1>A long article</h1>",
    );
    page.push_str("<p>Sources are on <a href=\"/sources\">the sources page</a>.</p>");
    for i in 0..paragraphs {
        page.push_str(&format!(
            "<div class=\"block block--paragraph js-track-visibility\" data-analytics-id=\"para-{i:04}-0123456789abcdef0123456789abcdef\" data-layout=\"column-wide\"><div class=\"block__inner\"><p class=\"body-text body-text--serif\"><span class=\"tracked\" data-offset=\"{i}\">{}</span></p></div><script type=\"application/json\">{{\"id\":{i},\"impressions\":[0,0,0,0,0,0,0,0],\"pad\":\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"}}</script></div>\n",
            heavy_text(i)
        ));
    }
    page.push_str("</article></main></body></html>");
    page
}

fn heavy_text(i: usize) -> String {
    format!("Paragraph {i:03}: café crème, déjà vu — text that matters.")
}

fn server() -> TestServer {
    TestServer::start(|req| match req.path() {
        "/article" => Reply::ok("text/html; charset=utf-8", ARTICLE),
        "/sjis" => {
            let page = "<html><head><title>日本語</title></head><body><h1>日本語のページ</h1><p>これはシフトJISで書かれた文章です。テストのために十分な長さの段落を用意しています。文字化けしないことを確認します。</p></body></html>";
            let (bytes, _, _) = encoding_rs::SHIFT_JIS.encode(page);
            Reply::ok("text/html; charset=Shift_JIS", bytes.into_owned())
        }
        "/latin1-meta" => {
            let (bytes, _, _) = encoding_rs::WINDOWS_1252
                .encode("<html><head><meta charset=\"iso-8859-1\"></head><body><p>Café crème à la française, naïve façade.</p></body></html>");
            Reply::ok("text/html", bytes.into_owned())
        }
        "/gb2312-utf8" => Reply::ok("text/html", CHINESE),
        "/gb2312-header-utf8" => Reply::ok("text/html; charset=gb2312", CHINESE),
        "/gbk" => {
            let (bytes, _, _) = encoding_rs::GBK.encode(CHINESE);
            Reply::ok("text/html", bytes.into_owned())
        }
        "/links" => Reply::ok("text/html; charset=utf-8", LINKS),
        "/ddg-page" => Reply::ok("text/html; charset=utf-8", DDG_PAGE),
        "/heavy" => Reply::ok("text/html; charset=utf-8", heavy_page(300)),
        "/plain" => Reply::ok(
            "text/plain; charset=utf-8",
            "line one\nline two <b>not html</b>\n",
        ),
        "/json" => Reply::ok("application/json", "{\"a\": 1}"),
        "/html-as-plain" => Reply::ok(
            "text/plain",
            "<!DOCTYPE html><html><body><p>Really <a href=\"/x\">HTML</a>.</p></body></html>",
        ),
        "/png" => Reply::ok("image/png", b"\x89PNG\r\n\x1a\n0000".to_vec()),
        "/png-as-html" => Reply::ok("text/html", b"\x89PNG\r\n\x1a\n0000".to_vec()),
        "/empty" => Reply::ok("text/html", ""),
        "/hang" => Reply::Hang,
        "/endless" => Reply::Endless {
            content_type: "text/plain".into(),
        },
        "/loop" => Reply::redirect(302, "/loop"),
        "/hop1" => Reply::redirect(301, "/hop2"),
        "/hop2" => Reply::redirect(302, "/article"),
        "/gone" => Reply::status(404, "text/html", "<h1>Not here</h1>"),
        "/boom" => Reply::status(500, "text/plain", "stack trace"),
        "/gzip" => {
            let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
            enc.write_all(ARTICLE.as_bytes()).unwrap();
            Reply::ok("text/html; charset=utf-8", enc.finish().unwrap())
                .with_header("Content-Encoding", "gzip")
        }
        "/bad-gzip" => Reply::ok("text/html", b"\x1f\x8b\x08\x00garbage-not-gzip".to_vec())
            .with_header("Content-Encoding", "gzip"),
        _ => Reply::status(404, "text/plain", "no route"),
    })
}

/// The opt-in that lets webfetch reach the test server on 127.0.0.1.
const ALLOW: &str = "INDUS_ALLOW_PRIVATE_NETWORK";

/// `webfetch ARGS` with the private network allowed (the test server is on it).
fn fetch(env: &TestEnv, args: &[&str]) -> std::process::Output {
    env.cmd()
        .env(ALLOW, "1")
        .arg("webfetch")
        .args(args)
        .output()
        .expect("run indus-tool")
}

/// `--format json ARGS` with the private network allowed, and the outcome.
fn fetch_json(env: &TestEnv, args: &[&str]) -> (serde_json::Value, std::process::Output) {
    let out = env
        .cmd()
        .env(ALLOW, "1")
        .args(["--format", "json"])
        .args(args)
        .output()
        .expect("run indus-tool");
    (common::parse_outcome(&out), out)
}

#[test]
fn an_article_becomes_readable_text_without_chrome() {
    let (env, srv) = (TestEnv::new(), server());
    let url = srv.url("/article");
    let out = fetch(&env, &[&url]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    let expected_head = format!(
        "URL: {url}\nStatus: 200 OK\nContent-Type: text/html; charset=utf-8\n\n# Testing Rust tools & friends\n\n"
    );
    assert!(text.starts_with(&expected_head), "{text}");
    for kept in [
        "## Why integration tests\n",
        "### Fixtures\n",
        "- Exit status: 0, 1 and 2 mean different things.\n- Every error message, byte for byte.\n",
        "See the first part of the series [1] for the setup.",
        "Read more in the proptest book [2].",
        "let out = env.run(&[\"grep\", \"fn main\"]);\nassert_eq!(code(&out), 0);\n",
        &format!(
            "serves the pages.\n\n[1]: {}\n[2]: https://proptest-rs.github.io/proptest/\n",
            srv.url("/posts/first-steps")
        ),
    ] {
        assert!(text.contains(kept), "missing {kept:?} in\n{text}");
    }
    for dropped in [
        "window.tracking",
        "font-family",
        "Archive",
        "Popular posts",
        "All rights reserved",
        "console.log",
    ] {
        assert!(!text.contains(dropped), "{dropped:?} leaked into\n{text}");
    }
}

#[test]
fn markdown_keeps_structure_and_makes_links_absolute() {
    let (env, srv) = (TestEnv::new(), server());
    let out = fetch(&env, &["--format", "markdown", &srv.url("/article")]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let md = stdout(&out);
    assert!(md.contains("\n# Testing Rust tools & friends\n\n"), "{md}");
    assert!(md.contains("See the [first part of the series][1] for the setup."));
    assert!(md.contains("Read more in the [proptest book][2]."));
    assert!(
        md.ends_with(&format!(
            "serves the pages.\n\n[1]: {}\n[2]: https://proptest-rs.github.io/proptest/\n",
            srv.url("/posts/first-steps")
        )),
        "{md}"
    );
    assert!(md.contains("## What we check"));
    assert!(md.contains("- Every error message, **byte for byte**."));
    assert!(md.contains("```\nlet out = env.run(&[\"grep\", \"fn main\"]);"));
    assert!(!md.contains("Popular posts") && !md.contains("window.tracking"));
}

#[test]
fn html_format_is_the_raw_page() {
    let (env, srv) = (TestEnv::new(), server());
    let url = srv.url("/article");
    let out = fetch(&env, &["--format", "html", &url]);
    assert_eq!(
        stdout(&out),
        format!(
            "URL: {url}\nStatus: 200 OK\nContent-Type: text/html; charset=utf-8\n\n{}\n",
            ARTICLE.trim_end()
        )
    );
}

#[test]
fn charsets_come_out_as_utf8() {
    let (env, srv) = (TestEnv::new(), server());
    let out = fetch(&env, &[&srv.url("/sjis")]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains("日本語のページ"), "{text}");
    assert!(
        text.contains("これはシフトJISで書かれた文章です。"),
        "{text}"
    );
    let out = fetch(&env, &["--format", "html", &srv.url("/latin1-meta")]);
    assert!(stdout(&out).contains("Café crème à la française, naïve façade."));
}

#[test]
fn text_types_pass_through_and_sniffing_wins_over_labels() {
    let (env, srv) = (TestEnv::new(), server());
    let url = srv.url("/plain");
    let out = fetch(&env, &["--format", "markdown", &url]);
    assert_eq!(
        stdout(&out),
        format!(
            "URL: {url}\nStatus: 200 OK\nContent-Type: text/plain; charset=utf-8\n\nline one\nline two <b>not html</b>\n"
        )
    );
    assert!(stdout(&fetch(&env, &[&srv.url("/json")])).ends_with("\n\n{\"a\": 1}\n"));

    let out = fetch(&env, &[&srv.url("/html-as-plain")]);
    let text = stdout(&out);
    assert!(
        text.contains("Note: the body is HTML although it was not served as HTML; read as HTML.\n"),
        "{text}"
    );
    assert!(
        text.ends_with(&format!("Really HTML [1].\n\n[1]: {}\n", srv.url("/x"))),
        "{text}"
    );

    let url = srv.url("/png");
    let out = fetch(&env, &[&url]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stderr(&out),
        format!(
            "{url} is image/png (12 bytes), not text; webfetch returns only text, Markdown or HTML.\n"
        )
    );
    let url = srv.url("/png-as-html");
    let out = fetch(&env, &[&url]);
    assert_eq!(
        stderr(&out),
        format!(
            "{url} is a PNG image (served as text/html, 12 bytes), not text; webfetch returns only text, Markdown or HTML.\n"
        )
    );
}

#[test]
fn a_server_that_never_answers_times_out_on_time() {
    let (env, srv) = (TestEnv::new(), server());
    let url = srv.url("/hang");
    let start = Instant::now();
    let out = fetch(&env, &["--timeout-ms", "1000", &url]);
    let took = start.elapsed();
    assert!(took < Duration::from_secs(2), "took {took:?}");
    assert_eq!(code(&out), 1);
    assert_eq!(
        stderr(&out),
        format!("{url} did not respond within 1000 ms; try again later or raise timeoutMs.\n")
    );
}

#[test]
fn an_endless_body_stops_at_the_download_limit() {
    let (env, srv) = (TestEnv::new(), server());
    let start = Instant::now();
    let out = fetch(&env, &["--max-bytes", "100000", &srv.url("/endless")]);
    assert!(start.elapsed() < Duration::from_secs(5));
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains(
        "Note: the body was cut at 800000 bytes (the download limit: 8 × maxBytes, at most 32 MiB); the rest was not downloaded.\n\
         Note: the content was cut to fit 100000 bytes (maxBytes); the rest was not shown.\n\nendless body line\n"
    ));
    let body = text.split_once("\n\n").unwrap().1;
    // Within the default 64 KiB output budget: the clamp notice says what went.
    assert!(body.contains("[webfetch: "), "{}", &body[..200]);
}

#[test]
fn redirects_are_followed_and_loops_refused() {
    let (env, srv) = (TestEnv::new(), server());
    let out = fetch(&env, &[&srv.url("/hop1")]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).starts_with(&format!(
        "URL: {}\nRedirected from: {}\nStatus: 200 OK\n",
        srv.url("/article"),
        srv.url("/hop1")
    )));
    let url = srv.url("/loop");
    let out = fetch(&env, &[&url]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stderr(&out),
        format!("{url} redirected more than 5 times (a redirect loop?); nothing was fetched.\n")
    );
}

#[test]
fn error_statuses_empty_bodies_and_dead_ports_are_errors() {
    let (env, srv) = (TestEnv::new(), server());
    let url = srv.url("/gone");
    let out = fetch(&env, &[&url]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stderr(&out),
        format!("{url} answered HTTP 404 Not Found; nothing was fetched.\n")
    );
    let url = srv.url("/boom");
    let out = fetch(&env, &[&url]);
    assert_eq!(
        stderr(&out),
        format!("{url} answered HTTP 500 Internal Server Error; nothing was fetched.\n")
    );
    let url = srv.url("/empty");
    let out = fetch(&env, &[&url]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stderr(&out),
        format!("{url} answered HTTP 200 OK with an empty body; there is nothing to read.\n")
    );

    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let url = format!("http://127.0.0.1:{port}/");
    let out = fetch(&env, &[&url]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).starts_with(&format!("Cannot connect to {url}: ")),
        "{}",
        stderr(&out)
    );
}

#[test]
fn gzip_bodies_are_decoded_and_corrupt_ones_reported() {
    let (env, srv) = (TestEnv::new(), server());
    let out = fetch(&env, &[&srv.url("/gzip")]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert!(stdout(&out).contains("## Why integration tests"));
    let requests = srv.requests();
    let gz = requests.iter().find(|r| r.path() == "/gzip").unwrap();
    assert!(gz.header("accept-encoding").unwrap_or("").contains("gzip"));
    assert!(
        gz.header("user-agent")
            .unwrap_or("")
            .starts_with("Mozilla/5.0")
    );

    let url = srv.url("/bad-gzip");
    let out = fetch(&env, &[&url]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).starts_with(&format!("The response from {url} could not be read: ")),
        "{}",
        stderr(&out)
    );
}

#[test]
fn bad_input_names_the_field() {
    let env = TestEnv::new();
    let cases: &[(&str, &str)] = &[
        ("{}", "Missing \"url\": expected a non-empty string."),
        (
            r#"{"url":"example.com"}"#,
            "Invalid \"url\": expected an absolute http:// or https:// URL, got the string \"example.com\".",
        ),
        (
            r#"{"url":"ftp://example.com/x"}"#,
            "Invalid \"url\": expected an absolute http:// or https:// URL, got the string \"ftp://example.com/x\".",
        ),
        (
            r#"{"url":"http://127.0.0.1:1/","format":"pdf"}"#,
            "Invalid \"format\": expected one of \"text\", \"markdown\", \"html\", got the string \"pdf\".",
        ),
        (
            r#"{"url":"http://127.0.0.1:1/","maxBytes":0}"#,
            "Invalid \"maxBytes\": expected a positive integer, got the number 0.",
        ),
        (
            r#"{"url":"http://127.0.0.1:1/","timeoutMs":-1}"#,
            "Invalid \"timeoutMs\": expected a positive integer, got the number -1.",
        ),
    ];
    for (input, message) in cases {
        let out = env.run(&["webfetch", "--json", input]);
        assert_eq!(code(&out), 1, "{input}");
        assert_eq!(stderr(&out), format!("{message}\n"), "{input}");
    }
}

/// The header lines and the content of a successful answer.
fn split(out: &std::process::Output) -> (String, String) {
    assert_eq!(code(out), 0, "{}", stderr(out));
    let text = stdout(out);
    let (head, content) = text.split_once("\n\n").expect("header lines, then content");
    (head.to_string(), content.to_string())
}

#[test]
fn utf8_bytes_outrank_a_legacy_label_and_real_gbk_still_decodes() {
    let (env, srv) = (TestEnv::new(), server());
    let expected =
        "# 中文页面\n\n这是一个用于测试的中文段落，内容足够长，可以确认编码没有被弄错。\n";
    for (path, served) in [
        ("/gb2312-utf8", "text/html"),
        ("/gb2312-header-utf8", "text/html; charset=gb2312"),
        ("/gbk", "text/html"),
    ] {
        let url = srv.url(path);
        let out = fetch(&env, &[&url]);
        assert_eq!(
            stdout(&out),
            format!("URL: {url}\nStatus: 200 OK\nContent-Type: {served}\n\n{expected}"),
            "{path}"
        );
    }
    // The raw page too: the bytes decide, the label stays as written.
    let out = fetch(&env, &["--format", "html", &srv.url("/gb2312-utf8")]);
    assert!(stdout(&out).ends_with(&format!("\n\n{CHINESE}\n")));
}

#[test]
fn links_become_numbered_references_and_the_headline_stays_on_top() {
    let (env, srv) = (TestEnv::new(), server());
    let tracker = "https://tracker.example.com/projects/tools/issues?milestone=2.0&status=closed&sort=updated_at&utm_source=release-notes&utm_medium=web";
    let (_, text) = split(&fetch(&env, &[&srv.url("/links")]));
    assert_eq!(
        text,
        format!(
            "# Release notes for version 2.0\n\n\
             Version 2.0 is out. Read the closed issues [1] for the details, or jump to upgrading. Everything is on https://example.com/.\n\n\
             Upgrading takes three steps, and each of them is short enough to do in one sitting:\n\n\
             1. Back up the configuration directory before anything else.\n\n\
             2. Install the new release from the download page [2].\n\n\
             3. Run the migration; it reports every file it changes.\n\n\
             [The new dashboard, with the timeline on the left]\n\n\
             Thanks to everyone who reported a bug on the issue tracker [1]; the full list [1] runs to forty items.\n\n\
             [1]: {tracker}\n\
             [2]: {}\n",
            srv.url("/download")
        )
    );
    let (_, md) = split(&fetch(&env, &["--format", "markdown", &srv.url("/links")]));
    assert_eq!(
        md,
        format!(
            "# Release notes for version 2.0\n\n\
             Version 2.0 is out. Read the [closed issues][1] for the details, or jump to upgrading. Everything is on <https://example.com/>.\n\n\
             Upgrading takes three steps, and each of them is short enough to do in one sitting:\n\n\
             1. Back up the configuration directory before anything else.\n\n\
             2. Install the new release from the [download page][2].\n\n\
             3. Run the migration; it reports every file it changes.\n\n\
             ![The new dashboard, with the timeline on the left][3]\n\n\
             Thanks to everyone who reported a bug on the [issue tracker][1]; the [full list][1] runs to forty items.\n\n\
             [1]: {tracker}\n\
             [2]: {}\n\
             [3]: {}\n",
            srv.url("/download"),
            srv.url("/img/dashboard.png")
        )
    );
}

#[test]
fn a_results_page_pays_for_each_long_url_once() {
    // Every result links its title, its icon, its address and its snippet to the
    // same long redirect URL.
    let (env, srv) = (TestEnv::new(), server());
    for format in ["markdown", "text"] {
        let (_, content) = split(&fetch(&env, &["--format", format, &srv.url("/ddg-page")]));
        assert_eq!(
            content.matches("duckduckgo.com/l/?uddg=").count(),
            4,
            "{content}"
        );
        assert!(
            !content.contains("&amp;") && !content.contains(".ico"),
            "{content}"
        );
        assert!(
            content.ends_with(
                "[4]: http://duckduckgo.com/l/?uddg=https%3A%2F%2Ffootokyo.jp%2F&rut=27e77e4c19d1d3962bb7a05bc5d164caa319675a386138ddbd553a261f548f90\n\
                 [5]: http://duckduckgo.com/feedback.html\n"
            ),
            "{content}"
        );
    }
    let (_, md) = split(&fetch(
        &env,
        &["--format", "markdown", &srv.url("/ddg-page")],
    ));
    assert!(
        md.starts_with(
            "# foo at DuckDuckGo\n\n## [Foo Fighters - Wikipedia][1]\n\n[en.wikipedia.org/wiki/Foo\\_Fighters ][1]\n\n[Foo Fighters are a rock band"
        ),
        "{md}"
    );
}

#[test]
fn max_bytes_bounds_the_content_not_the_download() {
    let (env, srv) = (TestEnv::new(), server());
    let url = srv.url("/heavy");
    let sources = format!("[1]: {}\n", srv.url("/sources"));
    // 300 paragraphs: some 140 kB of page, 19 kB of text. All of it fits in 20000
    // bytes of content, though the page is seven times that.
    let (head, full) = split(&fetch(&env, &["--max-bytes", "20000", &url]));
    assert_eq!(
        head,
        format!("URL: {url}\nStatus: 200 OK\nContent-Type: text/html; charset=utf-8")
    );
    assert!(full.starts_with(&format!(
        "# A long article\n\nSources are on the sources page [1].\n\n{}\n\n",
        heavy_text(0)
    )));
    assert!(
        full.ends_with(&format!("{}\n\n{sources}", heavy_text(299))),
        "{full}"
    );
    assert!(full.len() <= 20000, "{}", full.len());

    // 5000 bytes of content: the download stops at 8 × 5000, the content is cut
    // to fit, and keeps the reference its text uses.
    let (head, cut) = split(&fetch(&env, &["--max-bytes", "5000", &url]));
    assert_eq!(
        head,
        format!(
            "URL: {url}\nStatus: 200 OK\nContent-Type: text/html; charset=utf-8\n\
             Note: the body was cut at 40000 bytes (the download limit: 8 × maxBytes, at most 32 MiB); the rest was not downloaded.\n\
             Note: the content was cut to fit 5000 bytes (maxBytes); the rest was not shown."
        )
    );
    let kept = cut
        .strip_suffix(&format!("\n\n{sources}"))
        .unwrap_or_else(|| panic!("no reference at the end of\n{cut}"));
    assert!(cut.len() <= 5000 + 1, "{}", cut.len());
    assert!(kept.len() > 4800, "{}", kept.len());
    assert!(full.starts_with(kept), "{kept}");

    // The markup does not count: markdown and html cut the same way.
    let (_, md) = split(&fetch(
        &env,
        &["--format", "markdown", "--max-bytes", "20000", &url],
    ));
    assert!(md.contains(&heavy_text(299)) && md.len() <= 20000 + 1);
    let (head, html) = split(&fetch(
        &env,
        &["--format", "html", "--max-bytes", "20000", &url],
    ));
    assert!(head.ends_with(
        "Note: the content was cut to fit 20000 bytes (maxBytes); the rest was not shown."
    ));
    assert!(html.len() <= 20000 + 1 && heavy_page(300).starts_with(html.trim_end()));
}

#[test]
fn programs_get_the_fetch_as_a_record() {
    let (env, srv) = (TestEnv::new(), server());
    let (v, out) = fetch_json(&env, &["webfetch", &srv.url("/hop1")]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let rec = &v["output"];
    let keys: Vec<&String> = rec.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "url",
            "finalUrl",
            "status",
            "contentType",
            "title",
            "format",
            "content",
            "contentCut",
            "downloadCut"
        ]
    );
    assert_eq!(rec["url"], serde_json::json!(srv.url("/hop1")));
    assert_eq!(rec["finalUrl"], serde_json::json!(srv.url("/article")));
    assert_eq!(rec["status"], 200);
    assert_eq!(rec["contentType"], "text/html; charset=utf-8");
    assert_eq!(rec["title"], "Testing Rust tools & friends");
    assert_eq!(rec["format"], "text");
    assert!(
        rec["content"]
            .as_str()
            .unwrap()
            .starts_with("# Testing Rust tools & friends\n\n"),
        "{rec}"
    );
    assert_eq!(rec["contentCut"], false);
    assert_eq!(rec["downloadCut"], false);
    // Within a small budget the content is cut with the tool's notice.
    let (v, _) = fetch_json(
        &env,
        &["--max-bytes", "600", "webfetch", &srv.url("/article")],
    );
    assert!(v["output"].to_string().len() <= 700, "{}", v["output"]);
    assert!(
        v["output"]["content"]
            .as_str()
            .unwrap()
            .contains("[webfetch: ")
    );
}

/// HTTPS end to end against a real TLS server (`openssl s_server`) with a
/// certificate from a throwaway CA: trusted through `SSL_CERT_FILE` the page
/// comes back; not trusted, the call fails naming the certificate — so the TLS
/// provider the binary installs (ring) really handshakes, and verifies.
#[test]
fn https_pages_are_fetched_and_untrusted_certificates_refused() {
    use std::process::{Command, Stdio};
    if Command::new("openssl").arg("version").output().is_err() {
        assert!(
            std::env::var_os("CI").is_none(),
            "openssl is not installed (CI installs it)"
        );
        common::skipped("https: openssl is not installed");
        return;
    }
    let env = TestEnv::new();
    let dir = env.root();
    let openssl = |args: &[&str]| {
        let out = Command::new("openssl")
            .current_dir(dir)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "openssl {args:?}: {}", stderr(&out));
    };
    openssl(&[
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "2",
        "-subj",
        "/CN=indus test CA",
    ]);
    openssl(&[
        "req",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "leaf.key",
        "-out",
        "leaf.csr",
        "-subj",
        "/CN=127.0.0.1",
    ]);
    env.write(
        "ext",
        "subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n",
    );
    openssl(&[
        "x509",
        "-req",
        "-in",
        "leaf.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "leaf.pem",
        "-days",
        "2",
        "-extfile",
        "ext",
    ]);
    env.write("page.html", "<html><body><p>over TLS</p></body></html>");
    let port = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let mut server = Command::new("openssl")
        .current_dir(dir)
        .args([
            "s_server",
            "-accept",
            &port.to_string(),
            "-cert",
            "leaf.pem",
        ])
        .args(["-key", "leaf.key", "-WWW", "-quiet"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let up = common::wait_until(Duration::from_secs(10), || {
        std::net::TcpStream::connect(("127.0.0.1", port)).is_ok()
    });
    let url = format!("https://127.0.0.1:{port}/page.html");
    let trusted = env
        .cmd()
        .env("SSL_CERT_FILE", dir.join("ca.pem"))
        .env(ALLOW, "1")
        .args(["webfetch", &url])
        .output()
        .unwrap();
    let untrusted = env
        .cmd()
        .env_remove("SSL_CERT_FILE")
        .env(ALLOW, "1")
        .args(["webfetch", &url])
        .output()
        .unwrap();
    let _ = server.kill();
    let _ = server.wait();
    assert!(up, "openssl s_server did not start");
    assert_eq!(code(&trusted), 0, "{}", stderr(&trusted));
    assert!(
        stdout(&trusted).contains("over TLS"),
        "{}",
        stdout(&trusted)
    );
    assert_eq!(code(&untrusted), 1);
    assert!(
        stderr(&untrusted).contains("certificate") || stdout(&untrusted).contains("certificate"),
        "{}{}",
        stdout(&untrusted),
        stderr(&untrusted)
    );
}

/// A listener that answers nothing and counts the connections made to it: the
/// proof that a refused fetch never reached the address.
struct Sentinel {
    port: u16,
    contacted: std::sync::Arc<std::sync::atomic::AtomicUsize>,
}

impl Sentinel {
    fn on(ip: &str) -> Sentinel {
        let listener = std::net::TcpListener::bind((ip, 0)).unwrap();
        let port = listener.local_addr().unwrap().port();
        let contacted = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let seen = contacted.clone();
        std::thread::spawn(move || {
            // Held open: an accepted connection is answered by nothing.
            let mut held = Vec::new();
            for stream in listener.incoming() {
                seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                held.push(stream);
            }
        });
        Sentinel { port, contacted }
    }

    fn contacts(&self) -> usize {
        self.contacted.load(std::sync::atomic::Ordering::SeqCst)
    }
}

/// `webfetch ARGS` with no opt-in, whatever the environment running the tests
/// says.
fn fetch_closed(env: &TestEnv, args: &[&str]) -> std::process::Output {
    env.cmd()
        .env_remove(ALLOW)
        .args(["webfetch", "--timeout-ms", "3000"])
        .args(args)
        .output()
        .expect("run indus-tool")
}

const HOW: &str =
    "Pass --allow-private-network (or set INDUS_ALLOW_PRIVATE_NETWORK=1) to fetch it.";

#[test]
fn private_network_addresses_are_refused_in_every_spelling_and_never_contacted() {
    let env = TestEnv::new();
    let sentinel = Sentinel::on("127.0.0.1");
    let port = sentinel.port;
    let loopback = format!(
        "Refused to fetch http://127.0.0.1:{port}/: 127.0.0.1 is a loopback address (127.0.0.0/8), not on the public internet. {HOW}\n"
    );
    // The decimal and hex spellings are the same address once parsed, and the
    // message names it as parsed.
    for spelled in [
        format!("http://127.0.0.1:{port}/"),
        format!("http://2130706433:{port}/"),
        format!("http://0x7f.1:{port}/"),
    ] {
        let out = fetch_closed(&env, &[&spelled]);
        assert_eq!(code(&out), 1, "{spelled}: {}", stdout(&out));
        assert_eq!(stderr(&out), loopback, "{spelled}");
    }
    let out = fetch_closed(&env, &[&format!("http://[::ffff:127.0.0.1]:{port}/")]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stderr(&out),
        format!(
            "Refused to fetch http://[::ffff:7f00:1]:{port}/: ::ffff:127.0.0.1 is 127.0.0.1 in IPv6 form (IPv4-mapped), a loopback address (127.0.0.0/8), not on the public internet. {HOW}\n"
        )
    );
    // A name is judged on what it resolves to.
    let url = format!("http://localhost:{port}/latest/meta-data/");
    let out = fetch_closed(&env, &[&url]);
    assert_eq!(code(&out), 1);
    let said = stderr(&out);
    assert!(
        said.starts_with(&format!("Refused to fetch {url}: localhost resolves ")) && said.ends_with(&format!("not on the public internet. {HOW}\n"))
            || said.starts_with(&format!("Refused to fetch {url}: localhost resolves only to addresses not on the public internet (")) && said.ends_with(&format!(". {HOW}\n")),
        "{said}"
    );
    // Programs get the refusal as an error result.
    let out = env
        .cmd()
        .env_remove(ALLOW)
        .args([
            "--format",
            "json",
            "webfetch",
            &format!("http://0.0.0.0:{port}/"),
        ])
        .output()
        .unwrap();
    let v = common::parse_outcome(&out);
    assert_eq!(v["is_error"], true, "{v}");
    assert_eq!(
        v["output"],
        format!(
            "Refused to fetch http://0.0.0.0:{port}/: 0.0.0.0 is the unspecified address, not on the public internet. {HOW}"
        )
    );
    assert_eq!(sentinel.contacts(), 0, "a refused address was connected to");
}

#[test]
fn a_redirect_into_the_private_network_is_refused_at_the_hop() {
    let env = TestEnv::new();
    let sentinel = Sentinel::on("127.0.0.2");
    let target = format!("http://127.0.0.2:{}/latest/meta-data/", sentinel.port);
    let to_literal = target.clone();
    let srv = TestServer::start(move |req| match req.path() {
        "/to-literal" => Reply::redirect(302, &to_literal),
        _ => Reply::ok("text/plain", "fine\n"),
    });
    // Without any opt-in the first hop, on 127.0.0.1, is refused already.
    let first = srv.url("/to-literal");
    let out = fetch_closed(&env, &[&first]);
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).starts_with(&format!(
            "Refused to fetch {first}: 127.0.0.1 is a loopback address"
        )),
        "{}",
        stderr(&out)
    );
    assert!(srv.requests().is_empty(), "the first hop was contacted");

    // The user's own config allows 127.0.0.1 (the server) and nothing else:
    // the redirect to 127.0.0.2 is refused at the hop, naming where it came
    // from. (A hop to a name is refused by the resolver: see the unit tests of
    // `tools::web::client`.)
    let config = env.mkdir("user-config");
    env.write(
        "user-config/indusvx/buddy.json",
        r#"{"web": {"allow_private_network": ["127.0.0.1"]}}"#,
    );
    let with_config = |url: &str| {
        env.cmd()
            .env_remove(ALLOW)
            .env("XDG_CONFIG_HOME", &config)
            .args(["webfetch", "--timeout-ms", "3000", url])
            .output()
            .unwrap()
    };
    let out = with_config(&srv.url("/fine"));
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let out = with_config(&first);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stderr(&out),
        format!(
            "Refused to fetch {target} (a redirect from {first}): 127.0.0.2 is a loopback address (127.0.0.0/8), not on the public internet. {HOW}\n"
        )
    );
    assert_eq!(
        sentinel.contacts(),
        0,
        "the redirect's target was connected to"
    );

    // A project's own buddy.json cannot open the private network.
    env.write(
        ".indusvx/buddy.json",
        r#"{"web": {"allow_private_network": true}}"#,
    );
    let out = fetch_closed(&env, &[&srv.url("/fine")]);
    assert_eq!(code(&out), 1, "{}", stdout(&out));
    assert!(
        stderr(&out).starts_with("Refused to fetch "),
        "{}",
        stderr(&out)
    );

    // With the opt-in the hop is followed (the sentinel answers nothing, so
    // the fetch times out there: it was reached).
    let out = env
        .cmd()
        .args([
            "--allow-private-network",
            "webfetch",
            "--timeout-ms",
            "1000",
            &first,
        ])
        .output()
        .unwrap();
    assert_eq!(code(&out), 1);
    assert!(
        stderr(&out).contains("did not respond within 1000 ms"),
        "{}",
        stderr(&out)
    );
    assert_eq!(sentinel.contacts(), 1);
}

/// The MCP server honours the same opt-in as a one-shot call (and `batch`,
/// see tests/it/batch.rs): refused without it, fetched with it.
#[test]
fn the_mcp_server_refuses_the_private_network_unless_allowed() {
    let (env, srv) = (TestEnv::new(), server());
    let url = srv.url("/plain");
    let lines = [
        serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}),
        serde_json::json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
        serde_json::json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "webfetch", "arguments": {"url": url}}}),
    ]
    .map(|l| format!("{l}\n"))
    .concat();
    let call = |flags: &[&str]| {
        let out = env
            .cmd()
            .env_remove(ALLOW)
            .args(["--no-mcp"])
            .args(flags)
            .arg("mcp")
            .write_stdin(lines.clone())
            .timeout(Duration::from_secs(30))
            .output()
            .unwrap();
        let answer = stdout(&out)
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .find(|v| v["id"] == 2)
            .unwrap_or_else(|| panic!("no answer: {}", stderr(&out)));
        answer["result"].clone()
    };
    let refused = call(&[]);
    assert_eq!(refused["isError"], true, "{refused}");
    assert_eq!(
        refused["content"][0]["text"],
        format!(
            "Refused to fetch {url}: 127.0.0.1 is a loopback address (127.0.0.0/8), not on the public internet. {HOW}"
        )
    );
    assert!(srv.requests().is_empty());
    let fetched = call(&["--allow-private-network"]);
    assert_ne!(fetched["isError"], true, "{fetched}");
    assert!(
        fetched["content"][0]["text"]
            .as_str()
            .unwrap()
            .ends_with("line one\nline two <b>not html</b>"),
        "{fetched}"
    );
}
