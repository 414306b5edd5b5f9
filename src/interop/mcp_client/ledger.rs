//! The bridge ledger: which remote MCP tools are grafted, as an append-only event
//! log folded into a derived snapshot (the seed's "Bridge Ledger").
//!
//! This module owns the value types, the one reducer ([`reduce_ledger`]), the
//! content keys ([`bridge_content_key`]), the qualified names
//! ([`qualify_bridge_name`]) and the log's persistence as JSONL under
//! `.indus-process/mcp/ledger.jsonl`. It never connects to anything: it is the
//! tool-list cache that `list`, `describe` and `schema` read without spawning a
//! server. Enrollment is event-sourced rather than a mutable list so that "what is
//! live now" is a pure function of the log (independent of the order events are
//! read in) and every past change stays on record for audit.
//!
//! ## Qualified names
//!
//! A grafted tool is called `<server>__<tool>` (qualifier `__`). So that the first
//! `__` always separates the server and the name stays within 64 characters, the
//! rule is, deterministically:
//!
//! 1. every character outside `[A-Za-z0-9_-]` becomes `_`, in both parts;
//! 2. in the server part, runs of `_` collapse to one and leading/trailing `_`
//!    are trimmed (an empty server part becomes `mcp`, an empty tool part `tool`),
//!    and the server part is cut to 32 characters;
//! 3. if step 1 or 2 changed anything, or `<server>__<tool>` is longer than 64,
//!    the name is cut to 55 characters and `_` plus the first 8 hex digits of
//!    sha256(`server` NUL `tool`) (the names as configured) is appended, so two
//!    names that sanitize alike still differ.
//!
//! The ledger keeps the server's own tool name beside the qualified one, so a call
//! always reaches the tool as the server spells it.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use indexmap::IndexMap;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::kernel::digest::{canonical_json, sha256_hex};
use crate::state::StateDir;

/// The qualifier between a server's name and its tool's.
pub const QUALIFIER: &str = "__";
/// The longest qualified name (what model APIs accept for a tool name).
pub const MAX_NAME: usize = 64;
/// The log's path inside `.indus-process/`.
pub const LEDGER_FILE: &str = "mcp/ledger.jsonl";

/// What one event does: a closed set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BridgeOp {
    Enroll,
    Retire,
}

/// The stable key of an enrolled capability: `bk_<32 hex>`.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct BridgeKey(pub String);

impl std::fmt::Display for BridgeKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// One grafted remote tool, as the toolbox presents it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BridgeCapability {
    /// The qualified name (`<server>__<tool>`, see the module docs).
    pub name: String,
    /// The tool's name as its server spells it.
    pub tool: String,
    pub description: String,
    /// The input schema as the server gave it (`null` when it gave none).
    pub input_schema: Value,
    /// What else the server said of the tool, kept so that `indus-tool mcp`
    /// re-exports it as the server gave it: its title, its annotations
    /// (`readOnlyHint`, …) and its output schema. Absent in older ledgers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output_schema: Option<Value>,
}

/// One append-only event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BridgeEntry {
    pub op: BridgeOp,
    pub key: BridgeKey,
    pub server: String,
    /// Set on enroll, absent on retire.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub capability: Option<Arc<BridgeCapability>>,
    pub seq: u64,
    /// ISO-8601 UTC, milliseconds.
    pub at: String,
}

/// A line of the persisted log: the event and this user's seal of it. The log
/// names the tools the model is shown (their descriptions and schemas) and the
/// server each call goes to, so a line a checkout carried is passed over.
#[derive(Serialize, Deserialize)]
struct SealedEntry {
    #[serde(flatten)]
    entry: BridgeEntry,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    seal: Option<String>,
}

/// The most the ledger may hold when read (16 MiB): it grows with every tool a
/// refresh enrolls, schemas and all, and is read only when a configuration the
/// user trusted names servers.
const LEDGER_CAP: u64 = 16 * 1024 * 1024;

/// The seal's domain for ledger lines.
const SEAL_DOMAIN: &str = "indus-tool mcp ledger 1";

