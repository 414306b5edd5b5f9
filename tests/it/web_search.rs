//! `websearch` through the real binary, pointed at a local test server with
//! `INDUS_WEBSEARCH_URL`: both page layouts, ads and the zero-click box, duplicates,
//! `count`, the bot check, an empty page, what the request looked like, and every way
//! the exchange can fail. The pages are hand-written in `tests/fixtures/web/`.

use crate::common;

use std::process::Output;
use std::time::{Duration, Instant};

use common::http::{Reply, TestServer};
use common::{TestEnv, code, parse_outcome, stderr, stdout};
use serde_json::{Value, json};

const CLASSIC: &str = include_str!("../fixtures/web/ddg-classic.html");
const DIRECT: &str = include_str!("../fixtures/web/ddg-direct.html");
const BOT_CHECK: &str = include_str!("../fixtures/web/ddg-bot-check.html");
const NO_RESULTS: &str = include_str!("../fixtures/web/ddg-no-results.html");

const BLOCKED: &str = "DuckDuckGo refused the search (blocked or rate limited: it answered with a bot check); try again later.\n";

/// A server answering every request with `status` and `body` as UTF-8 HTML.
fn serve(status: u16, body: impl Into<String>) -> TestServer {
    let body: String = body.into();
    TestServer::start(move |_| Reply::status(status, "text/html; charset=UTF-8", body.clone()))
}

/// `indus-tool [--format json] websearch ARGS` against `endpoint`.
fn run_at(endpoint: &str, json: bool, args: &[&str]) -> Output {
    let env = TestEnv::new();
    let mut cmd = env.cmd();
    cmd.env("INDUS_WEBSEARCH_URL", endpoint);
    if json {
        cmd.args(["--format", "json"]);
    }
    cmd.arg("websearch").args(args).output().expect("run")
}

fn run(server: &TestServer, args: &[&str]) -> Output {
    run_at(&server.url("/html/"), false, args)
}

fn run_json(server: &TestServer, args: &[&str]) -> Value {
    parse_outcome(&run_at(&server.url("/html/"), true, args))
}

/// What text mode prints for people, without the final newline.
fn run_text(server: &TestServer, args: &[&str]) -> String {
    let out = run(server, args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .trim_end_matches('\n')
        .to_string()
}

/// The results of a successful outcome: the record programs get.
fn results_of(outcome: &Value) -> Value {
    assert_eq!(outcome["is_error"], json!(false), "{outcome}");
    assert!(outcome["output"].is_array(), "{outcome}");
    outcome["output"].clone()
}

fn titles(results: &Value) -> Vec<String> {
    results
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["title"].as_str().unwrap().to_string())
        .collect()
}

/// A results page of the classic layout with `n` distinct results.
fn page_of(n: usize) -> String {
    let results: String = (1..=n)
        .map(|i| {
            format!(
                r#"<div class="result results_links results_links_deep web-result">
                     <h2 class="result__title"><a rel="nofollow" class="result__a" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.com%2F{i}&amp;rut=x">Result {i}</a></h2>
                     <a class="result__snippet" href="//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.com%2F{i}">Snippet {i}.</a>
                   </div>"#
            )
        })
        .collect();
    format!("<html><body><div id=\"links\" class=\"results\">{results}</div></body></html>")
}

