//! The web family's HTTP client and its errors: one browser-like User-Agent, the
//! redirect limit, timeouts, network failures worded for a person (every cause
//! in the chain, what to try), and the private-network guard. Apart from the
//! family's `mod.rs` so both tools import it and the family's front door only
//! lists them.
//!
//! # The private-network guard
//!
//! A page an agent was told to fetch must not reach what only this machine can
//! reach: its loopback services, the cloud metadata at 169.254.169.254, the
//! private network behind it. Unless the user opted in (`--allow-private-network`,
//! `INDUS_ALLOW_PRIVATE_NETWORK=1`, set process-wide by
//! [`allow_private_network`]; or `web.allow_private_network` in the user's own
//! `buddy.json`, see `WebSettings`), a client from [`client`] refuses every
//! address [`internal`] names, at each place reqwest could connect:
//!
//! - **Host names**, by the client's own resolver (`GuardedResolver`): reqwest
//!   connects only to the addresses it returns, so the check sees exactly the
//!   answers that are dialled (no second lookup a DNS server could answer
//!   differently). Internal answers are dropped; a name with no public answer is
//!   refused. Dropping rather than refusing a mixed answer keeps a host that
//!   also publishes a private address working, and reaches nothing inside.
//! - **IP literals** (`http://127.0.0.1/`, and what the URL parser made of
//!   `http://2130706433/` or `http://0x7f.1/`), which reqwest dials without a
//!   resolver: [`Web::check`] for the first URL, the redirect policy for every
//!   hop, which also stays within [`MAX_REDIRECTS`].
//!
//! Behind an HTTP proxy (`HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY`) the proxy
//! resolves the names it is asked for and decides what it reaches; IP literals
//! are still refused here, and the proxy's own host is reached whatever it
//! resolves to (it is the user's setting), but never fetched as a page.

use std::error::Error as _;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use url::{Host, Url};

use crate::state::buddy_config::{PrivateNetwork, WebSettings};

/// A current desktop browser's User-Agent: the endpoints serve their plain HTML to
/// browsers, and some refuse unknown clients outright.
pub const USER_AGENT: &str = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36";

/// Redirects followed before giving up.
pub const MAX_REDIRECTS: usize = 5;

/// The longest a connection attempt may take, whatever the overall timeout.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// What a refusal tells a person to do.
pub const OPT_IN: &str =
    "Pass --allow-private-network (or set INDUS_ALLOW_PRIVATE_NETWORK=1) to fetch it.";

static PRIVATE_NETWORK_ALLOWED: AtomicBool = AtomicBool::new(false);

/// Let the web tools reach private networks, or not (the default), for every
/// client built afterwards in this process. The command line sets it once from
/// `--allow-private-network` / `INDUS_ALLOW_PRIVATE_NETWORK`, before any call
/// (one-shot, `call`, `batch` and `mcp` alike); a library host calls it itself.
pub fn allow_private_network(allowed: bool) {
    PRIVATE_NETWORK_ALLOWED.store(allowed, Ordering::Relaxed);
}

/// Whether [`allow_private_network`] opened the private network.
pub fn private_network_allowed() -> bool {
    PRIVATE_NETWORK_ALLOWED.load(Ordering::Relaxed)
}

/// A client for one tool call and its guard: browser User-Agent, gzip, at most
/// [`MAX_REDIRECTS`] redirects, `timeout` over the whole exchange (connect,
/// headers and body), and no private-network address unless allowed (see the
/// module comment). `trusted` is a URL the user configured (websearch's
/// `INDUS_WEBSEARCH_URL`): its host is reached wherever it resolves to.
pub fn client(timeout: Duration, trusted: Option<&Url>) -> Result<Web, String> {
    let guard = Arc::new(Guard::new(private_network_allowed(), trusted));
    let hops = guard.clone();
    let policy = reqwest::redirect::Policy::custom(move |attempt| {
        if let Err(refused) = hops.check_hop(attempt.url(), attempt.previous().last()) {
            return attempt.error(refused);
        }
        reqwest::redirect::Policy::limited(MAX_REDIRECTS).redirect(attempt)
    });
    let http = crate::backends::net::client_builder()
        .user_agent(USER_AGENT)
        .redirect(policy)
        .dns_resolver(GuardedResolver {
            guard: guard.clone(),
            dns: Arc::new(OnceLock::new()),
        })
        .timeout(timeout)
        .connect_timeout(timeout.min(CONNECT_TIMEOUT))
        .gzip(true)
        .build()
        .map_err(|e| format!("The HTTP client could not be set up: {}", chain(&e)))?;
    Ok(Web { http, guard })
}

/// A guarded client (see [`client`]).
pub struct Web {
    pub http: reqwest::Client,
    guard: Arc<Guard>,
}

impl Web {
    /// Whether `url`, the first of a request, may be fetched: its host is
    /// judged here when it is an IP literal, which reqwest dials without asking
    /// the resolver. The refusal in words, naming the URL, the address and the
    /// opt-in.
    pub fn check(&self, url: &Url) -> Result<(), String> {
        self.guard
            .check_target(url, None)
            .map_err(|r| r.message(url.as_str()))
    }
}