/// A live capability and the server that contributes it.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveCapability {
    pub server: String,
    pub capability: Arc<BridgeCapability>,
}

/// The fold of a log.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LedgerSnapshot {
    pub live: IndexMap<BridgeKey, LiveCapability>,
    /// Live capabilities per server, in first-live order.
    pub by_server: IndexMap<String, usize>,
    /// The highest `seq` seen (0 for an empty log).
    pub high_water: u64,
}

/// The single sanctioned reducer: pure and total. Sorts a borrowed index by
/// `seq` (ties broken by op then key, so the view is independent of input order),
/// lets a later enroll of a key replace the live entry in place, removes retired
/// keys with `shift_remove` (survivors keep their order; retiring an unknown key
/// changes nothing), and derives the per-server counts from the live set.
pub fn reduce_ledger(log: &[BridgeEntry]) -> LedgerSnapshot {
    let mut order: Vec<&BridgeEntry> = log.iter().collect();
    order.sort_by(|a, b| (a.seq, a.op, &a.key).cmp(&(b.seq, b.op, &b.key)));
    let mut snapshot = LedgerSnapshot::default();
    for entry in order {
        snapshot.high_water = snapshot.high_water.max(entry.seq);
        match entry.op {
            BridgeOp::Enroll => {
                if let Some(capability) = &entry.capability {
                    snapshot.live.insert(
                        entry.key.clone(),
                        LiveCapability {
                            server: entry.server.clone(),
                            capability: Arc::clone(capability),
                        },
                    );
                }
            }
            BridgeOp::Retire => {
                snapshot.live.shift_remove(&entry.key);
            }
        }
    }
    for live in snapshot.live.values() {
        *snapshot.by_server.entry(live.server.clone()).or_default() += 1;
    }
    snapshot
}

/// The ledger value: the log (source of truth), its fold, and the next `seq`.
/// Every transition returns a new ledger.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BridgeLedger {
    log: Vec<BridgeEntry>,
    snapshot: LedgerSnapshot,
    next_seq: u64,
}

impl BridgeLedger {
    /// An empty ledger; numbering starts at 1.
    pub fn empty() -> Self {
        Self {
            log: Vec::new(),
            snapshot: LedgerSnapshot::default(),
            next_seq: 1,
        }
    }

    /// Rehydrate from a persisted log: fold it, resume past the high-water mark.
    pub fn from_log(log: Vec<BridgeEntry>) -> Self {
        let snapshot = reduce_ledger(&log);
        let next_seq = snapshot.high_water + 1;
        Self {
            log,
            snapshot,
            next_seq,
        }
    }

    pub fn log(&self) -> &[BridgeEntry] {
        &self.log
    }

    pub fn snapshot(&self) -> &LedgerSnapshot {
        &self.snapshot
    }

    pub fn next_seq(&self) -> u64 {
        self.next_seq
    }

    fn with(&self, entries: Vec<BridgeEntry>) -> Self {
        let mut log = self.log.clone();
        log.extend(entries);
        Self::from_log(log)
    }

    /// Upsert: an enroll event for `capability` under its content key.
    pub fn enroll(&self, server: &str, capability: BridgeCapability, at: &str) -> Self {
        let key = bridge_content_key(server, &capability.tool, Some(&capability.input_schema));
        self.enroll_keyed(server, key, capability, at)
    }

    fn enroll_keyed(
        &self,
        server: &str,
        key: BridgeKey,
        capability: BridgeCapability,
        at: &str,
    ) -> Self {
        self.with(vec![BridgeEntry {
            op: BridgeOp::Enroll,
            key,
            server: server.to_string(),
            capability: Some(Arc::new(capability)),
            seq: self.next_seq,
            at: at.to_string(),
        }])
    }

    /// A retire event (recorded even when the key is not live, where it is a no-op).
    pub fn retire(&self, key: &BridgeKey, server: &str, at: &str) -> Self {
        self.with(vec![BridgeEntry {
            op: BridgeOp::Retire,
            key: key.clone(),
            server: server.to_string(),
            capability: None,
            seq: self.next_seq,
            at: at.to_string(),
        }])
    }

