//! The user's own state, outside every project: `$XDG_STATE_HOME/indus-tool/`
//! (default `~/.local/state/indus-tool/`), a folder of mode 0700.
//!
//! A project's `.indus-process/` and its configuration files come with the
//! checkout, and a checkout may be a stranger's (a fork's pull request in CI, a
//! repository an agent just cloned). What must not be forgeable from a checkout
//! lives here instead:
//!
//! - `key`: 32 random bytes (mode 0600) that seal every record the toolbox will
//!   later *act on* — an undo journal to replay, a rewind plan, a job to signal or
//!   remove. A record is honoured only when its seal verifies ([`seal`],
//!   [`verify`]), so a record written by anyone but this user's toolbox is data,
//!   never an instruction. The seal is an HMAC-SHA256 under a domain name, so a
//!   seal made for one kind of record never passes for another.
//! - `trust/<hash>`: project configuration files the user trusted, each by its
//!   path as found (links not followed) and the SHA-256 of its exact content, as direnv's allow list
//!   does: any edit revokes the trust ([`is_trusted`], [`trust`], [`revoke`]).
//!   Beside them, the path and SHA-256 of each project file the configuration
//!   launches (`launches`; see `state::trust`). A record without `launches` was
//!   written before trust covered launched files: it still loads, and still
//!   trusts a file that launches none.
//!
//! Without `HOME` the password database's home directory is used; where that
//! folder cannot be made (a read-only home in a sandbox) the key goes to a
//! folder of this user's in the temp folder, closed to others, so background
//! jobs and checkpoints keep working there. Where no key can be kept at all,
//! records are still written but a later invocation ignores them (it says so),
//! and project configuration stays unused: a missing key never makes a forged
//! record pass.

use std::io::{self, Read, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

use crate::kernel::digest::sha256_hex;

/// The folder's name under `$XDG_STATE_HOME`.
const APP: &str = "indus-tool";
const KEY_FILE: &str = "key";
const TRUST_DIR: &str = "trust";
const KEY_LEN: usize = 32;

/// Where the user's state folder is: `$XDG_STATE_HOME/indus-tool` when that is
/// absolute (the XDG rule: a relative value is ignored), else
/// `$HOME/.local/state/indus-tool`, else under the home directory the password
/// database gives (a service started without `HOME`); `None` without any.
pub fn dir() -> Option<PathBuf> {
    // The library's own unit tests never touch the user's real folder.
    if cfg!(test) {
        return Some(
            std::env::temp_dir().join(format!("indus-tool-unit-state-{}", nix::unistd::getuid())),
        );
    }
    dir_from(|k| std::env::var_os(k))
}

fn dir_from(env: impl Fn(&str) -> Option<std::ffi::OsString>) -> Option<PathBuf> {
    if let Some(x) = env("XDG_STATE_HOME").map(PathBuf::from)
        && x.is_absolute()
    {
        return Some(x.join(APP));
    }
    let home = env("HOME")
        .map(PathBuf::from)
        .filter(|h| h.is_absolute())
        .or_else(passwd_home)?;
    Some(home.join(".local").join("state").join(APP))
}

fn passwd_home() -> Option<PathBuf> {
    if cfg!(test) {
        return None;
    }
    nix::unistd::User::from_uid(nix::unistd::getuid())
        .ok()
        .flatten()
        .map(|u| u.dir)
        .filter(|d| d.is_absolute() && d != Path::new("/"))
}

/// Where the key goes when the user's folder cannot be made (a read-only home
/// in a sandbox): a folder of this user's in the system's temp folder, closed to
/// others (checked as the state folder is). Records sealed under it outlive the
/// invocation, not a reboot.
fn fallback_dir() -> PathBuf {
    std::env::temp_dir().join(format!("indus-tool-{}-state", nix::unistd::getuid()))
}

/// Create the folder (0700) if needed and check that it is a real folder of this
/// user that nobody else can write: a folder others could write would let them
/// plant a key or a trust entry.
fn ensure_dir() -> io::Result<PathBuf> {
    let dir = dir().ok_or_else(|| {
        io::Error::new(
            io::ErrorKind::NotFound,
            "neither XDG_STATE_HOME nor HOME names a folder for the user's state",
        )
    })?;
    ensure_private(dir)
}

fn ensure_private(dir: PathBuf) -> io::Result<PathBuf> {
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir)?;
    let meta = std::fs::symlink_metadata(&dir)?;
    let uid = nix::unistd::getuid().as_raw();
    if !meta.is_dir() || meta.uid() != uid || meta.mode() & 0o022 != 0 {
        return Err(io::Error::other(format!(
            "{} is not a folder of this user closed to others' writes",
            dir.display()
        )));
    }
    Ok(dir)
}

