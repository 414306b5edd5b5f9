//! Turning a fetched body into text: the charset, the kind of content, and the two
//! readable renderings of HTML.
//!
//! Markdown comes from `dom_smoothie` (a port of Mozilla's Readability, which finds
//! the main content and makes its links absolute) in its Markdown mode. The `text`
//! rendering walks the same main content with `dom_query` and writes it the way the
//! seed's simplifier did — `#` headings, `- ` list items, `text (url)` links — which
//! no crate produces; when Readability finds no article (a short or odd page), both
//! fall back to the whole body minus scripts, styles, navigation and other chrome.

use dom_query::{Document, NodeRef};
use dom_smoothie::{Config, Readability, TextMode};
use encoding_rs::Encoding;
use url::Url;

/// Elements that never carry readable content.
const SKIP: &[&str] = &[
    "script", "style", "noscript", "template", "svg", "head", "iframe", "object", "embed",
    "canvas", "button", "select", "input", "textarea",
];
/// Page chrome dropped when there is no article to extract.
const CHROME: &[&str] = &["nav", "header", "footer", "aside", "form"];

/// The charset a body is in: a BOM, then the `Content-Type` header's `charset`, then
/// (for HTML) a `<meta>` declaration in the first 1024 bytes, then UTF-8 if the bytes
/// are valid UTF-8, else windows-1252 (what browsers assume for undeclared pages).
pub fn charset(content_type: Option<&str>, body: &[u8], is_html: bool) -> &'static Encoding {
    if let Some((enc, _)) = Encoding::for_bom(body) {
        return enc;
    }
    if let Some(enc) = content_type.and_then(charset_param).and_then(label) {
        return enc;
    }
    if is_html && let Some(enc) = meta_charset(&body[..body.len().min(1024)]) {
        return enc;
    }
    match std::str::from_utf8(body) {
        Ok(_) => encoding_rs::UTF_8,
        // A body cut mid-character is still UTF-8.
        Err(e) if e.error_len().is_none() => encoding_rs::UTF_8,
        Err(_) => encoding_rs::WINDOWS_1252,
    }
}

/// The encoding a charset label names (`"Shift_JIS"`, `utf-8`, …).
pub fn label(name: &str) -> Option<&'static Encoding> {
    let enc = Encoding::for_label(name.trim().trim_matches(['"', '\'']).as_bytes())?;
    // A page that declares UTF-16 in ASCII is not UTF-16 (the HTML standard's rule).
    if enc == encoding_rs::UTF_16LE || enc == encoding_rs::UTF_16BE {
        return Some(encoding_rs::UTF_8);
    }
    Some(enc)
}

/// The `charset` parameter of a `Content-Type` value.
pub fn charset_param(content_type: &str) -> Option<&str> {
    content_type.split(';').skip(1).find_map(|p| {
        let (k, v) = p.split_once('=')?;
        k.trim().eq_ignore_ascii_case("charset").then_some(v)
    })
}

/// `<meta charset="x">` or `<meta http-equiv="Content-Type" content="…; charset=x">`.
fn meta_charset(head: &[u8]) -> Option<&'static Encoding> {
    let lower = head.to_ascii_lowercase();
    let mut from = 0;
    while let Some(at) = find(&lower[from..], b"<meta") {
        let start = from + at;
        let end = find(&lower[start..], b">").map_or(lower.len(), |e| start + e);
        let tag = &lower[start..end];
        if let Some(c) = find(tag, b"charset=") {
            let rest = &tag[c + 8..];
            let rest = rest
                .strip_prefix(b"\"")
                .or_else(|| rest.strip_prefix(b"'"))
                .unwrap_or(rest);
            let name: Vec<u8> = rest
                .iter()
                .copied()
                .take_while(|b| !matches!(b, b'"' | b'\'' | b';' | b' ' | b'/' | b'>'))
                .collect();
            if let Some(enc) = std::str::from_utf8(&name).ok().and_then(label) {
                return Some(enc);
            }
        }
        from = end;
    }
    None
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    memchr::memmem::find(hay, needle)
}

/// Decode `body` from `enc`. A body cut at `maxBytes` may end inside a character;
/// that partial character is dropped rather than shown as U+FFFD.
pub fn decode(body: &[u8], enc: &'static Encoding, truncated: bool) -> String {
    let mut decoder = enc.new_decoder_with_bom_removal();
    let mut out = String::with_capacity(
        decoder
            .max_utf8_buffer_length(body.len())
            .unwrap_or(body.len() * 3),
    );
    let (_, _, _) = decoder.decode_to_string(body, &mut out, !truncated);
    out
}

