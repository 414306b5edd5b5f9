//! Turning a fetched body into text: the charset, the kind of content, and the two
//! readable renderings of HTML.
//!
//! Both renderings start from the same main content: `dom_smoothie` (a port of
//! Mozilla's Readability) finds it, or, when it finds no article (a short or odd
//! page), the whole body minus scripts, styles, navigation and other chrome stands
//! in; the page's headline goes on top. Markdown is then written by `dom_query`'s
//! serializer; the `text` rendering is our own walk of the same tree — `#` headings,
//! `- ` and `1. ` items, `text [n]` links — which no crate produces. Link and image
//! addresses become numbered references listed after the content ([`Page`]), so a
//! page that repeats a long URL pays for it once, and the content can be cut to a
//! byte budget together with exactly the references it still uses.

use std::collections::HashMap;
use std::ops::Range;

use dom_query::{Document, NodeRef};
use dom_smoothie::{Config, Readability, TextMode};
use encoding_rs::Encoding;
use url::Url;

use crate::kernel::output::floor_char_boundary;
use crate::tools::longest_fitting_prefix;

/// Elements that never carry readable content.
const SKIP: &[&str] = &[
    "script", "style", "noscript", "template", "svg", "head", "iframe", "object", "embed",
    "canvas", "button", "select", "input", "textarea",
];
/// Page chrome dropped when there is no article to extract.
const CHROME: &[&str] = &["nav", "header", "footer", "aside", "form"];

/// The charset a body is in: a BOM; then UTF-8 when the bytes are valid UTF-8 and
/// not all ASCII, whatever the page declares; then the `Content-Type` header's
/// `charset`; then (for HTML) a `<meta>` declaration in the first 1024 bytes; then
/// UTF-8 if the bytes are valid UTF-8, else windows-1252 (what browsers assume for
/// undeclared pages).
///
/// The bytes outrank the declarations because pages are often re-saved as UTF-8 by
/// a tool that leaves the old `gb2312` or `iso-8859-1` label behind; a legacy text
/// long enough to matter is practically never valid UTF-8 by accident, so the test
/// costs nothing on pages that are what they say. All-ASCII bodies still follow the
/// label: stateful encodings such as ISO-2022-JP are written in ASCII bytes.
pub fn charset(content_type: Option<&str>, body: &[u8], is_html: bool) -> &'static Encoding {
    if let Some((enc, _)) = Encoding::for_bom(body) {
        return enc;
    }
    // A body cut mid-character is still UTF-8; the cut character is no evidence.
    let (utf8, whole) = match std::str::from_utf8(body) {
        Ok(_) => (true, body.len()),
        Err(e) => (e.error_len().is_none(), e.valid_up_to()),
    };
    if utf8 && !body[..whole].is_ascii() {
        return encoding_rs::UTF_8;
    }
    if let Some(enc) = content_type.and_then(charset_param).and_then(label) {
        return enc;
    }
    if is_html && let Some(enc) = meta_charset(&body[..body.len().min(1024)]) {
        return enc;
    }
    if utf8 {
        encoding_rs::UTF_8
    } else {
        encoding_rs::WINDOWS_1252
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

/// How a page's main content is written out.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Style {
    /// Plain text: `#` headings, `- ` items, `text [n]` links.
    Text,
    /// Markdown: `[text][n]` links, `![alt][n]` images.
    Markdown,
}

/// Rendered content with its link references: `body` uses `[n]` (text) or
/// `[text][n]` (Markdown) and `links[n - 1]` is the URL, so a long URL costs its
/// bytes once however often the page links to it.
#[derive(Debug, Default)]
pub struct Page {
    /// The page's headline (its own `<h1>`, or its title), empty for passed-through
    /// text.
    pub title: String,
    body: String,
    /// Numbered in order of first use in `body`, each URL once.
    links: Vec<String>,
    /// Where each reference marker sits in `body`, with its number: a cut never
    /// splits one, and the markers a cut keeps say which references it still needs.
    marks: Vec<(Range<usize>, usize)>,
}

