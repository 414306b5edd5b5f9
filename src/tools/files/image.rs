//! Images `read` shows (PNG, JPEG, GIF, WebP): an honest header, the pixels as
//! an MCP image block, and a record — never a blank a model would fill in.
//!
//! The header is parsed before any pixel is decoded, and an image of more than
//! [`MAX_PIXELS`] is refused by it: a decompression bomb (a 50,000 × 50,000 PNG
//! in a few KB) costs nothing. An image that already fits the caps is sent as
//! its own bytes, undecoded; a larger one is decoded under [`MAX_DECODE_BYTES`]
//! of allocation, downscaled to the long-side cap, and encoded again (JPEG for
//! a JPEG source, PNG otherwise), smaller still until it fits the byte cap.
//!
//! The default caps are the Anthropic API's: an image whose long side passes
//! 1568 pixels is scaled down by the API anyway (so sending more only spends
//! bytes), and 3.75 MiB is what fits its 5 MB limit once base64-encoded.

#[cfg(feature = "media")]
use image::{DynamicImage, ImageFormat, ImageReader, Limits};
use serde_json::Value;
#[cfg(feature = "media")]
use serde_json::json;
#[cfg(feature = "media")]
use std::io::Cursor;

use crate::kernel::text::thousands;

/// The default long-side cap, in pixels (see the module doc).
pub const DEFAULT_MAX_SIDE: u64 = 1568;
/// The default byte cap of the image sent: 3.75 MiB, 5 MiB as base64.
pub const DEFAULT_MAX_BYTES: u64 = 3_932_160;
/// The most pixels decoded: 100 megapixels (a 12,000 × 8,000 photograph fits).
pub const MAX_PIXELS: u64 = 100_000_000;
/// The allocation limit of one decode: RGBA at 100 MP is 400 MB; a 16-bit
/// image of the same pixels would pass it and is refused by the decoder.
pub const MAX_DECODE_BYTES: u64 = 512 * 1024 * 1024;

/// The caps a read asked for (or the defaults).
#[derive(Debug, Clone, Copy)]
pub struct Caps {
    pub max_side: u64,
    pub max_bytes: u64,
}

/// An image as it is sent.
pub struct Shown {
    pub header: String,
    /// The MCP image content block (`{"type":"image","data","mimeType"}`).
    pub block: Value,
    pub record: Value,
}

#[cfg(feature = "media")]
fn format_of(mime: &str) -> ImageFormat {
    match mime {
        "image/png" => ImageFormat::Png,
        "image/jpeg" => ImageFormat::Jpeg,
        "image/gif" => ImageFormat::Gif,
        _ => ImageFormat::WebP,
    }
}

/// A build without the `media` feature (the lean build) decodes no image: the
/// file is named, and the answer says why it is not shown.
#[cfg(not(feature = "media"))]
pub fn show(
    path: &str,
    bytes: &[u8],
    mime: &str,
    sha256: &str,
    _caps: Caps,
) -> Result<Shown, String> {
    Err(format!(
        "{path}: {mime}, {} bytes, sha256 {sha256}. It is not shown: this indus-tool was built without the media feature, which decodes images (the default build has it).",
        thousands(bytes.len() as u64)
    ))
}

