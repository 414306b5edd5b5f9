//! SHA-256 digests as lower-case hex: the content hashes that the read gate,
//! `edit`'s `expectSha256`, checkpoints, `apply_patch`'s journal, the MCP ledger
//! and the remote backend's cache keys all compare as text.
//!
//! It lives in the kernel, the lowest floor, because every floor above hashes
//! (backends and state included); the hex is written from a table, since a
//! `format!` per byte was most of the cost of hashing a small file.

use std::io::{self, Read};

use serde_json::Value;
use sha2::{Digest, Sha256};

/// Canonical JSON: object keys sorted recursively, arrays in order, compact: the
/// form a JSON value is hashed or compared in (the MCP ledger's content keys, a
/// grafted server's identity, repeated-failure suppression's call key), so the
/// same value in any key order is the same text.
pub fn canonical_json(value: &Value) -> String {
    fn sort(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                Value::Object(
                    keys.into_iter()
                        .map(|k| (k.clone(), sort(&map[k])))
                        .collect(),
                )
            }
            Value::Array(items) => Value::Array(items.iter().map(sort).collect()),
            other => other.clone(),
        }
    }
    sort(value).to_string()
}

/// Lower-case hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex(&Sha256::digest(bytes))
}

/// SHA-256 of a reader's bytes, streamed (for files of any size).
pub fn sha256_of_reader(mut reader: impl Read) -> io::Result<String> {
    let mut hasher = Sha256::new();
    io::copy(&mut reader, &mut hasher)?;
    Ok(hex(&hasher.finalize()))
}

/// A SHA-256 fed piece by piece, for a reader that streams a file for another
/// reason (`read` counts its lines) and hashes it on the way rather than reading
/// it twice; [`Self::finish_hex`] gives what [`sha256_hex`] gives for the whole.
#[derive(Default, Clone)]
pub struct Sha256Stream(Sha256);

impl Sha256Stream {
    pub fn update(&mut self, bytes: &[u8]) {
        self.0.update(bytes);
    }

    /// The lower-case hex digest of everything fed so far.
    pub fn finish_hex(self) -> String {
        hex(&self.0.finalize())
    }
}

fn hex(digest: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(digest.len() * 2);
    for &b in digest {
        out.push(DIGITS[usize::from(b >> 4)] as char);
        out.push(DIGITS[usize::from(b & 0xf)] as char);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_digests() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert_eq!(
            sha256_hex(b""),
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
        );
        assert_eq!(sha256_of_reader(&b"abc"[..]).unwrap(), sha256_hex(b"abc"));
        let mut stream = Sha256Stream::default();
        stream.update(b"a");
        stream.update(b"bc");
        assert_eq!(stream.finish_hex(), sha256_hex(b"abc"));
    }
}
