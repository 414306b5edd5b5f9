# Web: `webfetch --format markdown` of a ~1 MB article served from 127.0.0.1 (no
# network; 127.0.0.1 needs --allow-private-network): the cost of the fetch plus
# Readability plus the Markdown rendering.
# Bar: median wall <= 100 ms.
site="$WORK/site"
mkdir -p "$site"
python3 - "$site/article.html" "$(dirname "${BASH_SOURCE[0]}")/../tests/fixtures/web/article.html" <<'PY'
import re, sys
src = open(sys.argv[2]).read()
body = re.search(r"<article.*?</article>", src, re.S).group(0)
inner = body[body.index(">") + 1 : body.rindex("<")]
parts, size, i = [], 0, 0
while size < 1_000_000:
    chunk = inner.replace("<h2>", f"<h2>Section {i}: ").replace("<h1>", "<h2>").replace("</h1>", "</h2>")
    parts.append(chunk); size += len(chunk); i += 1
page = src.replace(body, "<article class=\"post\"><h1>A very long article</h1>" + "".join(parts) + "</article>")
open(sys.argv[1], "w").write(page)
PY
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$site" >/dev/null 2>&1 &
server=$!
python3 - "$port" <<'PY'
import sys, time, urllib.request
for _ in range(100):
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{sys.argv[1]}/article.html", timeout=1); break
    except Exception:
        time.sleep(0.05)
PY
echo "article: $(wc -c <"$site/article.html") bytes" >&2
measure "webfetch markdown (1 MB article)" "$INDUS --allow-private-network --max-bytes 10000000 webfetch --format markdown http://127.0.0.1:$port/article.html" 100 3 30
measure "webfetch text (1 MB article)" "$INDUS --allow-private-network --max-bytes 10000000 webfetch http://127.0.0.1:$port/article.html" 100 3 30
kill "$server" 2>/dev/null || true