/// The key, created on first use; `None` when the user's folder is unusable.
fn key() -> Option<&'static [u8]> {
    static KEY: OnceLock<Option<Vec<u8>>> = OnceLock::new();
    KEY.get_or_init(|| load_or_make_key().ok()).as_deref()
}

fn load_or_make_key() -> io::Result<Vec<u8>> {
    let dir = ensure_dir().or_else(|_| ensure_private(fallback_dir()))?;
    let path = dir.join(KEY_FILE);
    match read_key(&path) {
        Ok(k) => return Ok(k),
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let mut fresh = [0u8; KEY_LEN];
    getrandom::fill(&mut fresh).map_err(|e| io::Error::other(e.to_string()))?;
    // Written whole under a private name, then linked into place: two first
    // invocations at once both end up with whichever key was linked first.
    let tmp = dir.join(format!(".key.{}", std::process::id()));
    let _ = std::fs::remove_file(&tmp);
    {
        let mut f = std::fs::File::options()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&tmp)?;
        f.write_all(hex(&fresh).as_bytes())?;
        f.sync_all()?;
    }
    let linked = std::fs::hard_link(&tmp, &path);
    let _ = std::fs::remove_file(&tmp);
    match linked {
        Ok(()) => Ok(fresh.to_vec()),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => read_key(&path),
        Err(e) => Err(e),
    }
}