impl Page {
    /// Text without references (a passed-through body, the raw HTML).
    pub fn plain(body: String) -> Self {
        Self {
            body,
            ..Self::default()
        }
    }

    /// The body then, after a blank line, one `[n]: URL` line per reference, in at
    /// most `max` bytes; and whether anything was cut. A cut falls on a character
    /// boundary, never inside a marker, and keeps only the references that the
    /// kept text uses — which, numbered by first use, are always `1..=k`.
    pub fn fit(&self, max: usize) -> (String, bool) {
        if self.len_at(self.body.len()) <= max {
            return (self.assemble(self.body.len()), false);
        }
        // Longer text never needs fewer references, so the length grows with the
        // cut and the longest cut that fits can be searched for.
        let best =
            longest_fitting_prefix(self.body.len(), |c| self.len_at(self.cut_point(c)) <= max);
        (self.assemble(self.cut_point(best)), true)
    }

    /// The body cut at `cut` and the references it uses.
    fn assemble(&self, cut: usize) -> String {
        let mut out = self.body[..cut].trim_end().to_string();
        for (i, link) in self.links[..self.used_before(cut)].iter().enumerate() {
            out.push_str(if i == 0 { "\n\n" } else { "\n" });
            out.push_str(&format!("[{}]: {link}", i + 1));
        }
        out
    }

    /// `assemble(cut).len()`, without assembling.
    fn len_at(&self, cut: usize) -> usize {
        let refs: usize = self.links[..self.used_before(cut)]
            .iter()
            .enumerate()
            .map(|(i, link)| {
                format!("[{}]: ", i + 1).len() + link.len() + if i == 0 { 2 } else { 1 }
            })
            .sum();
        self.body[..cut].trim_end().len() + refs
    }

    fn cut_point(&self, budget: usize) -> usize {
        let cut = floor_char_boundary(&self.body, budget);
        self.marks
            .iter()
            .find(|(r, _)| r.start < cut && cut < r.end)
            .map_or(cut, |(r, _)| r.start)
    }

    /// How many references the text before `cut` uses.
    fn used_before(&self, cut: usize) -> usize {
        self.marks
            .iter()
            .take_while(|(r, _)| r.end <= cut)
            .map(|&(_, n)| n)
            .max()
            .unwrap_or(0)
    }
}

/// The main content of an HTML page, as text or Markdown, headed by the page's
/// headline (see [`main_content`]).
pub fn render(html: &str, url: &Url, style: Style) -> Page {
    let (headline, doc) = main_content(html, url);
    drop_heading(&doc, &headline);
    let tokens = Tokens::new(html);
    let body = doc.select("body");
    let root = body.nodes().first().copied().unwrap_or_else(|| doc.root());
    let (content, targets) = match style {
        Style::Markdown => {
            let targets = mark_links(&doc, url, &tokens);
            (root.md(None).to_string(), targets)
        }
        Style::Text => {
            let mut w = TextWriter::new(&tokens);
            w.walk(&root, url);
            let targets = std::mem::take(&mut w.targets);
            (w.finish(), targets)
        }
    };
    let raw = match (headline.is_empty(), style) {
        (true, _) => content,
        (false, Style::Text) => format!("# {headline}\n\n{content}"),
        (false, Style::Markdown) => format!("# {}\n\n{content}", md_heading_text(&headline)),
    };
    let mut page = tokens.resolve(&raw, &targets);
    page.title = headline;
    page
}

