//! Reading a results page of DuckDuckGo's HTML endpoint: the organic results (title,
//! URL, snippet) or the verdict that the page is a bot check.
//!
//! Kept apart from the tool and free of I/O so that every layout rule can be tested
//! on a small hand-written page. The page is parsed with a real HTML parser
//! (`dom_query`, html5ever underneath) rather than regexes: DuckDuckGo's markup
//! drifts (attribute order, extra classes, nesting), entities must be decoded, and a
//! parser survives both. Two layouts are understood:
//!
//! - the classic one, whose links go through DuckDuckGo's redirect
//!   `//duckduckgo.com/l/?uddg=<percent-encoded target>&rut=…`, unwrapped here;
//! - the newer one, whose organic links are direct URLs, next to ads (containers
//!   with `result--ad`, links to `duckduckgo.com/y.js?ad_domain=…`) and a zero-click
//!   box (`zci-wrapper`/`zci`); neither of those is a result.

use std::collections::HashSet;

use dom_query::{Document, Selection};
use serde::Serialize;
use url::Url;

/// One organic result. Serializes as `{title, url, snippet}`, in that order.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SearchResult {
    /// The title's text, whitespace collapsed (the URL when the title is empty).
    pub title: String,
    /// The target, unwrapped from DuckDuckGo's redirect; always http or https.
    pub url: String,
    /// The snippet's text, whitespace collapsed; empty when the result has none.
    pub snippet: String,
}

/// What a page turned out to be.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Page {
    /// A results page: its organic results in page order, deduplicated by URL (the
    /// first occurrence wins). Empty when the search found nothing.
    Results(Vec<SearchResult>),
    /// A bot check ("anomaly" challenge): the search was refused, not empty.
    Blocked,
}

/// The address relative and protocol-relative links are resolved against.
const PAGE_BASE: &str = "https://html.duckduckgo.com/html/";

/// Result containers (the classic page puts both classes on one element).
const CONTAINER: &str = ".result, .web-result";
/// A container's title link.
const TITLE: &str = "a.result__a";
/// A container's snippet (an `<a>` on the classic page, a `<div>` on some newer ones).
const SNIPPET: &str = ".result__snippet";
/// Where a container is not an organic result: an ad, or inside the zero-click box.
const NOT_ORGANIC: &str = ".result--ad, .zci-wrapper, .zci";
/// The marks of the bot-check page.
const CHALLENGE: &str =
    "#challenge-form, .challenge-form, form[action*=\"anomaly.js\"], [class*=\"anomaly-modal\"]";

/// Read a results page.
///
/// A page with no title link at all (`result__a`) but with the bot check's form or
/// modal is [`Page::Blocked`]; any other page yields its results, possibly none.
pub fn parse_results(html: &str) -> Page {
    let doc = Document::from(html);
    if !doc.select(".result__a").exists() && doc.select(CHALLENGE).exists() {
        return Page::Blocked;
    }
    let mut results = Vec::new();
    let mut seen = HashSet::new();
    for container in doc.select(CONTAINER).iter() {
        let ancestors = container.ancestors(None);
        // A container nested in another is read as part of the outer one.
        if ancestors.is(CONTAINER) || container.is(NOT_ORGANIC) || ancestors.is(NOT_ORGANIC) {
            continue;
        }
        if let Some(result) = read_result(&container)
            && seen.insert(result.url.clone())
        {
            results.push(result);
        }
    }
    Page::Results(results)
}

/// One container's result, or `None` when it has no usable title link.
fn read_result(container: &Selection) -> Option<SearchResult> {
    let anchor = container.select(TITLE).first();
    let url = result_url(&anchor.attr("href")?)?;
    let mut title = collapse(&anchor.text());
    if title.is_empty() {
        title = url.clone();
    }
    let snippet = collapse(&container.select(SNIPPET).first().text());
    Some(SearchResult {
        title,
        url,
        snippet,
    })
}