#[test]
fn the_classic_layout_as_text_and_json() {
    let server = serve(200, CLASSIC);
    let text = "\
1. Foo Fighters - Wikipedia
   https://en.wikipedia.org/wiki/Foo_Fighters
   Foo Fighters are a rock band formed in 1994 by former Nirvana drummer Dave Grohl.

2. foo | Meaning & Origin - Dictionary.com
   https://www.dictionary.com/e/tech-science/foo/
   Foo is a term used in computer programming. It has no connection to the graffiti \"Foo was here\".

3. foo - Wiktionary, the free dictionary
   https://en.wiktionary.org/wiki/foo
   Learn the meanings of the word foo: a noun, an interjection, a placeholder.

4. Foo Fighters - Everlong (Official HD Video) - YouTube
   https://www.youtube.com/watch?v=eBG7P-K-r1Y
   \"Everlong\" by Foo Fighters 'live' & more

5. Foo Tokyo｜Official Website（フートウキョウ公式）
   https://footokyo.jp/
   シルクパジャマやルームウェアの高級ブランドFoo Tokyo(フートウキョウ)公式サイトです。";
    let results = json!([
        {
            "title": "Foo Fighters - Wikipedia",
            "url": "https://en.wikipedia.org/wiki/Foo_Fighters",
            "snippet": "Foo Fighters are a rock band formed in 1994 by former Nirvana drummer Dave Grohl."
        },
        {
            "title": "foo | Meaning & Origin - Dictionary.com",
            "url": "https://www.dictionary.com/e/tech-science/foo/",
            "snippet": "Foo is a term used in computer programming. It has no connection to the graffiti \"Foo was here\"."
        },
        {
            "title": "foo - Wiktionary, the free dictionary",
            "url": "https://en.wiktionary.org/wiki/foo",
            "snippet": "Learn the meanings of the word foo: a noun, an interjection, a placeholder."
        },
        {
            "title": "Foo Fighters - Everlong (Official HD Video) - YouTube",
            "url": "https://www.youtube.com/watch?v=eBG7P-K-r1Y",
            "snippet": "\"Everlong\" by Foo Fighters 'live' & more"
        },
        {
            "title": "Foo Tokyo｜Official Website（フートウキョウ公式）",
            "url": "https://footokyo.jp/",
            "snippet": "シルクパジャマやルームウェアの高級ブランドFoo Tokyo(フートウキョウ)公式サイトです。"
        }
    ]);

    // Text mode: the text for people, no JSON (programs get the results).
    let out = run(&server, &["foo"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), format!("{text}\n"));
    assert_eq!(stderr(&out), "");

    // JSON mode: one line, the results as records, keys in order.
    let out = run_at(&server.url("/html/"), true, &["foo"]);
    assert_eq!(code(&out), 0);
    let outcome = parse_outcome(&out);
    assert_eq!(
        outcome,
        json!({
            "id": "cli",
            "output": results,
            "is_error": false
        })
    );
    assert!(
        stdout(&out).contains(
            r#"{"title":"Foo Fighters - Wikipedia","url":"https://en.wikipedia.org/wiki/Foo_Fighters","snippet":"#
        ),
        "keys out of order: {}",
        stdout(&out)
    );
}

#[test]
fn duplicates_are_dropped_first_one_wins() {
    let server = serve(200, CLASSIC);
    let results = results_of(&run_json(&server, &["foo", "--count", "10"]));
    assert_eq!(
        titles(&results),
        [
            "Foo Fighters - Wikipedia",
            "foo | Meaning & Origin - Dictionary.com",
            "foo - Wiktionary, the free dictionary",
            "Foo Fighters - Everlong (Official HD Video) - YouTube",
            "Foo Tokyo｜Official Website（フートウキョウ公式）",
            "FOO Definition & Meaning - Merriam-Webster",
        ]
    );
    let urls: Vec<&str> = results
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["url"].as_str().unwrap())
        .collect();
    assert_eq!(
        urls.iter()
            .filter(|u| **u == "https://en.wikipedia.org/wiki/Foo_Fighters")
            .count(),
        1
    );
}