    /// Retire every live capability of `server`, in one batch.
    pub fn withdraw_server(&self, server: &str, at: &str) -> Self {
        let entries = self.retire_entries(server, |_| true, at);
        self.with(entries)
    }

    fn retire_entries(
        &self,
        server: &str,
        pick: impl Fn(&BridgeKey) -> bool,
        at: &str,
    ) -> Vec<BridgeEntry> {
        self.snapshot
            .live
            .iter()
            .filter(|(k, l)| l.server == server && pick(k))
            .enumerate()
            .map(|(i, (key, _))| BridgeEntry {
                op: BridgeOp::Retire,
                key: key.clone(),
                server: server.to_string(),
                capability: None,
                seq: self.next_seq + i as u64,
                at: at.to_string(),
            })
            .collect()
    }

    /// Make `server`'s live set exactly `tools` with the fewest events: enroll
    /// what is new or changed, retire what is gone. Returns the new ledger and the
    /// events appended (to persist).
    pub fn sync_server(
        &self,
        server: &str,
        tools: Vec<BridgeCapability>,
        at: &str,
    ) -> (Self, Vec<BridgeEntry>) {
        let mut wanted: IndexMap<BridgeKey, BridgeCapability> = IndexMap::new();
        for cap in tools {
            let key = bridge_content_key(server, &cap.tool, Some(&cap.input_schema));
            wanted.insert(key, cap);
        }
        let mut entries = self.retire_entries(server, |k| !wanted.contains_key(k), at);
        let mut seq = self.next_seq + entries.len() as u64;
        for (key, cap) in wanted {
            let same = self
                .snapshot
                .live
                .get(&key)
                .is_some_and(|l| l.server == server && *l.capability == cap);
            if same {
                continue;
            }
            entries.push(BridgeEntry {
                op: BridgeOp::Enroll,
                key,
                server: server.to_string(),
                capability: Some(Arc::new(cap)),
                seq,
                at: at.to_string(),
            });
            seq += 1;
        }
        (self.with(entries.clone()), entries)
    }

    /// Every live capability, in the snapshot's stable order.
    pub fn live_capabilities(&self) -> Vec<LiveCapability> {
        self.snapshot.live.values().cloned().collect()
    }

    /// The live capabilities one server contributes.
    pub fn live_capabilities_for_server(&self, server: &str) -> Vec<LiveCapability> {
        self.snapshot
            .live
            .values()
            .filter(|l| l.server == server)
            .cloned()
            .collect()
    }

    /// The live capability with this qualified name.
    pub fn find(&self, qualified: &str) -> Option<&LiveCapability> {
        self.snapshot
            .live
            .values()
            .find(|l| l.capability.name == qualified)
    }
}

/// The content key of a tool: `bk_` + the first 32 hex digits of sha256 over the
/// canonical JSON of `{name: <qualified>, schema}` (a missing schema is `null`,
/// distinct from any object). Same tool, same schema (in any key order): same
/// key; a changed schema: a new key.
pub fn bridge_content_key(server: &str, tool: &str, schema: Option<&Value>) -> BridgeKey {
    let identity = serde_json::json!({
        "name": qualify_bridge_name(server, tool),
        "schema": schema.cloned().unwrap_or(Value::Null),
    });
    let digest = sha256_hex(canonical_json(&identity).as_bytes());
    BridgeKey(format!("bk_{}", &digest[..32]))
}