fn read_key(path: &Path) -> io::Result<Vec<u8>> {
    let text = super::files::read_file(path, 2 * KEY_LEN as u64 + 1)?;
    let text = std::str::from_utf8(&text).unwrap_or("").trim();
    unhex(text)
        .filter(|k| k.len() == KEY_LEN)
        .ok_or_else(|| io::Error::other(format!("{} does not hold a key", path.display())))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

fn mac(key: &[u8], domain: &str, bytes: &[u8]) -> Hmac<Sha256> {
    let mut m = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes a key of any length");
    m.update(domain.as_bytes());
    m.update(&[0]);
    m.update(bytes);
    m
}

/// The seal of `bytes` as a record of kind `domain` (hex), or `None` when the
/// user's key is unavailable.
pub fn seal(domain: &str, bytes: &[u8]) -> Option<String> {
    Some(hex(&mac(key()?, domain, bytes).finalize().into_bytes()))
}

/// Whether `seal` is this user's seal of `bytes` as a `domain` record (compared
/// in constant time).
pub fn verify(domain: &str, bytes: &[u8], seal: &str) -> bool {
    let (Some(key), Some(tag)) = (key(), unhex(seal)) else {
        return false;
    };
    mac(key, domain, bytes).verify_slice(&tag).is_ok()
}

/// [`seal`] of a value's JSON form.
pub fn seal_json<T: Serialize>(domain: &str, value: &T) -> Option<String> {
    seal(domain, &serde_json::to_vec(value).ok()?)
}

/// [`verify`] of a value's JSON form against the seal it carried (`None`: none).
pub fn verify_json<T: Serialize>(domain: &str, value: &T, seal: Option<&str>) -> bool {
    match (seal, serde_json::to_vec(value)) {
        (Some(s), Ok(bytes)) => verify(domain, &bytes, s),
        _ => false,
    }
}

/// Why a record without this user's seal is not acted on, in the words every
/// store uses.
pub const NOT_OURS: &str =
    "it does not carry this user's seal, so this user's indus-tool did not write it";

/// Say on stderr, once per process, that `what` (a record, named with its
/// file) is ignored for want of this user's seal: a table or a node is read
/// several times by one call, and said once.
pub fn ignore_foreign(what: &str) {
    static SAID: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut said = SAID.lock().unwrap_or_else(|p| p.into_inner());
    if !said.iter().any(|w| w == what) {
        said.push(what.to_string());
        eprintln!("indus-tool: ignoring {what}: {NOT_OURS}");
    }
}

/// What a sealed document's `"seal"` holds while it is sealed: 64 zeros.
pub const PLACEHOLDER: &str = "0000000000000000000000000000000000000000000000000000000000000000";

/// Where the seal's 64 hex digits are in a document that opens with its
/// `"seal"` field (looked for in the first 256 bytes only).
fn seal_span(head: &[u8]) -> Option<std::ops::Range<usize>> {
    let head = &head[..head.len().min(256)];
    let key = head.windows(6).position(|w| w == b"\"seal\"")?;
    let colon = key + 6 + head[key + 6..].iter().position(|b| *b == b':')?;
    let quote = colon + 1 + head[colon + 1..].iter().position(|b| *b == b'"')?;
    let start = quote + 1;
    (head.len() > start + 64 && head[start + 64] == b'"').then_some(start..start + 64)
}

/// Seal a JSON document in place: it opens with `"seal": PLACEHOLDER`, and the
/// seal is the HMAC of the whole document with the placeholder in it. So a
/// reader checks the bytes as they are on disk, streamed, before parsing them:
/// a planted document costs a hash, never the memory of its parse. False (the
/// placeholder left) when the user's key is unavailable or there is no seal.
pub fn seal_document(domain: &str, doc: &mut [u8]) -> bool {
    let Some(span) = seal_span(doc) else {
        return false;
    };
    if &doc[span.clone()] != PLACEHOLDER.as_bytes() {
        return false;
    }
    let Some(seal) = seal(domain, doc) else {
        return false;
    };
    doc[span].copy_from_slice(seal.as_bytes());
    true
}

/// Whether the document at `path` carries this user's seal (see
/// [`seal_document`]). Read without following a link, without blocking, in
/// chunks, refused over `cap` bytes: its parse is for the caller, after this.
pub fn verify_document(domain: &str, path: &Path, cap: u64) -> io::Result<bool> {
    let (mut file, _) = super::files::open_capped(path, cap)?;
    let mut head = vec![0u8; 256];
    let mut got = 0;
    while got < head.len() {
        match file.read(&mut head[got..])? {
            0 => break,
            n => got += n,
        }
    }
    head.truncate(got);
    let (Some(span), Some(key)) = (seal_span(&head), key()) else {
        return Ok(false);
    };
    let Some(tag) = std::str::from_utf8(&head[span.clone()])
        .ok()
        .and_then(unhex)
    else {
        return Ok(false);
    };
    head[span].copy_from_slice(PLACEHOLDER.as_bytes());
    let mut m = mac(key, domain, &head);
    let mut chunk = vec![0u8; 64 * 1024];
    let mut total = head.len() as u64;
    loop {
        let n = file.read(&mut chunk)?;
        if n == 0 {
            break;
        }
        total += n as u64;
        if total > cap {
            return Ok(false);
        }
        m.update(&chunk[..n]);
    }
    Ok(m.verify_slice(&tag).is_ok())
}

/// The most a trust record may hold: its launched files' paths included.
const ENTRY_CAP: u64 = 1024 * 1024;

/// One trusted configuration file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TrustEntry {
    /// The file's path as found (absolute, tidied, links not followed).
    pub path: PathBuf,
    /// The SHA-256 of the content trusted.
    pub sha256: String,
    /// The project files it launches, as trusted with it; `None` in a record
    /// written before trust covered launched files.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launches: Option<Vec<Launched>>,
}

