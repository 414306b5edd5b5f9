//! The wall clock and the two ways the state folder writes time: ISO 8601 in UTC
//! for people (checkpoint nodes, the MCP ledger) and base 36 for short, sortable
//! name stamps (plan files, checkpoint nodes, patch journals). In the kernel
//! because the state store stamps its records as much as the tools do.

/// The wall clock in epoch milliseconds, as the gate's records and the job table
/// store it.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// `2026-11-23T21:05:49.123Z` for epoch milliseconds (UTC, proleptic Gregorian),
/// by Howard Hinnant's civil-from-days conversion (no date crate): the one
/// timestamp format of the state folder (checkpoint nodes, the MCP ledger).
pub fn iso8601_utc(ms: u64) -> String {
    let secs = ms / 1000;
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60,
        ms % 1000
    )
}

/// Base 36 of `n`, digits then lower-case letters (JavaScript's `toString(36)`):
/// the short time stamps in plan-file and checkpoint-node names.
pub fn base36(mut n: u64) -> String {
    const DIGITS: &[u8; 36] = b"0123456789abcdefghijklmnopqrstuvwxyz";
    let mut out = Vec::new();
    loop {
        out.push(DIGITS[(n % 36) as usize]);
        n /= 36;
        if n == 0 {
            break;
        }
    }
    out.reverse();
    String::from_utf8(out).expect("ASCII digits")
}