/// A result link's real target: DuckDuckGo's `/l/?uddg=` redirect unwrapped
/// (`//duckduckgo.com/l/…`, `https://duckduckgo.com/l/…` or relative `/l/…`), a
/// direct link taken as it is. `None` for an ad (`duckduckgo.com/y.js`), a link
/// that does not parse, and anything but http/https. The URL comes back in the
/// `url` crate's normal form (`https://example.com` gains its `/`, spaces become
/// `%20`), so two spellings of one address deduplicate.
pub fn result_url(href: &str) -> Option<String> {
    let base = Url::parse(PAGE_BASE).expect("PAGE_BASE is a valid URL");
    let link = base.join(href.trim()).ok()?;
    let target = if is_ddg(&link) && matches!(link.path(), "/l/" | "/l") {
        let (_, uddg) = link.query_pairs().find(|(k, _)| k == "uddg")?;
        Url::parse(&uddg).ok()?
    } else {
        link
    };
    let web = matches!(target.scheme(), "http" | "https");
    let ad = is_ddg(&target) && target.path() == "/y.js";
    (web && !ad).then(|| target.to_string())
}

/// `duckduckgo.com` or one of its subdomains.
fn is_ddg(url: &Url) -> bool {
    url.host_str()
        .is_some_and(|h| h == "duckduckgo.com" || h.ends_with(".duckduckgo.com"))
}

