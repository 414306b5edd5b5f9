# Code intelligence (issue 55): warm `diagnose` after a one-line edit against the
# checker's own command line on the same project, in one run (bar: warm <= 0.2x the
# CLI), and the cold start stated. Each run appends a line to the checked file, so
# the server must check it again (a text it has seen would be answered from what it
# holds). The projects are generated here: 60 modules that import each other, the
# edited one in the middle. The servers are the ones .ci/run installs (target/lsp-peers
# for the npm ones, Debian for clangd, gopls and go); a language whose server or
# checker is missing is said and left out.
lsp_bin="$top/target/lsp-peers/node_modules/.bin"
export PATH="$lsp_bin:$PATH"
lsp_proj() { # lsp_proj DIR EXT MAKE_MODULE
  local dir=$1 ext=$2 make=$3
  rm -rf "$dir"; mkdir -p "$dir"
  for i in $(seq 1 60); do "$make" "$i" >"$dir/m$i.$ext"; done
}
py_mod() { [ "$1" -gt 1 ] && echo "from m$(($1 - 1)) import f$(($1 - 1))"; printf 'def f%s(a: int) -> int:\n    return a + %s\n' "$1" "$1"; }
c_mod() { printf 'int f%s(int a) { return a + %s; }\n' "$1" "$1"; }
ts_mod() { [ "$1" -gt 1 ] && echo "import { f$(($1 - 1)) } from \"./m$(($1 - 1))\";"; printf 'export function f%s(a: number): number { return a + %s; }\n' "$1" "$1"; }
go_mod() { printf 'package main\n\nfunc f%s(a int) int { return a + %s }\n' "$1" "$1"; }
lsp_row() { # lsp_row NAME DIR FILE PEER_CMD
  local name=$1 dir=$2 file=$3 peer=$4
  (cd "$dir" && "$INDUS" lsp stop >/dev/null 2>&1 || true)
  local t0 t1
  t0=$(date +%s%N)
  (cd "$dir" && "$INDUS" diagnose "$file" >/dev/null 2>&1 || true)
  t1=$(date +%s%N)
  echo "lsp: $name cold start (broker, server, first settle): $(((t1 - t0) / 1000000)) ms" >&2
  HF_IGNORE=1 compare "lsp: $name warm diagnose after an edit" \
    "sh -c 'cd $dir && printf \"\\n\" >> $file && $peer'" \
    "sh -c 'cd $dir && printf \"\\n\" >> $file && $INDUS diagnose $file'" 0.2 2 20
  (cd "$dir" && "$INDUS" lsp stop >/dev/null 2>&1 || true)
}
if command -v pyright-langserver >/dev/null && command -v pyright >/dev/null; then
  lsp_proj "$WORK/py" py py_mod
  lsp_row "python (pyright)" "$WORK/py" m30.py "pyright m30.py"
  # A real mid-size project: flask 3.1.0 (24 modules; its dependencies are not
  # installed, so both sides report the same unresolved imports). FLASK_REPO: a
  # local clone to take it from when GitHub is out of reach.
  if git clone -q --depth 1 --branch 3.1.0 "${FLASK_REPO:-https://github.com/pallets/flask}" "$WORK/flask" 2>/dev/null ||
    git clone -q --branch 3.1.0 "${FLASK_REPO:-}" "$WORK/flask" 2>/dev/null; then
    lsp_row "python, flask 3.1.0 (pyright)" "$WORK/flask" src/flask/app.py "pyright src/flask/app.py"
  else echo "lsp: flask could not be cloned; its row is left out" >&2; fi
else echo "lsp: pyright is not installed; its row is left out" >&2; fi
if command -v typescript-language-server >/dev/null && command -v tsc >/dev/null; then
  lsp_proj "$WORK/ts" ts ts_mod
  echo '{"compilerOptions": {"strict": true, "noEmit": true}}' >"$WORK/ts/tsconfig.json"
  lsp_row "typescript (typescript-language-server)" "$WORK/ts" m30.ts "tsc --noEmit -p ."
else echo "lsp: typescript-language-server is not installed; its row is left out" >&2; fi
if command -v gopls >/dev/null && command -v go >/dev/null; then
  lsp_proj "$WORK/go" go go_mod
  printf 'module example.com/b\n\ngo 1.19\n' >"$WORK/go/go.mod"
  printf 'package main\n\nfunc main() {}\n' >"$WORK/go/main.go"
  lsp_row "go (gopls)" "$WORK/go" m30.go "go vet ."
else echo "lsp: gopls is not installed; its row is left out" >&2; fi
if command -v clangd >/dev/null && command -v clang >/dev/null; then
  lsp_proj "$WORK/c" c c_mod
  lsp_row "c (clangd)" "$WORK/c" m30.c "clang -fsyntax-only m30.c"
else echo "lsp: clangd is not installed; its row is left out" >&2; fi