#[test]
fn the_newer_layout_without_ads_or_the_zero_click_box() {
    let server = serve(200, DIRECT);
    let text = run_text(&server, &["rust async", "--count", "10"]);
    assert_eq!(
        json!(text),
        json!(
            "1. Asynchronous Programming in Rust\n   https://rust-lang.github.io/async-book/\n   This book aims to be a comprehensive guide to async programming in Rust.\n\n\
             2. Tutorial | Tokio - An asynchronous Rust runtime\n   https://tokio.rs/tokio/tutorial\n   Tokio is an asynchronous runtime for the Rust programming language.\n\n\
             3. async - Rust\n   https://doc.rust-lang.org/std/keyword.async.html"
        )
    );
    let outcome = run_json(&server, &["rust async", "--count", "10"]);
    assert_eq!(
        results_of(&outcome),
        json!([
            {
                "title": "Asynchronous Programming in Rust",
                "url": "https://rust-lang.github.io/async-book/",
                "snippet": "This book aims to be a comprehensive guide to async programming in Rust."
            },
            {
                "title": "Tutorial | Tokio - An asynchronous Rust runtime",
                "url": "https://tokio.rs/tokio/tutorial",
                "snippet": "Tokio is an asynchronous runtime for the Rust programming language."
            },
            {
                "title": "async - Rust",
                "url": "https://doc.rust-lang.org/std/keyword.async.html",
                "snippet": ""
            }
        ])
    );
}

