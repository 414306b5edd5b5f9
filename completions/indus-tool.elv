
use builtin;
use str;

set edit:completion:arg-completer[indus-tool] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'indus-tool'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'indus-tool'= {
            cand --format 'Output format: text blocks, or one JSON ToolOutcome line'
            cand --cwd 'Working directory the tools resolve paths against (default: the current directory)'
            cand --root 'Confine every path a tool touches to DIR, after symlinks (commands bash runs are not sandboxed)'
            cand --allow-protected 'Let write, edit and apply_patch write PATH though protected'
            cand --allow-outside 'Let write, edit and apply_patch write in DIR outside the project'
            cand --collection 'Expose a standard collection of the twelve built-ins (read-only, coding, all)'
            cand --profile 'Expose a deck profile (default all; it wins over --collection)'
            cand --tools 'Expose only these tools of the profile (case, _ and - ignored)'
            cand --max-bytes 'Output budget in bytes (default 65536); longer output is clamped with a notice'
            cand --session 'Session name keying the checklist and the gate''s read-state'
            cand --color 'Colour on a terminal (auto honours NO_COLOR); never in JSON'
            cand --id 'The id of the ToolCall (echoed in the JSON outcome; default "cli")'
            cand --suppress-repeats 'Refuse a call that failed the same way 3 times in the session (default: on in buddy, batch, mcp)'
            cand --turn 'The checkpoint node this invocation''s changes belong to (default: one per invocation)'
            cand --mcp-config 'An MCP config file read before the discovered ones; its tools are grafted as SERVER__TOOL'
            cand --mcp-log 'Print MCP servers'' log notifications at LEVEL and above on stderr'
            cand --save-media 'Write the images, audio and binary resources MCP tools return into DIR'
            cand --exact 'Print the call exactly as an agent receives it, even to a pipe: cli (bare --exact) the text, batch the batch line, mcp the MCP tool result'
            cand --state-dir 'The folder holding .indus-process/ (default: the nearest upwards with .git or .indus-process)'
            cand --tmux 'Type bash''s commands into a managed tmux pane a person can attach to'
            cand --exec 'Run the invocation elsewhere: local, container:NAME or ssh:[USER@]HOST[:PORT]'
            cand --exec-cwd 'The working directory on the --exec target (default: the login directory)'
            cand --engine 'The container engine of --exec container: (default: podman, else docker)'
            cand --ssh-config 'The ssh configuration file of --exec ssh: (ssh -F)'
            cand --no-tools 'Expose no tools at all'
            cand --gate 'write/edit refuse a file not read (or changed since) in this session'
            cand --checkpoint 'Record what write, edit and apply_patch change, and what commands (bash, run_shell, task, process start) change in the project tree, for `checkpoint diff|rewind`'
            cand --confirm 'Ask on the terminal before a command the policy does not allow runs (no terminal: denied)'
            cand --allow-private-network 'Let webfetch and websearch reach loopback, link-local and private addresses (refused by default)'
            cand --envelope 'Wrap every result in the harness_timestamp envelope (always on in buddy)'
            cand --no-mcp 'Graft no MCP server''s tools (read no MCP config)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand read 'Read a file with line numbers (as cat -n), a window at a time; the header gives the offset to continue from.'
            cand ls 'List a directory''s entries (`kind size name`), directories first.'
            cand grep 'Search file contents for a regular expression (Rust syntax), like rg: `PATH:LINE: TEXT` rows in path order, then a summary.'
            cand find 'Find files and directories by name (case-insensitive): a glob if the pattern holds * ? [ or { (with a /, matched against the path: "src/**/*.rs"), else a part of the name.'
            cand websearch 'Search the web (DuckDuckGo): numbered results with title, URL and snippet.'
            cand webfetch 'Fetch a web page (http/https) as readable text, Markdown or raw HTML.'
            cand todo_read 'Show the session''s checklist (todo_set writes it).'
            cand write 'Create or overwrite a file with exactly this content (atomic; makes parent folders).'
            cand edit 'Replace oldText with newText in a file; returns the diff.'
            cand bash 'Run a shell command (sh -c) and wait: output and exit status (non-zero is an error).'
            cand process 'Background jobs that outlive this call (servers, REPLs): start (command → id; tty: a terminal), poll (id → new output; until, waitMs: wait for a line), write (input/keys → stdin), screen, stop, remove, list.'
            cand todo_set 'Replace the session''s checklist: items {id, text, status, priority?}; [] clears it.'
            cand diagnose 'Errors and warnings of files from their language server, settled for the text just sent: PATH:LINE:COL: error[CODE] message rows.'
            cand lsp 'The language server at PATH:LINE:COL: definition, references, hover; symbols of a file; workspace-symbols by name; rename everywhere (one patch; check: diff only).'
            cand outline 'Definitions of files or a tree (Rust, Python, JS/TS, Go, C/C++, Java, Ruby): `PATH:LINE: kind name(signature)`, nested ones indented.'
            cand sgrep 'Structural search, as ast-grep: code with $X (one node) and $$$XS (many) matched on syntax trees, rows like grep''s.'
            cand apply_patch 'Apply a patch to files, all or nothing: codex''s envelope (*** Begin Patch, *** Update File: PATH, @@, -old/+new lines, *** End Patch; also Add File, Delete File, Move to) or a unified diff.'
            cand todo 'A checklist of {task, state, weight} items (with dropped and weights), apart from todo_set''s: action read, or set (replace whole).'
            cand bg-process 'Background jobs of this session (bg-N) keeping each job''s last 2,000 lines: start, poll (sinceLast: only new), stop, list.'
            cand task 'Delegate a self-contained objective to a sub-agent CLI (Claude Code, Codex, Gemini CLI, opencode) and return its final answer.'
            cand saas-action 'SaaS actions (GitHub, Slack, Gmail…) through Composio: discover (toolkits, query) lists them; execute runs one by slug with arguments.'
            cand memory 'A note for this session that survives across turns: read, replace or append (content).'
            cand enter_plan_mode 'Start a planning phase: explore and read, change nothing, then call exit_plan_mode with the plan.'
            cand exit_plan_mode 'Present the finished plan (Markdown) for approval; it is kept as a file under .indus-process/ and returned.'
            cand run_shell 'Run a shell command and return {exit_code, stdout, stderr}, each stream cut to 4,000 characters.'
            cand read_file 'Read a text file and return its content as is, cut to 8,000 characters with ...[truncated] appended when longer.  When to use: to look at a configuration file, a log excerpt or a script before acting on it.  When NOT to use: for a large file you need a window of (use run_shell with sed -n or tail), or for binary files.  Disambiguation: returns raw text without line numbers; the path is relative to the working directory.  Examples: {"path": "/etc/hostname"}'
            cand write_file 'Write content to a file, creating it (and missing parent folders) or replacing it atomically; answers Wrote N bytes to /path.  When to use: to create or wholly replace a configuration file, a script or a note.  When NOT to use: to change a few lines of a large file (write the whole new content, or use run_shell), or to append to a log.  Disambiguation: replaces the whole file; an existing file keeps its permissions and a symlink is written through.  Examples: {"path": "/tmp/output.txt", "content": "hello world\n"}'
            cand fetch_url 'HTTP GET a URL and return the response body as text, cut to 8,000 characters with ...[truncated] appended when longer.  When to use: to read an API''s JSON, a raw configuration file or a documentation page by URL.  When NOT to use: to find pages about a topic (use web_search), for binary downloads, or for requests needing authentication or a method other than GET.  Disambiguation: the body comes as served (HTML stays HTML); redirects are followed.  Examples: {"url": "https://example.com/api/data"}'
            cand web_search 'Search the web (DuckDuckGo''s HTML endpoint, no API key) and return up to 8 results, each with title, URL and snippet.  When to use: to find documentation, an error message''s explanation or a download page.  When NOT to use: when you already know the URL (use fetch_url).  Disambiguation: returns links and snippets only; fetch a result to read it.  Examples: {"query": "rust tokio tutorial"}'
            cand capture-pane 'Capture the text of a tmux pane''s screen (and, with start, its history); the last 8,000 characters are kept, with [truncated N chars from start] when cut.  When to use: to watch a command dispatched with run_shell wait: false, to read a prompt a program is waiting at, or to see what a person left on a pane.  When NOT to use: to get a finished command''s output (run_shell returns it); to type into the pane (send-keys).  Disambiguation: read-only; the default is the shared pane of the shared session; a managed session or pane that is missing falls back once to the shared pane, with a notice saying so; delay waits before capturing, for polling.  Examples: {"delay": "5s"}; {"pane": "worker", "start": "-", "join_wrapped_lines": true}'
            cand send-keys 'Type into a tmux pane: literal_text first (sent as is), then tmux key names (C-c, C-z, Enter, Up, Down, Escape, …), then Enter when enter is true.'
            cand tmux-create-session 'Create (or reuse) a managed tmux session, named indus-<owner>-<session>, with its shared pane ready; a person can attach to it.'
            cand tmux-kill-session 'Kill a managed tmux session and every command running in it.  When to use: when the work a session was made for is over, or to make room under tmux.max_sessions.  When NOT to use: for the shared session (protected), or for sessions indus-tool did not create (refused).  Disambiguation: kills the whole session; to close one pane use tmux-kill-pane.  Examples: {"session": "ops", "risk": "medium", "mutation": true, "privesc": false, "why": "The deployment is finished"}'
            cand tmux-create-pane 'Create (or reuse) a managed pane in a managed session (default: the shared session): a window of its own, named after the pane, running a fresh shell.'
            cand tmux-kill-pane 'Kill a managed pane and whatever runs in it.  When to use: when a pane''s job is over or it is stuck beyond send-keys C-c.  When NOT to use: for a session''s shared pane (protected), or panes indus-tool did not create (refused).  Disambiguation: kills one pane; to end a whole session use tmux-kill-session.  Examples: {"pane": "worker", "risk": "medium", "mutation": true, "privesc": false, "why": "The dev server is no longer needed"}'
            cand time 'The harness''s current wall-clock time (unix_millis, ISO 8601 UTC and local, RFC 2822).  When to use: to timestamp an action or compute a deadline.  When NOT to use: for a remote machine''s clock (run `date` there).  Disambiguation: the toolbox''s clock, not the shell target''s.  Examples: {} → {"iso_8601_utc": "2026-02-28T13:01:48.794Z", …}'
            cand list 'List the exposed tools with their collections and one-line summaries'
            cand describe 'Print one tool''s descriptor (name, description, JSON Schema) as JSON'
            cand schema 'Print every exposed tool''s descriptor as a JSON array, or (--for) the tool definitions in the shape a model API takes'
            cand call 'Run one ToolCall given as JSON: {"id":..,"name":..,"input":{..}} (''-'' reads stdin, ''@FILE'' reads a file)'
            cand batch 'Answer JSONL ToolCalls from stdin with JSONL ToolOutcomes on stdout, one line each, flushed as they are written'
            cand mcp 'Serve the selected tools as an MCP server on stdio (tools/list, tools/call, cancellation), until stdin closes; or inspect the MCP servers whose tools are grafted'
            cand diff 'Unified diff of two files (or with -r two trees), with the engine edit uses; exit 0 when equal, 1 when different, 2 on trouble'
            cand lsp-broker 'The warm language-server broker itself (started by diagnose and lsp)'
            cand checkpoint 'List, diff, rewind or drop the checkpoints --checkpoint recorded for file tools and commands'
            cand trust 'Trust this project''s configuration files (MCP servers, agents, approval policy) as they are now, list or revoke trust'
            cand completions 'Print a shell completion script, or install it where the shell looks'
            cand man 'Write man pages (indus-tool.1 and one per subcommand) into a directory, or install them'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'indus-tool;read'= {
            cand --json 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys'
            cand --path 'File path.'
            cand --offset 'First line (1-based; -20: the last 20).'
            cand -n 'How many lines (for agents 500 by default, lines cut at 500 characters).'
            cand --limit 'How many lines (for agents 500 by default, lines cut at 500 characters).'
            cand --tail 'The last N lines.'
            cand --encoding 'Text encoding (latin1, shift_jis, utf-16le…) or auto.'
            cand --pages 'PDF pages (3-5).'
            cand --max-image-side 'Image long-side cap (1568).'
            cand --max-image-bytes 'Image byte cap (3932160).'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;ls'= {
            cand --json 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys'
            cand --path 'Directory (default ".").'
            cand --show-hidden 'Include dot-entries.'
            cand -n 'Most entries shown.'
            cand --limit 'Most entries shown.'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;grep'= {
            cand --json 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys'
            cand -A 'Show N lines after each match (rg -A)'
            cand --after-context 'Show N lines after each match (rg -A)'
            cand -B 'Show N lines before each match (rg -B)'
            cand --before-context 'Show N lines before each match (rg -B)'
            cand -g 'Only search files matching GLOB; a leading ! excludes (files and folders); repeatable (rg -g)'
            cand --glob 'Only search files matching GLOB; a leading ! excludes (files and folders); repeatable (rg -g)'
            cand -t 'Only search files of this rg type (rust, py, js, md, ...); repeatable (rg -t)'
            cand --type 'Only search files of this rg type (rust, py, js, md, ...); repeatable (rg -t)'
            cand -T 'Do not search files of this rg type; repeatable (rg -T)'
            cand --type-not 'Do not search files of this rg type; repeatable (rg -T)'
            cand -m 'At most N matching lines per file (rg -m)'
            cand --max-count 'At most N matching lines per file (rg -m)'
            cand -e 'Regex (exact text with literal).'
            cand --pattern 'Regex (exact text with literal).'
            cand --path 'Directory or file (default: the working directory).'
            cand --flags 'JavaScript-style flag letters: i ignores case, m and s set the inline flags (?m)/(?s); g, u and y are accepted and change nothing.'
            cand -i 'Ignore case.'
            cand --ignore-case 'Ignore case.'
            cand --literal 'pattern is exact text.'
            cand -C 'Lines of context around matches.'
            cand --context 'Lines of context around matches.'
            cand --limit 'Most rows (default 200, at most 5000).'
            cand --gitignore 'Skip files .gitignore excludes.'
            cand --skip-hidden 'Skip files and directories whose name starts with a dot below the search root (default false: unlike rg, hidden files are searched, since an agent must see every file it may edit; a dot-named path given outright is still searched).'
            cand --max-file-size 'Skip files found by the walk that are larger than this many bytes, counting them in the summary (default 2097152 = 2 MiB, at most 134217728 = 128 MiB); a file named as path is searched whatever its size.'
            cand --paths 'Several directories or files to search instead of path, in the order given, each one''s rows spelled under it as given (not together with path).'
            cand --globs 'Globs as in rg -g, tested on the path below the search root (later ones win): "*.rs" includes, "!*.min.js" excludes; with any include, files matching none are skipped, and an excluded directory is not entered (glob joins this list first).'
            cand --offset 'Skip this many matches (files) first: the next page.'
            cand --output-mode 'content (matching lines, default), files (paths) or count (PATH:N). [one of: content, files, count]'
            cand -S 'Ignore case when the pattern has no uppercase letter (rg -S)'
            cand --smart-case 'Ignore case when the pattern has no uppercase letter (rg -S)'
            cand -F 'Take the pattern as exact text, not a regular expression (rg -F; same as --literal)'
            cand --fixed-strings 'Take the pattern as exact text, not a regular expression (rg -F; same as --literal)'
            cand -w 'Only match whole words (rg -w)'
            cand --word-regexp 'Only match whole words (rg -w)'
            cand -v 'Show the lines that do not match (rg -v)'
            cand --invert-match 'Show the lines that do not match (rg -v)'
            cand -l 'Print only the paths of files with a match, one per line (rg -l)'
            cand --files-with-matches 'Print only the paths of files with a match, one per line (rg -l)'
            cand -U 'Let a match span lines; each line of it is a row (rg -U)'
            cand --multiline 'Let a match span lines; each line of it is a row (rg -U)'
            cand -c 'Print PATH:N, the number of matching lines of each file with a match (rg -c)'
            cand --count 'Print PATH:N, the number of matching lines of each file with a match (rg -c)'
            cand -n 'Show line numbers (always on; accepted as rg''s -n)'
            cand --line-number 'Show line numbers (always on; accepted as rg''s -n)'
            cand --hidden 'Search hidden files and folders (the default here; rg needs --hidden)'
            cand --no-ignore 'Search what ignore files exclude (the default here; rg needs --no-ignore)'
            cand -q 'Print nothing; exit 0 if a line matched, 1 if none, 2 on error (rg -q)'
            cand --quiet 'Print nothing; exit 0 if a line matched, 1 if none, 2 on error (rg -q)'
            cand -0 'With -l: end each path with NUL instead of a newline, for xargs -0 (rg -0)'
            cand --null 'With -l: end each path with NUL instead of a newline, for xargs -0 (rg -0)'
            cand --stats 'Print the summary line on stderr even when stdout is not a terminal'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;find'= {
            cand --json 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys'
            cand -t 'Only list this kind: f file, d directory, l symlink, x executable (fd -t)'
            cand --type 'Only list this kind: f file, d directory, l symlink, x executable (fd -t)'
            cand -e 'Only list entries with this file extension; repeatable (fd -e)'
            cand --extension 'Only list entries with this file extension; repeatable (fd -e)'
            cand -E 'Leave out entries matching GLOB and do not enter such folders; repeatable (fd -E)'
            cand --exclude 'Leave out entries matching GLOB and do not enter such folders; repeatable (fd -E)'
            cand -d 'Descend at most N levels; 1 lists the root''s own entries (fd -d)'
            cand --max-depth 'Descend at most N levels; 1 lists the root''s own entries (fd -d)'
            cand --pattern 'Glob or part of a name.'
            cand --path 'Directory (default: the working directory).'
            cand --limit 'Most rows (default 500, at most 10000).'
            cand --gitignore 'Skip entries .gitignore excludes.'
            cand --skip-hidden 'Skip files and directories whose name starts with a dot below the search root (default false: unlike fd, hidden entries are listed, since an agent must see every file it may edit; a dot-named path given outright is still searched).'
            cand --paths 'Several directories to search instead of path, in the order given, each one''s rows spelled under it as given (not together with path).'
            cand -H 'List hidden entries (the default here; fd needs -H)'
            cand --hidden 'List hidden entries (the default here; fd needs -H)'
            cand -I 'List what ignore files exclude (the default here; fd needs -I)'
            cand --no-ignore 'List what ignore files exclude (the default here; fd needs -I)'
            cand -q 'Print nothing; exit 0 if something matched, 1 if nothing, 2 on error (fd -q)'
            cand --quiet 'Print nothing; exit 0 if something matched, 1 if nothing, 2 on error (fd -q)'
            cand -0 'End each path with NUL instead of a newline, for xargs -0 (fd -0)'
            cand --print0 'End each path with NUL instead of a newline, for xargs -0 (fd -0)'
            cand --stats 'Print the summary line on stderr even when stdout is not a terminal'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;websearch'= {
            cand --json 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys'
            cand --query 'What to search for.'
            cand -n 'How many results (default 5, at most 25).'
            cand --count 'How many results (default 5, at most 25).'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;webfetch'= {
            cand --json 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys'
            cand --url 'Absolute http(s) URL.'
            cand --format 'text (default), markdown or html. [one of: text, markdown, html]'
            cand --max-bytes 'Most bytes of content returned (default 1 MiB).'
            cand --timeout-ms 'Give up after this many milliseconds (default 30000).'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;todo_read'= {
            cand --json 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;write'= {
            cand --json 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys'
            cand --path 'File path.'
            cand --content 'The whole new content.'
            cand --encoding 'Encoding to write; auto keeps the file''s.'
            cand --diagnose 'Append new language-server errors.'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;edit'= {
            cand --json 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys'
            cand --path 'File path.'
            cand --old-text 'Exact text to replace.'
            cand --new-text 'Replacement.'
            cand --replace-all 'Replace every occurrence.'
            cand --edits '[{oldText, newText}] instead, each matched against the file as it was.'
            cand --expect-sha256 'Refuse unless the file''s SHA-256 is this (read gives it).'
            cand --encoding 'The file''s encoding, or auto; kept.'
            cand --cell 'Notebook cell id or number.'
            cand --cell-action 'Insert newText after cell (0: first), or delete it. [one of: replace, insert, delete]'
            cand --cell-type 'Inserted cell''s type. [one of: code, markdown, raw]'
            cand --diagnose 'Append new language-server errors.'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;bash'= {
            cand --json 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys'
            cand --command 'Command line.'
            cand --timeout-ms 'Deadline in ms (default 120000, at most 600000).'
            cand --cwd 'Directory to run in.'
            cand --exit-status 'Exit with the command''s own status (128+N for signal N, 124 on timeout)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;process'= {
            cand --json 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys'
            cand --action 'What to do. [one of: start, list, poll, stop, write, remove, screen]'
            cand --command 'start: command line.'
            cand --cwd 'start: directory.'
            cand --tty 'start: in a terminal.'
            cand --size 'start: COLSxROWS (80x24).'
            cand --id 'Job id.'
            cand --input 'write: text for stdin.'
            cand --keys 'write: keys after input ("Up Enter", C-c).'
            cand --until 'poll: wait for a line matching this regex.'
            cand --wait-ms 'poll: wait at most this long.'
            cand --raw 'poll: keep escapes.'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;todo_set'= {
            cand --json 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys'
            cand --items 'The whole list, in order.'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;diagnose'= {
            cand --json 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys'
            cand --paths 'Files (default: those of the last change).'
            cand --new 'Only new ones.'
            cand --since 'Checkpoint node to compare from.'
            cand --baseline 'Baseline file (implies new).'
            cand --save-baseline 'Write a baseline file.'
            cand --severity 'Least severity shown (default warning). [one of: error, warning, information, hint]'
            cand --server 'Server name.'
            cand --timeout-ms 'Default 60000.'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;lsp'= {
            cand --json 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys'
            cand --action 'What to ask. [one of: definition, references, hover, symbols, workspace-symbols, rename, status, stop]'
            cand --at 'PATH:LINE:COL (symbols: PATH).'
            cand --query 'workspace-symbols: name.'
            cand --path 'workspace-symbols: a file of the language.'
            cand --new-name 'rename: new name.'
            cand --check 'rename: diff only.'
            cand --server 'Server name.'
            cand --timeout-ms 'Default 60000.'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;outline'= {
            cand --json 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys'
            cand -g 'Only files matching GLOB; a leading ! excludes; repeatable (rg -g)'
            cand --glob 'Only files matching GLOB; a leading ! excludes; repeatable (rg -g)'
            cand -t 'Only files of this rg type (rust, py, ...); repeatable (rg -t)'
            cand --type 'Only files of this rg type (rust, py, ...); repeatable (rg -t)'
            cand --path 'File or directory (default: the working directory).'
            cand --paths 'Several files or directories instead of path, in the order given.'
            cand --map 'Repository map: ranked by references.'
            cand --budget 'map: bytes of rows (default 8192).'
            cand -l 'Only this language.'
            cand --lang 'Only this language.'
            cand --globs 'Globs as in rg -g: "*.rs" includes, "!tests/**" excludes.'
            cand --gitignore 'Skip files .gitignore excludes.'
            cand --max-file-size 'Skip files larger than this many bytes (default 2 MiB).'
            cand --stats 'Print the summary line on stderr even when stdout is not a terminal'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;sgrep'= {
            cand --json 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys'
            cand -g 'Only search files matching GLOB; a leading ! excludes; repeatable (rg -g)'
            cand --glob 'Only search files matching GLOB; a leading ! excludes; repeatable (rg -g)'
            cand -t 'Only search files of this rg type; repeatable (rg -t)'
            cand --type 'Only search files of this rg type; repeatable (rg -t)'
            cand -T 'Do not search files of this rg type; repeatable (rg -T)'
            cand --type-not 'Do not search files of this rg type; repeatable (rg -T)'
            cand --pattern 'Code, e.g. "foo($A, $$$REST)".'
            cand --path 'File or directory (default: the working directory).'
            cand --paths 'Several files or directories instead of path, in the order given.'
            cand --lang 'rust, python, javascript, typescript, tsx, go, c, cpp, java or ruby.'
            cand -r 'Template replacing each match.'
            cand --rewrite 'Template replacing each match.'
            cand --check 'rewrite: show the diff only.'
            cand --output-mode 'content (default), files (paths) or count (PATH:N), as grep''s. [one of: content, files, count]'
            cand -n 'Most matches (default 200).'
            cand --limit 'Most matches (default 200).'
            cand --globs 'Globs as in rg -g: "*.rs" includes, "!vendor/**" excludes.'
            cand --gitignore 'Skip files .gitignore excludes.'
            cand --max-file-size 'Skip files larger than this many bytes (default 2 MiB).'
            cand -l 'Print only the paths of files with a match (rg -l)'
            cand --files-with-matches 'Print only the paths of files with a match (rg -l)'
            cand -c 'Print PATH:N, the matches of each file with one (rg -c)'
            cand --count 'Print PATH:N, the matches of each file with one (rg -c)'
            cand -0 'With -l: end each path with NUL instead of a newline, for xargs -0 (rg -0)'
            cand --null 'With -l: end each path with NUL instead of a newline, for xargs -0 (rg -0)'
            cand --stats 'Print the summary line on stderr even when stdout is not a terminal'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;apply_patch'= {
            cand --json 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys'
            cand --patch 'Patch text.'
            cand --check 'Only test whether it applies.'
            cand --diagnose 'Append new language-server errors.'
            cand -R 'Apply a unified diff in reverse (patch -R, git apply -R)'
            cand --reverse 'Apply a unified diff in reverse (patch -R, git apply -R)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;todo'= {
            cand --json 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys'
            cand --action 'read or set. [one of: read, set]'
            cand --items 'set: the whole list, in order.'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;bg-process'= {
            cand --json 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys'
            cand --action 'What to do. [one of: start, poll, stop, list]'
            cand --command 'start: command line.'
            cand --cwd 'start: directory.'
            cand --id 'Job id.'
            cand --since-last 'poll: only what is new.'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;task'= {
            cand --json 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys'
            cand --objective 'What the sub-agent should accomplish, complete in itself.'
            cand --agent 'Which configured agent (default: the default).'
            cand -C 'Background for it.'
            cand --context 'Background for it.'
            cand --timeout-ms 'Deadline in milliseconds (default 600000, at most 3600000).'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;saas-action'= {
            cand --json 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys'
            cand --action 'discover or execute. [one of: discover, execute]'
            cand --slug 'execute: the action, as discover lists it (e.g. GITHUB_CREATE_AN_ISSUE).'
            cand --arguments 'execute: the action''s arguments as a JSON object, e.g. {"owner": "x"} (an object is taken too).'
            cand --toolkits 'discover: only these toolkits, e.g. ["github"].'
            cand --query 'discover: words to search actions by.'
            cand -n 'discover: the most actions listed (default 20, at most 1000).'
            cand --limit 'discover: the most actions listed (default 20, at most 1000).'
            cand --timeout-ms 'Give up after this many milliseconds (default 30000 or COMPOSIO_TIMEOUT_MS, at most 300000).'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;memory'= {
            cand --json 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys'
            cand --action 'read, replace or append. [one of: read, replace, append]'
            cand --content 'The new note, or the line to append.'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;enter_plan_mode'= {
            cand --json 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;exit_plan_mode'= {
            cand --json 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys'
            cand --plan 'The plan, in Markdown.'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;run_shell'= {
            cand --json 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys'
            cand --command 'The shell command, run with sh -c (in a tmux pane, sourced by its bash).'
            cand --risk 'Estimated risk of the action: low, medium or high. [one of: low, medium, high]'
            cand --mutation 'Whether the action changes the system''s state.'
            cand --privesc 'Whether the action uses privilege escalation (sudo, su, doas).'
            cand --why 'A short reason for the action and a justification of its risk.'
            cand --session 'A managed tmux session (default: the shared one); implies a tmux target.'
            cand --pane 'A managed pane of the session (default: its shared pane); implies a tmux target.'
            cand --wait 'true (default): until the command exits; false: dispatch to the tmux pane and return; "30s", "10m", "1h" or seconds: wait up to that long.'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;read_file'= {
            cand --json 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys'
            cand --path 'The file to read.'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;write_file'= {
            cand --json 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys'
            cand --path 'The file to write.'
            cand --content 'The complete new content.'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;fetch_url'= {
            cand --json 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys'
            cand --url 'An absolute http or https URL.'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;web_search'= {
            cand --json 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys'
            cand --query 'What to search for.'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;capture-pane'= {
            cand --json 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys'
            cand --target 'A raw tmux target (-t syntax, e.g. %3 or mysession:1.0); beats session and pane.'
            cand --session 'A managed tmux session (default: the shared one).'
            cand --pane 'A managed pane of the session (default: its shared pane).'
            cand --start 'First line (-S): a line number (negative = history) or "-" for the start of the history.'
            cand --end 'Last line (-E): a line number or "-" for the end of the visible area.'
            cand --join-wrapped-lines 'Join soft-wrapped lines (-J; default true).'
            cand --preserve-trailing-spaces 'Keep trailing spaces (-N; default false).'
            cand --include-escape-sequences 'Keep colour and attribute escapes (-e; default false).'
            cand --escape-non-printable 'Octal-escape non-printable characters (-C; default false).'
            cand --include-alternate-screen 'Capture the alternate screen (-a; default false); the main screen, with a notice, when none is active.'
            cand --delay 'Wait this long before capturing ("2s", "500ms" or seconds).'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;send-keys'= {
            cand --json 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys'
            cand --target 'A raw tmux target (-t syntax, e.g. %3 or mysession:1.0); beats session and pane.'
            cand --session 'A managed tmux session (default: the shared one).'
            cand --pane 'A managed pane of the session (default: its shared pane).'
            cand --keys 'tmux key names, sent in order: "C-c", "Enter", "Up", …'
            cand --literal-text 'Text typed as is (send-keys -l).'
            cand --enter 'Press Enter after the text and keys (default false).'
            cand --delay 'Wait this long before sending ("500ms", "2s" or seconds).'
            cand --risk 'Estimated risk of the action: low, medium or high. [one of: low, medium, high]'
            cand --mutation 'Whether the action changes the system''s state.'
            cand --privesc 'Whether the action uses privilege escalation (sudo, su, doas).'
            cand --why 'A short reason for the action and a justification of its risk.'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;tmux-create-session'= {
            cand --json 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys'
            cand --session 'The managed session (its short name, or indus-<owner>-<name>).'
            cand --risk 'Estimated risk of the action: low, medium or high. [one of: low, medium, high]'
            cand --mutation 'Whether the action changes the system''s state.'
            cand --privesc 'Whether the action uses privilege escalation (sudo, su, doas).'
            cand --why 'A short reason for the action and a justification of its risk.'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;tmux-kill-session'= {
            cand --json 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys'
            cand --session 'The managed session (its short name, or indus-<owner>-<name>).'
            cand --risk 'Estimated risk of the action: low, medium or high. [one of: low, medium, high]'
            cand --mutation 'Whether the action changes the system''s state.'
            cand --privesc 'Whether the action uses privilege escalation (sudo, su, doas).'
            cand --why 'A short reason for the action and a justification of its risk.'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;tmux-create-pane'= {
            cand --json 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys'
            cand --pane 'The managed pane''s name.'
            cand --session 'The managed session (default: the shared one).'
            cand --risk 'Estimated risk of the action: low, medium or high. [one of: low, medium, high]'
            cand --mutation 'Whether the action changes the system''s state.'
            cand --privesc 'Whether the action uses privilege escalation (sudo, su, doas).'
            cand --why 'A short reason for the action and a justification of its risk.'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;tmux-kill-pane'= {
            cand --json 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys'
            cand --pane 'The managed pane''s name.'
            cand --session 'The managed session (default: the shared one).'
            cand --risk 'Estimated risk of the action: low, medium or high. [one of: low, medium, high]'
            cand --mutation 'Whether the action changes the system''s state.'
            cand --privesc 'Whether the action uses privilege escalation (sudo, su, doas).'
            cand --why 'A short reason for the action and a justification of its risk.'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;time'= {
            cand --json 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;list'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'indus-tool;describe'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'indus-tool;schema'= {
            cand --for 'openai: Chat Completions `tools`; anthropic: Messages `tools`; mcp: the MCP server''s tools/list result'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'indus-tool;call'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'indus-tool;batch'= {
            cand -j 'Run up to N calls at once; outcomes are then written as calls finish, each with its call''s id'
            cand --jobs 'Run up to N calls at once; outcomes are then written as calls finish, each with its call''s id'
            cand --no-gate 'Turn the read-before-edit gate off (it is on in batch mode)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;mcp'= {
            cand --no-gate 'Turn the read-before-edit gate off (it is on in the MCP server)'
            cand --tool-search 'List only read, grep, find, edit, write and bash, plus find_tool and load_tool to add the others when needed'
            cand --no-output-schemas 'List the tools without their outputSchema (half the list''s bytes; structuredContent is still sent)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand serve 'Serve the selected tools (grafted ones included) on stdio, as `mcp` alone does'
            cand servers 'The configured MCP servers: name, transport, status, tool count, last error'
            cand tools 'The grafted tools (from the ledger cache; nothing is spawned)'
            cand ledger 'The bridge ledger''s event log (--format json: one JSON event per line)'
            cand refresh 'Connect to the configured servers (or SERVER), list their tools and update the ledger; exit 1 if one failed'
            cand up 'Start the warm broker for this directory (unless it runs) and connect it to every configured server, so grafted calls skip the servers'' startup; exit 1 if it did not start or a server failed'
            cand down 'Stop this directory''s warm broker and the servers it keeps open (not running is not an error)'
            cand names 'The grafted tools as `NAME<TAB>SUMMARY` lines, from the ledger cache (for shell completion; nothing is spawned)'
            cand broker 'The warm broker itself (started by `mcp up`)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'indus-tool;mcp;serve'= {
            cand --no-gate 'Turn the read-before-edit gate off (it is on in the MCP server)'
            cand --tool-search 'List only read, grep, find, edit, write and bash, plus find_tool and load_tool to add the others when needed'
            cand --no-output-schemas 'List the tools without their outputSchema (half the list''s bytes; structuredContent is still sent)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'indus-tool;mcp;servers'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'indus-tool;mcp;tools'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'indus-tool;mcp;ledger'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'indus-tool;mcp;refresh'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'indus-tool;mcp;up'= {
            cand --idle 'Exit after this many seconds without a call'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'indus-tool;mcp;down'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'indus-tool;mcp;names'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'indus-tool;mcp;broker'= {
            cand --idle 'idle'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'indus-tool;mcp;help'= {
            cand serve 'Serve the selected tools (grafted ones included) on stdio, as `mcp` alone does'
            cand servers 'The configured MCP servers: name, transport, status, tool count, last error'
            cand tools 'The grafted tools (from the ledger cache; nothing is spawned)'
            cand ledger 'The bridge ledger''s event log (--format json: one JSON event per line)'
            cand refresh 'Connect to the configured servers (or SERVER), list their tools and update the ledger; exit 1 if one failed'
            cand up 'Start the warm broker for this directory (unless it runs) and connect it to every configured server, so grafted calls skip the servers'' startup; exit 1 if it did not start or a server failed'
            cand down 'Stop this directory''s warm broker and the servers it keeps open (not running is not an error)'
            cand names 'The grafted tools as `NAME<TAB>SUMMARY` lines, from the ledger cache (for shell completion; nothing is spawned)'
            cand broker 'The warm broker itself (started by `mcp up`)'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'indus-tool;mcp;help;serve'= {
        }
        &'indus-tool;mcp;help;servers'= {
        }
        &'indus-tool;mcp;help;tools'= {
        }
        &'indus-tool;mcp;help;ledger'= {
        }
        &'indus-tool;mcp;help;refresh'= {
        }
        &'indus-tool;mcp;help;up'= {
        }
        &'indus-tool;mcp;help;down'= {
        }
        &'indus-tool;mcp;help;names'= {
        }
        &'indus-tool;mcp;help;broker'= {
        }
        &'indus-tool;mcp;help;help'= {
        }
        &'indus-tool;diff'= {
            cand -U 'Lines of context around each change (diff -U N)'
            cand --context 'Lines of context around each change (diff -U N)'
            cand --unified-context 'Lines of context around each change (diff -U N)'
            cand -u 'Unified format with 3 lines of context (the only format; accepted as diff''s -u)'
            cand --unified 'Unified format with 3 lines of context (the only format; accepted as diff''s -u)'
            cand -q 'Only say which files differ (diff -q)'
            cand --brief 'Only say which files differ (diff -q)'
            cand -r 'Compare folders'' subfolders too (diff -r)'
            cand --recursive 'Compare folders'' subfolders too (diff -r)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;lsp-broker'= {
            cand --idle 'idle'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'indus-tool;checkpoint'= {
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand list 'The nodes, oldest first, with their time and the files they touched (size before, or why not kept)'
            cand on 'Checkpoint every write and edit of this session from now on, without --checkpoint (INDUS_CHECKPOINT=0 still turns it off for one invocation)'
            cand off 'Stop checkpointing this session by default (the nodes already recorded stay)'
            cand diff 'Unified diff from the state before NODE to now, for every file touched at or after NODE'
            cand rewind 'Put every file touched at or after NODE back as it was before NODE (files created since are deleted), then forget NODE and later nodes'
            cand gc 'Delete kept contents no node needs; with --tree also the copy of the tree kept for checkpointing commands'
            cand drop 'Forget NODE and every older node (or --all), deleting contents no node needs'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'indus-tool;checkpoint;list'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'indus-tool;checkpoint;on'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'indus-tool;checkpoint;off'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'indus-tool;checkpoint;diff'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'indus-tool;checkpoint;rewind'= {
            cand --force 'Overwrite files changed outside the toolbox since it wrote them (refused otherwise)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'indus-tool;checkpoint;gc'= {
            cand --tree 'Also forget the last scan of the tree and its copies (the next checkpointed command copies the tree again)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'indus-tool;checkpoint;drop'= {
            cand --all 'Forget every node of the session'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'indus-tool;checkpoint;help'= {
            cand list 'The nodes, oldest first, with their time and the files they touched (size before, or why not kept)'
            cand on 'Checkpoint every write and edit of this session from now on, without --checkpoint (INDUS_CHECKPOINT=0 still turns it off for one invocation)'
            cand off 'Stop checkpointing this session by default (the nodes already recorded stay)'
            cand diff 'Unified diff from the state before NODE to now, for every file touched at or after NODE'
            cand rewind 'Put every file touched at or after NODE back as it was before NODE (files created since are deleted), then forget NODE and later nodes'
            cand gc 'Delete kept contents no node needs; with --tree also the copy of the tree kept for checkpointing commands'
            cand drop 'Forget NODE and every older node (or --all), deleting contents no node needs'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'indus-tool;checkpoint;help;list'= {
        }
        &'indus-tool;checkpoint;help;on'= {
        }
        &'indus-tool;checkpoint;help;off'= {
        }
        &'indus-tool;checkpoint;help;diff'= {
        }
        &'indus-tool;checkpoint;help;rewind'= {
        }
        &'indus-tool;checkpoint;help;gc'= {
        }
        &'indus-tool;checkpoint;help;drop'= {
        }
        &'indus-tool;checkpoint;help;help'= {
        }
        &'indus-tool;trust'= {
            cand --list 'List the trusted files: path, SHA-256, and whether the file still holds that content'
            cand --revoke 'Forget the trust of each FILE (whatever content was trusted)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'indus-tool;completions'= {
            cand --install 'Write the script where the shell finds it for this user (bash: $XDG_DATA_HOME/bash-completion/completions, zsh: $XDG_DATA_HOME/zsh/site-functions, fish: $XDG_CONFIG_HOME/fish/completions; ~/.local/share and ~/.config when unset) and print its path'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'indus-tool;man'= {
            cand --install 'Write the pages into PREFIX/share/man/man1 (PREFIX: ~/.local when not given), where `man indus-tool` finds them'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'indus-tool;help'= {
            cand read 'Read a file with line numbers (as cat -n), a window at a time; the header gives the offset to continue from.'
            cand ls 'List a directory''s entries (`kind size name`), directories first.'
            cand grep 'Search file contents for a regular expression (Rust syntax), like rg: `PATH:LINE: TEXT` rows in path order, then a summary.'
            cand find 'Find files and directories by name (case-insensitive): a glob if the pattern holds * ? [ or { (with a /, matched against the path: "src/**/*.rs"), else a part of the name.'
            cand websearch 'Search the web (DuckDuckGo): numbered results with title, URL and snippet.'
            cand webfetch 'Fetch a web page (http/https) as readable text, Markdown or raw HTML.'
            cand todo_read 'Show the session''s checklist (todo_set writes it).'
            cand write 'Create or overwrite a file with exactly this content (atomic; makes parent folders).'
            cand edit 'Replace oldText with newText in a file; returns the diff.'
            cand bash 'Run a shell command (sh -c) and wait: output and exit status (non-zero is an error).'
            cand process 'Background jobs that outlive this call (servers, REPLs): start (command → id; tty: a terminal), poll (id → new output; until, waitMs: wait for a line), write (input/keys → stdin), screen, stop, remove, list.'
            cand todo_set 'Replace the session''s checklist: items {id, text, status, priority?}; [] clears it.'
            cand diagnose 'Errors and warnings of files from their language server, settled for the text just sent: PATH:LINE:COL: error[CODE] message rows.'
            cand lsp 'The language server at PATH:LINE:COL: definition, references, hover; symbols of a file; workspace-symbols by name; rename everywhere (one patch; check: diff only).'
            cand outline 'Definitions of files or a tree (Rust, Python, JS/TS, Go, C/C++, Java, Ruby): `PATH:LINE: kind name(signature)`, nested ones indented.'
            cand sgrep 'Structural search, as ast-grep: code with $X (one node) and $$$XS (many) matched on syntax trees, rows like grep''s.'
            cand apply_patch 'Apply a patch to files, all or nothing: codex''s envelope (*** Begin Patch, *** Update File: PATH, @@, -old/+new lines, *** End Patch; also Add File, Delete File, Move to) or a unified diff.'
            cand todo 'A checklist of {task, state, weight} items (with dropped and weights), apart from todo_set''s: action read, or set (replace whole).'
            cand bg-process 'Background jobs of this session (bg-N) keeping each job''s last 2,000 lines: start, poll (sinceLast: only new), stop, list.'
            cand task 'Delegate a self-contained objective to a sub-agent CLI (Claude Code, Codex, Gemini CLI, opencode) and return its final answer.'
            cand saas-action 'SaaS actions (GitHub, Slack, Gmail…) through Composio: discover (toolkits, query) lists them; execute runs one by slug with arguments.'
            cand memory 'A note for this session that survives across turns: read, replace or append (content).'
            cand enter_plan_mode 'Start a planning phase: explore and read, change nothing, then call exit_plan_mode with the plan.'
            cand exit_plan_mode 'Present the finished plan (Markdown) for approval; it is kept as a file under .indus-process/ and returned.'
            cand run_shell 'Run a shell command and return {exit_code, stdout, stderr}, each stream cut to 4,000 characters.'
            cand read_file 'Read a text file and return its content as is, cut to 8,000 characters with ...[truncated] appended when longer.  When to use: to look at a configuration file, a log excerpt or a script before acting on it.  When NOT to use: for a large file you need a window of (use run_shell with sed -n or tail), or for binary files.  Disambiguation: returns raw text without line numbers; the path is relative to the working directory.  Examples: {"path": "/etc/hostname"}'
            cand write_file 'Write content to a file, creating it (and missing parent folders) or replacing it atomically; answers Wrote N bytes to /path.  When to use: to create or wholly replace a configuration file, a script or a note.  When NOT to use: to change a few lines of a large file (write the whole new content, or use run_shell), or to append to a log.  Disambiguation: replaces the whole file; an existing file keeps its permissions and a symlink is written through.  Examples: {"path": "/tmp/output.txt", "content": "hello world\n"}'
            cand fetch_url 'HTTP GET a URL and return the response body as text, cut to 8,000 characters with ...[truncated] appended when longer.  When to use: to read an API''s JSON, a raw configuration file or a documentation page by URL.  When NOT to use: to find pages about a topic (use web_search), for binary downloads, or for requests needing authentication or a method other than GET.  Disambiguation: the body comes as served (HTML stays HTML); redirects are followed.  Examples: {"url": "https://example.com/api/data"}'
            cand web_search 'Search the web (DuckDuckGo''s HTML endpoint, no API key) and return up to 8 results, each with title, URL and snippet.  When to use: to find documentation, an error message''s explanation or a download page.  When NOT to use: when you already know the URL (use fetch_url).  Disambiguation: returns links and snippets only; fetch a result to read it.  Examples: {"query": "rust tokio tutorial"}'
            cand capture-pane 'Capture the text of a tmux pane''s screen (and, with start, its history); the last 8,000 characters are kept, with [truncated N chars from start] when cut.  When to use: to watch a command dispatched with run_shell wait: false, to read a prompt a program is waiting at, or to see what a person left on a pane.  When NOT to use: to get a finished command''s output (run_shell returns it); to type into the pane (send-keys).  Disambiguation: read-only; the default is the shared pane of the shared session; a managed session or pane that is missing falls back once to the shared pane, with a notice saying so; delay waits before capturing, for polling.  Examples: {"delay": "5s"}; {"pane": "worker", "start": "-", "join_wrapped_lines": true}'
            cand send-keys 'Type into a tmux pane: literal_text first (sent as is), then tmux key names (C-c, C-z, Enter, Up, Down, Escape, …), then Enter when enter is true.'
            cand tmux-create-session 'Create (or reuse) a managed tmux session, named indus-<owner>-<session>, with its shared pane ready; a person can attach to it.'
            cand tmux-kill-session 'Kill a managed tmux session and every command running in it.  When to use: when the work a session was made for is over, or to make room under tmux.max_sessions.  When NOT to use: for the shared session (protected), or for sessions indus-tool did not create (refused).  Disambiguation: kills the whole session; to close one pane use tmux-kill-pane.  Examples: {"session": "ops", "risk": "medium", "mutation": true, "privesc": false, "why": "The deployment is finished"}'
            cand tmux-create-pane 'Create (or reuse) a managed pane in a managed session (default: the shared session): a window of its own, named after the pane, running a fresh shell.'
            cand tmux-kill-pane 'Kill a managed pane and whatever runs in it.  When to use: when a pane''s job is over or it is stuck beyond send-keys C-c.  When NOT to use: for a session''s shared pane (protected), or panes indus-tool did not create (refused).  Disambiguation: kills one pane; to end a whole session use tmux-kill-session.  Examples: {"pane": "worker", "risk": "medium", "mutation": true, "privesc": false, "why": "The dev server is no longer needed"}'
            cand time 'The harness''s current wall-clock time (unix_millis, ISO 8601 UTC and local, RFC 2822).  When to use: to timestamp an action or compute a deadline.  When NOT to use: for a remote machine''s clock (run `date` there).  Disambiguation: the toolbox''s clock, not the shell target''s.  Examples: {} → {"iso_8601_utc": "2026-02-28T13:01:48.794Z", …}'
            cand list 'List the exposed tools with their collections and one-line summaries'
            cand describe 'Print one tool''s descriptor (name, description, JSON Schema) as JSON'
            cand schema 'Print every exposed tool''s descriptor as a JSON array, or (--for) the tool definitions in the shape a model API takes'
            cand call 'Run one ToolCall given as JSON: {"id":..,"name":..,"input":{..}} (''-'' reads stdin, ''@FILE'' reads a file)'
            cand batch 'Answer JSONL ToolCalls from stdin with JSONL ToolOutcomes on stdout, one line each, flushed as they are written'
            cand mcp 'Serve the selected tools as an MCP server on stdio (tools/list, tools/call, cancellation), until stdin closes; or inspect the MCP servers whose tools are grafted'
            cand diff 'Unified diff of two files (or with -r two trees), with the engine edit uses; exit 0 when equal, 1 when different, 2 on trouble'
            cand lsp-broker 'The warm language-server broker itself (started by diagnose and lsp)'
            cand checkpoint 'List, diff, rewind or drop the checkpoints --checkpoint recorded for file tools and commands'
            cand trust 'Trust this project''s configuration files (MCP servers, agents, approval policy) as they are now, list or revoke trust'
            cand completions 'Print a shell completion script, or install it where the shell looks'
            cand man 'Write man pages (indus-tool.1 and one per subcommand) into a directory, or install them'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'indus-tool;help;read'= {
        }
        &'indus-tool;help;ls'= {
        }
        &'indus-tool;help;grep'= {
        }
        &'indus-tool;help;find'= {
        }
        &'indus-tool;help;websearch'= {
        }
        &'indus-tool;help;webfetch'= {
        }
        &'indus-tool;help;todo_read'= {
        }
        &'indus-tool;help;write'= {
        }
        &'indus-tool;help;edit'= {
        }
        &'indus-tool;help;bash'= {
        }
        &'indus-tool;help;process'= {
        }
        &'indus-tool;help;todo_set'= {
        }
        &'indus-tool;help;diagnose'= {
        }
        &'indus-tool;help;lsp'= {
        }
        &'indus-tool;help;outline'= {
        }
        &'indus-tool;help;sgrep'= {
        }
        &'indus-tool;help;apply_patch'= {
        }
        &'indus-tool;help;todo'= {
        }
        &'indus-tool;help;bg-process'= {
        }
        &'indus-tool;help;task'= {
        }
        &'indus-tool;help;saas-action'= {
        }
        &'indus-tool;help;memory'= {
        }
        &'indus-tool;help;enter_plan_mode'= {
        }
        &'indus-tool;help;exit_plan_mode'= {
        }
        &'indus-tool;help;run_shell'= {
        }
        &'indus-tool;help;read_file'= {
        }
        &'indus-tool;help;write_file'= {
        }
        &'indus-tool;help;fetch_url'= {
        }
        &'indus-tool;help;web_search'= {
        }
        &'indus-tool;help;capture-pane'= {
        }
        &'indus-tool;help;send-keys'= {
        }
        &'indus-tool;help;tmux-create-session'= {
        }
        &'indus-tool;help;tmux-kill-session'= {
        }
        &'indus-tool;help;tmux-create-pane'= {
        }
        &'indus-tool;help;tmux-kill-pane'= {
        }
        &'indus-tool;help;time'= {
        }
        &'indus-tool;help;list'= {
        }
        &'indus-tool;help;describe'= {
        }
        &'indus-tool;help;schema'= {
        }
        &'indus-tool;help;call'= {
        }
        &'indus-tool;help;batch'= {
        }
        &'indus-tool;help;mcp'= {
            cand serve 'Serve the selected tools (grafted ones included) on stdio, as `mcp` alone does'
            cand servers 'The configured MCP servers: name, transport, status, tool count, last error'
            cand tools 'The grafted tools (from the ledger cache; nothing is spawned)'
            cand ledger 'The bridge ledger''s event log (--format json: one JSON event per line)'
            cand refresh 'Connect to the configured servers (or SERVER), list their tools and update the ledger; exit 1 if one failed'
            cand up 'Start the warm broker for this directory (unless it runs) and connect it to every configured server, so grafted calls skip the servers'' startup; exit 1 if it did not start or a server failed'
            cand down 'Stop this directory''s warm broker and the servers it keeps open (not running is not an error)'
            cand names 'The grafted tools as `NAME<TAB>SUMMARY` lines, from the ledger cache (for shell completion; nothing is spawned)'
            cand broker 'The warm broker itself (started by `mcp up`)'
        }
        &'indus-tool;help;mcp;serve'= {
        }
        &'indus-tool;help;mcp;servers'= {
        }
        &'indus-tool;help;mcp;tools'= {
        }
        &'indus-tool;help;mcp;ledger'= {
        }
        &'indus-tool;help;mcp;refresh'= {
        }
        &'indus-tool;help;mcp;up'= {
        }
        &'indus-tool;help;mcp;down'= {
        }
        &'indus-tool;help;mcp;names'= {
        }
        &'indus-tool;help;mcp;broker'= {
        }
        &'indus-tool;help;diff'= {
        }
        &'indus-tool;help;lsp-broker'= {
        }
        &'indus-tool;help;checkpoint'= {
            cand list 'The nodes, oldest first, with their time and the files they touched (size before, or why not kept)'
            cand on 'Checkpoint every write and edit of this session from now on, without --checkpoint (INDUS_CHECKPOINT=0 still turns it off for one invocation)'
            cand off 'Stop checkpointing this session by default (the nodes already recorded stay)'
            cand diff 'Unified diff from the state before NODE to now, for every file touched at or after NODE'
            cand rewind 'Put every file touched at or after NODE back as it was before NODE (files created since are deleted), then forget NODE and later nodes'
            cand gc 'Delete kept contents no node needs; with --tree also the copy of the tree kept for checkpointing commands'
            cand drop 'Forget NODE and every older node (or --all), deleting contents no node needs'
        }
        &'indus-tool;help;checkpoint;list'= {
        }
        &'indus-tool;help;checkpoint;on'= {
        }
        &'indus-tool;help;checkpoint;off'= {
        }
        &'indus-tool;help;checkpoint;diff'= {
        }
        &'indus-tool;help;checkpoint;rewind'= {
        }
        &'indus-tool;help;checkpoint;gc'= {
        }
        &'indus-tool;help;checkpoint;drop'= {
        }
        &'indus-tool;help;trust'= {
        }
        &'indus-tool;help;completions'= {
        }
        &'indus-tool;help;man'= {
        }
        &'indus-tool;help;help'= {
        }
    ]
    $completions[$command]
}
