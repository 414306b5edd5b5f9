//! The `saas-action` card through the real binary against a loopback Composio
//! stand-in (`common::http`): discover's query string and key header, execute's
//! body, `successful: false`, HTTP 401 and 500, a server that never answers, a
//! refused connection, the stub without a key — and the key never in any output.

use crate::common;

use std::process::Output;
use std::time::{Duration, Instant};

use common::http::{Reply, TestServer};
use common::{TestEnv, code, parse_outcome, stderr, stdout};
use serde_json::{Value, json};

const KEY: &str = "sk-test-7f3a9c-SECRET";

/// The binary in `env` with the Composio variables cleared, then `vars` set.
fn cmd(env: &TestEnv, vars: &[(&str, &str)]) -> assert_cmd::Command {
    let mut c = env.cmd();
    for name in [
        "COMPOSIO_API_KEY",
        "COMPOSIO_BASE_URL",
        "COMPOSIO_USER_ID",
        "COMPOSIO_TIMEOUT_MS",
    ] {
        c.env_remove(name);
    }
    for (k, v) in vars {
        c.env(k, v);
    }
    c.timeout(Duration::from_secs(30));
    c
}

fn against(server: &TestServer) -> Vec<(&'static str, String)> {
    vec![
        ("COMPOSIO_API_KEY", KEY.to_string()),
        ("COMPOSIO_BASE_URL", server.url("")),
    ]
}

fn run(env: &TestEnv, vars: &[(&str, String)], args: &[&str]) -> Output {
    let vars: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (*k, v.as_str())).collect();
    cmd(env, &vars).args(args).output().unwrap()
}

fn run_json(env: &TestEnv, vars: &[(&str, String)], args: &[&str]) -> (Value, Output) {
    let mut full = vec!["--format", "json"];
    full.extend_from_slice(args);
    let out = run(env, vars, &full);
    (parse_outcome(&out), out)
}

/// Neither stream holds the key.
fn no_key(out: &Output) {
    assert!(!stdout(out).contains(KEY), "key on stdout: {}", stdout(out));
    assert!(!stderr(out).contains(KEY), "key on stderr: {}", stderr(out));
}

fn query_of(target: &str) -> Vec<(String, String)> {
    let q = target.split_once('?').map(|(_, q)| q).unwrap_or("");
    reqwest::Url::parse(&format!("http://x/?{q}"))
        .unwrap()
        .query_pairs()
        .map(|(k, v)| (k.into_owned(), v.into_owned()))
        .collect()
}