fn sanitize(part: &str) -> String {
    part.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// `<server>__<tool>`, made unambiguous and at most 64 characters by the rule in
/// the module docs.
pub fn qualify_bridge_name(server: &str, tool: &str) -> String {
    let mut s = String::new();
    for c in sanitize(server).chars() {
        if !(c == '_' && s.ends_with('_')) {
            s.push(c);
        }
    }
    let mut s = s.trim_matches('_').to_string();
    if s.is_empty() {
        s = "mcp".to_string();
    }
    s.truncate(32);
    let s = s.trim_end_matches('_').to_string();
    let mut t = sanitize(tool);
    if t.is_empty() {
        t = "tool".to_string();
    }
    let plain = format!("{s}{QUALIFIER}{t}");
    if s == server && t == tool && plain.len() <= MAX_NAME {
        return plain;
    }
    let digest = sha256_hex(format!("{server}\0{tool}").as_bytes());
    let mut cut = plain;
    cut.truncate(MAX_NAME - 9);
    format!("{cut}_{}", &digest[..8])
}

/// The server part of a qualified name (up to the first `__`).
pub fn server_of_qualified(name: &str) -> &str {
    name.split_once(QUALIFIER).map_or(name, |(s, _)| s)
}

/// Now as ISO-8601 UTC with milliseconds (`2026-11-23T21:43:16.123Z`).
pub fn now_iso() -> String {
    crate::kernel::clock::iso8601_utc(crate::kernel::clock::now_ms())
}

/// Read the persisted log (absent: empty). A line that does not parse is an
/// error naming the file and line; the file is never reset.
pub fn load_log(state: &StateDir) -> std::io::Result<Vec<BridgeEntry>> {
    let file = state.checked(LEDGER_FILE)?;
    // Without following a link, capped (the state folder may come with a checkout).
    let text = match crate::state::read_file(&file, LEDGER_CAP) {
        Ok(t) => String::from_utf8_lossy(&t).into_owned(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => {
            return Err(std::io::Error::new(
                e.kind(),
                format!("state file {}: {e}", file.display()),
            ));
        }
    };
    parse_log(&text, &file)
}

fn parse_log(text: &str, file: &Path) -> std::io::Result<Vec<BridgeEntry>> {
    let mut log = Vec::new();
    let lines: Vec<&str> = text.split('\n').collect();
    let mut unsealed = 0;
    for (i, line) in lines.iter().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<SealedEntry>(line) {
            Ok(e) if crate::state::user::verify_json(SEAL_DOMAIN, &e.entry, e.seal.as_deref()) => {
                log.push(e.entry)
            }
            Ok(_) => unsealed += 1,
            // A last line without its newline is an append cut short: ignored.
            Err(_) if i + 1 == lines.len() => {}
            Err(e) => {
                return Err(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!(
                        "state file {} line {} is corrupt ({e}); fix or delete it",
                        file.display(),
                        i + 1
                    ),
                ));
            }
        }
    }
    if unsealed > 0 {
        crate::state::user::ignore_foreign(&format!("{unsealed} line(s) of {}", file.display()));
    }
    Ok(log)
}