/// Does the body start like an HTML document (after whitespace and a BOM)?
pub fn looks_like_html(body: &[u8]) -> bool {
    let body = body.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(body);
    let start = body
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(body.len());
    let head = body[start..body.len().min(start + 64)].to_ascii_lowercase();
    [
        &b"<!doctype html"[..],
        b"<html",
        b"<head",
        b"<body",
        b"<!--",
    ]
    .iter()
    .any(|p| head.starts_with(p))
}

/// What a body is when its magic number says it is not text.
pub fn binary_kind(body: &[u8]) -> Option<&'static str> {
    const MAGIC: &[(&[u8], &str)] = &[
        (b"\x89PNG", "a PNG image"),
        (b"GIF8", "a GIF image"),
        (b"\xFF\xD8\xFF", "a JPEG image"),
        (b"%PDF", "a PDF document"),
        (b"PK\x03\x04", "a ZIP archive"),
        (b"\x1F\x8B", "gzip data"),
        (b"\x7FELF", "an executable"),
        (b"RIFF", "a RIFF (WebP/WAV/AVI) file"),
    ];
    if let Some((_, name)) = MAGIC.iter().find(|(m, _)| body.starts_with(m)) {
        return Some(name);
    }
    // UTF-16 text is full of NULs but is text.
    if body.starts_with(b"\xFF\xFE") || body.starts_with(b"\xFE\xFF") {
        return None;
    }
    let head = &body[..body.len().min(1024)];
    memchr::memchr(0, head).map(|_| "binary data")
}

/// The main content as Markdown, with its title.
pub fn to_markdown(html: &str, url: &Url) -> (String, String) {
    if let Some(article) = readable(html, url, TextMode::Markdown) {
        return (collapse(&article.title), article.text_content.to_string());
    }
    let doc = Document::from(html);
    let title = title_of(&doc);
    strip(&doc, true);
    absolutize(&doc, url);
    let body = doc.select("body");
    let md = match body.nodes().first() {
        Some(node) => node.md(None),
        None => doc.md(None),
    };
    (title, md.to_string())
}

/// The main content as plain text, with its title.
pub fn to_text(html: &str, url: &Url) -> (String, String) {
    let (title, doc) = match readable(html, url, TextMode::Raw) {
        Some(article) => (
            collapse(&article.title),
            Document::from(article.content.to_string()),
        ),
        None => {
            let doc = Document::from(html);
            let title = title_of(&doc);
            strip(&doc, true);
            (title, doc)
        }
    };
    let mut w = TextWriter::default();
    let body = doc.select("body");
    let root = body.nodes().first().copied().unwrap_or_else(|| doc.root());
    w.walk(&root, url);
    (title, w.finish())
}

fn readable(html: &str, url: &Url, mode: TextMode) -> Option<dom_smoothie::Article> {
    let cfg = Config {
        text_mode: mode,
        ..Default::default()
    };
    let mut r = Readability::new(html, Some(url.as_str()), Some(cfg)).ok()?;
    let article = r.parse().ok()?;
    (!article.text_content.trim().is_empty()).then_some(article)
}

fn title_of(doc: &Document) -> String {
    let t = doc.select("title");
    collapse(&t.text())
}

fn strip(doc: &Document, chrome: bool) {
    for name in SKIP {
        doc.select(name).remove();
    }
    if chrome {
        for name in CHROME {
            doc.select(name).remove();
        }
    }
}

fn absolutize(doc: &Document, url: &Url) {
    for (sel, attr) in [("a[href]", "href"), ("img[src]", "src")] {
        for node in doc.select(sel).nodes() {
            if let Some(v) = node.attr(attr)
                && let Ok(abs) = url.join(v.trim())
            {
                node.set_attr(attr, abs.as_str());
            }
        }
    }
}