#[test]
fn discover_lists_tools_and_sends_the_filters_and_key() {
    let server = TestServer::start(|_| {
        Reply::ok(
            "application/json",
            json!({
                "items": [
                    {"slug": "GITHUB_CREATE_AN_ISSUE", "name": "Create an issue", "description": "Create a new issue\nin a repository.", "toolkit": {"slug": "github", "name": "GitHub"}},
                    {"slug": "SLACK_SEND_MESSAGE", "name": "Send message", "description": "Post to a channel.", "toolkit": {"slug": "slack", "name": "Slack"}}
                ],
                "next_cursor": null
            })
            .to_string(),
        )
    });
    let env = TestEnv::new();
    let vars = against(&server);
    let out = run(
        &env,
        &vars,
        &[
            "saas-action",
            "discover",
            "--toolkits",
            r#"["github","slack"]"#,
            "--query",
            "issue & message",
            "--limit",
            "5",
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    no_key(&out);
    assert_eq!(
        stdout(&out),
        "2 tools (toolkits github, slack; query \"issue & message\"):\n\
         GITHUB_CREATE_AN_ISSUE [github] Create an issue — Create a new issue in a repository.\n\
         SLACK_SEND_MESSAGE [slack] Send message — Post to a channel.\n"
    );
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    let r = &reqs[0];
    assert_eq!(r.method, "GET");
    assert_eq!(r.path(), "/api/v3/tools");
    assert_eq!(r.header("x-api-key"), Some(KEY));
    assert_eq!(
        query_of(&r.target),
        [
            ("toolkit_slug".to_string(), "github,slack".to_string()),
            ("search".to_string(), "issue & message".to_string()),
            ("limit".to_string(), "5".to_string()),
        ]
    );

    let (v, out) = run_json(&env, &vars, &["saas-action", "discover"]);
    assert_eq!(code(&out), 0);
    no_key(&out);
    assert_eq!(
        v["output"],
        json!({
            "action": "discover",
            "count": 2,
            "more": false,
            "tools": [
                {"slug": "GITHUB_CREATE_AN_ISSUE", "name": "Create an issue", "description": "Create a new issue\nin a repository.", "toolkit": "github"},
                {"slug": "SLACK_SEND_MESSAGE", "name": "Send message", "description": "Post to a channel.", "toolkit": "slack"}
            ]
        })
    );
    // No filters: only the limit is sent.
    assert_eq!(
        query_of(&server.requests()[1].target),
        [("limit".to_string(), "20".to_string())]
    );
}

#[test]
fn execute_posts_the_arguments_and_user_and_returns_the_data() {
    let server = TestServer::start(|_| {
        Reply::ok(
            "application/json",
            json!({"data": {"number": 42, "url": "https://example.test/issues/42"}, "error": null, "successful": true}).to_string(),
        )
    });
    let env = TestEnv::new();
    let mut vars = against(&server);
    vars.push(("COMPOSIO_USER_ID", "user-7".to_string()));
    let (v, out) = run_json(
        &env,
        &vars,
        &[
            "saas-action",
            "execute",
            "GITHUB_CREATE_AN_ISSUE",
            "--arguments",
            r#"{"owner":"o","repo":"r","title":"Bug"}"#,
        ],
    );
    assert_eq!(code(&out), 0, "{}", stderr(&out));
    no_key(&out);
    assert_eq!(
        v["output"],
        json!({"action": "execute", "slug": "GITHUB_CREATE_AN_ISSUE", "successful": true,
               "data": {"number": 42, "url": "https://example.test/issues/42"}})
    );
    let r = &server.requests()[0];
    assert_eq!(r.method, "POST");
    // The slug passes through verbatim (case kept).
    assert_eq!(r.path(), "/api/v3/tools/execute/GITHUB_CREATE_AN_ISSUE");
    assert_eq!(r.header("x-api-key"), Some(KEY));
    assert_eq!(r.header("content-type"), Some("application/json"));
    let body: Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(
        body,
        json!({"arguments": {"owner": "o", "repo": "r", "title": "Bug"}, "user_id": "user-7"})
    );

    // Text for people: the data as pretty JSON; no arguments and no user id: {} and "default".
    let out = run(
        &env,
        &against(&server),
        &["saas-action", "execute", "Mixed_Case"],
    );
    assert_eq!(code(&out), 0);
    assert_eq!(
        stdout(&out),
        "{\n  \"number\": 42,\n  \"url\": \"https://example.test/issues/42\"\n}\n"
    );
    let r = &server.requests()[1];
    assert_eq!(r.path(), "/api/v3/tools/execute/Mixed_Case");
    let body: Value = serde_json::from_slice(&r.body).unwrap();
    assert_eq!(body, json!({"arguments": {}, "user_id": "default"}));
}

#[test]
fn an_unsuccessful_action_is_an_error_carrying_its_error() {
    let server = TestServer::start(|_| {
        Reply::ok(
            "application/json",
            json!({"data": {}, "error": "Repository not found", "successful": false}).to_string(),
        )
    });
    let env = TestEnv::new();
    let (v, out) = run_json(
        &env,
        &against(&server),
        &["saas-action", "execute", "GITHUB_X"],
    );
    assert_eq!(code(&out), 1);
    assert_eq!(v["is_error"], true);
    assert_eq!(v["output"]["successful"], false);
    assert_eq!(v["output"]["error"], "Repository not found");
    let out = run(
        &env,
        &against(&server),
        &["saas-action", "execute", "GITHUB_X"],
    );
    assert!(
        stderr(&out).contains("GITHUB_X did not succeed: Repository not found")
            || stdout(&out).contains("GITHUB_X did not succeed: Repository not found"),
        "{}{}",
        stdout(&out),
        stderr(&out)
    );
}

#[test]
fn http_errors_are_named_and_the_key_is_never_echoed() {
    // A server that echoes the key it was sent in its error: the card scrubs it.
    let server = TestServer::start(|req| {
        let key = req.header("x-api-key").unwrap_or("").to_string();
        if req.path().contains("BOOM") {
            return Reply::status(500, "text/plain", "internal trouble");
        }
        Reply::status(
            401,
            "application/json",
            json!({"error": {"message": format!("Invalid API key {key}"), "status": 401}})
                .to_string(),
        )
    });
    let env = TestEnv::new();
    let out = run(&env, &against(&server), &["saas-action", "discover"]);
    assert_eq!(code(&out), 1);
    no_key(&out);
    let text = stdout(&out) + &stderr(&out);
    assert!(text.contains("Composio refused the API key"), "{text}");
    assert!(text.contains("HTTP 401"), "{text}");
    assert!(text.contains("COMPOSIO_API_KEY"), "{text}");
    assert!(text.contains("Invalid API key [redacted]"), "{text}");

    let out = run(&env, &against(&server), &["saas-action", "execute", "BOOM"]);
    assert_eq!(code(&out), 1);
    no_key(&out);
    let text = stdout(&out) + &stderr(&out);
    assert!(
        text.contains(
            "Composio answered HTTP 500 to execute BOOM. The server said: internal trouble"
        ),
        "{text}"
    );
}

#[test]
fn a_server_that_never_answers_times_out_on_time() {
    let server = TestServer::start(|_| Reply::Hang);
    let env = TestEnv::new();
    let start = Instant::now();
    let out = run(
        &env,
        &against(&server),
        &["saas-action", "discover", "--timeout-ms", "700"],
    );
    assert!(start.elapsed() < Duration::from_secs(10));
    assert_eq!(code(&out), 1);
    no_key(&out);
    let text = stdout(&out) + &stderr(&out);
    assert!(
        text.contains("did not answer discover within 700 ms"),
        "{text}"
    );

    // The default deadline comes from COMPOSIO_TIMEOUT_MS.
    let mut vars = against(&server);
    vars.push(("COMPOSIO_TIMEOUT_MS", "600".to_string()));
    let out = run(&env, &vars, &["saas-action", "execute", "X"]);
    let text = stdout(&out) + &stderr(&out);
    assert!(text.contains("within 600 ms"), "{text}");
}

#[test]
fn a_refused_connection_is_said_plainly() {
    // A port that was just free: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let env = TestEnv::new();
    let vars = vec![
        ("COMPOSIO_API_KEY", KEY.to_string()),
        ("COMPOSIO_BASE_URL", format!("http://127.0.0.1:{port}")),
    ];
    let out = run(&env, &vars, &["saas-action", "discover"]);
    assert_eq!(code(&out), 1);
    no_key(&out);
    let text = stdout(&out) + &stderr(&out);
    assert!(
        text.contains(&format!(
            "cannot connect to Composio at http://127.0.0.1:{port}"
        )),
        "{text}"
    );
    assert!(text.contains("COMPOSIO_BASE_URL"), "{text}");
}

#[test]
fn without_a_key_the_stub_says_how_to_set_one_up() {
    let env = TestEnv::new();
    for vars in [vec![], vec![("COMPOSIO_API_KEY", "  ".to_string())]] {
        let (v, out) = run_json(&env, &vars, &["saas-action", "discover"]);
        assert_eq!(code(&out), 1);
        assert_eq!(v["is_error"], true);
        let text = v["output"].as_str().unwrap();
        assert!(text.contains("no SaaS gateway is configured"), "{text}");
        assert!(text.contains("export COMPOSIO_API_KEY="), "{text}");
        assert!(text.contains("COMPOSIO_USER_ID"), "{text}");
    }
}

#[test]
fn bad_input_names_the_field() {
    let server = TestServer::start(|_| Reply::ok("application/json", "{}"));
    let env = TestEnv::new();
    for (input, field) in [
        (json!({}), "action"),
        (json!({"action": "run"}), "action"),
        (json!({"action": "execute"}), "slug"),
        (
            json!({"action": "execute", "slug": "X", "arguments": [1]}),
            "arguments",
        ),
        (json!({"action": "discover", "toolkits": 3}), "toolkits"),
        (
            json!({"action": "discover", "toolkits": [""]}),
            "toolkits[0]",
        ),
        (json!({"action": "discover", "limit": 0}), "limit"),
        (json!({"action": "discover", "timeoutMs": -1}), "timeoutMs"),
    ] {
        let (v, out) = run_json(
            &env,
            &against(&server),
            &["saas-action", "--json", &input.to_string()],
        );
        assert_eq!(code(&out), 1, "{input}");
        assert!(
            v["output"]
                .as_str()
                .unwrap()
                .contains(&format!("\"{field}\"")),
            "{input}: {v}"
        );
    }
    // A base URL that is not one is named.
    let vars = vec![
        ("COMPOSIO_API_KEY", KEY.to_string()),
        ("COMPOSIO_BASE_URL", "backend.composio.dev".to_string()),
    ];
    let (v, _) = run_json(&env, &vars, &["saas-action", "discover"]);
    assert!(
        v["output"].as_str().unwrap().contains("COMPOSIO_BASE_URL"),
        "{v}"
    );
}