/// Runs of whitespace (including no-break spaces) as one space, none at the ends.
fn collapse(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn results(html: &str) -> Vec<SearchResult> {
        match parse_results(html) {
            Page::Results(r) => r,
            Page::Blocked => panic!("unexpectedly blocked"),
        }
    }

    fn r(title: &str, url: &str, snippet: &str) -> SearchResult {
        SearchResult {
            title: title.into(),
            url: url.into(),
            snippet: snippet.into(),
        }
    }

    /// A result of the classic layout, as DuckDuckGo nests it.
    fn classic(href: &str, title: &str, snippet: &str) -> String {
        format!(
            r#"<div class="result results_links results_links_deep web-result ">
              <div class="links_main links_deep result__body">
                <h2 class="result__title">
                  <a rel="nofollow" class="result__a" href="{href}">{title}</a>
                </h2>
                <div class="result__extras"><div class="result__extras__url">
                  <a class="result__url" href="{href}">shown url</a>
                  <span>&nbsp; &nbsp; 2025-01-11T00:00:00.0000000</span>
                </div></div>
                <a class="result__snippet" href="{href}">{snippet}</a>
              </div>
            </div>"#
        )
    }

    fn page(body: &str) -> String {
        format!(
            "<!DOCTYPE html><html><head><title>q at DuckDuckGo</title></head><body><div id=\"links\" class=\"results\">{body}</div></body></html>"
        )
    }

    #[test]
    fn classic_layout_unwraps_uddg_and_decodes_entities() {
        let html = page(&[
            classic(
                "//duckduckgo.com/l/?uddg=https%3A%2F%2Fwww.dictionary.com%2Fe%2Ftech%2Dscience%2Ffoo%2F&amp;rut=006fcd",
                "foo | Meaning &amp; Origin - Dictionary.com",
                "<b>Foo</b> is a term &quot;<b>Foo</b> was here&quot; &#x27;quoted&#x27;",
            ),
            classic(
                "//duckduckgo.com/l/?uddg=https%3A%2F%2Fwww.youtube.com%2Fwatch%3Fv%3DeBG7P%2DK%2Dr1Y&amp;rut=3211",
                "Foo Fighters - Everlong",
                "",
            ),
        ]
        .concat());
        assert_eq!(
            results(&html),
            vec![
                r(
                    "foo | Meaning & Origin - Dictionary.com",
                    "https://www.dictionary.com/e/tech-science/foo/",
                    "Foo is a term \"Foo was here\" 'quoted'"
                ),
                r(
                    "Foo Fighters - Everlong",
                    "https://www.youtube.com/watch?v=eBG7P-K-r1Y",
                    ""
                ),
            ]
        );
    }

    #[test]
    fn japanese_text_survives() {
        let html = page(&classic(
            "//duckduckgo.com/l/?uddg=https%3A%2F%2Ffootokyo.jp%2F&amp;rut=27e7",
            "Foo Tokyo｜Official Website（フートウキョウ公式）",
            "シルクパジャマの<b>Foo</b> Tokyo(フートウキョウ)公式サイトです。",
        ));
        assert_eq!(
            results(&html),
            vec![r(
                "Foo Tokyo｜Official Website（フートウキョウ公式）",
                "https://footokyo.jp/",
                "シルクパジャマのFoo Tokyo(フートウキョウ)公式サイトです。"
            )]
        );
    }

    #[test]
    fn uddg_links_in_every_spelling() {
        let want = Some("https://example.com/a%20b?x=1&y=2".to_string());
        for href in [
            "//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.com%2Fa%2520b%3Fx%3D1%26y%3D2&rut=ab",
            "https://duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.com%2Fa%2520b%3Fx%3D1%26y%3D2&rut=ab",
            "/l/?uddg=https%3A%2F%2Fexample.com%2Fa%2520b%3Fx%3D1%26y%3D2&rut=ab",
            "/l/?kh=-1&uddg=https%3A%2F%2Fexample.com%2Fa%2520b%3Fx%3D1%26y%3D2",
            "  https://example.com/a%20b?x=1&y=2 ",
        ] {
            assert_eq!(result_url(href), want, "{href}");
        }
        // Decoded non-ASCII paths come back percent-encoded, as a URL must be.
        assert_eq!(
            result_url(
                "//duckduckgo.com/l/?uddg=https%3A%2F%2Fja.wikipedia.org%2Fwiki%2F%E6%97%A5%E6%9C%AC"
            ),
            Some("https://ja.wikipedia.org/wiki/%E6%97%A5%E6%9C%AC".to_string())
        );
        assert_eq!(
            result_url("http://Example.COM"),
            Some("http://example.com/".to_string())
        );
    }

    #[test]
    fn links_that_are_not_results() {
        for href in [
            "https://duckduckgo.com/y.js?ad_domain=shop.example&ad_provider=bing&u3=x",
            "//duckduckgo.com/y.js?ad_domain=shop.example",
            "//duckduckgo.com/l/?uddg=https%3A%2F%2Fduckduckgo.com%2Fy.js%3Fad_domain%3Dx",
            "//duckduckgo.com/l/?rut=abc",
            "//duckduckgo.com/l/?uddg=not%20a%20url",
            "//duckduckgo.com/l/?uddg=ftp%3A%2F%2Fexample.com%2F",
            "mailto:someone@example.com",
            "javascript:void(0)",
            "http://",
        ] {
            assert_eq!(result_url(href), None, "{href}");
        }
        // A DuckDuckGo page that is neither the redirect nor an ad is a result.
        assert_eq!(
            result_url("https://duckduckgo.com/privacy"),
            Some("https://duckduckgo.com/privacy".to_string())
        );
    }

    #[test]
    fn newer_layout_skips_ads_and_the_zero_click_box() {
        let html = page(
            r#"
            <div class="zci-wrapper"><div class="zci">
              <h1 class="zci__heading"><a rel="nofollow" href="https://en.wikipedia.org/wiki/Foo">Foo</a></h1>
              <div class="zci__result">Foo is a placeholder. <a class="result__a" href="https://en.wikipedia.org/wiki/Foo">More at Wikipedia</a></div>
              <div class="result"><a class="result__a" href="https://zci.example/">inside the box</a></div>
            </div></div>
            <div class="result results_links results_links_deep result--ad result--ad--small">
              <div class="links_main links_deep result__body">
                <h2 class="result__title"><a class="result__a" href="https://duckduckgo.com/y.js?ad_domain=shop.example&amp;ad_provider=bingv7aa&amp;u3=x">Buy Foo Now</a></h2>
                <a class="result__snippet" href="https://duckduckgo.com/y.js?ad_domain=shop.example">Best prices.</a>
              </div>
            </div>
            <div class="result results_links results_links_deep web-result">
              <div class="links_main links_deep result__body">
                <h2 class="result__title"><a rel="nofollow" class="result__a" href="https://www.rust-lang.org/">Rust   Programming
                  Language</a></h2>
                <div class="result__snippet">A language empowering <b>everyone</b>.</div>
              </div>
            </div>
            <div class="result results_links web-result">
              <h2 class="result__title"><a class="result__a" href="https://duckduckgo.com/y.js?ad_domain=other.example">Unmarked ad</a></h2>
            </div>
            <div class="result web-result">
              <h2 class="result__title"><a class="result__a" href="https://doc.rust-lang.org/book/">The Book</a></h2>
            </div>
            "#,
        );
        assert_eq!(
            results(&html),
            vec![
                r(
                    "Rust Programming Language",
                    "https://www.rust-lang.org/",
                    "A language empowering everyone."
                ),
                r("The Book", "https://doc.rust-lang.org/book/", ""),
            ]
        );
    }

    #[test]
    fn duplicates_keep_the_first() {
        let html = page(
            &[
                classic(
                    "//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.com&rut=1",
                    "First",
                    "one",
                ),
                classic("https://example.com/", "Second", "two"),
                classic("https://example.org/", "Third", "three"),
                classic(
                    "//duckduckgo.com/l/?uddg=https%3A%2F%2Fexample.org%2F&rut=2",
                    "Fourth",
                    "four",
                ),
            ]
            .concat(),
        );
        assert_eq!(
            results(&html),
            vec![
                r("First", "https://example.com/", "one"),
                r("Third", "https://example.org/", "three"),
            ]
        );
    }

    #[test]
    fn an_empty_title_shows_the_url_and_a_missing_href_is_skipped() {
        let html = page(
            r#"<div class="result"><a class="result__a" href="https://a.example/x">  </a></div>
               <div class="result"><a class="result__a">no link</a></div>
               <div class="result"><div class="no-results">No results.</div></div>"#,
        );
        assert_eq!(
            results(&html),
            vec![r("https://a.example/x", "https://a.example/x", "")]
        );
    }

    #[test]
    fn an_empty_page_is_no_results_not_blocked() {
        let html = page(
            r#"<div class="result results_links results_links_deep result--no-result">
                 <div class="no-results">No results.</div>
               </div>"#,
        );
        assert_eq!(parse_results(&html), Page::Results(vec![]));
        assert_eq!(parse_results(""), Page::Results(vec![]));
        assert_eq!(
            parse_results("not html at all < > &"),
            Page::Results(vec![])
        );
    }

    #[test]
    fn the_bot_check_is_blocked() {
        let form = r#"<html><body><form id="challenge-form" action="//duckduckgo.com/anomaly.js?sv=html&amp;cc=botnet" method="POST">
            <div class="anomaly-modal__mask"><div class="anomaly-modal__modal">
            <div class="anomaly-modal__title">Unfortunately, bots use DuckDuckGo too.</div>
            </div></div></form></body></html>"#;
        assert_eq!(parse_results(form), Page::Blocked);
        let modal_only =
            r#"<div class="anomaly-modal__title">Select all squares containing a duck</div>"#;
        assert_eq!(parse_results(modal_only), Page::Blocked);
        // A challenge mark next to real results does not hide them.
        let mixed = format!(
            "{}<div class=\"anomaly-modal__mask\"></div>",
            classic("https://example.com/", "Kept", "")
        );
        assert_eq!(
            parse_results(&mixed),
            Page::Results(vec![r("Kept", "https://example.com/", "")])
        );
        // The words in text (a query echoed back) are not the check.
        let echoed = page(
            r#"<input name="q" value="challenge-form anomaly-modal"><div class="no-results">No results.</div>"#,
        );
        assert_eq!(parse_results(&echoed), Page::Results(vec![]));
    }

    #[test]
    fn results_serialize_in_key_order() {
        let json = serde_json::to_string(&r("T", "https://x.example/", "S")).unwrap();
        assert_eq!(
            json,
            r#"{"title":"T","url":"https://x.example/","snippet":"S"}"#
        );
    }
}