/// Why an address is not on the public internet.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Internal {
    /// What it is: `a loopback address`.
    pub kind: &'static str,
    /// The range it is in: a network and its prefix length.
    pub range: (IpAddr, u8),
    /// For an IPv6 address that carries an IPv4 one (IPv4-mapped, 6to4 …): that
    /// address and the form, which the rest describes.
    pub carried: Option<(Ipv4Addr, &'static str)>,
}

impl Internal {
    /// `a loopback address (127.0.0.0/8)`; for a carried address, `127.0.0.1 in
    /// IPv6 form (IPv4-mapped), a loopback address (127.0.0.0/8)`.
    pub fn phrase(&self) -> String {
        let (net, len) = self.range;
        let full = if net.is_ipv4() { 32 } else { 128 };
        let what = if len == full {
            self.kind.to_string()
        } else {
            format!("{} ({net}/{len})", self.kind)
        };
        match self.carried {
            Some((v4, form)) => format!("{v4} in IPv6 form ({form}), {what}"),
            None => what,
        }
    }
}

/// The IPv4 ranges that are not the public internet, the narrower first.
const V4_RANGES: &[(u32, u8, &str)] = &[
    (0x0000_0000, 32, "the unspecified address"),
    (0x0000_0000, 8, "a \"this network\" address"),
    (0x0a00_0000, 8, "a private address"),
    (0x6440_0000, 10, "a carrier-grade NAT address"),
    (0x7f00_0000, 8, "a loopback address"),
    (0xa9fe_0000, 16, "a link-local address"),
    (0xac10_0000, 12, "a private address"),
    (0xc000_0000, 24, "a reserved (IETF protocol) address"),
    (0xc000_0200, 24, "a documentation address"),
    (0xc0a8_0000, 16, "a private address"),
    (0xc612_0000, 15, "a benchmarking address"),
    (0xc633_6400, 24, "a documentation address"),
    (0xcb00_7100, 24, "a documentation address"),
    (0xe000_0000, 4, "a multicast address"),
    (0xffff_ffff, 32, "the broadcast address"),
    (0xf000_0000, 4, "a reserved address"),
];

/// The IPv6 ranges that are not the public internet in themselves.
const V6_RANGES: &[(u128, u8, &str)] = &[
    (0, 128, "the unspecified address"),
    (1, 128, "the loopback address"),
    (0x0064_ff9b_0001 << 80, 48, "a local-use NAT64 address"),
    (0x0100 << 112, 64, "a discard-only address"),
    (0x2001_0db8 << 96, 32, "a documentation address"),
    (0xfc00 << 112, 7, "a unique local address"),
    (0xfe80 << 112, 10, "a link-local address"),
    (0xfec0 << 112, 10, "a site-local address"),
    (0xff00 << 112, 8, "a multicast address"),
];

fn mask(len: u8, bits: u8) -> u128 {
    match len {
        0 => 0,
        _ => (u128::MAX << (128 - u32::from(len))) >> (128 - u32::from(bits)),
    }
}

fn in_v4(ip: Ipv4Addr, net: u32, len: u8) -> bool {
    let m = mask(len, 32) as u32;
    u32::from(ip) & m == net & m
}

fn in_v6(ip: Ipv6Addr, net: u128, len: u8) -> bool {
    let m = mask(len, 128);
    u128::from(ip) & m == net & m
}

/// Whether `ip` is in the network `net`/`len` (an IPv4-mapped address also
/// counts as its IPv4 one).
fn in_net(ip: IpAddr, net: IpAddr, len: u8) -> bool {
    match (ip.to_canonical(), net) {
        (IpAddr::V4(ip), IpAddr::V4(net)) => in_v4(ip, u32::from(net), len),
        (IpAddr::V6(ip), IpAddr::V6(net)) => in_v6(ip, u128::from(net), len),
        _ => false,
    }
}

/// The IPv4 address an IPv6 one carries, and the form: IPv4-mapped
/// (`::ffff:a.b.c.d`), IPv4-translated (`::ffff:0:a.b.c.d`), IPv4-compatible
/// (`::a.b.c.d`), NAT64 (`64:ff9b::a.b.c.d`), 6to4 (`2002:AABB:CCDD::/48`) or
/// Teredo (`2001:0::/32`, the client's address inverted in the last 32 bits).
fn carried_v4(ip: Ipv6Addr) -> Option<(Ipv4Addr, &'static str)> {
    let bits = u128::from(ip);
    let low = Ipv4Addr::from(bits as u32);
    if in_v6(ip, 0xffff << 32, 96) {
        Some((low, "IPv4-mapped"))
    } else if in_v6(ip, 0xffff << 48, 96) {
        Some((low, "IPv4-translated"))
    } else if in_v6(ip, 0, 96) {
        Some((low, "IPv4-compatible"))
    } else if in_v6(ip, 0x0064_ff9b << 96, 96) {
        Some((low, "NAT64"))
    } else if in_v6(ip, 0x2002 << 112, 16) {
        Some((Ipv4Addr::from((bits >> 80) as u32), "6to4"))
    } else if in_v6(ip, 0x2001_0000 << 96, 32) {
        Some((Ipv4Addr::from(!(bits as u32)), "Teredo"))
    } else {
        None
    }
}