/// Append events to the log (one write, then fsync). Call it holding the state
/// folder's lock, after re-reading the log under that lock.
pub fn append_log(state: &StateDir, entries: &[BridgeEntry]) -> std::io::Result<()> {
    if entries.is_empty() {
        return Ok(());
    }
    if let Some(parent) = Path::new(LEDGER_FILE).parent() {
        state.make_dirs(parent)?;
    }
    let file = state.checked(LEDGER_FILE)?;
    let named = |e: std::io::Error| {
        std::io::Error::new(e.kind(), format!("state file {}: {e}", file.display()))
    };
    let mut buf = String::new();
    for entry in entries {
        let sealed = SealedEntry {
            seal: crate::state::user::seal_json(SEAL_DOMAIN, entry),
            entry: entry.clone(),
        };
        buf.push_str(&serde_json::to_string(&sealed).expect("entries serialize"));
        buf.push('\n');
    }
    let mut f = crate::state::open_to_write(&file, true).map_err(named)?;
    f.write_all(buf.as_bytes()).map_err(named)?;
    f.sync_data().map_err(named)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn cap(server: &str, tool: &str, schema: Value) -> BridgeCapability {
        BridgeCapability {
            name: qualify_bridge_name(server, tool),
            tool: tool.to_string(),
            description: format!("{tool} tool"),
            input_schema: schema,
            title: None,
            annotations: None,
            output_schema: None,
        }
    }

    fn names(l: &BridgeLedger) -> Vec<String> {
        l.live_capabilities()
            .iter()
            .map(|c| c.capability.name.clone())
            .collect()
    }

    #[test]
    fn keys_ignore_key_order_keep_array_order_and_tell_null_apart() {
        let a = json!({"type":"object","properties":{"x":{"type":"string"},"y":{"type":"number"}},"required":["x","y"]});
        let b = json!({"required":["x","y"],"properties":{"y":{"type":"number"},"x":{"type":"string"}},"type":"object"});
        let c = json!({"type":"object","properties":{"x":{"type":"string"},"y":{"type":"number"}},"required":["y","x"]});
        let k = |s: Option<&Value>| bridge_content_key("srv", "t", s);
        assert_eq!(k(Some(&a)), k(Some(&b)));
        assert_ne!(k(Some(&a)), k(Some(&c)));
        assert_ne!(k(None), k(Some(&json!({}))));
        assert_eq!(k(None), k(Some(&Value::Null)));
        assert_ne!(k(Some(&a)), bridge_content_key("other", "t", Some(&a)));
        let key = k(Some(&a)).0;
        assert!(key.starts_with("bk_") && key.len() == 35, "{key}");
        assert!(key[3..].bytes().all(|b| b.is_ascii_hexdigit()));
    }

    #[test]
    fn qualified_names_follow_the_documented_rule() {
        assert_eq!(qualify_bridge_name("peer", "read"), "peer__read");
        assert_eq!(
            qualify_bridge_name("git-hub", "get_issue"),
            "git-hub__get_issue"
        );
        let dotted = qualify_bridge_name("peer", "a.b");
        let underscored = qualify_bridge_name("peer", "a_b");
        assert!(
            dotted.starts_with("peer__a_b_") && dotted.len() == 18,
            "{dotted}"
        );
        assert_eq!(underscored, "peer__a_b");
        // A server holding the qualifier cannot shift the split.
        let q = qualify_bridge_name("my__srv", "x");
        assert_eq!(server_of_qualified(&q), "my_srv");
        let long = qualify_bridge_name("server", &"t".repeat(80));
        assert_eq!(long.len(), MAX_NAME);
        assert_eq!(long, qualify_bridge_name("server", &"t".repeat(80)));
        assert_ne!(long, qualify_bridge_name("server", &"t".repeat(81)));
        for n in [dotted, long, q] {
            assert!(n.len() <= MAX_NAME);
            assert!(
                n.bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
            );
        }
    }

    #[test]
    fn the_fold_is_independent_of_input_order_and_upserts() {
        let l = BridgeLedger::empty()
            .enroll("a", cap("a", "x", json!({"type":"object"})), "t1")
            .enroll("b", cap("b", "y", Value::Null), "t2")
            .enroll("a", cap("a", "z", json!({})), "t3");
        // Re-enrolling the same key (same name and schema) replaces in place.
        let mut again = cap("a", "x", json!({"type":"object"}));
        again.description = "new words".into();
        let l = l.enroll("a", again, "t4");
        assert_eq!(names(&l), ["a__x", "b__y", "a__z"]);
        assert_eq!(l.live_capabilities()[0].capability.description, "new words");
        assert_eq!(l.snapshot().by_server["a"], 2);
        assert_eq!(l.snapshot().high_water, 4);
        assert_eq!(l.next_seq(), 5);
        let mut shuffled = l.log().to_vec();
        shuffled.reverse();
        shuffled.swap(0, 2);
        assert_eq!(reduce_ledger(&shuffled), *l.snapshot());
        assert_eq!(BridgeLedger::from_log(shuffled).snapshot(), l.snapshot());
    }

    #[test]
    fn retire_of_an_unknown_key_is_recorded_and_harmless_and_withdraw_empties_a_server() {
        let l = BridgeLedger::empty()
            .enroll("a", cap("a", "x", Value::Null), "t")
            .enroll("b", cap("b", "y", Value::Null), "t");
        let before = l.snapshot().live.clone();
        let l2 = l.retire(&BridgeKey("bk_nope".into()), "a", "t");
        assert_eq!(l2.log().len(), 3);
        assert_eq!(l2.snapshot().live, before);
        let l3 = l2.withdraw_server("a", "t");
        assert_eq!(names(&l3), ["b__y"]);
        assert!(l3.live_capabilities_for_server("a").is_empty());
        assert_eq!(l3.snapshot().by_server.get("a"), None);
        assert_eq!(l3.log().len(), 4);
        // Withdrawing a server with nothing live records nothing.
        assert_eq!(l3.withdraw_server("a", "t").log().len(), 4);
        // The old values are untouched.
        assert_eq!(l.log().len(), 2);
    }

    #[test]
    fn sync_writes_only_the_difference() {
        let (l, e) = BridgeLedger::empty().sync_server(
            "s",
            vec![cap("s", "a", Value::Null), cap("s", "b", Value::Null)],
            "t",
        );
        assert_eq!(e.len(), 2);
        let (l, e) = l.sync_server(
            "s",
            vec![cap("s", "a", Value::Null), cap("s", "b", Value::Null)],
            "t",
        );
        assert!(e.is_empty());
        let (l, e) = l.sync_server(
            "s",
            vec![
                cap("s", "a", Value::Null),
                cap("s", "b", json!({"type":"object"})),
            ],
            "t",
        );
        // b's schema changed: a new key enrolled, the old one retired.
        assert_eq!(
            e.iter().map(|e| e.op).collect::<Vec<_>>(),
            [BridgeOp::Retire, BridgeOp::Enroll]
        );
        assert_eq!(names(&l), ["s__a", "s__b"]);
        assert_eq!(
            l.find("s__b").unwrap().capability.input_schema,
            json!({"type":"object"})
        );
    }

    #[test]
    fn replay_from_the_persisted_log_is_deterministic() {
        let tmp = tempfile::tempdir().unwrap();
        let state = StateDir::new(tmp.path());
        let (l, e) = BridgeLedger::empty().sync_server(
            "s",
            vec![
                cap("s", "a", json!({"b":1,"a":[2,1]})),
                cap("s", "c", Value::Null),
            ],
            &now_iso(),
        );
        append_log(&state, &e).unwrap();
        let l = l.withdraw_server("s", "t");
        append_log(&state, &l.log()[2..]).unwrap();
        let back = BridgeLedger::from_log(load_log(&state).unwrap());
        assert_eq!(back, l);
        assert_eq!(BridgeLedger::from_log(load_log(&state).unwrap()), back);
        // A torn last line is ignored; a corrupt middle line is an error naming it.
        let file = state.path(LEDGER_FILE);
        let mut text = std::fs::read_to_string(&file).unwrap();
        text.push_str("{\"op\":\"enr");
        std::fs::write(&file, &text).unwrap();
        assert_eq!(load_log(&state).unwrap().len(), 4);
        // A line without this user's seal (as a checkout could carry) is passed over.
        let forged = serde_json::to_string(&l.log()[0]).unwrap();
        std::fs::write(&file, format!("{forged}\n{text}")).unwrap();
        assert_eq!(load_log(&state).unwrap().len(), 4);
        std::fs::write(&file, format!("garbage\n{text}")).unwrap();
        let err = load_log(&state).unwrap_err().to_string();
        assert!(
            err.contains("line 1") && err.contains("ledger.jsonl"),
            "{err}"
        );
    }

    #[test]
    fn timestamps_are_iso_utc() {
        assert_eq!(
            crate::kernel::clock::iso8601_utc(0),
            "1970-01-01T00:00:00.000Z"
        );
        assert_eq!(
            crate::kernel::clock::iso8601_utc(951_782_400_123),
            "2000-02-29T00:00:00.123Z"
        );
        assert_eq!(
            crate::kernel::clock::iso8601_utc(1_795_477_396_000),
            "2026-11-23T23:43:16.000Z"
        );
        assert!(now_iso().ends_with('Z'));
    }
}