/// The page's headline and its main content. Readability (`dom_smoothie`) finds the
/// content; when it finds no article (a short or odd page) the whole body minus
/// scripts, styles, navigation and other chrome stands in. The headline is the
/// page's first `<h1>` outside the chrome (see [`headline_of`]) — Readability
/// drops an `<h1>` that resembles the `<title>`, or leaves it outside the content
/// it picks — and failing one, the title as Readability reads it.
fn main_content(html: &str, url: &Url) -> (String, Document) {
    let cfg = Config {
        text_mode: TextMode::Raw,
        ..Default::default()
    };
    if let Ok(mut r) = Readability::new(html, Some(url.as_str()), Some(cfg)) {
        let h1 = headline_of(&r.doc, url);
        if let Ok(article) = r.parse()
            && !article.text_content.trim().is_empty()
        {
            let headline = h1.unwrap_or_else(|| collapse(&article.title));
            return (headline, Document::from(article.content));
        }
    }
    let doc = Document::from(html);
    let headline = headline_of(&doc, url).unwrap_or_else(|| title_of(&doc));
    strip(&doc, true);
    absolutize(&doc, url);
    (headline, doc)
}

/// The text of the first `<h1>` that is the page's own: not inside navigation, a
/// footer or a sidebar, nor in a `<header>` outside any `<article>`/`<main>` (a
/// site banner), and not just a link to the site's front page (a logo).
fn headline_of(doc: &Document, url: &Url) -> Option<String> {
    doc.select("h1").nodes().iter().find_map(|h| {
        let text = collapse(&h.text());
        (!text.is_empty() && !in_chrome(h) && !is_home_link(h, &text, url)).then_some(text)
    })
}

fn in_chrome(node: &NodeRef) -> bool {
    let (mut banner, mut content) = (false, false);
    for a in node.ancestors_it(None) {
        let role = a.attr("role").map(|r| r.to_ascii_lowercase());
        match (element_name(&a).as_str(), role.as_deref()) {
            ("nav" | "aside" | "footer", _)
            | (_, Some("navigation" | "complementary" | "contentinfo")) => return true,
            ("header", _) | (_, Some("banner")) => banner = true,
            ("article" | "main", _) | (_, Some("main" | "article")) => content = true,
            _ => {}
        }
    }
    banner && !content
}

fn is_home_link(h1: &NodeRef, text: &str, url: &Url) -> bool {
    let links = descendants_named(h1, "a");
    let [a] = links.as_slice() else {
        return false;
    };
    collapse(&a.text()) == text
        && a.attr("href")
            .and_then(|href| url.join(href.trim()).ok())
            .is_some_and(|home| {
                home.host_str() == url.host_str() && home.path() == "/" && home.query().is_none()
            })
}

/// Drop the first heading of the content that says the same as `headline`: the
/// headline goes on top, once.
fn drop_heading(doc: &Document, headline: &str) {
    if headline.is_empty() {
        return;
    }
    let wanted = headline.to_lowercase();
    if let Some(h) = doc
        .select("h1, h2, h3, h4, h5, h6")
        .nodes()
        .iter()
        .find(|h| collapse(&h.text()).to_lowercase() == wanted)
    {
        h.remove_from_parent();
    }
}

/// A headline as the text of a Markdown heading: only what would change its
/// meaning is escaped (emphasis, code, link and HTML openers, a closing `#` run),
/// so an ordinary title such as `Foo | Bar` reads as written.
fn md_heading_text(headline: &str) -> String {
    let mut out = String::with_capacity(headline.len());
    for c in headline.chars() {
        if matches!(c, '\\' | '`' | '*' | '_' | '[' | ']' | '<') {
            out.push('\\');
        }
        out.push(c);
    }
    if out.ends_with('#') {
        let run = out.len() - out.trim_end_matches('#').len();
        out.insert(out.len() - run, '\\');
    }
    out
}

/// Where a link leads, if it leads off the page to a web address: links to the page
/// itself (anchors included) and `javascript:`/`mailto:` links have nothing to
/// reference.
fn link_target(page: &Url, href: &str) -> Option<Url> {
    let href = href.trim();
    if href.starts_with('#') {
        return None;
    }
    let abs = page.join(href).ok()?;
    if !matches!(abs.scheme(), "http" | "https") {
        return None;
    }
    let mut bare = abs.clone();
    bare.set_fragment(None);
    let mut here = page.clone();
    here.set_fragment(None);
    (bare != here).then_some(abs)
}