/// Why `ip` is not on the public internet, or `None` when it is: loopback,
/// link-local, private, carrier-grade NAT, unique local, unspecified,
/// multicast, broadcast, reserved and documentation ranges, and IPv6 forms
/// carrying such an IPv4 address.
pub fn internal(ip: IpAddr) -> Option<Internal> {
    match ip {
        IpAddr::V4(v4) => V4_RANGES
            .iter()
            .find(|(net, len, _)| in_v4(v4, *net, *len))
            .map(|&(net, len, kind)| Internal {
                kind,
                range: (IpAddr::V4(Ipv4Addr::from(net)), len),
                carried: None,
            }),
        IpAddr::V6(v6) => {
            if let Some(&(net, len, kind)) =
                V6_RANGES.iter().find(|(net, len, _)| in_v6(v6, *net, *len))
            {
                return Some(Internal {
                    kind,
                    range: (IpAddr::V6(Ipv6Addr::from(net)), len),
                    carried: None,
                });
            }
            let (v4, form) = carried_v4(v6)?;
            internal(IpAddr::V4(v4)).map(|inner| Internal {
                carried: Some((v4, form)),
                ..inner
            })
        }
    }
}

/// A host as the guard compares it: a name in lower case without a final dot,
/// an address as it prints.
fn host_key(host: &Host<&str>) -> String {
    match host {
        Host::Domain(d) => d.trim_end_matches('.').to_ascii_lowercase(),
        Host::Ipv4(a) => a.to_string(),
        Host::Ipv6(a) => a.to_string(),
    }
}

/// What the user's own configuration lets through (`web.allow_private_network`
/// in their `buddy.json`), and why it could not be read when it could not.
#[derive(Debug, Default)]
struct Allowances {
    all: bool,
    nets: Vec<(IpAddr, u8)>,
    hosts: Vec<String>,
    problem: Option<String>,
}

/// `10.0.0.0/8`, `fd00::/8`, or an address alone (all its bits).
fn parse_net(entry: &str) -> Option<(IpAddr, u8)> {
    let entry = entry.trim();
    let (addr, len) = match entry.split_once('/') {
        Some((addr, len)) => (addr, Some(len.parse::<u8>().ok()?)),
        None => (entry, None),
    };
    let ip: IpAddr = addr.trim_matches(['[', ']']).parse().ok()?;
    let full = if ip.is_ipv4() { 32 } else { 128 };
    let len = len.unwrap_or(full);
    (len <= full).then_some((ip, len))
}

impl Allowances {
    fn of(settings: WebSettings, problem: Option<String>) -> Allowances {
        let mut out = Allowances {
            problem,
            ..Allowances::default()
        };
        match settings.allow_private_network {
            Some(PrivateNetwork::All(all)) => out.all = all,
            Some(PrivateNetwork::Only(entries)) => {
                for entry in entries {
                    match parse_net(&entry) {
                        Some(net) => out.nets.push(net),
                        // A range that does not parse matches nothing.
                        None if entry.contains('/') => {}
                        None => out.hosts.push(host_key(&Host::Domain(entry.trim()))),
                    }
                }
            }
            None => {}
        }
        out
    }

    fn admits(&self, host: &str, ip: IpAddr) -> bool {
        self.all
            || self.hosts.iter().any(|h| h == host)
            || self.nets.iter().any(|&(net, len)| in_net(ip, net, len))
    }
}

/// A request refused for the address it would reach.
#[derive(Debug, Clone)]
pub struct Refused {
    /// The URL refused, when it is not the one first asked for.
    url: Option<String>,
    /// The URL that redirected to it.
    from: Option<String>,
    /// Why: `127.0.0.1 is a loopback address (127.0.0.0/8), not on the public
    /// internet`.
    why: String,
    /// Why the user's configuration could not be consulted.
    problem: Option<String>,
}

impl Refused {
    /// The refusal in words a person can act on; `requested` is the URL first
    /// asked for.
    pub fn message(&self, requested: &str) -> String {
        let url = self.url.as_deref().unwrap_or(requested);
        let mut out = format!("Refused to fetch {url}");
        if let Some(from) = &self.from {
            out.push_str(&format!(" (a redirect from {from})"));
        }
        out.push_str(&format!(": {}. {OPT_IN}", self.why));
        if let Some(problem) = &self.problem {
            out.push_str(&format!(
                " (web.allow_private_network was not read: {problem}.)"
            ));
        }
        out
    }
}

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.why)
    }
}

impl std::error::Error for Refused {}

