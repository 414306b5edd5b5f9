# Every file a model meets (issue 57), in one run:
#   - images: a small PNG sent as it is, a 4000×3000 PNG downscaled to the caps,
#     and a 50,000 × 50,000 bomb refused by its header (no peer: absolute bars);
#   - PDF text: bash(1) made by groff and ghostscript, every page, against
#     poppler's pdftotext on the same file (ours runs a worker process);
#   - legacy encodings: a 10 MB Shift_JIS file read decoded, against iconv;
#   - the end of a 1 GiB log: `read --tail 20` against GNU `tail -n 20` (ours
#     counts the lines before the tail once and keeps a sealed mark; the first,
#     cold call is timed on its own row).
need_media=()
command -v pdftotext >/dev/null || need_media+=(poppler-utils)
command -v ps2pdf >/dev/null || need_media+=(ghostscript)
command -v groff >/dev/null || need_media+=(groff-base)
if [ ${#need_media[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need_media[@]}" >&2
fi
media="$WORK/media"
mkdir -p "$media"
python3 - "$media" <<'PY'
import struct, sys, zlib
d = sys.argv[1]
def chunk(t, b): return struct.pack(">I", len(b)) + t + b + struct.pack(">I", zlib.crc32(t + b) & 0xffffffff)
def png(path, w, h, row):
    c = zlib.compressobj(6)
    body = b"".join(c.compress(row(y, w)) for y in range(h)) + c.flush()
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) + chunk(b"IDAT", body) + chunk(b"IEND", b""))
smooth = lambda y, w: b"\0" + bytes(((x // 3) * 255 // w + y) % 256 for x in range(w * 3))
png(f"{d}/small.png", 640, 480, smooth)
png(f"{d}/large.png", 4000, 3000, smooth)
c = zlib.compressobj(9); z = c.compress(b"\0" * (4 << 20)) + c.flush(zlib.Z_SYNC_FLUSH)
open(f"{d}/bomb.png", "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 50000, 50000, 8, 2, 0, 0, 0)) + chunk(b"IDAT", z) + chunk(b"IEND", b""))
text = "".join(f"{i:06} 日本語のテキストと English words on line {i}\n" for i in range(160000))
open(f"{d}/sjis.txt", "wb").write(text.encode("shift_jis"))
PY
zcat /usr/share/man/man1/bash.1.gz | groff -man -Tps 2>/dev/null | ps2pdf - "$media/bash.pdf"
(cd "$media" && measure "read a 640×480 PNG (sent as it is)" "$INDUS read small.png" 30)
(cd "$media" && measure "read a 4000×3000 PNG (downscaled to 1568)" "$INDUS read large.png" 2000 1 5)
# The refusal exits 1, which `measure` would take for a failure: through sh.
(cd "$media" && measure "read a 50,000² PNG bomb (refused, via sh)" "sh -c '$INDUS read bomb.png 2>/dev/null; true'" 30)
(cd "$media" && compare "PDF text, bash(1), every page" "pdftotext bash.pdf /dev/null" \
  "$INDUS --max-bytes 100000000 read bash.pdf --limit 10000000" "" 1 5)
(cd "$media" && compare "Shift_JIS 10 MB decoded" "iconv -f SHIFT_JIS -t UTF-8 sjis.txt" \
  "$INDUS --max-bytes 100000000 read sjis.txt --encoding shift_jis --limit 10000000" "" 1 5)
# 1 GiB of 100-byte lines.
python3 - "$media/big.log" <<'PY'
import sys
line = ("x" * 92 + "\n").encode()
with open(sys.argv[1], "wb") as f:
    block = b"".join(b"%07d " % i + line for i in range(10000))
    for _ in range(1 << 30 >> 20):
        f.write(block[: 1 << 20])
PY
python3 - "$INDUS" "$media" >>"$ROWS" <<'PY'
import subprocess, sys, time
indus, d = sys.argv[1], sys.argv[2]
t = time.perf_counter()
subprocess.run([indus, "read", "big.log", "--tail", "20"], cwd=d, check=True, capture_output=True)
ms = (time.perf_counter() - t) * 1000
print(f"read --tail 20 of 1 GiB, cold (counts once)\t-\t-\t{ms:.2f}\t-\t-\t")
PY
(cd "$media" && compare "read --tail 20 of 1 GiB (line mark kept)" "tail -n 20 big.log" \
  "$INDUS read big.log --tail 20" "")
(cd "$media" && measure "read --tail 20 of 1 GiB (line mark kept)" "$INDUS read big.log --tail 20" 10)