#[test]
fn count_caps_the_results_pinned_at_25_for_agents_and_refused_above_on_the_flag() {
    let server = serve(200, page_of(30));
    let count = |args: &[&str]| {
        results_of(&run_json(&server, args))
            .as_array()
            .unwrap()
            .len()
    };
    assert_eq!(count(&["q"]), 5);
    assert_eq!(count(&["q", "--count", "1"]), 1);
    assert_eq!(count(&["q", "--count", "12"]), 12);
    assert_eq!(count(&["q", "--count", "25"]), 25);
    assert_eq!(count(&["q", "--json", r#"{"count": 30}"#]), 25);
    assert_eq!(count(&["q", "--json", r#"{"count": 1000}"#]), 25);
    // The flag takes no more than 25: a person is told, not given less.
    let refused = run_json(&server, &["q", "--count", "30"]);
    assert_eq!(
        refused["error"]["message"],
        "--count: 30 is more than it takes; at most 25"
    );
    // An agent's pinned call: the text is just the 25 results.
    let text = run_text(&server, &["q", "--json", r#"{"count": 30}"#]);
    assert!(text.starts_with("1. Result 1\n   https://example.com/1\n   Snippet 1.\n\n2. "));
    assert!(text.ends_with("25. Result 25\n    https://example.com/25\n    Snippet 25."));
    // Fewer results than asked for: all of them.
    let small = serve(200, page_of(3));
    assert_eq!(
        results_of(&run_json(&small, &["q", "--count", "10"]))
            .as_array()
            .unwrap()
            .len(),
        3
    );
}

#[test]
fn the_request_is_a_browser_form_post() {
    let server = serve(200, CLASSIC);
    let out = run(&server, &["rust & \"tokio\" 日本"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    let req = &requests[0];
    assert_eq!(req.method, "POST");
    assert_eq!(req.target, "/html/");
    assert_eq!(
        String::from_utf8(req.body.clone()).unwrap(),
        "q=rust+%26+%22tokio%22+%E6%97%A5%E6%9C%AC&b=&kl="
    );
    assert_eq!(
        req.header("content-type"),
        Some("application/x-www-form-urlencoded")
    );
    let agent = req.header("user-agent").unwrap();
    assert!(
        agent.starts_with("Mozilla/5.0 (") && agent.contains("Chrome/"),
        "{agent}"
    );
    assert_eq!(req.header("accept-language"), Some("en-US,en;q=0.9"));
    assert_eq!(
        req.header("accept"),
        Some("text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8")
    );
    let origin = format!("http://127.0.0.1:{}", server.port);
    assert_eq!(req.header("origin"), Some(origin.as_str()));
    assert_eq!(req.header("referer"), Some(format!("{origin}/").as_str()));
}

#[test]
fn a_bot_check_is_blocked_never_no_results() {
    // The challenge page, served with 202 (as DuckDuckGo does) or 200.
    for status in [202, 200] {
        let server = serve(status, BOT_CHECK);
        let out = run(&server, &["foo"]);
        assert_eq!(code(&out), 1, "HTTP {status}");
        assert_eq!(stderr(&out), BLOCKED, "HTTP {status}");
        assert_eq!(stdout(&out), "");
    }
    // A 202 is a refusal whatever its body holds.
    for body in [Vec::new(), CLASSIC.as_bytes().to_vec(), b"caf\xe9".to_vec()] {
        let server = TestServer::start(move |_| {
            Reply::status(202, "text/html; charset=utf-8", body.clone())
        });
        let out = run(&server, &["foo"]);
        assert_eq!(code(&out), 1);
        assert_eq!(stderr(&out), BLOCKED);
    }
    let server = serve(200, BOT_CHECK);
    let outcome = parse_outcome(&run_at(&server.url("/html/"), true, &["foo"]));
    assert_eq!(
        outcome,
        json!({"id": "cli", "output": BLOCKED.trim_end(), "is_error": true})
    );
}

#[test]
fn an_empty_page_is_no_results_and_not_an_error() {
    let server = serve(200, NO_RESULTS);
    let out = run(&server, &["zzqxjv"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    assert_eq!(stdout(&out), "No results for \"zzqxjv\".\n");
    assert_eq!(
        run_text(&server, &["say \"what\""]),
        "No results for \"say \\\"what\\\"\"."
    );
    let outcome = run_json(&server, &["say \"what\""]);
    assert_eq!(outcome["output"], json!([]));
    assert_eq!(outcome["is_error"], json!(false));
}

#[test]
fn a_server_that_never_answers_fails_within_the_deadline() {
    let server = TestServer::start(|_| Reply::Hang);
    let began = Instant::now();
    let out = run(&server, &["foo"]);
    let took = began.elapsed();
    assert_eq!(code(&out), 1);
    assert_eq!(
        stderr(&out),
        format!(
            "DuckDuckGo ({}) did not answer within 10 s; try again later.\n",
            server.url("/html/")
        )
    );
    // The deadline is 10 s; the upper bound leaves 2 s for starting the binary on a
    // loaded machine.
    assert!(took >= Duration::from_secs(9), "gave up early: {took:?}");
    assert!(took < Duration::from_secs(12), "took {took:?}");
}

#[test]
fn an_http_error_status_names_the_status() {
    for status in [500, 404] {
        let server = serve(status, "<html><body>oops</body></html>");
        let out = run(&server, &["foo"]);
        assert_eq!(code(&out), 1);
        assert_eq!(
            stderr(&out),
            format!("DuckDuckGo answered HTTP {status} for \"foo\"; try again later.\n")
        );
    }
    // The status is judged before the body is read: a body that breaks off does
    // not hide it.
    let server = TestServer::start(|_| {
        Reply::Raw(
            b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 100000\r\n\r\npartial".to_vec(),
        )
    });
    let out = run(&server, &["foo"]);
    assert_eq!(
        stderr(&out),
        "DuckDuckGo answered HTTP 503 for \"foo\"; try again later.\n"
    );
}

#[test]
fn a_refused_connection_is_an_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!(
        "http://127.0.0.1:{}/html/",
        listener.local_addr().unwrap().port()
    );
    drop(listener);
    let out = run_at(&endpoint, false, &["foo"]);
    assert_eq!(code(&out), 1);
    let err = stderr(&out);
    assert!(
        err.starts_with(&format!("Cannot connect to {endpoint}: ")),
        "{err}"
    );
    assert!(err.to_lowercase().contains("refused"), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn bodies_that_are_no_results_page() {
    // Not valid in the declared encoding.
    let server = TestServer::start(|_| {
        Reply::status(
            200,
            "text/html; charset=utf-8",
            b"<html>caf\xe9</html>".to_vec(),
        )
    });
    let out = run(&server, &["foo"]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stderr(&out),
        "DuckDuckGo's answer for \"foo\" could not be decoded as text (text/html; charset=utf-8); nothing was parsed.\n"
    );
    // Another declared encoding is honoured.
    let server = TestServer::start(|_| {
        Reply::status(
            200,
            "text/html; charset=ISO-8859-1",
            b"<div class=\"result\"><a class=\"result__a\" href=\"https://cafe.example/\">Caf\xe9</a></div>".to_vec(),
        )
    });
    let results = results_of(&run_json(&server, &["foo"]));
    assert_eq!(titles(&results), ["Café"]);
    // A body that never ends is cut off, not read until the deadline.
    let server = TestServer::start(|_| Reply::Endless {
        content_type: "text/html".into(),
    });
    let began = Instant::now();
    let out = run(&server, &["foo"]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stderr(&out),
        "DuckDuckGo's answer for \"foo\" is larger than 4 MiB, which no results page is; nothing was parsed.\n"
    );
    assert!(began.elapsed() < Duration::from_secs(9));
}

#[test]
fn bad_input_is_refused_before_any_request() {
    let server = serve(200, CLASSIC);
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec![], "Missing \"query\": expected a non-empty string.\n"),
        (
            vec![""],
            "Invalid \"query\": expected a non-empty string, got an empty string.\n",
        ),
        (
            vec!["--json", r#"{"query": 7}"#],
            "Invalid \"query\": expected a non-empty string, got the number 7.\n",
        ),
        (
            vec!["foo", "--count", "0"],
            "Invalid \"count\": expected a positive integer, got the number 0.\n",
        ),
        (
            vec!["foo", "--count", "-1"],
            "Invalid \"count\": expected a positive integer, got the number -1.\n",
        ),
        (
            vec!["foo", "--count", "2.5"],
            "Invalid \"count\": expected a positive integer, got the number 2.5.\n",
        ),
        (
            vec!["foo", "--count", "x"],
            "Invalid \"count\": expected a positive integer, got the string \"x\".\n",
        ),
    ];
    for (args, want) in cases {
        let out = run(&server, &args);
        assert_eq!(code(&out), 1, "{args:?}");
        assert_eq!(stderr(&out), want, "{args:?}");
    }
    assert!(server.requests().is_empty());
}

#[test]
fn a_bad_endpoint_override_is_named() {
    let out = run_at("ftp://example.com/html/", false, &["foo"]);
    assert_eq!(code(&out), 1);
    assert_eq!(
        stderr(&out),
        "INDUS_WEBSEARCH_URL must be an absolute http or https URL, got \"ftp://example.com/html/\".\n"
    );
    let out = run_at("not a url", false, &["foo"]);
    assert_eq!(
        stderr(&out),
        "INDUS_WEBSEARCH_URL must be an absolute http or https URL, got \"not a url\".\n"
    );
}

#[test]
fn the_text_block_is_clamped_with_the_tools_notice() {
    let server = serve(200, page_of(25));
    let env = TestEnv::new();
    let out = env
        .cmd()
        .env("INDUS_WEBSEARCH_URL", server.url("/html/"))
        .args(["--max-bytes", "300", "websearch", "q", "--count", "25"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("1. Result 1\n"), "{text}");
    // Cut between results: the text ends with the last whole result shown, then
    // the count of the results left out.
    let (shown, notice) = text.trim_end().rsplit_once('\n').unwrap();
    let kept = shown.split("\n\n").count();
    assert!(kept < 25, "{text}");
    assert_eq!(
        notice,
        format!(
            "[websearch: {} rows left out to stay within the output ceiling]",
            25 - kept
        )
    );
    assert!(shown.ends_with(&format!("Snippet {kept}.")), "{text}");
    // The JSON block keeps the first results that fit the same 300 bytes.
    let out = env
        .cmd()
        .env("INDUS_WEBSEARCH_URL", server.url("/html/"))
        .args([
            "--format",
            "json",
            "--max-bytes",
            "300",
            "websearch",
            "q",
            "--count",
            "25",
        ])
        .output()
        .unwrap();
    let outcome = parse_outcome(&out);
    let results = results_of(&outcome);
    assert_eq!(
        titles(&results),
        ["Result 1", "Result 2", "Result 3", "Result 4"]
    );
    assert!(results.to_string().len() <= 300);
}

#[test]
fn websearch_is_read_only_and_described() {
    let env = TestEnv::new();
    let out = env.run(&["--format", "json", "describe", "websearch"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    let d = parse_outcome(&out);
    assert_eq!(d["name"], json!("websearch"));
    assert_eq!(d["parameters"]["required"], json!(["query"]));
    let out = env.run(&["--collection", "read-only", "--format", "json", "list"]);
    let listed = parse_outcome(&out);
    let entry = listed
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == json!("websearch"))
        .cloned();
    assert_eq!(
        entry.map(|t| t["collections"].clone()),
        Some(json!(["read-only", "coding", "all"]))
    );
}

#[test]
fn the_json_block_keeps_the_results_that_fit_the_budget() {
    let long = "word ".repeat(400);
    let page = page_of(5).replace("Snippet", &long);
    let server = serve(200, page);
    let outcome = parse_outcome(&run_at(&server.url("/html/"), true, &["--count", "5", "q"]));
    assert_eq!(results_of(&outcome).as_array().unwrap().len(), 5);
    let env = TestEnv::new();
    let out = env
        .cmd()
        .env("INDUS_WEBSEARCH_URL", server.url("/html/"))
        .args(["--max-bytes", "5000", "--format", "json", "websearch", "q"])
        .output()
        .unwrap();
    let outcome = parse_outcome(&out);
    let results = results_of(&outcome);
    // Each result is about 2 KB: two fit in 5,000 bytes, in page order.
    assert_eq!(titles(&results), ["Result 1", "Result 2"]);
    assert!(results.to_string().len() <= 5000);
    let out = env
        .cmd()
        .env("INDUS_WEBSEARCH_URL", server.url("/html/"))
        .args(["--max-bytes", "5000", "websearch", "q"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("1. Result 1"), "{text}");
    assert!(text.contains("[websearch: "), "{text}");
}

/// The endpoint the user configured is theirs, wherever it is (the tests above
/// reach it on 127.0.0.1 without an opt-in); what it redirects to is not: a
/// redirect into the private network is refused at the hop, and its target is
/// never connected to.
#[test]
fn a_redirect_from_the_endpoint_into_the_private_network_is_refused() {
    let target_listener = std::net::TcpListener::bind("127.0.0.2:0").unwrap();
    let target = format!(
        "http://127.0.0.2:{}/latest/meta-data/",
        target_listener.local_addr().unwrap().port()
    );
    let contacted = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = contacted.clone();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in target_listener.incoming() {
            seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            held.push(stream);
        }
    });
    let location = target.clone();
    let server = TestServer::start(move |_| Reply::redirect(302, &location));
    let endpoint = server.url("/html/");
    let out = TestEnv::new()
        .cmd()
        .env_remove("INDUS_ALLOW_PRIVATE_NETWORK")
        .env("INDUS_WEBSEARCH_URL", &endpoint)
        .args(["websearch", "foo"])
        .output()
        .unwrap();
    assert_eq!(code(&out), 1);
    assert_eq!(
        stderr(&out),
        format!(
            "Refused to fetch {target} (a redirect from {endpoint}): 127.0.0.2 is a loopback address (127.0.0.0/8), not on the public internet. Pass --allow-private-network (or set INDUS_ALLOW_PRIVATE_NETWORK=1) to fetch it.\n"
        )
    );
    assert_eq!(server.requests().len(), 1);
    assert_eq!(contacted.load(std::sync::atomic::Ordering::SeqCst), 0);
}