/// Where an image is: `src`, else the first `srcset` candidate, else `data-src`
/// (lazy loading), as an http(s) URL.
fn image_source(img: &NodeRef, page: &Url) -> Option<Url> {
    let src = img
        .attr("src")
        .filter(|s| !s.trim().is_empty())
        .map(|s| s.trim().to_string())
        .or_else(|| {
            img.attr("srcset").and_then(|s| {
                s.split_ascii_whitespace()
                    .next()
                    .map(|u| u.trim_end_matches(',').to_string())
            })
        })
        .or_else(|| img.attr("data-src").map(|s| s.trim().to_string()))?;
    let abs = page.join(&src).ok()?;
    matches!(abs.scheme(), "http" | "https").then_some(abs)
}

/// Image file extensions: an alt text ending in one is a file name, not a description.
const IMAGE_EXTENSIONS: &[&str] = &[
    "png", "jpg", "jpeg", "gif", "webp", "svg", "avif", "bmp", "ico", "tif", "tiff", "heic",
];

/// Does `alt` describe the image? Not when it is empty, a URL, a file name, or the
/// image's own file name or its stem — CMSs fill alt with those, and they only
/// cost bytes.
fn useful_alt(alt: &str, src: Option<&Url>) -> bool {
    let lower = alt.to_lowercase();
    if lower.is_empty() || lower.contains("://") {
        return false;
    }
    if lower
        .rsplit_once('.')
        .is_some_and(|(_, ext)| IMAGE_EXTENSIONS.contains(&ext))
    {
        return false;
    }
    let file = src
        .and_then(|u| u.path_segments().and_then(|mut s| s.next_back()))
        .unwrap_or("")
        .to_lowercase();
    let stem = file.rsplit_once('.').map_or(file.as_str(), |(s, _)| s);
    lower != file && lower != stem
}

/// Is `node` inside a code element? Markdown writes code as its bare text, so
/// links and images there are left alone.
fn in_code(node: &NodeRef) -> bool {
    node.ancestors_it(None)
        .any(|a| matches!(element_name(&a).as_str(), "pre" | "code"))
}

fn descendants_named<'a>(node: &NodeRef<'a>, name: &str) -> Vec<NodeRef<'a>> {
    node.descendants_it()
        .filter(|d| d.is_element() && element_name(d) == name)
        .collect()
}

fn element_name(node: &NodeRef) -> String {
    node.node_name()
        .map(|n| n.to_ascii_lowercase())
        .unwrap_or_default()
}

/// Replace an element by its children.
fn unwrap(node: &NodeRef) {
    if let Some(first) = node.first_child() {
        node.insert_siblings_before(&first);
    }
    node.remove_from_parent();
}

/// Prepare the content for the Markdown serializer: images without a useful alt
/// text or an http(s) address go; the rest, and every link that leads off the
/// page, get a token for an address (see [`Tokens`]); links that lead nowhere
/// useful become their text; a link that shows its own URL becomes an autolink.
/// Returns the addresses, indexed by token.
fn mark_links(doc: &Document, url: &Url, tokens: &Tokens) -> Vec<String> {
    let mut targets = Vec::new();
    for img in doc.select("img").nodes() {
        if in_code(img) {
            continue;
        }
        let alt = collapse(&img.attr("alt").unwrap_or_default());
        match image_source(img, url) {
            Some(src) if useful_alt(&alt, Some(&src)) => {
                img.set_attr("src", &tokens.link(targets.len()));
                img.set_attr("alt", &alt);
                img.remove_attrs(&["srcset", "data-src", "title"]);
                targets.push(src.to_string());
            }
            _ => img.remove_from_parent(),
        }
    }
    for a in doc.select("a").nodes() {
        if in_code(a) {
            continue;
        }
        let Some((href, target)) = a
            .attr("href")
            .and_then(|href| Some((href.clone(), link_target(url, &href)?)))
        else {
            unwrap(a);
            continue;
        };
        a.remove_attr("title");
        let shown = collapse(&a.text());
        if !shown.is_empty()
            && (shown == target.as_str() || shown == href.trim())
            && descendants_named(a, "img").is_empty()
        {
            a.replace_with_html(tokens.auto(targets.len()));
        } else {
            a.set_attr("href", &tokens.link(targets.len()));
        }
        targets.push(target.to_string());
    }
    targets
}