/// A project file a trusted configuration launches, as trusted with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Launched {
    /// Absolute, as the configuration's words name it from where it starts.
    pub path: PathBuf,
    /// The SHA-256 of its content (through the link, when it is one).
    pub sha256: String,
    /// What the link there pointed at, when it was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<PathBuf>,
}

/// The path a trust entry is kept under: absolute and tidied (`.` and `..`
/// resolved as written), links NOT followed. Trust belongs to the place the
/// file was found, not to what it points at: a checkout's `.mcp.json` that is a
/// link to (or sits in a linked folder of) a file the user trusted elsewhere is
/// not trusted, since its `${workspaceFolder}` and relative commands would be
/// the checkout's.
pub fn place_of(path: &Path) -> PathBuf {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(path))
            .unwrap_or_else(|_| path.to_path_buf())
    };
    crate::kernel::root::tidy(&abs)
}

fn entry_name(path: &Path, sha256: &str) -> String {
    let mut id = path.as_os_str().as_encoded_bytes().to_vec();
    id.push(0);
    id.extend_from_slice(sha256.as_bytes());
    sha256_hex(&id)
}

/// Whether the user trusted the file at `path` with exactly `content` (its
/// launched files are checked by `state::trust::check`).
pub fn is_trusted(path: &Path, content: &[u8]) -> bool {
    trusted_entry(path, content).is_some()
}

/// The record of the user's trust in the file at `path` with exactly
/// `content`, when there is one.
pub fn trusted_entry(path: &Path, content: &[u8]) -> Option<TrustEntry> {
    let dir = dir()?;
    let path = place_of(path);
    let sha256 = sha256_hex(content);
    let name = entry_name(&path, &sha256);
    let bytes = super::files::read_file(&dir.join(TRUST_DIR).join(name), ENTRY_CAP).ok()?;
    serde_json::from_slice::<TrustEntry>(&bytes)
        .ok()
        .filter(|e| e.path == path && e.sha256 == sha256)
}

/// Record that the user trusts the file at `path` with exactly `content`, and
/// the project files it launches as they are (`launches`).
pub fn trust(path: &Path, content: &[u8], launches: Vec<Launched>) -> io::Result<TrustEntry> {
    let dir = ensure_dir()?.join(TRUST_DIR);
    std::fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(&dir)?;
    let entry = TrustEntry {
        path: place_of(path),
        sha256: sha256_hex(content),
        launches: Some(launches),
    };
    let name = entry_name(&entry.path, &entry.sha256);
    let bytes = serde_json::to_vec(&entry).map_err(io::Error::other)?;
    crate::state::files::write_private(&dir.join(name), &bytes)?;
    Ok(entry)
}

/// Every trusted file, in path order.
pub fn trusted() -> io::Result<Vec<TrustEntry>> {
    let Some(dir) = dir() else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    let entries = match std::fs::read_dir(dir.join(TRUST_DIR)) {
        Ok(e) => e,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(out),
        Err(e) => return Err(e),
    };
    for entry in entries.flatten() {
        if let Ok(bytes) = super::files::read_file(&entry.path(), ENTRY_CAP)
            && let Ok(e) = serde_json::from_slice::<TrustEntry>(&bytes)
            && entry.file_name().to_str() == Some(&entry_name(&e.path, &e.sha256))
        {
            out.push(e);
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path).then(a.sha256.cmp(&b.sha256)));
    Ok(out)
}

