//! What a file is, from its first bytes (its magic number) and, for a notebook,
//! its name: the one place `read` decides between text, an image, a PDF, a
//! notebook, and a binary file it refuses by name. A file's extension is never
//! trusted for the binary kinds: a `.png` that is text is read as text, and a
//! `.txt` that is a SQLite database is refused as one.

/// How many leading bytes [`sniff`] looks at (a tar header's magic is at 257).
pub const SNIFF_BYTES: usize = 512;

/// What a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// Anything not recognized below: read as text (the NUL check still runs).
    Text,
    /// An image `read` shows: its MIME type.
    Image(&'static str),
    Pdf,
    /// A Jupyter notebook (by its `.ipynb` name; its JSON is checked on parse).
    Notebook,
    /// A binary format `read` does not show: its name.
    Binary(&'static str),
}

/// Magic numbers at offset 0, and the name of what they begin.
const MAGIC: &[(&[u8], &str)] = &[
    (b"SQLite format 3\0", "a SQLite database"),
    (
        b"PK\x03\x04",
        "a ZIP archive (or a format built on ZIP: jar, docx, xlsx, wheel)",
    ),
    (b"PK\x05\x06", "an empty ZIP archive"),
    (b"\x1f\x8b", "gzip-compressed data"),
    (b"BZh", "bzip2-compressed data"),
    (b"\xfd7zXZ\0", "xz-compressed data"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed data"),
    (b"7z\xbc\xaf\x27\x1c", "a 7-Zip archive"),
    (b"Rar!\x1a\x07", "a RAR archive"),
    (b"\x7fELF", "an ELF executable or library"),
    (b"\xcf\xfa\xed\xfe", "a Mach-O executable"),
    (
        b"\xca\xfe\xba\xbe",
        "a Java class file or Mach-O universal binary",
    ),
    (b"MZ", "a Windows executable (PE)"),
    (b"\0asm", "a WebAssembly module"),
    (b"!<arch>\n", "an ar archive (a static library or .deb)"),
    (b"II*\0", "a TIFF image"),
    (b"MM\0*", "a TIFF image"),
    (b"BM", "a BMP image"),
    (b"\0\0\x01\0", "an ICO icon"),
    (b"ID3", "an MP3 audio file"),
    (b"OggS", "an Ogg media file"),
    (b"fLaC", "a FLAC audio file"),
    (b"\x1aE\xdf\xa3", "a Matroska/WebM video"),
    (b"wOFF", "a WOFF font"),
    (b"wOF2", "a WOFF2 font"),
    (b"\0\x01\0\0\0", "a TrueType font"),
    (b"OTTO", "an OpenType font"),
    (
        b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1",
        "an OLE2 document (.doc, .xls, .msi)",
    ),
    (b"PAR1", "a Parquet file"),
    (b"ARROW1", "an Arrow file"),
    (b"\x89HDF\r\n\x1a\n", "an HDF5 file"),
    (b"\x93NUMPY", "a NumPy array (.npy)"),
    (b"\x80\x04\x95", "a Python pickle"),
    (b"\x80\x05\x95", "a Python pickle"),
];

/// The kind of a file named `path` that begins with `head`.
pub fn sniff(path: &str, head: &[u8]) -> FileKind {
    let starts = |m: &[u8]| head.starts_with(m);
    if starts(b"\x89PNG\r\n\x1a\n") {
        return FileKind::Image("image/png");
    }
    if starts(b"\xff\xd8\xff") {
        return FileKind::Image("image/jpeg");
    }
    if starts(b"GIF87a") || starts(b"GIF89a") {
        return FileKind::Image("image/gif");
    }
    if head.len() >= 12 && starts(b"RIFF") && &head[8..12] == b"WEBP" {
        return FileKind::Image("image/webp");
    }
    if head.len() >= 12 && starts(b"RIFF") {
        return FileKind::Binary(match &head[8..12] {
            b"WAVE" => "a WAV audio file",
            b"AVI " => "an AVI video",
            _ => "a RIFF media file",
        });
    }
    if head.len() >= 12 && &head[4..8] == b"ftyp" {
        return FileKind::Binary(match &head[8..12] {
            b"avif" | b"avis" => "an AVIF image",
            b"heic" | b"heix" | b"mif1" => "a HEIF image",
            _ => "an MP4/QuickTime media file",
        });
    }
    // A PDF may have bytes before its header; readers look in the first KiB.
    if memchr::memmem::find(&head[..head.len().min(1024)], b"%PDF-").is_some() {
        return FileKind::Pdf;
    }
    if head.len() > 262 && &head[257..262] == b"ustar" {
        return FileKind::Binary("a tar archive");
    }
    if let Some((_, name)) = MAGIC.iter().find(|(m, _)| starts(m)) {
        // Two-byte magics (MZ, BM, gzip) begin text files too: only with a
        // NUL or another control byte nearby is it the binary format.
        let weak = head.len() > 2 && MAGIC.iter().any(|(m, n)| n == name && m.len() <= 3);
        if !weak
            || head[..head.len().min(64)]
                .iter()
                .any(|&b| b == 0 || (b < 9))
        {
            return FileKind::Binary(name);
        }
    }
    if path.to_ascii_lowercase().ends_with(".ipynb") {
        return FileKind::Notebook;
    }
    FileKind::Text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn magic_numbers_name_the_kind() {
        assert_eq!(
            sniff("x.txt", b"\x89PNG\r\n\x1a\n\0\0"),
            FileKind::Image("image/png")
        );
        assert_eq!(
            sniff("a", b"RIFF\0\0\0\0WEBPVP8 "),
            FileKind::Image("image/webp")
        );
        assert_eq!(sniff("a.bin", b"%PDF-1.7\n"), FileKind::Pdf);
        assert_eq!(
            sniff("data.txt", b"SQLite format 3\0\x10\0"),
            FileKind::Binary("a SQLite database")
        );
        assert_eq!(sniff("n.ipynb", b"{\n \"cells\": []"), FileKind::Notebook);
        // A text file that begins with the letters of a short magic is text.
        assert_eq!(
            sniff("notes.md", b"MZ is a prefix of this line\n"),
            FileKind::Text
        );
        assert_eq!(sniff("BMW.txt", b"BMW\n"), FileKind::Text);
        assert_eq!(
            sniff("a.exe", b"MZ\x90\0\x03\0\0\0"),
            FileKind::Binary("a Windows executable (PE)")
        );
        assert_eq!(sniff("fake.png", b"just text"), FileKind::Text);
    }
}