/// Placeholders for link addresses, resolved into numbered references after the
/// content is written. The renderers (ours for text, `dom_query`'s for Markdown)
/// write a token where an address goes; numbering the tokens in the order they
/// come out of the finished text is what makes references run 1, 2, 3 in reading
/// order, skip links the renderer left out, and share one number per URL. A token
/// is `PREFIX l K z` (a reference to address K) or `PREFIX u K z` (an autolink),
/// all alphanumeric so no escaping touches it, with a prefix the page never
/// contains.
struct Tokens {
    prefix: String,
}

impl Tokens {
    fn new(html: &str) -> Self {
        let mut prefix = String::from("wfref");
        while html.contains(&prefix) {
            prefix.push('q');
        }
        Self { prefix }
    }

    fn link(&self, k: usize) -> String {
        format!("{}l{k}z", self.prefix)
    }

    fn auto(&self, k: usize) -> String {
        format!("{}u{k}z", self.prefix)
    }

    /// Replace the tokens in `raw`: Markdown's `[text](TOKEN)` becomes
    /// `[text][n]`, a bare token `[n]`, an autolink token `<URL>`.
    fn resolve(&self, raw: &str, targets: &[String]) -> Page {
        let mut page = Page::default();
        let mut numbers: HashMap<&str, usize> = HashMap::new();
        let mut rest = raw;
        while let Some(at) = rest.find(&self.prefix) {
            let before = &rest[..at];
            let tail = &rest[at + self.prefix.len()..];
            let kind = tail.bytes().next();
            let digits = tail.bytes().skip(1).take_while(u8::is_ascii_digit).count();
            let target = tail
                .get(1..1 + digits)
                .and_then(|d| d.parse::<usize>().ok())
                .and_then(|k| targets.get(k))
                .filter(|_| tail.as_bytes().get(1 + digits) == Some(&b'z'));
            let (Some(kind @ (b'l' | b'u')), Some(target)) = (kind, target) else {
                page.body.push_str(before);
                page.body.push_str(&self.prefix);
                rest = tail;
                continue;
            };
            let after = &tail[digits + 2..];
            if kind == b'u' {
                page.body.push_str(before);
                page.body.push('<');
                page.body.push_str(target);
                page.body.push('>');
                rest = after;
                continue;
            }
            let next = numbers.len() + 1;
            let n = *numbers.entry(target.as_str()).or_insert(next);
            if n == next {
                page.links.push(target.clone());
            }
            let start;
            if let (Some(text), Some(after)) = (before.strip_suffix("]("), after.strip_prefix(')'))
            {
                page.body.push_str(text);
                start = page.body.len();
                page.body.push_str(&format!("][{n}]"));
                rest = after;
            } else {
                page.body.push_str(before);
                start = page.body.len();
                page.body.push_str(&format!("[{n}]"));
                rest = after;
            }
            page.marks.push((start..page.body.len(), n));
        }
        page.body.push_str(rest);
        page.body = page.body.trim().to_string();
        page
    }
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
struct TextWriter<'t> {
    out: String,
    /// Newlines owed before the next text (0, 1 or 2).
    owed: usize,
    space: bool,
    lists: Vec<Option<u32>>,
    pre: usize,
    /// What starts each new line: inside a list item, the spaces that line its
    /// later lines up under its text.
    indent: String,
    /// A list item's marker was just written: the item's first block goes on the
    /// marker's line (`1. text`, not `1.` over `text`).
    after_marker: bool,
    tokens: &'t Tokens,
    /// Link addresses, indexed by the tokens written for them.
    targets: Vec<String>,
}

impl<'t> TextWriter<'t> {
    fn new(tokens: &'t Tokens) -> Self {
        Self {
            out: String::new(),
            owed: 0,
            space: false,
            lists: Vec::new(),
            pre: 0,
            indent: String::new(),
            after_marker: false,
            tokens,
            targets: Vec::new(),
        }
    }