fn collapse(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Writes text with lazily applied line breaks, so nested blocks never stack up
/// more than one blank line.
#[derive(Default)]
struct TextWriter {
    out: String,
    /// Newlines owed before the next text (0, 1 or 2).
    owed: usize,
    space: bool,
    lists: Vec<Option<u32>>,
    pre: usize,
}

impl TextWriter {
    fn block(&mut self, newlines: usize) {
        if !self.out.is_empty() {
            self.owed = self.owed.max(newlines);
        }
        self.space = false;
    }

    fn put(&mut self, text: &str) {
        if text.is_empty() {
            return;
        }
        if self.owed > 0 {
            while self.out.ends_with(' ') {
                self.out.pop();
            }
            for _ in 0..self.owed {
                self.out.push('\n');
            }
            self.owed = 0;
            self.space = false;
        } else if self.space && !self.out.is_empty() && !self.out.ends_with([' ', '\n']) {
            self.out.push(' ');
        }
        self.space = false;
        self.out.push_str(text);
    }

    fn words(&mut self, text: &str) {
        if self.pre > 0 {
            // Preformatted text keeps its lines; owed breaks still apply first.
            let mut first = true;
            for line in text.split('\n') {
                if !first {
                    self.out.push('\n');
                }
                first = false;
                if !line.is_empty() {
                    self.put(line);
                }
            }
            return;
        }
        if text.starts_with(char::is_whitespace) {
            self.space = true;
        }
        let mut words = text.split_whitespace().peekable();
        while let Some(word) = words.next() {
            self.put(word);
            if words.peek().is_some() {
                self.space = true;
            }
        }
        if text.ends_with(char::is_whitespace) {
            self.space = true;
        }
    }

    fn children(&mut self, node: &NodeRef, url: &Url) {
        for child in node.children() {
            self.walk(&child, url);
        }
    }

    fn walk(&mut self, node: &NodeRef, url: &Url) {
        if node.is_text() {
            self.words(&node.text());
            return;
        }
        if !node.is_element() {
            if node.is_document() || node.is_fragment() {
                self.children(node, url);
            }
            return;
        }
        let name = node
            .node_name()
            .map(|n| n.to_ascii_lowercase())
            .unwrap_or_default();
        let name = name.as_str();
        if SKIP.contains(&name) {
            return;
        }
        match name {
            "br" => {
                if self.pre > 0 {
                    self.out.push('\n');
                } else {
                    self.block(1);
                }
            }
            "h1" | "h2" | "h3" | "h4" | "h5" | "h6" => {
                let text = collapse(&node.text());
                if !text.is_empty() {
                    self.block(2);
                    let level = name.as_bytes()[1] - b'0';
                    self.put(&format!("{} {text}", "#".repeat(level as usize)));
                    self.block(2);
                }
            }
            "ul" | "ol" => {
                self.block(if self.lists.is_empty() { 2 } else { 1 });
                self.lists.push((name == "ol").then_some(1));
                self.children(node, url);
                self.lists.pop();
                self.block(2);
            }
            "li" => {
                self.block(1);
                let depth = self.lists.len().max(1);
                let marker = match self.lists.last_mut() {
                    Some(Some(n)) => {
                        *n += 1;
                        format!("{}.", *n - 1)
                    }
                    _ => "-".to_string(),
                };
                self.put(&format!("{}{marker}", "  ".repeat(depth - 1)));
                self.space = true;
                self.children(node, url);
                self.block(1);
            }
            "pre" => {
                self.block(2);
                self.pre += 1;
                self.children(node, url);
                self.pre -= 1;
                // The block break below supplies the line end.
                while self.out.ends_with('\n') {
                    self.out.pop();
                }
                self.block(2);
            }
            "a" => {
                let before = self.out.len();
                self.children(node, url);
                let shown = self.out[before..].trim().to_string();
                if let Some(href) = node.attr("href")
                    && let Ok(abs) = url.join(href.trim())
                    && matches!(abs.scheme(), "http" | "https")
                    && !href.trim_start().starts_with('#')
                    && shown != abs.as_str()
                    && !shown.is_empty()
                {
                    self.space = true;
                    self.put(&format!("({abs})"));
                }
            }
            "img" => {
                if let Some(alt) = node.attr("alt") {
                    let alt = collapse(&alt);
                    if !alt.is_empty() {
                        self.put(&format!("[{alt}]"));
                    }
                }
            }
            "td" | "th" => {
                self.space = true;
                self.children(node, url);
                self.space = true;
            }
            "p" | "blockquote" | "table" | "figure" | "dl" | "hr" => {
                self.block(2);
                self.children(node, url);
                self.block(2);
            }
            "div" | "section" | "article" | "main" | "tr" | "dt" | "dd" | "figcaption"
            | "details" | "summary" | "address" | "caption" | "body" | "html" | "header"
            | "footer" | "nav" | "aside" | "form" => {
                self.block(1);
                self.children(node, url);
                self.block(1);
            }
            _ => self.children(node, url),
        }
    }

    fn finish(self) -> String {
        let mut out = String::with_capacity(self.out.len());
        for line in self.out.lines() {
            out.push_str(line.trim_end());
            out.push('\n');
        }
        out.trim().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn base() -> Url {
        Url::parse("https://example.com/blog/post").unwrap()
    }

    #[test]
    fn charsets_come_from_bom_header_meta_then_content() {
        assert_eq!(
            charset(Some("text/html; charset=Shift_JIS"), b"x", true),
            encoding_rs::SHIFT_JIS
        );
        assert_eq!(
            charset(
                None,
                b"<html><head><meta charset=\"iso-8859-1\"></head>",
                true
            ),
            encoding_rs::WINDOWS_1252
        );
        assert_eq!(
            charset(
                None,
                b"<meta http-equiv=\"Content-Type\" content=\"text/html; charset=euc-jp\">",
                true
            ),
            encoding_rs::EUC_JP
        );
        assert_eq!(charset(None, "héllo".as_bytes(), true), encoding_rs::UTF_8);
        assert_eq!(charset(None, b"h\xe9llo", false), encoding_rs::WINDOWS_1252);
        assert_eq!(
            charset(Some("text/plain; charset=utf-16"), b"x", false),
            encoding_rs::UTF_8
        );
        assert_eq!(
            charset(Some("text/html"), b"\xEF\xBB\xBFx", true),
            encoding_rs::UTF_8
        );
    }

    #[test]
    fn shift_jis_decodes_and_a_cut_character_is_dropped() {
        let (bytes, _, _) = encoding_rs::SHIFT_JIS.encode("日本語のページ");
        assert_eq!(
            decode(&bytes, encoding_rs::SHIFT_JIS, false),
            "日本語のページ"
        );
        let cut = &"héllo".as_bytes()[..2];
        assert_eq!(decode(cut, encoding_rs::UTF_8, true), "h");
    }

    #[test]
    fn html_and_binaries_are_recognised() {
        assert!(looks_like_html(b"\n  <!DOCTYPE html><html>"));
        assert!(looks_like_html(b"<html lang=en>"));
        assert!(!looks_like_html(b"plain text <html>"));
        assert_eq!(binary_kind(b"\x89PNG\r\n"), Some("a PNG image"));
        assert_eq!(binary_kind(b"abc\0def"), Some("binary data"));
        assert_eq!(binary_kind(b"just text"), None);
    }

    #[test]
    fn text_keeps_headings_lists_links_and_drops_chrome() {
        let html = r#"<html><head><title>T</title><style>p{}</style></head><body>
            <nav><a href="/">Home</a></nav>
            <h1>Main   title</h1>
            <p>Read <a href="/docs">the docs</a> or <a href="https://x.org/">https://x.org/</a>.</p>
            <ul><li>one</li><li>two <b>bold</b><ul><li>nested</li></ul></li></ul>
            <ol><li>first</li><li>second</li></ol>
            <pre>fn main() {
    x &lt; y
}</pre>
            <script>alert(1)</script>
            <footer>© footer</footer></body></html>"#;
        let doc = Document::from(html);
        strip(&doc, true);
        let mut w = TextWriter::default();
        w.walk(&doc.select("body").nodes()[0], &base());
        assert_eq!(
            w.finish(),
            "# Main title\n\nRead the docs (https://example.com/docs) or https://x.org/.\n\n- one\n- two bold\n  - nested\n\n1. first\n2. second\n\nfn main() {\n    x < y\n}"
        );
    }

    #[test]
    fn a_page_without_an_article_falls_back_to_the_body() {
        let (title, text) = to_text(
            "<html><head><title> Tiny  page </title></head><body><nav>menu</nav><p>Just one line.</p></body></html>",
            &base(),
        );
        assert_eq!(title, "Tiny page");
        assert!(text.ends_with("Just one line."), "{text}");
        let (_, md) = to_markdown(
            "<html><body><p>See <a href=\"../about\">about</a>.</p></body></html>",
            &base(),
        );
        assert!(md.contains("[about](https://example.com/about)"), "{md}");
    }
}