/// The refusal among an error's causes, if the guard refused the request.
fn refusal_in<'a>(e: &'a (dyn std::error::Error + 'static)) -> Option<&'a Refused> {
    let mut cause = Some(e);
    while let Some(c) = cause {
        if let Some(refused) = c.downcast_ref::<Refused>() {
            return Some(refused);
        }
        cause = c.source();
    }
    None
}

/// What one client may reach (see the module comment).
struct Guard {
    /// The private network is allowed: nothing is refused.
    open: bool,
    /// Hosts the user configured, reached wherever they resolve to: the search
    /// endpoint and the proxies.
    trusted: Vec<String>,
    /// The proxies' hosts, which are never fetched as pages.
    proxies: Vec<String>,
    /// The user's own allowances, read at the first internal address.
    allowances: OnceLock<Allowances>,
    /// The redirect last followed (from, to), for a refusal of its host.
    hop: Mutex<Option<(Url, Url)>>,
}

/// The host names of the proxies reqwest takes from the environment.
fn proxy_hosts() -> Vec<String> {
    let mut hosts = Vec::new();
    for var in [
        "HTTP_PROXY",
        "http_proxy",
        "HTTPS_PROXY",
        "https_proxy",
        "ALL_PROXY",
        "all_proxy",
    ] {
        let Some(value) = std::env::var(var).ok().filter(|v| !v.trim().is_empty()) else {
            continue;
        };
        let value = value.trim();
        let url = Url::parse(value)
            .ok()
            .filter(|u| u.host().is_some())
            .or_else(|| Url::parse(&format!("http://{value}")).ok());
        if let Some(Host::Domain(d)) = url.as_ref().and_then(Url::host) {
            hosts.push(host_key(&Host::Domain(d)));
        }
    }
    hosts
}

impl Guard {
    fn new(open: bool, trusted: Option<&Url>) -> Guard {
        let proxies = if open { Vec::new() } else { proxy_hosts() };
        let mut hosts: Vec<String> = trusted
            .and_then(Url::host)
            .map(|h| host_key(&h))
            .into_iter()
            .collect();
        hosts.extend(proxies.iter().cloned());
        Guard {
            open,
            trusted: hosts,
            proxies,
            allowances: OnceLock::new(),
            hop: Mutex::new(None),
        }
    }

    fn allowances(&self) -> &Allowances {
        self.allowances.get_or_init(|| {
            let (settings, problem) = WebSettings::load();
            Allowances::of(settings, problem)
        })
    }

    /// Why `ip`, reached as `host`, is refused, or `None`.
    fn judge(&self, host: &str, ip: IpAddr) -> Option<Internal> {
        if self.open || self.trusted.iter().any(|t| t == host) {
            return None;
        }
        let internal = internal(ip)?;
        (!self.allowances().admits(host, ip)).then_some(internal)
    }

    fn refused(&self, url: Option<&Url>, from: Option<&Url>, why: String) -> Refused {
        Refused {
            url: url.map(|u| u.to_string()),
            from: from.map(|u| u.to_string()),
            why,
            problem: self.allowances().problem.clone(),
        }
    }

    /// A URL about to be requested, first or after `from`: an IP literal is
    /// judged here (reqwest dials it without the resolver), a name is left to
    /// the resolver unless it is a proxy's.
    fn check_target(&self, url: &Url, from: Option<&Url>) -> Result<(), Refused> {
        let Some(host) = url.host() else {
            return Ok(());
        };
        let key = host_key(&host);
        let ip = match host {
            Host::Ipv4(a) => IpAddr::V4(a),
            Host::Ipv6(a) => IpAddr::V6(a),
            Host::Domain(_) if !self.open && self.proxies.contains(&key) => {
                let why = format!(
                    "{key} is your proxy's host (HTTP_PROXY, HTTPS_PROXY or ALL_PROXY), which is reached as a proxy only"
                );
                return Err(self.refused(Some(url), from, why));
            }
            Host::Domain(_) => return Ok(()),
        };
        match self.judge(&key, ip) {
            None => Ok(()),
            Some(internal) => {
                let why = format!("{ip} is {}, not on the public internet", internal.phrase());
                Err(self.refused(Some(url), from, why))
            }
        }
    }

    /// A redirect about to be followed, from `from` to `to`: judged as a
    /// target, and remembered, so a refusal of its host by the resolver can
    /// name it.
    fn check_hop(&self, to: &Url, from: Option<&Url>) -> Result<(), Refused> {
        self.check_target(to, from)?;
        if let Some(from) = from {
            *self.hop.lock().unwrap_or_else(|e| e.into_inner()) = Some((from.clone(), to.clone()));
        }
        Ok(())
    }

    /// The answers for `host` that may be dialled: the public ones (or all, when
    /// allowed). None left of some: refused, naming them.
    fn filter(&self, host: &str, answers: Vec<IpAddr>) -> Result<Vec<IpAddr>, Refused> {
        let mut kept = Vec::new();
        let mut dropped = Vec::new();
        for ip in answers {
            match self.judge(host, ip) {
                None => kept.push(ip),
                Some(internal) => dropped.push((ip, internal)),
            }
        }
        if !kept.is_empty() || dropped.is_empty() {
            return Ok(kept);
        }
        let named = |(ip, internal): &(IpAddr, Internal)| format!("{ip}, {}", internal.phrase());
        let why = match dropped.as_slice() {
            [one] => format!(
                "{host} resolves to {}, not on the public internet",
                named(one)
            ),
            many => {
                let mut list: Vec<String> =
                    many.iter().take(4).map(|(ip, _)| ip.to_string()).collect();
                if many.len() > 4 {
                    list.push(format!("{} more", many.len() - 4));
                }
                let (first, internal) = &many[0];
                format!(
                    "{host} resolves only to addresses not on the public internet ({}); {first} is {}",
                    list.join(", "),
                    internal.phrase()
                )
            }
        };
        // A refusal of the redirect last followed names it.
        let hop = self.hop.lock().unwrap_or_else(|e| e.into_inner()).clone();
        let (url, from) = match hop {
            Some((from, to)) if to.host().map(|h| host_key(&h)).as_deref() == Some(host) => {
                (Some(to), Some(from))
            }
            _ => (None, None),
        };
        Err(self.refused(url.as_ref(), from.as_ref(), why))
    }
}

/// The resolver of a guarded client: hickory, as reqwest's own, with the
/// guard's filter on its answers (see the module comment). Built at its first
/// lookup, inside the runtime that makes it.
#[derive(Clone)]
struct GuardedResolver {
    guard: Arc<Guard>,
    dns: Arc<OnceLock<Result<hickory_resolver::TokioResolver, String>>>,
}

/// A resolver of the system's configuration (`/etc/resolv.conf`), else
/// Google's public servers, asking for both IPv6 and IPv4 (as reqwest's own).
fn new_resolver() -> Result<hickory_resolver::TokioResolver, String> {
    use hickory_resolver::TokioResolver;
    use hickory_resolver::config::{GOOGLE, LookupIpStrategy, ResolverConfig};
    use hickory_resolver::net::runtime::TokioRuntimeProvider;
    let mut builder = TokioResolver::builder_tokio().unwrap_or_else(|_| {
        TokioResolver::builder_with_config(
            ResolverConfig::udp_and_tcp(&GOOGLE),
            TokioRuntimeProvider::default(),
        )
    });
    builder.options_mut().ip_strategy = LookupIpStrategy::Ipv6AndIpv4;
    builder.build().map_err(|e| e.to_string())
}

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let this = self.clone();
        Box::pin(async move {
            let host = host_key(&Host::Domain(name.as_str()));
            let dns = this.dns.get_or_init(new_resolver).clone()?;
            let answers: Vec<IpAddr> = dns.lookup_ip(name.as_str()).await?.iter().collect();
            let kept = this.guard.filter(&host, answers)?;
            let addrs: reqwest::dns::Addrs =
                Box::new(kept.into_iter().map(|ip| SocketAddr::new(ip, 0)));
            Ok(addrs)
        })
    }
}