/// The image `bytes` of `path` (sniffed as `mime`) as it will be sent.
/// Blocking: decoding and encoding run on the caller's thread.
#[cfg(feature = "media")]
pub fn show(
    path: &str,
    bytes: &[u8],
    mime: &str,
    sha256: &str,
    caps: Caps,
) -> Result<Shown, String> {
    let format = format_of(mime);
    let (width, height) = ImageReader::with_format(Cursor::new(bytes), format)
        .into_dimensions()
        .map_err(|e| {
            format!(
                "{path} is not a readable {mime} image: {}.",
                image_error(&e)
            )
        })?;
    let pixels = u64::from(width) * u64::from(height);
    let size = format!("{width}×{height}");
    let mut header = format!(
        "{path}: {mime}, {size}, {} bytes, sha256 {sha256}.",
        thousands(bytes.len() as u64)
    );
    if pixels > MAX_PIXELS {
        return Err(format!(
            "{header} It is not shown: {} pixels is over the {} read decodes (an image this large may be a decompression bomb). Convert a smaller copy first (for example `convert {path} -resize 4000x4000 small.png`).",
            thousands(pixels),
            thousands(MAX_PIXELS)
        ));
    }
    let fits =
        u64::from(width.max(height)) <= caps.max_side && bytes.len() as u64 <= caps.max_bytes;
    let (data, sent_mime, sent_w, sent_h) = if fits {
        (bytes.to_vec(), mime.to_string(), width, height)
    } else {
        let (data, w, h, m) = downscale(path, bytes, format, (width, height), caps)?;
        header.push_str(&format!(
            " Sent downscaled to {w}×{h} ({m}, {} bytes) to fit maxImageSide {} and maxImageBytes {}.",
            thousands(data.len() as u64),
            thousands(caps.max_side),
            thousands(caps.max_bytes)
        ));
        (data, m.to_string(), w, h)
    };
    if mime == "image/gif" && fits {
        header.push_str(
            " A GIF is sent as it is; of an animated one, clients may show the first frame only.",
        );
    }
    // The text record's keys too, with no line shown, so that one schema
    // (and one type in the typed clients) describes every read.
    let record = json!({
        "path": path,
        "startLine": 1,
        "endLine": 0,
        "totalLines": 0,
        "remainingLines": 0,
        "nextOffset": null,
        "lineWidth": null,
        "cutLines": [],
        "stoppedAtBudget": false,
        "invalidUtf8": false,
        "lines": [],
        "kind": "image",
        "mimeType": mime,
        "width": width,
        "height": height,
        "bytes": bytes.len(),
        "sha256": sha256,
        "downscaled": !fits,
        "sent": {"mimeType": sent_mime, "width": sent_w, "height": sent_h, "bytes": data.len()},
    });
    use base64::Engine as _;
    let block = json!({
        "type": "image",
        "data": base64::engine::general_purpose::STANDARD.encode(&data),
        "mimeType": sent_mime,
    });
    Ok(Shown {
        header,
        block,
        record,
    })
}

/// Decode under the limits, fit the long side, encode, and shrink until the
/// bytes fit: `(bytes, width, height, mime)`.
#[cfg(feature = "media")]
fn downscale(
    path: &str,
    bytes: &[u8],
    format: ImageFormat,
    (width, height): (u32, u32),
    caps: Caps,
) -> Result<(Vec<u8>, u32, u32, &'static str), String> {
    let mut reader = ImageReader::with_format(Cursor::new(bytes), format);
    let mut limits = Limits::default();
    limits.max_image_width = Some(width);
    limits.max_image_height = Some(height);
    limits.max_alloc = Some(MAX_DECODE_BYTES);
    reader.limits(limits);
    let image = reader.decode().map_err(|e| {
        format!(
            "{path} could not be decoded to downscale it: {}.",
            image_error(&e)
        )
    })?;
    let long = u64::from(width.max(height));
    let mut side = caps.max_side.min(long).max(1) as f64;
    let jpeg = format == ImageFormat::Jpeg;
    for _ in 0..8 {
        let scale = side / long as f64;
        let w = ((f64::from(width) * scale).round() as u32).max(1);
        let h = ((f64::from(height) * scale).round() as u32).max(1);
        let small = image.thumbnail_exact(w, h);
        let data = encode(&small, jpeg)
            .map_err(|e| format!("{path}: the downscaled image could not be encoded: {e}."))?;
        if data.len() as u64 <= caps.max_bytes {
            return Ok((data, w, h, if jpeg { "image/jpeg" } else { "image/png" }));
        }
        // Bytes go with the area: shrink the side by the square root, a
        // little more so the next try fits.
        side *= (caps.max_bytes as f64 / data.len() as f64).sqrt() * 0.9;
        if side < 1.0 {
            break;
        }
    }
    Err(format!(
        "{path} could not be made to fit {} bytes (maxImageBytes) by downscaling; give a larger maxImageBytes.",
        thousands(caps.max_bytes)
    ))
}

/// A decoder's error in words a person can act on (its Display names internal
/// structures: `ChunkType { type: real, … }`).
#[cfg(feature = "media")]
fn image_error(e: &image::ImageError) -> &'static str {
    match e {
        image::ImageError::Decoding(_) => "its data is malformed or cut short",
        image::ImageError::Limits(_) => {
            "decoding it would take more memory than read allows (512 MiB)"
        }
        image::ImageError::Unsupported(_) => "it uses a feature this decoder does not support",
        image::ImageError::IoError(_) => "it ends before its data does (truncated)",
        _ => "the decoder refused it",
    }
}