    fn block(&mut self, newlines: usize) {
        if self.after_marker {
            return;
        }
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
            self.out.push_str(&self.indent);
            self.owed = 0;
            self.space = false;
        } else if self.space && !self.out.is_empty() && !self.out.ends_with([' ', '\n']) {
            self.out.push(' ');
        }
        self.space = false;
        self.after_marker = false;
        self.out.push_str(text);
    }

    fn newline_in_pre(&mut self) {
        self.out.push('\n');
        self.out.push_str(&self.indent);
    }

    fn words(&mut self, text: &str) {
        if self.pre > 0 {
            // Preformatted text keeps its lines; owed breaks still apply first.
            let mut first = true;
            for line in text.split('\n') {
                if !first {
                    self.newline_in_pre();
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
        let name = element_name(node);
        let name = name.as_str();
        if SKIP.contains(&name) {
            return;
        }
        match name {
            "br" => {
                if self.pre > 0 {
                    self.newline_in_pre();
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
                // A list that opens an item starts on the line below its marker.
                self.after_marker = false;
                self.block(if self.lists.is_empty() { 2 } else { 1 });
                self.lists.push((name == "ol").then_some(1));
                self.children(node, url);
                self.lists.pop();
                self.block(2);
            }
            "li" => {
                self.block(1);
                let marker = match self.lists.last_mut() {
                    Some(Some(n)) => {
                        *n += 1;
                        format!("{}.", *n - 1)
                    }
                    _ => "-".to_string(),
                };
                self.put(&marker);
                let outer = self.indent.clone();
                self.indent = format!("{outer}{}", " ".repeat(marker.len() + 1));
                self.after_marker = true;
                self.space = true;
                self.children(node, url);
                self.after_marker = false;
                self.indent = outer;
                self.block(1);
            }
            "pre" => {
                self.block(2);
                self.pre += 1;
                self.children(node, url);
                self.pre -= 1;
                // The block break below supplies the line end.
                while self.out.ends_with([' ', '\n']) {
                    self.out.pop();
                }
                self.block(2);
            }
            "a" => {
                let before = self.out.len();
                self.children(node, url);
                let shown = self.out[before..].trim().to_string();
                if let Some(href) = node.attr("href")
                    && let Some(target) = link_target(url, &href)
                    && !shown.is_empty()
                    && shown != target.as_str()
                    && shown != href.trim()
                {
                    self.space = true;
                    let token = self.tokens.link(self.targets.len());
                    self.targets.push(target.to_string());
                    self.put(&token);
                }
            }
            "img" => {
                let alt = collapse(&node.attr("alt").unwrap_or_default());
                if useful_alt(&alt, image_source(node, url).as_ref()) {
                    self.put(&format!("[{alt}]"));
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

    fn finish(&self) -> String {
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
    fn bytes_that_are_utf8_outrank_a_legacy_label() {
        let chinese = "<html><head><meta charset=\"gb2312\"></head><body>中文页面</body></html>";
        assert_eq!(charset(None, chinese.as_bytes(), true), encoding_rs::UTF_8);
        assert_eq!(
            charset(Some("text/html; charset=gb2312"), chinese.as_bytes(), true),
            encoding_rs::UTF_8
        );
        let (gbk, _, _) = encoding_rs::GBK.encode(chinese);
        assert!(std::str::from_utf8(&gbk).is_err());
        assert_eq!(charset(None, &gbk, true), encoding_rs::GBK);
        // All ASCII: the label stands (ISO-2022-JP is written in ASCII bytes).
        assert_eq!(
            charset(
                Some("text/html; charset=iso-2022-jp"),
                b"\x1b$B$3\x1b(B",
                true
            ),
            encoding_rs::ISO_2022_JP
        );
        // A cut character is no evidence of UTF-8.
        assert_eq!(
            charset(Some("text/html; charset=gb2312"), b"ascii \xe4\xb8", true),
            encoding_rs::GBK
        );
        assert_eq!(
            charset(
                Some("text/html; charset=gb2312"),
                "中 \u{4e2d}".as_bytes(),
                true
            ),
            encoding_rs::UTF_8
        );
    }

    fn text_of(html: &str) -> String {
        let doc = Document::from(html);
        strip(&doc, true);
        let tokens = Tokens::new(html);
        let mut w = TextWriter::new(&tokens);
        w.walk(&doc.select("body").nodes()[0], &base());
        let targets = std::mem::take(&mut w.targets);
        let (out, _) = tokens.resolve(&w.finish(), &targets).fit(usize::MAX);
        out
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
        assert_eq!(
            text_of(html),
            "# Main title\n\nRead the docs [1] or https://x.org/.\n\n- one\n- two bold\n  - nested\n\n1. first\n2. second\n\nfn main() {\n    x < y\n}\n\n[1]: https://example.com/docs"
        );
    }

    #[test]
    fn list_items_keep_their_marker_on_the_text_line() {
        let html = "<body><ol><li><p>First, a paragraph.</p></li><li><div><p>Second, in a div.</p></div></li>\
            <li><div>Third</div><p>more</p></li><li><ul><li>nested</li></ul></li></ol></body>";
        assert_eq!(
            text_of(html),
            "1. First, a paragraph.\n\n2. Second, in a div.\n\n3. Third\n\n   more\n\n4.\n   - nested"
        );
    }

    #[test]
    fn links_become_numbered_references_once_each_in_order_of_use() {
        let html = r##"<body><p><a href="/b">B</a>, <a href="/a">A</a>, <a href="/b">B again</a>,
            <a href="#top">top</a>, <a href="javascript:void(0)">js</a>,
            <a href="/x"><img src="/x.png" alt=""></a>, <img src="/pics/IMG_0042.JPG" alt="IMG_0042.JPG">
            <img src="/pics/chart.svg" alt="Sales by quarter"><img src="/pics/sunset.jpg" alt="sunset"></p></body>"##;
        assert_eq!(
            text_of(html),
            "B [1], A [2], B again [1], top, js, , [Sales by quarter]\n\n[1]: https://example.com/b\n[2]: https://example.com/a"
        );
    }

    #[test]
    fn a_cut_keeps_whole_markers_and_only_the_references_it_uses() {
        let tokens = Tokens::new("");
        let targets = vec![
            "https://e.com/one".to_string(),
            "https://e.com/two".to_string(),
        ];
        let raw = format!("aé [{}] b {} c", tokens.link(0), tokens.link(1));
        let raw = raw.replacen('[', "", 1).replacen(']', "", 1);
        let page = tokens.resolve(&raw, &targets);
        assert_eq!(page.body, "aé [1] b [2] c");
        let full = "aé [1] b [2] c\n\n[1]: https://e.com/one\n[2]: https://e.com/two";
        assert_eq!(page.fit(usize::MAX), (full.to_string(), false));
        assert_eq!(page.fit(full.len()), (full.to_string(), false));
        // Inside `é`, then inside `[1]`: back to a boundary, no reference kept.
        assert_eq!(page.fit(2), ("a".to_string(), true));
        assert_eq!(page.fit(6), ("aé".to_string(), true));
        // `[1]` fits with its reference line; `[2]` would not.
        let one = "aé [1] b\n\n[1]: https://e.com/one";
        assert_eq!(page.fit(one.len()), (one.to_string(), true));
        assert_eq!(page.fit(one.len() + 4), (one.to_string(), true));
    }

    #[test]
    fn markdown_links_and_images_become_references() {
        let html = r#"<html><head><title>Refs</title></head><body><p>See <a href="/docs?a=1&amp;b=2" title="t">the docs</a>,
            <a href="https://x.org/">https://x.org/</a> and <a href="/docs?a=1&amp;b=2">again</a>.
            <img src="/i/photo.png" alt="photo.png"><img src="/i/c.png" alt="A chart"></p>
            <pre><code><a href="/in-code">kept as code</a></code></pre></body></html>"#;
        let (md, cut) = render(html, &base(), Style::Markdown).fit(usize::MAX);
        assert!(!cut);
        assert_eq!(
            md,
            "# Refs\n\nSee [the docs][1], <https://x.org/> and [again][1]. ![A chart][2]\n\n```\nkept as code\n```\n\n[1]: https://example.com/docs?a=1&b=2\n[2]: https://example.com/i/c.png"
        );
    }

    const PARA: &str = "A paragraph long enough for Readability to count it as the text of an article, with commas, clauses, and more words, so that the body wins over the chrome around it.";

    #[test]
    fn the_headline_is_the_pages_own_h1_once_at_the_top() {
        // The h1 sits outside the content Readability picks, and the title is not it.
        let page = format!(
            "<html><head><title>Site | A post</title></head><body>\
            <header><h1><a href=\"/\">The Site</a></h1><nav><a href=\"/a\">A</a></nav></header>\
            <div class=\"hero\"><h1>The  real headline</h1></div>\
            <main><article><p>{PARA}</p><p>{PARA}</p><p>{PARA}</p></article></main></body></html>"
        );
        let doc = Document::from(page.as_str());
        assert_eq!(
            headline_of(&doc, &base()).as_deref(),
            Some("The real headline")
        );
        let (text, _) = render(&page, &base(), Style::Text).fit(usize::MAX);
        assert_eq!(
            text,
            format!("# The real headline\n\n{PARA}\n\n{PARA}\n\n{PARA}")
        );
        // An h1 inside the content, unlike the title: on top once, not as an h2 below.
        let page = format!(
            "<html><head><title>Something else entirely</title></head><body>\
            <article><h1>The real headline</h1><p>{PARA}</p><p>{PARA}</p></article></body></html>"
        );
        let (md, _) = render(&page, &base(), Style::Markdown).fit(usize::MAX);
        assert_eq!(md, format!("# The real headline\n\n{PARA}\n\n{PARA}"));
        // No headline of its own: the title stands in; a logo h1 is not one.
        let logo = format!(
            "<html><head><title>Tiny page</title></head><body>\
            <div id=\"top\"><h1><a href=\"https://example.com/\">Logo</a></h1></div><p>{PARA}</p></body></html>"
        );
        let doc = Document::from(logo.as_str());
        assert_eq!(headline_of(&doc, &base()), None);
    }

    #[test]
    fn markdown_headlines_escape_only_what_changes_them() {
        assert_eq!(
            md_heading_text("Foo | Bar: a (b) & c!"),
            "Foo | Bar: a (b) & c!"
        );
        assert_eq!(md_heading_text("*nix and <tags>"), "\\*nix and \\<tags>");
        assert_eq!(md_heading_text("C# and F#"), "C# and F\\#");
    }

    #[test]
    fn alt_texts_that_say_nothing_are_dropped() {
        let src = Url::parse("https://e.com/img/sunset-2024.jpg").unwrap();
        assert!(useful_alt("A sunset over the bay", Some(&src)));
        for alt in [
            "",
            "sunset-2024",
            "SUNSET-2024.JPG",
            "Screen Shot 1.png",
            "https://e.com/x",
        ] {
            assert!(!useful_alt(alt, Some(&src)), "{alt:?}");
        }
    }

    #[test]
    fn a_page_without_an_article_falls_back_to_the_body() {
        let (text, _) = render(
            "<html><head><title> Tiny  page </title></head><body><nav>menu</nav><p>Just one line.</p></body></html>",
            &base(),
            Style::Text,
        )
        .fit(usize::MAX);
        assert!(text.starts_with("# Tiny page\n\n"), "{text}");
        assert!(text.ends_with("\n\nJust one line."), "{text}");
        let (md, _) = render(
            "<html><body><p>See <a href=\"../about\">about</a>.</p></body></html>",
            &base(),
            Style::Markdown,
        )
        .fit(usize::MAX);
        assert_eq!(md, "See [about][1].\n\n[1]: https://example.com/about");
    }
}
