//! `webfetch` through the real binary against a server on 127.0.0.1 that serves
//! hand-written pages and misbehaves on purpose.

mod common;

use std::io::Write;
use std::time::{Duration, Instant};

use common::http::{Reply, TestServer};
use common::{TestEnv, code, stderr, stdout};

const ARTICLE: &str = include_str!("fixtures/web/article.html");

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

fn fetch(env: &TestEnv, args: &[&str]) -> std::process::Output {
    let mut all = vec!["webfetch"];
    all.extend_from_slice(args);
    env.run(&all)
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
        &format!(
            "See the first part of the series ({}) for the setup.",
            srv.url("/posts/first-steps")
        ),
        "Read more in the proptest book (https://proptest-rs.github.io/proptest/).",
        "let out = env.run(&[\"grep\", \"fn main\"]);\nassert_eq!(code(&out), 0);\n",
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
    assert!(
        md.contains(&format!(
            "[first part of the series]({})",
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
        text.ends_with(&format!("Really HTML ({}).\n", srv.url("/x"))),
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
fn an_endless_body_stops_at_max_bytes() {
    let (env, srv) = (TestEnv::new(), server());
    let start = Instant::now();
    let out = fetch(&env, &["--max-bytes", "100000", &srv.url("/endless")]);
    assert!(start.elapsed() < Duration::from_secs(5));
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let text = stdout(&out);
    assert!(text.contains(
        "Note: the body was cut at 100000 bytes (maxBytes); the rest was not downloaded.\n\nendless body line\n"
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