#[cfg(feature = "media")]
fn encode(image: &DynamicImage, jpeg: bool) -> image::ImageResult<Vec<u8>> {
    let mut out = Cursor::new(Vec::new());
    if jpeg {
        let encoder = image::codecs::jpeg::JpegEncoder::new_with_quality(&mut out, 85);
        image.to_rgb8().write_with_encoder(encoder)?;
    } else {
        image.write_to(&mut out, ImageFormat::Png)?;
    }
    Ok(out.into_inner())
}

#[cfg(feature = "media")]
#[cfg(test)]
mod tests {
    use super::*;

    fn png(w: u32, h: u32) -> Vec<u8> {
        let img = DynamicImage::ImageRgb8(image::RgbImage::from_fn(w, h, |x, y| {
            image::Rgb([(x % 256) as u8, (y % 256) as u8, ((x * y) % 256) as u8])
        }));
        encode(&img, false).unwrap()
    }

    fn crc32(data: &[u8]) -> u32 {
        let mut crc = !0u32;
        for &b in data {
            crc ^= u32::from(b);
            for _ in 0..8 {
                crc = if crc & 1 == 1 {
                    (crc >> 1) ^ 0xEDB8_8320
                } else {
                    crc >> 1
                };
            }
        }
        !crc
    }

    const CAPS: Caps = Caps {
        max_side: DEFAULT_MAX_SIDE,
        max_bytes: DEFAULT_MAX_BYTES,
    };

    #[test]
    fn a_small_image_is_sent_as_it_is() {
        let bytes = png(40, 30);
        let shown = show("a.png", &bytes, "image/png", "00", CAPS).unwrap();
        assert!(
            shown.header.starts_with("a.png: image/png, 40×30, "),
            "{}",
            shown.header
        );
        assert_eq!(shown.record["downscaled"], false);
        use base64::Engine as _;
        let sent = base64::engine::general_purpose::STANDARD
            .decode(shown.block["data"].as_str().unwrap())
            .unwrap();
        assert_eq!(sent, bytes);
    }

    #[test]
    fn a_large_image_is_downscaled_to_the_long_side() {
        let bytes = png(3000, 1000);
        let caps = Caps {
            max_side: 300,
            max_bytes: DEFAULT_MAX_BYTES,
        };
        let shown = show("b.png", &bytes, "image/png", "00", caps).unwrap();
        assert_eq!(shown.record["sent"]["width"], 300);
        assert_eq!(shown.record["sent"]["height"], 100);
        assert!(
            shown.header.contains("Sent downscaled to 300×100"),
            "{}",
            shown.header
        );
        // And under a byte cap it shrinks until it fits.
        let tight = Caps {
            max_side: 3000,
            max_bytes: 20_000,
        };
        let shown = show("b.png", &bytes, "image/png", "00", tight).unwrap();
        assert!(shown.record["sent"]["bytes"].as_u64().unwrap() <= 20_000);
    }

    #[test]
    fn a_bomb_is_refused_by_its_header() {
        // A PNG header claiming 50,000 × 50,000 with no pixel data after it.
        let mut bytes = png(1, 1);
        bytes[16..20].copy_from_slice(&50_000u32.to_be_bytes());
        bytes[20..24].copy_from_slice(&50_000u32.to_be_bytes());
        let crc = crc32(&bytes[12..29]);
        bytes[29..33].copy_from_slice(&crc.to_be_bytes());
        let e = show("bomb.png", &bytes, "image/png", "00", CAPS)
            .err()
            .unwrap();
        assert!(
            e.contains("50000×50000") && e.contains("decompression bomb"),
            "{e}"
        );
    }

    #[test]
    fn garbage_after_a_magic_number_is_a_clear_error() {
        let e = show(
            "x.png",
            b"\x89PNG\r\n\x1a\nnot really",
            "image/png",
            "00",
            CAPS,
        )
        .err()
        .unwrap();
        assert!(
            e.starts_with("x.png is not a readable image/png image"),
            "{e}"
        );
    }
}
