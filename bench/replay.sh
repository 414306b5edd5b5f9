# Replay: correctness over real git history, no timing (bench/edit-replay.py and
# bench/diff-roundtrip.py say exactly what they do).
#  - edit replay: the hunks of real commits replayed as `edit` calls, unperturbed and
#    with model-like mistakes; one row per class with hunks / identical / refused /
#    wrong. Bar: no wrong edit (and no crash), and for exact, trailing-space, tabs,
#    dedent, first-line and gutter at least 95% identical.
#  - diff round trip: `indus-tool diff` of every revision pair applied with GNU patch
#    and git apply must give the new revision back byte for byte. Bar: no failure.
# Runs on the project's own repository (edit replay: newest 200 commits; round trip:
# all) and, when INDUS_REPLAY_REPO is set (e.g. a bare mirror), on that repository
# too, newest 300 commits for both.
replay_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

replay_repo() {
  local rc json="$WORK/replay.json" args=()
  [ $# -gt 0 ] && args=(--repo "$1" --commits "$2")

  rc=0
  python3 "$replay_dir/edit-replay.py" "${args[@]}" --json >"$json" || rc=$?
  python3 - "$json" "$rc" "${1:-indus-tool}" >>"$ROWS" <<'PY'
import json, sys
path, rc, fallback = sys.argv[1], int(sys.argv[2]), sys.argv[3]
try:
    summary = json.load(open(path))
except ValueError:
    summary = None
if rc == 2 or not summary:
    print(f"edit replay {fallback}\t-\t-\t-\tbench error (exit {rc})\t-\tOVER")
    sys.exit()
barred = {"exact", "trailing-space", "tabs", "dedent", "first-line", "gutter"}
for repo in summary["repos"]:
    for cls, s in repo["classes"].items():
        pct = s["identical_pct"]
        bad = s["wrong"] + s["crash"]
        ok = bad == 0 and (cls not in barred or (pct is not None and pct >= 95))
        if s["hunks"] == 0:
            ok = True
        ident = f"{s['identical']} ident" + (f" ({pct:.1f}%)" if pct is not None else "")
        wrong = f"{s['wrong']} wrong"
        wrong += f" +{s['crash']} crash" if s["crash"] else ""
        bar = "0 wrong, >=95%" if cls in barred else "0 wrong"
        print(f"edit replay {repo['repo']}: {cls}\t{s['hunks']} hunks\t{ident}\t"
              f"{s['refused']} refused\t{wrong}\t{bar}\t{'ok' if ok else 'OVER'}")
PY

  rc=0
  python3 "$replay_dir/diff-roundtrip.py" "${args[@]}" --json >"$json" || rc=$?
  python3 - "$json" "$rc" "${1:-indus-tool}" >>"$ROWS" <<'PY'
import json, sys
path, rc, fallback = sys.argv[1], int(sys.argv[2]), sys.argv[3]
try:
    summary = json.load(open(path))
except ValueError:
    summary = None
if rc == 2 or not summary:
    print(f"diff round trip {fallback}\tpatch+git apply\t-\t-\tbench error (exit {rc})\t-\tOVER")
    sys.exit()
for repo in summary["repos"]:
    print(f"diff round trip {repo['repo']}\tpatch+git apply\t{repo['pairs']} pairs\t"
          f"{repo['ok']} ok\t{repo['failed']} failed\t0 failed\t"
          f"{'ok' if repo['failed'] == 0 else 'OVER'}")
PY
}

replay_repo
if [ -n "${INDUS_REPLAY_REPO:-}" ]; then
  replay_repo "$INDUS_REPLAY_REPO" 300
fi