/// An error and its causes, innermost last: reqwest's own message alone ("error
/// sending request") rarely says what went wrong.
pub fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut out = in_words(&e.to_string());
    let mut cause = e.source();
    while let Some(c) = cause {
        let text = in_words(&c.to_string());
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        cause = c.source();
    }
    out
}

/// A cause's text without the resolver's debug notation: hickory writes the
/// failed question as `Query { name: Name("host."), query_type: AAAA, … }`,
/// which a person reads as `host (AAAA)`.
fn in_words(text: &str) -> String {
    static QUERY: std::sync::OnceLock<regex::Regex> = std::sync::OnceLock::new();
    let query = QUERY.get_or_init(|| {
        regex::Regex::new(
            r#"Query \{ name: Name\("([^"]*?)\.?"\), query_type: (\w+), query_class: \w+ \}"#,
        )
        .expect("a valid pattern")
    });
    query.replace_all(text, "$1 ($2)").into_owned()
}

/// What a failed request means, in words a model can act on.
pub fn describe_error(e: &reqwest::Error, url: &str, timeout_ms: u64) -> String {
    if let Some(refused) = refusal_in(e) {
        refused.message(url)
    } else if e.is_timeout() {
        format!("{url} did not respond within {timeout_ms} ms; try again later or raise timeoutMs.")
    } else if e.is_redirect() {
        format!(
            "{url} redirected more than {MAX_REDIRECTS} times (a redirect loop?); nothing was fetched."
        )
    } else if e.is_connect() {
        let cause = e.source().map(chain).unwrap_or_else(|| e.to_string());
        // The resolver's layers each say "dns error"; what matters is its last word.
        match cause.rfind("DNS error: ") {
            Some(at) => format!(
                "Cannot connect to {url}: its host name could not be resolved ({}).",
                &cause[at + "DNS error: ".len()..]
            ),
            None => format!("Cannot connect to {url}: {cause}"),
        }
    } else if e.is_body() || e.is_decode() {
        format!("The response from {url} could not be read: {}", chain(e))
    } else {
        format!("The request to {url} failed: {}", chain(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kind(ip: &str) -> Option<&'static str> {
        internal(ip.parse().unwrap()).map(|i| i.kind)
    }

    #[test]
    fn ipv4_ranges_off_the_public_internet_are_named() {
        for (ip, want) in [
            ("0.0.0.0", Some("the unspecified address")),
            ("0.1.2.3", Some("a \"this network\" address")),
            ("10.0.0.1", Some("a private address")),
            ("10.255.255.255", Some("a private address")),
            ("100.64.0.1", Some("a carrier-grade NAT address")),
            ("100.127.255.254", Some("a carrier-grade NAT address")),
            ("127.0.0.1", Some("a loopback address")),
            ("127.255.0.9", Some("a loopback address")),
            ("169.254.169.254", Some("a link-local address")),
            ("172.16.0.1", Some("a private address")),
            ("172.31.255.255", Some("a private address")),
            ("192.0.0.192", Some("a reserved (IETF protocol) address")),
            ("192.0.2.1", Some("a documentation address")),
            ("192.168.1.1", Some("a private address")),
            ("198.18.0.1", Some("a benchmarking address")),
            ("198.51.100.7", Some("a documentation address")),
            ("203.0.113.9", Some("a documentation address")),
            ("224.0.0.1", Some("a multicast address")),
            ("239.255.255.250", Some("a multicast address")),
            ("240.0.0.1", Some("a reserved address")),
            ("255.255.255.255", Some("the broadcast address")),
            // Public, including the neighbours of the ranges above.
            ("1.1.1.1", None),
            ("8.8.8.8", None),
            ("9.255.255.255", None),
            ("11.0.0.0", None),
            ("100.63.255.255", None),
            ("100.128.0.0", None),
            ("126.255.255.255", None),
            ("128.0.0.0", None),
            ("169.253.255.255", None),
            ("172.15.255.255", None),
            ("172.32.0.0", None),
            ("192.167.255.255", None),
            ("192.169.0.0", None),
            ("198.20.0.0", None),
            ("223.255.255.255", None),
        ] {
            assert_eq!(kind(ip), want, "{ip}");
        }
    }

    #[test]
    fn ipv6_ranges_and_carried_ipv4_addresses_are_named() {
        for (ip, want) in [
            ("::", Some("the unspecified address")),
            ("::1", Some("the loopback address")),
            ("fe80::1", Some("a link-local address")),
            ("febf:ffff::1", Some("a link-local address")),
            ("fec0::1", Some("a site-local address")),
            ("fc00::1", Some("a unique local address")),
            ("fd12:3456::1", Some("a unique local address")),
            ("ff02::1", Some("a multicast address")),
            ("100::1", Some("a discard-only address")),
            ("2001:db8::1", Some("a documentation address")),
            ("64:ff9b:1::a", Some("a local-use NAT64 address")),
            // IPv4-mapped, -translated and -compatible forms of internal addresses.
            ("::ffff:127.0.0.1", Some("a loopback address")),
            ("::ffff:10.1.2.3", Some("a private address")),
            ("::ffff:169.254.169.254", Some("a link-local address")),
            ("::ffff:0.0.0.0", Some("the unspecified address")),
            ("::ffff:0:192.168.0.1", Some("a private address")),
            ("::127.0.0.1", Some("a loopback address")),
            ("::10.0.0.1", Some("a private address")),
            // NAT64, 6to4 and Teredo carrying them.
            ("64:ff9b::7f00:1", Some("a loopback address")),
            ("64:ff9b::169.254.169.254", Some("a link-local address")),
            ("2002:7f00:1::1", Some("a loopback address")),
            ("2002:c0a8:101::", Some("a private address")),
            (
                "2001:0:4136:e378:8000:63bf:80ff:fffe",
                Some("a loopback address"),
            ),
            // Public: native, and the same forms carrying public addresses.
            ("2606:4700:4700::1111", None),
            ("2a00:1450:4001::200e", None),
            ("::ffff:8.8.8.8", None),
            ("64:ff9b::808:808", None),
            ("2002:808:808::1", None),
            ("2001:0:4136:e378:8000:63bf:f7f7:f7f7", None),
            ("fbff:ffff::1", None),
            ("fe00::1", None),
        ] {
            assert_eq!(kind(ip), want, "{ip}");
        }
        let mapped = internal("::ffff:127.0.0.1".parse().unwrap()).unwrap();
        assert_eq!(
            mapped.carried,
            Some((Ipv4Addr::new(127, 0, 0, 1), "IPv4-mapped"))
        );
        let teredo = internal("2001:0:4136:e378:8000:63bf:80ff:fffe".parse().unwrap()).unwrap();
        assert_eq!(
            teredo.carried,
            Some((Ipv4Addr::new(127, 0, 0, 1), "Teredo"))
        );
    }

    #[test]
    fn an_internal_address_is_worded_with_its_range() {
        let phrase = |ip: &str| internal(ip.parse().unwrap()).unwrap().phrase();
        assert_eq!(phrase("127.0.0.1"), "a loopback address (127.0.0.0/8)");
        assert_eq!(phrase("::1"), "the loopback address");
        assert_eq!(phrase("fd00::1"), "a unique local address (fc00::/7)");
        assert_eq!(
            phrase("::ffff:169.254.169.254"),
            "169.254.169.254 in IPv6 form (IPv4-mapped), a link-local address (169.254.0.0/16)"
        );
    }

    /// The WHATWG parsing of the `url` crate has already made the numeric and
    /// hex spellings of a host the address they mean when the guard sees them.
    #[test]
    fn numeric_and_hex_hosts_are_addresses_by_the_time_they_are_judged() {
        for spelled in [
            "http://2130706433:8080/",
            "http://0x7f.1:8080/",
            "http://0x7f000001:8080/",
            "http://017700000001:8080/",
            "http://127.1:8080/",
            "http://127.0.0.1.:8080/",
        ] {
            let url = Url::parse(spelled).unwrap();
            assert_eq!(
                url.host(),
                Some(Host::Ipv4(Ipv4Addr::new(127, 0, 0, 1))),
                "{spelled}"
            );
            assert_eq!(url.as_str(), "http://127.0.0.1:8080/", "{spelled}");
        }
        let url = Url::parse("http://[::ffff:127.0.0.1]:8080/").unwrap();
        assert_eq!(
            url.host(),
            Some(Host::Ipv6("::ffff:127.0.0.1".parse().unwrap()))
        );
    }

    fn closed() -> Guard {
        let mut guard = Guard::new(false, None);
        // No configuration read, whatever the machine running the test has.
        guard.allowances = OnceLock::from(Allowances::default());
        guard.proxies.clear();
        guard.trusted.clear();
        guard
    }

    #[test]
    fn ip_literal_targets_are_judged_and_names_left_to_the_resolver() {
        let guard = closed();
        let url = Url::parse("http://127.0.0.1:8080/").unwrap();
        let refused = guard.check_target(&url, None).unwrap_err();
        assert_eq!(
            refused.message(url.as_str()),
            "Refused to fetch http://127.0.0.1:8080/: 127.0.0.1 is a loopback address (127.0.0.0/8), not on the public internet. Pass --allow-private-network (or set INDUS_ALLOW_PRIVATE_NETWORK=1) to fetch it."
        );
        let url = Url::parse("http://[::ffff:a9fe:a9fe]/latest/meta-data/").unwrap();
        assert_eq!(
            guard
                .check_target(&url, None)
                .unwrap_err()
                .message(url.as_str()),
            "Refused to fetch http://[::ffff:a9fe:a9fe]/latest/meta-data/: ::ffff:169.254.169.254 is 169.254.169.254 in IPv6 form (IPv4-mapped), a link-local address (169.254.0.0/16), not on the public internet. Pass --allow-private-network (or set INDUS_ALLOW_PRIVATE_NETWORK=1) to fetch it."
        );
        for ok in [
            "http://93.184.215.14/",
            "http://[2606:4700::1111]/",
            "http://localhost/",
        ] {
            assert!(
                guard.check_target(&Url::parse(ok).unwrap(), None).is_ok(),
                "{ok}"
            );
        }
        // Allowed: the opt-in, or a host the user configured.
        assert!(Guard::new(true, None).check_target(&url, None).is_ok());
        let endpoint = Url::parse("http://127.0.0.1:9/html/").unwrap();
        let mut trusting = closed();
        trusting.trusted = vec!["127.0.0.1".into()];
        assert!(trusting.check_target(&endpoint, None).is_ok());
        assert!(trusting.check_target(&url, None).is_err());
    }

    /// The redirect policy's check of each hop: a hop to an internal literal is
    /// refused naming where it came from; a hop to a name is remembered for the
    /// resolver's refusal.
    #[test]
    fn every_redirect_hop_is_judged_and_named() {
        let guard = closed();
        let from = Url::parse("https://public.example/start").unwrap();
        let to = Url::parse("http://169.254.169.254/latest/meta-data/").unwrap();
        let refused = guard.check_hop(&to, Some(&from)).unwrap_err();
        assert_eq!(
            refused.message("https://public.example/start"),
            "Refused to fetch http://169.254.169.254/latest/meta-data/ (a redirect from https://public.example/start): 169.254.169.254 is a link-local address (169.254.0.0/16), not on the public internet. Pass --allow-private-network (or set INDUS_ALLOW_PRIVATE_NETWORK=1) to fetch it."
        );
        assert!(
            guard.hop.lock().unwrap().is_none(),
            "a refused hop is not followed"
        );
        let to = Url::parse("http://metadata.internal.example/latest/").unwrap();
        guard.check_hop(&to, Some(&from)).unwrap();
        let refused = guard
            .filter(
                "metadata.internal.example",
                vec!["10.0.0.5".parse().unwrap()],
            )
            .unwrap_err();
        assert_eq!(
            refused.message("https://public.example/start"),
            "Refused to fetch http://metadata.internal.example/latest/ (a redirect from https://public.example/start): metadata.internal.example resolves to 10.0.0.5, a private address (10.0.0.0/8), not on the public internet. Pass --allow-private-network (or set INDUS_ALLOW_PRIVATE_NETWORK=1) to fetch it."
        );
        // Any other name refused is the request's own.
        let refused = guard
            .filter("other.example", vec!["127.0.0.1".parse().unwrap()])
            .unwrap_err();
        assert!(
            refused.message("http://other.example/").starts_with(
                "Refused to fetch http://other.example/: other.example resolves to 127.0.0.1, "
            ),
            "{}",
            refused.message("http://other.example/")
        );
    }

    #[test]
    fn resolved_answers_lose_their_internal_addresses() {
        let guard = closed();
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        // Mixed: only the public answers are dialled.
        assert_eq!(
            guard
                .filter(
                    "mixed.example",
                    vec![ip("127.0.0.1"), ip("93.184.215.14"), ip("::1")]
                )
                .unwrap(),
            vec![ip("93.184.215.14")]
        );
        // All internal: refused, naming them.
        let refused = guard
            .filter("localhost", vec![ip("::1"), ip("127.0.0.1")])
            .unwrap_err();
        assert_eq!(
            refused.why,
            "localhost resolves only to addresses not on the public internet (::1, 127.0.0.1); ::1 is the loopback address"
        );
        // Allowed, or a trusted host: everything.
        let open = Guard::new(true, None);
        assert_eq!(
            open.filter("localhost", vec![ip("127.0.0.1")]).unwrap(),
            vec![ip("127.0.0.1")]
        );
        let mut trusting = closed();
        trusting.trusted = vec!["search.lan".into()];
        assert_eq!(
            trusting
                .filter("search.lan", vec![ip("192.168.1.9")])
                .unwrap(),
            vec![ip("192.168.1.9")]
        );
        // No answer at all is the resolver's failure, not a refusal.
        assert_eq!(
            guard.filter("none.example", Vec::new()).unwrap(),
            Vec::<IpAddr>::new()
        );
    }

    #[test]
    fn the_users_allowances_admit_addresses_ranges_and_names() {
        let settings = |v: PrivateNetwork| WebSettings {
            allow_private_network: Some(v),
        };
        let only = |entries: &[&str]| {
            Allowances::of(
                settings(PrivateNetwork::Only(
                    entries.iter().map(|e| e.to_string()).collect(),
                )),
                None,
            )
        };
        let ip = |s: &str| s.parse::<IpAddr>().unwrap();
        let a = only(&[
            "127.0.0.1",
            "10.1.0.0/16",
            "fd00::/8",
            "Intranet.Example.",
            "10.0.0.0/33",
        ]);
        assert!(a.admits("x", ip("127.0.0.1")));
        assert!(!a.admits("x", ip("127.0.0.2")));
        assert!(
            a.admits("x", ip("::ffff:127.0.0.1")),
            "the mapped form of an allowed address"
        );
        assert!(a.admits("x", ip("10.1.200.3")));
        assert!(!a.admits("x", ip("10.2.0.1")));
        assert!(a.admits("x", ip("fd12::1")));
        assert!(!a.admits("x", ip("fe80::1")));
        assert!(a.admits("intranet.example", ip("192.168.0.1")));
        assert_eq!(
            a.nets.len(),
            3,
            "a range that does not parse matches nothing"
        );
        assert!(
            Allowances::of(settings(PrivateNetwork::All(true)), None).admits("x", ip("10.0.0.1"))
        );
        assert!(
            !Allowances::of(settings(PrivateNetwork::All(false)), None).admits("x", ip("10.0.0.1"))
        );
        let mut guard = closed();
        guard.allowances = OnceLock::from(a);
        assert!(guard.judge("x", ip("127.0.0.1")).is_none());
        assert!(guard.judge("x", ip("169.254.169.254")).is_some());
        assert!(guard.judge("x", ip("8.8.8.8")).is_none());
    }

    #[test]
    fn a_proxys_host_is_trusted_for_the_proxy_but_never_fetched() {
        let mut guard = closed();
        guard.proxies = vec!["proxy.corp".into()];
        guard.trusted = guard.proxies.clone();
        assert_eq!(
            guard
                .filter("proxy.corp", vec!["10.0.0.3".parse().unwrap()])
                .unwrap()
                .len(),
            1
        );
        let url = Url::parse("http://proxy.corp:3128/").unwrap();
        assert!(
            guard
                .check_target(&url, None)
                .unwrap_err()
                .why
                .contains("your proxy's host")
        );
    }

    /// End to end through reqwest: a server the user configured (so trusted, as
    /// websearch's endpoint) redirects to another loopback address; the redirect
    /// policy refuses the hop and the second address is never connected to.
    #[tokio::test]
    async fn a_redirect_to_a_private_address_is_refused_before_connecting() {
        use std::io::{Read, Write};
        use std::sync::atomic::AtomicUsize;
        let target = std::net::TcpListener::bind("127.0.0.2:0").unwrap();
        let target_port = target.local_addr().unwrap().port();
        let contacted = Arc::new(AtomicUsize::new(0));
        let seen = contacted.clone();
        std::thread::spawn(move || {
            for _ in target.incoming() {
                seen.fetch_add(1, Ordering::SeqCst);
            }
        });
        let start = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let start_port = start.local_addr().unwrap().port();
        let location = format!("http://127.0.0.2:{target_port}/latest/meta-data/");
        std::thread::spawn(move || {
            for stream in start.incoming() {
                let mut stream = stream.unwrap();
                let mut buf = [0u8; 4096];
                let _ = stream.read(&mut buf);
                let _ = write!(
                    stream,
                    "HTTP/1.1 302 Found\r\nLocation: {location}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
                );
            }
        });
        let first = Url::parse(&format!("http://127.0.0.1:{start_port}/start")).unwrap();
        let web = client(Duration::from_secs(5), Some(&first)).unwrap();
        web.check(&first).unwrap();
        let err = web.http.get(first.clone()).send().await.unwrap_err();
        assert_eq!(
            describe_error(&err, first.as_str(), 5000),
            format!(
                "Refused to fetch http://127.0.0.2:{target_port}/latest/meta-data/ (a redirect from {first}): 127.0.0.2 is a loopback address (127.0.0.0/8), not on the public internet. Pass --allow-private-network (or set INDUS_ALLOW_PRIVATE_NETWORK=1) to fetch it."
            )
        );
        assert_eq!(contacted.load(Ordering::SeqCst), 0);
    }

    #[test]
    fn resolver_debug_notation_is_put_in_words() {
        assert_eq!(
            in_words(
                r#"no records found for Query { name: Name("html.duckduckgo.com."), query_type: AAAA, query_class: IN }"#
            ),
            "no records found for html.duckduckgo.com (AAAA)"
        );
        assert_eq!(in_words("connection refused"), "connection refused");
    }
}