/// Forget every trust recorded for the file at `path` (any content); how many.
pub fn revoke(path: &Path) -> io::Result<usize> {
    let path = place_of(path);
    let Some(dir) = dir() else {
        return Ok(0);
    };
    let mut n = 0;
    for e in trusted()?.into_iter().filter(|e| e.path == path) {
        std::fs::remove_file(dir.join(TRUST_DIR).join(entry_name(&e.path, &e.sha256)))?;
        n += 1;
    }
    Ok(n)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    #[test]
    fn the_folder_follows_xdg_then_home() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |k: &str| {
                pairs
                    .iter()
                    .find(|(n, _)| *n == k)
                    .map(|(_, v)| OsString::from(v))
            }
        };
        assert_eq!(
            dir_from(env(&[("XDG_STATE_HOME", "/x"), ("HOME", "/h")])),
            Some(PathBuf::from("/x/indus-tool"))
        );
        assert_eq!(
            dir_from(env(&[("XDG_STATE_HOME", "rel"), ("HOME", "/h")])),
            Some(PathBuf::from("/h/.local/state/indus-tool"))
        );
        assert_eq!(dir_from(env(&[("HOME", "rel")])), None);
        assert_eq!(dir_from(env(&[])), None);
    }

    #[test]
    fn a_record_from_before_launched_files_still_loads() {
        let old: TrustEntry =
            serde_json::from_str(r#"{"path":"/p/.mcp.json","sha256":"ab"}"#).unwrap();
        assert_eq!(old.launches, None);
        let new = TrustEntry {
            launches: Some(vec![Launched {
                path: PathBuf::from("/p/x.sh"),
                sha256: "cd".into(),
                link: None,
            }]),
            ..old.clone()
        };
        let text = serde_json::to_string(&new).unwrap();
        assert_eq!(
            text,
            r#"{"path":"/p/.mcp.json","sha256":"ab","launches":[{"path":"/p/x.sh","sha256":"cd"}]}"#
        );
        assert_eq!(serde_json::from_str::<TrustEntry>(&text).unwrap(), new);
        // Written with no launched file, it says so: `[]`, not absent.
        let none = TrustEntry {
            launches: Some(Vec::new()),
            ..old
        };
        assert!(
            serde_json::to_string(&none)
                .unwrap()
                .contains(r#""launches":[]"#)
        );
    }

    #[test]
    fn hex_round_trips_and_refuses_odd_input() {
        assert_eq!(unhex(&hex(&[0, 1, 254, 255])), Some(vec![0, 1, 254, 255]));
        assert_eq!(unhex("abc"), None);
        assert_eq!(unhex("zz"), None);
    }

    #[test]
    fn a_seal_is_bound_to_its_domain_and_bytes() {
        let key = [7u8; KEY_LEN];
        let a = hex(&mac(&key, "journal", b"x").finalize().into_bytes());
        let b = hex(&mac(&key, "job", b"x").finalize().into_bytes());
        let c = hex(&mac(&key, "journal", b"y").finalize().into_bytes());
        assert_ne!(a, b);
        assert_ne!(a, c);
        assert!(
            mac(&key, "journal", b"x")
                .verify_slice(&unhex(&a).unwrap())
                .is_ok()
        );
        // The domain's separator keeps "ab"+"c" apart from "a"+"bc".
        let d = hex(&mac(&key, "ab", b"c").finalize().into_bytes());
        let e = hex(&mac(&key, "a", b"bc").finalize().into_bytes());
        assert_ne!(d, e);
    }

    #[test]
    fn a_document_seal_is_checked_on_the_bytes_as_stored() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("doc.json");
        let value = serde_json::json!({"seal": PLACEHOLDER, "steps": [1, 2, 3]});
        let mut doc = serde_json::to_vec_pretty(&value).unwrap();
        assert!(seal_document("d", &mut doc));
        std::fs::write(&path, &doc).unwrap();
        assert!(verify_document("d", &path, 1 << 20).unwrap());
        assert!(!verify_document("other", &path, 1 << 20).unwrap());
        // One byte changed anywhere, or the placeholder left: not ours.
        let mut edited = doc.clone();
        let last = edited.len() - 3;
        edited[last] = b'9';
        std::fs::write(&path, &edited).unwrap();
        assert!(!verify_document("d", &path, 1 << 20).unwrap());
        std::fs::write(&path, serde_json::to_vec(&value).unwrap()).unwrap();
        assert!(!verify_document("d", &path, 1 << 20).unwrap());
        // No seal field at all, or over the cap.
        std::fs::write(&path, b"{\"steps\": []}").unwrap();
        assert!(!verify_document("d", &path, 1 << 20).unwrap());
        std::fs::write(&path, &doc).unwrap();
        assert!(verify_document("d", &path, 8).is_err());
    }
}
