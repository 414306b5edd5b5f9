
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'indus-tool' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'indus-tool'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'indus-tool' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'Output format: text blocks, or one JSON ToolOutcome line')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Working directory the tools resolve paths against (default: the current directory)')
            [CompletionResult]::new('--root', '--root', [CompletionResultType]::ParameterName, 'Confine every path a tool touches to DIR, after symlinks (commands bash runs are not sandboxed)')
            [CompletionResult]::new('--allow-protected', '--allow-protected', [CompletionResultType]::ParameterName, 'Let write, edit and apply_patch write PATH though protected')
            [CompletionResult]::new('--allow-outside', '--allow-outside', [CompletionResultType]::ParameterName, 'Let write, edit and apply_patch write in DIR outside the project')
            [CompletionResult]::new('--collection', '--collection', [CompletionResultType]::ParameterName, 'Expose a standard collection of the twelve built-ins (read-only, coding, all)')
            [CompletionResult]::new('--profile', '--profile', [CompletionResultType]::ParameterName, 'Expose a deck profile (default all; it wins over --collection)')
            [CompletionResult]::new('--tools', '--tools', [CompletionResultType]::ParameterName, 'Expose only these tools of the profile (case, _ and - ignored)')
            [CompletionResult]::new('--max-bytes', '--max-bytes', [CompletionResultType]::ParameterName, 'Output budget in bytes (default 65536); longer output is clamped with a notice')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session name keying the checklist and the gate''s read-state')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'Colour on a terminal (auto honours NO_COLOR); never in JSON')
            [CompletionResult]::new('--id', '--id', [CompletionResultType]::ParameterName, 'The id of the ToolCall (echoed in the JSON outcome; default "cli")')
            [CompletionResult]::new('--suppress-repeats', '--suppress-repeats', [CompletionResultType]::ParameterName, 'Refuse a call that failed the same way 3 times in the session (default: on in buddy, batch, mcp)')
            [CompletionResult]::new('--turn', '--turn', [CompletionResultType]::ParameterName, 'The checkpoint node this invocation''s changes belong to (default: one per invocation)')
            [CompletionResult]::new('--mcp-config', '--mcp-config', [CompletionResultType]::ParameterName, 'An MCP config file read before the discovered ones; its tools are grafted as SERVER__TOOL')
            [CompletionResult]::new('--mcp-log', '--mcp-log', [CompletionResultType]::ParameterName, 'Print MCP servers'' log notifications at LEVEL and above on stderr')
            [CompletionResult]::new('--save-media', '--save-media', [CompletionResultType]::ParameterName, 'Write the images, audio and binary resources MCP tools return into DIR')
            [CompletionResult]::new('--exact', '--exact', [CompletionResultType]::ParameterName, 'Print the call exactly as an agent receives it, even to a pipe: cli (bare --exact) the text, batch the batch line, mcp the MCP tool result')
            [CompletionResult]::new('--state-dir', '--state-dir', [CompletionResultType]::ParameterName, 'The folder holding .indus-process/ (default: the nearest upwards with .git or .indus-process)')
            [CompletionResult]::new('--tmux', '--tmux', [CompletionResultType]::ParameterName, 'Type bash''s commands into a managed tmux pane a person can attach to')
            [CompletionResult]::new('--exec', '--exec', [CompletionResultType]::ParameterName, 'Run the invocation elsewhere: local, container:NAME or ssh:[USER@]HOST[:PORT]')
            [CompletionResult]::new('--exec-cwd', '--exec-cwd', [CompletionResultType]::ParameterName, 'The working directory on the --exec target (default: the login directory)')
            [CompletionResult]::new('--engine', '--engine', [CompletionResultType]::ParameterName, 'The container engine of --exec container: (default: podman, else docker)')
            [CompletionResult]::new('--ssh-config', '--ssh-config', [CompletionResultType]::ParameterName, 'The ssh configuration file of --exec ssh: (ssh -F)')
            [CompletionResult]::new('--no-tools', '--no-tools', [CompletionResultType]::ParameterName, 'Expose no tools at all')
            [CompletionResult]::new('--gate', '--gate', [CompletionResultType]::ParameterName, 'write/edit refuse a file not read (or changed since) in this session')
            [CompletionResult]::new('--checkpoint', '--checkpoint', [CompletionResultType]::ParameterName, 'Record what write, edit and apply_patch change, and what commands (bash, run_shell, task, process start) change in the project tree, for `checkpoint diff|rewind`')
            [CompletionResult]::new('--confirm', '--confirm', [CompletionResultType]::ParameterName, 'Ask on the terminal before a command the policy does not allow runs (no terminal: denied)')
            [CompletionResult]::new('--allow-private-network', '--allow-private-network', [CompletionResultType]::ParameterName, 'Let webfetch and websearch reach loopback, link-local and private addresses (refused by default)')
            [CompletionResult]::new('--envelope', '--envelope', [CompletionResultType]::ParameterName, 'Wrap every result in the harness_timestamp envelope (always on in buddy)')
            [CompletionResult]::new('--no-mcp', '--no-mcp', [CompletionResultType]::ParameterName, 'Graft no MCP server''s tools (read no MCP config)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('read', 'read', [CompletionResultType]::ParameterValue, 'Read a file with line numbers (as cat -n), a window at a time; the header gives the offset to continue from.')
            [CompletionResult]::new('ls', 'ls', [CompletionResultType]::ParameterValue, 'List a directory''s entries (`kind size name`), directories first.')
            [CompletionResult]::new('grep', 'grep', [CompletionResultType]::ParameterValue, 'Search file contents for a regular expression (Rust syntax), like rg: `PATH:LINE: TEXT` rows in path order, then a summary.')
            [CompletionResult]::new('find', 'find', [CompletionResultType]::ParameterValue, 'Find files and directories by name (case-insensitive): a glob if the pattern holds * ? [ or { (with a /, matched against the path: "src/**/*.rs"), else a part of the name.')
            [CompletionResult]::new('websearch', 'websearch', [CompletionResultType]::ParameterValue, 'Search the web (DuckDuckGo): numbered results with title, URL and snippet.')
            [CompletionResult]::new('webfetch', 'webfetch', [CompletionResultType]::ParameterValue, 'Fetch a web page (http/https) as readable text, Markdown or raw HTML.')
            [CompletionResult]::new('todo_read', 'todo_read', [CompletionResultType]::ParameterValue, 'Show the session''s checklist (todo_set writes it).')
            [CompletionResult]::new('write', 'write', [CompletionResultType]::ParameterValue, 'Create or overwrite a file with exactly this content (atomic; makes parent folders).')
            [CompletionResult]::new('edit', 'edit', [CompletionResultType]::ParameterValue, 'Replace oldText with newText in a file; returns the diff.')
            [CompletionResult]::new('bash', 'bash', [CompletionResultType]::ParameterValue, 'Run a shell command (sh -c) and wait: output and exit status (non-zero is an error).')
            [CompletionResult]::new('process', 'process', [CompletionResultType]::ParameterValue, 'Background jobs that outlive this call (servers, REPLs): start (command → id; tty: a terminal), poll (id → new output; until, waitMs: wait for a line), write (input/keys → stdin), screen, stop, remove, list.')
            [CompletionResult]::new('todo_set', 'todo_set', [CompletionResultType]::ParameterValue, 'Replace the session''s checklist: items {id, text, status, priority?}; [] clears it.')
            [CompletionResult]::new('diagnose', 'diagnose', [CompletionResultType]::ParameterValue, 'Errors and warnings of files from their language server, settled for the text just sent: PATH:LINE:COL: error[CODE] message rows.')
            [CompletionResult]::new('lsp', 'lsp', [CompletionResultType]::ParameterValue, 'The language server at PATH:LINE:COL: definition, references, hover; symbols of a file; workspace-symbols by name; rename everywhere (one patch; check: diff only).')
            [CompletionResult]::new('outline', 'outline', [CompletionResultType]::ParameterValue, 'Definitions of files or a tree (Rust, Python, JS/TS, Go, C/C++, Java, Ruby): `PATH:LINE: kind name(signature)`, nested ones indented.')
            [CompletionResult]::new('sgrep', 'sgrep', [CompletionResultType]::ParameterValue, 'Structural search, as ast-grep: code with $X (one node) and $$$XS (many) matched on syntax trees, rows like grep''s.')
            [CompletionResult]::new('apply_patch', 'apply_patch', [CompletionResultType]::ParameterValue, 'Apply a patch to files, all or nothing: codex''s envelope (*** Begin Patch, *** Update File: PATH, @@, -old/+new lines, *** End Patch; also Add File, Delete File, Move to) or a unified diff.')
            [CompletionResult]::new('todo', 'todo', [CompletionResultType]::ParameterValue, 'A checklist of {task, state, weight} items (with dropped and weights), apart from todo_set''s: action read, or set (replace whole).')
            [CompletionResult]::new('bg-process', 'bg-process', [CompletionResultType]::ParameterValue, 'Background jobs of this session (bg-N) keeping each job''s last 2,000 lines: start, poll (sinceLast: only new), stop, list.')
            [CompletionResult]::new('task', 'task', [CompletionResultType]::ParameterValue, 'Delegate a self-contained objective to a sub-agent CLI (Claude Code, Codex, Gemini CLI, opencode) and return its final answer.')
            [CompletionResult]::new('saas-action', 'saas-action', [CompletionResultType]::ParameterValue, 'SaaS actions (GitHub, Slack, Gmail…) through Composio: discover (toolkits, query) lists them; execute runs one by slug with arguments.')
            [CompletionResult]::new('memory', 'memory', [CompletionResultType]::ParameterValue, 'A note for this session that survives across turns: read, replace or append (content).')
            [CompletionResult]::new('enter_plan_mode', 'enter_plan_mode', [CompletionResultType]::ParameterValue, 'Start a planning phase: explore and read, change nothing, then call exit_plan_mode with the plan.')
            [CompletionResult]::new('exit_plan_mode', 'exit_plan_mode', [CompletionResultType]::ParameterValue, 'Present the finished plan (Markdown) for approval; it is kept as a file under .indus-process/ and returned.')
            [CompletionResult]::new('run_shell', 'run_shell', [CompletionResultType]::ParameterValue, 'Run a shell command and return {exit_code, stdout, stderr}, each stream cut to 4,000 characters.')
            [CompletionResult]::new('read_file', 'read_file', [CompletionResultType]::ParameterValue, 'Read a text file and return its content as is, cut to 8,000 characters with ...[truncated] appended when longer.  When to use: to look at a configuration file, a log excerpt or a script before acting on it.  When NOT to use: for a large file you need a window of (use run_shell with sed -n or tail), or for binary files.  Disambiguation: returns raw text without line numbers; the path is relative to the working directory.  Examples: {"path": "/etc/hostname"}')
            [CompletionResult]::new('write_file', 'write_file', [CompletionResultType]::ParameterValue, 'Write content to a file, creating it (and missing parent folders) or replacing it atomically; answers Wrote N bytes to /path.  When to use: to create or wholly replace a configuration file, a script or a note.  When NOT to use: to change a few lines of a large file (write the whole new content, or use run_shell), or to append to a log.  Disambiguation: replaces the whole file; an existing file keeps its permissions and a symlink is written through.  Examples: {"path": "/tmp/output.txt", "content": "hello world\n"}')
            [CompletionResult]::new('fetch_url', 'fetch_url', [CompletionResultType]::ParameterValue, 'HTTP GET a URL and return the response body as text, cut to 8,000 characters with ...[truncated] appended when longer.  When to use: to read an API''s JSON, a raw configuration file or a documentation page by URL.  When NOT to use: to find pages about a topic (use web_search), for binary downloads, or for requests needing authentication or a method other than GET.  Disambiguation: the body comes as served (HTML stays HTML); redirects are followed.  Examples: {"url": "https://example.com/api/data"}')
            [CompletionResult]::new('web_search', 'web_search', [CompletionResultType]::ParameterValue, 'Search the web (DuckDuckGo''s HTML endpoint, no API key) and return up to 8 results, each with title, URL and snippet.  When to use: to find documentation, an error message''s explanation or a download page.  When NOT to use: when you already know the URL (use fetch_url).  Disambiguation: returns links and snippets only; fetch a result to read it.  Examples: {"query": "rust tokio tutorial"}')
            [CompletionResult]::new('capture-pane', 'capture-pane', [CompletionResultType]::ParameterValue, 'Capture the text of a tmux pane''s screen (and, with start, its history); the last 8,000 characters are kept, with [truncated N chars from start] when cut.  When to use: to watch a command dispatched with run_shell wait: false, to read a prompt a program is waiting at, or to see what a person left on a pane.  When NOT to use: to get a finished command''s output (run_shell returns it); to type into the pane (send-keys).  Disambiguation: read-only; the default is the shared pane of the shared session; a managed session or pane that is missing falls back once to the shared pane, with a notice saying so; delay waits before capturing, for polling.  Examples: {"delay": "5s"}; {"pane": "worker", "start": "-", "join_wrapped_lines": true}')
            [CompletionResult]::new('send-keys', 'send-keys', [CompletionResultType]::ParameterValue, 'Type into a tmux pane: literal_text first (sent as is), then tmux key names (C-c, C-z, Enter, Up, Down, Escape, …), then Enter when enter is true.')
            [CompletionResult]::new('tmux-create-session', 'tmux-create-session', [CompletionResultType]::ParameterValue, 'Create (or reuse) a managed tmux session, named indus-<owner>-<session>, with its shared pane ready; a person can attach to it.')
            [CompletionResult]::new('tmux-kill-session', 'tmux-kill-session', [CompletionResultType]::ParameterValue, 'Kill a managed tmux session and every command running in it.  When to use: when the work a session was made for is over, or to make room under tmux.max_sessions.  When NOT to use: for the shared session (protected), or for sessions indus-tool did not create (refused).  Disambiguation: kills the whole session; to close one pane use tmux-kill-pane.  Examples: {"session": "ops", "risk": "medium", "mutation": true, "privesc": false, "why": "The deployment is finished"}')
            [CompletionResult]::new('tmux-create-pane', 'tmux-create-pane', [CompletionResultType]::ParameterValue, 'Create (or reuse) a managed pane in a managed session (default: the shared session): a window of its own, named after the pane, running a fresh shell.')
            [CompletionResult]::new('tmux-kill-pane', 'tmux-kill-pane', [CompletionResultType]::ParameterValue, 'Kill a managed pane and whatever runs in it.  When to use: when a pane''s job is over or it is stuck beyond send-keys C-c.  When NOT to use: for a session''s shared pane (protected), or panes indus-tool did not create (refused).  Disambiguation: kills one pane; to end a whole session use tmux-kill-session.  Examples: {"pane": "worker", "risk": "medium", "mutation": true, "privesc": false, "why": "The dev server is no longer needed"}')
            [CompletionResult]::new('time', 'time', [CompletionResultType]::ParameterValue, 'The harness''s current wall-clock time (unix_millis, ISO 8601 UTC and local, RFC 2822).  When to use: to timestamp an action or compute a deadline.  When NOT to use: for a remote machine''s clock (run `date` there).  Disambiguation: the toolbox''s clock, not the shell target''s.  Examples: {} → {"iso_8601_utc": "2026-02-28T13:01:48.794Z", …}')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the exposed tools with their collections and one-line summaries')
            [CompletionResult]::new('describe', 'describe', [CompletionResultType]::ParameterValue, 'Print one tool''s descriptor (name, description, JSON Schema) as JSON')
            [CompletionResult]::new('schema', 'schema', [CompletionResultType]::ParameterValue, 'Print every exposed tool''s descriptor as a JSON array, or (--for) the tool definitions in the shape a model API takes')
            [CompletionResult]::new('call', 'call', [CompletionResultType]::ParameterValue, 'Run one ToolCall given as JSON: {"id":..,"name":..,"input":{..}} (''-'' reads stdin, ''@FILE'' reads a file)')
            [CompletionResult]::new('batch', 'batch', [CompletionResultType]::ParameterValue, 'Answer JSONL ToolCalls from stdin with JSONL ToolOutcomes on stdout, one line each, flushed as they are written')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Serve the selected tools as an MCP server on stdio (tools/list, tools/call, cancellation), until stdin closes; or inspect the MCP servers whose tools are grafted')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Unified diff of two files (or with -r two trees), with the engine edit uses; exit 0 when equal, 1 when different, 2 on trouble')
            [CompletionResult]::new('lsp-broker', 'lsp-broker', [CompletionResultType]::ParameterValue, 'The warm language-server broker itself (started by diagnose and lsp)')
            [CompletionResult]::new('checkpoint', 'checkpoint', [CompletionResultType]::ParameterValue, 'List, diff, rewind or drop the checkpoints --checkpoint recorded for file tools and commands')
            [CompletionResult]::new('trust', 'trust', [CompletionResultType]::ParameterValue, 'Trust this project''s configuration files (MCP servers, agents, approval policy) as they are now, list or revoke trust')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script, or install it where the shell looks')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Write man pages (indus-tool.1 and one per subcommand) into a directory, or install them')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'indus-tool;read' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys')
            [CompletionResult]::new('--path', '--path', [CompletionResultType]::ParameterName, 'File path.')
            [CompletionResult]::new('--offset', '--offset', [CompletionResultType]::ParameterName, 'First line (1-based; -20: the last 20).')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'How many lines (for agents 500 by default, lines cut at 500 characters).')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'How many lines (for agents 500 by default, lines cut at 500 characters).')
            [CompletionResult]::new('--tail', '--tail', [CompletionResultType]::ParameterName, 'The last N lines.')
            [CompletionResult]::new('--encoding', '--encoding', [CompletionResultType]::ParameterName, 'Text encoding (latin1, shift_jis, utf-16le…) or auto.')
            [CompletionResult]::new('--pages', '--pages', [CompletionResultType]::ParameterName, 'PDF pages (3-5).')
            [CompletionResult]::new('--max-image-side', '--max-image-side', [CompletionResultType]::ParameterName, 'Image long-side cap (1568).')
            [CompletionResult]::new('--max-image-bytes', '--max-image-bytes', [CompletionResultType]::ParameterName, 'Image byte cap (3932160).')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;ls' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys')
            [CompletionResult]::new('--path', '--path', [CompletionResultType]::ParameterName, 'Directory (default ".").')
            [CompletionResult]::new('--show-hidden', '--show-hidden', [CompletionResultType]::ParameterName, 'Include dot-entries.')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Most entries shown.')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Most entries shown.')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;grep' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Show N lines after each match (rg -A)')
            [CompletionResult]::new('--after-context', '--after-context', [CompletionResultType]::ParameterName, 'Show N lines after each match (rg -A)')
            [CompletionResult]::new('-B', '-B ', [CompletionResultType]::ParameterName, 'Show N lines before each match (rg -B)')
            [CompletionResult]::new('--before-context', '--before-context', [CompletionResultType]::ParameterName, 'Show N lines before each match (rg -B)')
            [CompletionResult]::new('-g', '-g', [CompletionResultType]::ParameterName, 'Only search files matching GLOB; a leading ! excludes (files and folders); repeatable (rg -g)')
            [CompletionResult]::new('--glob', '--glob', [CompletionResultType]::ParameterName, 'Only search files matching GLOB; a leading ! excludes (files and folders); repeatable (rg -g)')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Only search files of this rg type (rust, py, js, md, ...); repeatable (rg -t)')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Only search files of this rg type (rust, py, js, md, ...); repeatable (rg -t)')
            [CompletionResult]::new('-T', '-T ', [CompletionResultType]::ParameterName, 'Do not search files of this rg type; repeatable (rg -T)')
            [CompletionResult]::new('--type-not', '--type-not', [CompletionResultType]::ParameterName, 'Do not search files of this rg type; repeatable (rg -T)')
            [CompletionResult]::new('-m', '-m', [CompletionResultType]::ParameterName, 'At most N matching lines per file (rg -m)')
            [CompletionResult]::new('--max-count', '--max-count', [CompletionResultType]::ParameterName, 'At most N matching lines per file (rg -m)')
            [CompletionResult]::new('-e', '-e', [CompletionResultType]::ParameterName, 'Regex (exact text with literal).')
            [CompletionResult]::new('--pattern', '--pattern', [CompletionResultType]::ParameterName, 'Regex (exact text with literal).')
            [CompletionResult]::new('--path', '--path', [CompletionResultType]::ParameterName, 'Directory or file (default: the working directory).')
            [CompletionResult]::new('--flags', '--flags', [CompletionResultType]::ParameterName, 'JavaScript-style flag letters: i ignores case, m and s set the inline flags (?m)/(?s); g, u and y are accepted and change nothing.')
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'Ignore case.')
            [CompletionResult]::new('--ignore-case', '--ignore-case', [CompletionResultType]::ParameterName, 'Ignore case.')
            [CompletionResult]::new('--literal', '--literal', [CompletionResultType]::ParameterName, 'pattern is exact text.')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Lines of context around matches.')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'Lines of context around matches.')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Most rows (default 200, at most 5000).')
            [CompletionResult]::new('--gitignore', '--gitignore', [CompletionResultType]::ParameterName, 'Skip files .gitignore excludes.')
            [CompletionResult]::new('--skip-hidden', '--skip-hidden', [CompletionResultType]::ParameterName, 'Skip files and directories whose name starts with a dot below the search root (default false: unlike rg, hidden files are searched, since an agent must see every file it may edit; a dot-named path given outright is still searched).')
            [CompletionResult]::new('--max-file-size', '--max-file-size', [CompletionResultType]::ParameterName, 'Skip files found by the walk that are larger than this many bytes, counting them in the summary (default 2097152 = 2 MiB, at most 134217728 = 128 MiB); a file named as path is searched whatever its size.')
            [CompletionResult]::new('--paths', '--paths', [CompletionResultType]::ParameterName, 'Several directories or files to search instead of path, in the order given, each one''s rows spelled under it as given (not together with path).')
            [CompletionResult]::new('--globs', '--globs', [CompletionResultType]::ParameterName, 'Globs as in rg -g, tested on the path below the search root (later ones win): "*.rs" includes, "!*.min.js" excludes; with any include, files matching none are skipped, and an excluded directory is not entered (glob joins this list first).')
            [CompletionResult]::new('--offset', '--offset', [CompletionResultType]::ParameterName, 'Skip this many matches (files) first: the next page.')
            [CompletionResult]::new('--output-mode', '--output-mode', [CompletionResultType]::ParameterName, 'content (matching lines, default), files (paths) or count (PATH:N). [one of: content, files, count]')
            [CompletionResult]::new('-S', '-S ', [CompletionResultType]::ParameterName, 'Ignore case when the pattern has no uppercase letter (rg -S)')
            [CompletionResult]::new('--smart-case', '--smart-case', [CompletionResultType]::ParameterName, 'Ignore case when the pattern has no uppercase letter (rg -S)')
            [CompletionResult]::new('-F', '-F ', [CompletionResultType]::ParameterName, 'Take the pattern as exact text, not a regular expression (rg -F; same as --literal)')
            [CompletionResult]::new('--fixed-strings', '--fixed-strings', [CompletionResultType]::ParameterName, 'Take the pattern as exact text, not a regular expression (rg -F; same as --literal)')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Only match whole words (rg -w)')
            [CompletionResult]::new('--word-regexp', '--word-regexp', [CompletionResultType]::ParameterName, 'Only match whole words (rg -w)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Show the lines that do not match (rg -v)')
            [CompletionResult]::new('--invert-match', '--invert-match', [CompletionResultType]::ParameterName, 'Show the lines that do not match (rg -v)')
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Print only the paths of files with a match, one per line (rg -l)')
            [CompletionResult]::new('--files-with-matches', '--files-with-matches', [CompletionResultType]::ParameterName, 'Print only the paths of files with a match, one per line (rg -l)')
            [CompletionResult]::new('-U', '-U ', [CompletionResultType]::ParameterName, 'Let a match span lines; each line of it is a row (rg -U)')
            [CompletionResult]::new('--multiline', '--multiline', [CompletionResultType]::ParameterName, 'Let a match span lines; each line of it is a row (rg -U)')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Print PATH:N, the number of matching lines of each file with a match (rg -c)')
            [CompletionResult]::new('--count', '--count', [CompletionResultType]::ParameterName, 'Print PATH:N, the number of matching lines of each file with a match (rg -c)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Show line numbers (always on; accepted as rg''s -n)')
            [CompletionResult]::new('--line-number', '--line-number', [CompletionResultType]::ParameterName, 'Show line numbers (always on; accepted as rg''s -n)')
            [CompletionResult]::new('--hidden', '--hidden', [CompletionResultType]::ParameterName, 'Search hidden files and folders (the default here; rg needs --hidden)')
            [CompletionResult]::new('--no-ignore', '--no-ignore', [CompletionResultType]::ParameterName, 'Search what ignore files exclude (the default here; rg needs --no-ignore)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing; exit 0 if a line matched, 1 if none, 2 on error (rg -q)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing; exit 0 if a line matched, 1 if none, 2 on error (rg -q)')
            [CompletionResult]::new('-0', '-0', [CompletionResultType]::ParameterName, 'With -l: end each path with NUL instead of a newline, for xargs -0 (rg -0)')
            [CompletionResult]::new('--null', '--null', [CompletionResultType]::ParameterName, 'With -l: end each path with NUL instead of a newline, for xargs -0 (rg -0)')
            [CompletionResult]::new('--stats', '--stats', [CompletionResultType]::ParameterName, 'Print the summary line on stderr even when stdout is not a terminal')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;find' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Only list this kind: f file, d directory, l symlink, x executable (fd -t)')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Only list this kind: f file, d directory, l symlink, x executable (fd -t)')
            [CompletionResult]::new('-e', '-e', [CompletionResultType]::ParameterName, 'Only list entries with this file extension; repeatable (fd -e)')
            [CompletionResult]::new('--extension', '--extension', [CompletionResultType]::ParameterName, 'Only list entries with this file extension; repeatable (fd -e)')
            [CompletionResult]::new('-E', '-E ', [CompletionResultType]::ParameterName, 'Leave out entries matching GLOB and do not enter such folders; repeatable (fd -E)')
            [CompletionResult]::new('--exclude', '--exclude', [CompletionResultType]::ParameterName, 'Leave out entries matching GLOB and do not enter such folders; repeatable (fd -E)')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Descend at most N levels; 1 lists the root''s own entries (fd -d)')
            [CompletionResult]::new('--max-depth', '--max-depth', [CompletionResultType]::ParameterName, 'Descend at most N levels; 1 lists the root''s own entries (fd -d)')
            [CompletionResult]::new('--pattern', '--pattern', [CompletionResultType]::ParameterName, 'Glob or part of a name.')
            [CompletionResult]::new('--path', '--path', [CompletionResultType]::ParameterName, 'Directory (default: the working directory).')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Most rows (default 500, at most 10000).')
            [CompletionResult]::new('--gitignore', '--gitignore', [CompletionResultType]::ParameterName, 'Skip entries .gitignore excludes.')
            [CompletionResult]::new('--skip-hidden', '--skip-hidden', [CompletionResultType]::ParameterName, 'Skip files and directories whose name starts with a dot below the search root (default false: unlike fd, hidden entries are listed, since an agent must see every file it may edit; a dot-named path given outright is still searched).')
            [CompletionResult]::new('--paths', '--paths', [CompletionResultType]::ParameterName, 'Several directories to search instead of path, in the order given, each one''s rows spelled under it as given (not together with path).')
            [CompletionResult]::new('-H', '-H ', [CompletionResultType]::ParameterName, 'List hidden entries (the default here; fd needs -H)')
            [CompletionResult]::new('--hidden', '--hidden', [CompletionResultType]::ParameterName, 'List hidden entries (the default here; fd needs -H)')
            [CompletionResult]::new('-I', '-I ', [CompletionResultType]::ParameterName, 'List what ignore files exclude (the default here; fd needs -I)')
            [CompletionResult]::new('--no-ignore', '--no-ignore', [CompletionResultType]::ParameterName, 'List what ignore files exclude (the default here; fd needs -I)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing; exit 0 if something matched, 1 if nothing, 2 on error (fd -q)')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing; exit 0 if something matched, 1 if nothing, 2 on error (fd -q)')
            [CompletionResult]::new('-0', '-0', [CompletionResultType]::ParameterName, 'End each path with NUL instead of a newline, for xargs -0 (fd -0)')
            [CompletionResult]::new('--print0', '--print0', [CompletionResultType]::ParameterName, 'End each path with NUL instead of a newline, for xargs -0 (fd -0)')
            [CompletionResult]::new('--stats', '--stats', [CompletionResultType]::ParameterName, 'Print the summary line on stderr even when stdout is not a terminal')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;websearch' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys')
            [CompletionResult]::new('--query', '--query', [CompletionResultType]::ParameterName, 'What to search for.')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'How many results (default 5, at most 25).')
            [CompletionResult]::new('--count', '--count', [CompletionResultType]::ParameterName, 'How many results (default 5, at most 25).')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;webfetch' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys')
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'Absolute http(s) URL.')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'text (default), markdown or html. [one of: text, markdown, html]')
            [CompletionResult]::new('--max-bytes', '--max-bytes', [CompletionResultType]::ParameterName, 'Most bytes of content returned (default 1 MiB).')
            [CompletionResult]::new('--timeout-ms', '--timeout-ms', [CompletionResultType]::ParameterName, 'Give up after this many milliseconds (default 30000).')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;todo_read' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;write' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys')
            [CompletionResult]::new('--path', '--path', [CompletionResultType]::ParameterName, 'File path.')
            [CompletionResult]::new('--content', '--content', [CompletionResultType]::ParameterName, 'The whole new content.')
            [CompletionResult]::new('--encoding', '--encoding', [CompletionResultType]::ParameterName, 'Encoding to write; auto keeps the file''s.')
            [CompletionResult]::new('--diagnose', '--diagnose', [CompletionResultType]::ParameterName, 'Append new language-server errors.')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;edit' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys')
            [CompletionResult]::new('--path', '--path', [CompletionResultType]::ParameterName, 'File path.')
            [CompletionResult]::new('--old-text', '--old-text', [CompletionResultType]::ParameterName, 'Exact text to replace.')
            [CompletionResult]::new('--new-text', '--new-text', [CompletionResultType]::ParameterName, 'Replacement.')
            [CompletionResult]::new('--replace-all', '--replace-all', [CompletionResultType]::ParameterName, 'Replace every occurrence.')
            [CompletionResult]::new('--edits', '--edits', [CompletionResultType]::ParameterName, '[{oldText, newText}] instead, each matched against the file as it was.')
            [CompletionResult]::new('--expect-sha256', '--expect-sha256', [CompletionResultType]::ParameterName, 'Refuse unless the file''s SHA-256 is this (read gives it).')
            [CompletionResult]::new('--encoding', '--encoding', [CompletionResultType]::ParameterName, 'The file''s encoding, or auto; kept.')
            [CompletionResult]::new('--cell', '--cell', [CompletionResultType]::ParameterName, 'Notebook cell id or number.')
            [CompletionResult]::new('--cell-action', '--cell-action', [CompletionResultType]::ParameterName, 'Insert newText after cell (0: first), or delete it. [one of: replace, insert, delete]')
            [CompletionResult]::new('--cell-type', '--cell-type', [CompletionResultType]::ParameterName, 'Inserted cell''s type. [one of: code, markdown, raw]')
            [CompletionResult]::new('--diagnose', '--diagnose', [CompletionResultType]::ParameterName, 'Append new language-server errors.')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;bash' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys')
            [CompletionResult]::new('--command', '--command', [CompletionResultType]::ParameterName, 'Command line.')
            [CompletionResult]::new('--timeout-ms', '--timeout-ms', [CompletionResultType]::ParameterName, 'Deadline in ms (default 120000, at most 600000).')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'Directory to run in.')
            [CompletionResult]::new('--exit-status', '--exit-status', [CompletionResultType]::ParameterName, 'Exit with the command''s own status (128+N for signal N, 124 on timeout)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;process' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys')
            [CompletionResult]::new('--action', '--action', [CompletionResultType]::ParameterName, 'What to do. [one of: start, list, poll, stop, write, remove, screen]')
            [CompletionResult]::new('--command', '--command', [CompletionResultType]::ParameterName, 'start: command line.')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'start: directory.')
            [CompletionResult]::new('--tty', '--tty', [CompletionResultType]::ParameterName, 'start: in a terminal.')
            [CompletionResult]::new('--size', '--size', [CompletionResultType]::ParameterName, 'start: COLSxROWS (80x24).')
            [CompletionResult]::new('--id', '--id', [CompletionResultType]::ParameterName, 'Job id.')
            [CompletionResult]::new('--input', '--input', [CompletionResultType]::ParameterName, 'write: text for stdin.')
            [CompletionResult]::new('--keys', '--keys', [CompletionResultType]::ParameterName, 'write: keys after input ("Up Enter", C-c).')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'poll: wait for a line matching this regex.')
            [CompletionResult]::new('--wait-ms', '--wait-ms', [CompletionResultType]::ParameterName, 'poll: wait at most this long.')
            [CompletionResult]::new('--raw', '--raw', [CompletionResultType]::ParameterName, 'poll: keep escapes.')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;todo_set' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys')
            [CompletionResult]::new('--items', '--items', [CompletionResultType]::ParameterName, 'The whole list, in order.')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;diagnose' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys')
            [CompletionResult]::new('--paths', '--paths', [CompletionResultType]::ParameterName, 'Files (default: those of the last change).')
            [CompletionResult]::new('--new', '--new', [CompletionResultType]::ParameterName, 'Only new ones.')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Checkpoint node to compare from.')
            [CompletionResult]::new('--baseline', '--baseline', [CompletionResultType]::ParameterName, 'Baseline file (implies new).')
            [CompletionResult]::new('--save-baseline', '--save-baseline', [CompletionResultType]::ParameterName, 'Write a baseline file.')
            [CompletionResult]::new('--severity', '--severity', [CompletionResultType]::ParameterName, 'Least severity shown (default warning). [one of: error, warning, information, hint]')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Server name.')
            [CompletionResult]::new('--timeout-ms', '--timeout-ms', [CompletionResultType]::ParameterName, 'Default 60000.')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;lsp' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys')
            [CompletionResult]::new('--action', '--action', [CompletionResultType]::ParameterName, 'What to ask. [one of: definition, references, hover, symbols, workspace-symbols, rename, status, stop]')
            [CompletionResult]::new('--at', '--at', [CompletionResultType]::ParameterName, 'PATH:LINE:COL (symbols: PATH).')
            [CompletionResult]::new('--query', '--query', [CompletionResultType]::ParameterName, 'workspace-symbols: name.')
            [CompletionResult]::new('--path', '--path', [CompletionResultType]::ParameterName, 'workspace-symbols: a file of the language.')
            [CompletionResult]::new('--new-name', '--new-name', [CompletionResultType]::ParameterName, 'rename: new name.')
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'rename: diff only.')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Server name.')
            [CompletionResult]::new('--timeout-ms', '--timeout-ms', [CompletionResultType]::ParameterName, 'Default 60000.')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;outline' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys')
            [CompletionResult]::new('-g', '-g', [CompletionResultType]::ParameterName, 'Only files matching GLOB; a leading ! excludes; repeatable (rg -g)')
            [CompletionResult]::new('--glob', '--glob', [CompletionResultType]::ParameterName, 'Only files matching GLOB; a leading ! excludes; repeatable (rg -g)')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Only files of this rg type (rust, py, ...); repeatable (rg -t)')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Only files of this rg type (rust, py, ...); repeatable (rg -t)')
            [CompletionResult]::new('--path', '--path', [CompletionResultType]::ParameterName, 'File or directory (default: the working directory).')
            [CompletionResult]::new('--paths', '--paths', [CompletionResultType]::ParameterName, 'Several files or directories instead of path, in the order given.')
            [CompletionResult]::new('--map', '--map', [CompletionResultType]::ParameterName, 'Repository map: ranked by references.')
            [CompletionResult]::new('--budget', '--budget', [CompletionResultType]::ParameterName, 'map: bytes of rows (default 8192).')
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Only this language.')
            [CompletionResult]::new('--lang', '--lang', [CompletionResultType]::ParameterName, 'Only this language.')
            [CompletionResult]::new('--globs', '--globs', [CompletionResultType]::ParameterName, 'Globs as in rg -g: "*.rs" includes, "!tests/**" excludes.')
            [CompletionResult]::new('--gitignore', '--gitignore', [CompletionResultType]::ParameterName, 'Skip files .gitignore excludes.')
            [CompletionResult]::new('--max-file-size', '--max-file-size', [CompletionResultType]::ParameterName, 'Skip files larger than this many bytes (default 2 MiB).')
            [CompletionResult]::new('--stats', '--stats', [CompletionResultType]::ParameterName, 'Print the summary line on stderr even when stdout is not a terminal')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;sgrep' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys')
            [CompletionResult]::new('-g', '-g', [CompletionResultType]::ParameterName, 'Only search files matching GLOB; a leading ! excludes; repeatable (rg -g)')
            [CompletionResult]::new('--glob', '--glob', [CompletionResultType]::ParameterName, 'Only search files matching GLOB; a leading ! excludes; repeatable (rg -g)')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Only search files of this rg type; repeatable (rg -t)')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Only search files of this rg type; repeatable (rg -t)')
            [CompletionResult]::new('-T', '-T ', [CompletionResultType]::ParameterName, 'Do not search files of this rg type; repeatable (rg -T)')
            [CompletionResult]::new('--type-not', '--type-not', [CompletionResultType]::ParameterName, 'Do not search files of this rg type; repeatable (rg -T)')
            [CompletionResult]::new('--pattern', '--pattern', [CompletionResultType]::ParameterName, 'Code, e.g. "foo($A, $$$REST)".')
            [CompletionResult]::new('--path', '--path', [CompletionResultType]::ParameterName, 'File or directory (default: the working directory).')
            [CompletionResult]::new('--paths', '--paths', [CompletionResultType]::ParameterName, 'Several files or directories instead of path, in the order given.')
            [CompletionResult]::new('--lang', '--lang', [CompletionResultType]::ParameterName, 'rust, python, javascript, typescript, tsx, go, c, cpp, java or ruby.')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Template replacing each match.')
            [CompletionResult]::new('--rewrite', '--rewrite', [CompletionResultType]::ParameterName, 'Template replacing each match.')
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'rewrite: show the diff only.')
            [CompletionResult]::new('--output-mode', '--output-mode', [CompletionResultType]::ParameterName, 'content (default), files (paths) or count (PATH:N), as grep''s. [one of: content, files, count]')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Most matches (default 200).')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'Most matches (default 200).')
            [CompletionResult]::new('--globs', '--globs', [CompletionResultType]::ParameterName, 'Globs as in rg -g: "*.rs" includes, "!vendor/**" excludes.')
            [CompletionResult]::new('--gitignore', '--gitignore', [CompletionResultType]::ParameterName, 'Skip files .gitignore excludes.')
            [CompletionResult]::new('--max-file-size', '--max-file-size', [CompletionResultType]::ParameterName, 'Skip files larger than this many bytes (default 2 MiB).')
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Print only the paths of files with a match (rg -l)')
            [CompletionResult]::new('--files-with-matches', '--files-with-matches', [CompletionResultType]::ParameterName, 'Print only the paths of files with a match (rg -l)')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Print PATH:N, the matches of each file with one (rg -c)')
            [CompletionResult]::new('--count', '--count', [CompletionResultType]::ParameterName, 'Print PATH:N, the matches of each file with one (rg -c)')
            [CompletionResult]::new('-0', '-0', [CompletionResultType]::ParameterName, 'With -l: end each path with NUL instead of a newline, for xargs -0 (rg -0)')
            [CompletionResult]::new('--null', '--null', [CompletionResultType]::ParameterName, 'With -l: end each path with NUL instead of a newline, for xargs -0 (rg -0)')
            [CompletionResult]::new('--stats', '--stats', [CompletionResultType]::ParameterName, 'Print the summary line on stderr even when stdout is not a terminal')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;apply_patch' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys')
            [CompletionResult]::new('--patch', '--patch', [CompletionResultType]::ParameterName, 'Patch text.')
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'Only test whether it applies.')
            [CompletionResult]::new('--diagnose', '--diagnose', [CompletionResultType]::ParameterName, 'Append new language-server errors.')
            [CompletionResult]::new('-R', '-R ', [CompletionResultType]::ParameterName, 'Apply a unified diff in reverse (patch -R, git apply -R)')
            [CompletionResult]::new('--reverse', '--reverse', [CompletionResultType]::ParameterName, 'Apply a unified diff in reverse (patch -R, git apply -R)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;todo' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys')
            [CompletionResult]::new('--action', '--action', [CompletionResultType]::ParameterName, 'read or set. [one of: read, set]')
            [CompletionResult]::new('--items', '--items', [CompletionResultType]::ParameterName, 'set: the whole list, in order.')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;bg-process' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys')
            [CompletionResult]::new('--action', '--action', [CompletionResultType]::ParameterName, 'What to do. [one of: start, poll, stop, list]')
            [CompletionResult]::new('--command', '--command', [CompletionResultType]::ParameterName, 'start: command line.')
            [CompletionResult]::new('--cwd', '--cwd', [CompletionResultType]::ParameterName, 'start: directory.')
            [CompletionResult]::new('--id', '--id', [CompletionResultType]::ParameterName, 'Job id.')
            [CompletionResult]::new('--since-last', '--since-last', [CompletionResultType]::ParameterName, 'poll: only what is new.')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;task' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys')
            [CompletionResult]::new('--objective', '--objective', [CompletionResultType]::ParameterName, 'What the sub-agent should accomplish, complete in itself.')
            [CompletionResult]::new('--agent', '--agent', [CompletionResultType]::ParameterName, 'Which configured agent (default: the default).')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Background for it.')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'Background for it.')
            [CompletionResult]::new('--timeout-ms', '--timeout-ms', [CompletionResultType]::ParameterName, 'Deadline in milliseconds (default 600000, at most 3600000).')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;saas-action' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys')
            [CompletionResult]::new('--action', '--action', [CompletionResultType]::ParameterName, 'discover or execute. [one of: discover, execute]')
            [CompletionResult]::new('--slug', '--slug', [CompletionResultType]::ParameterName, 'execute: the action, as discover lists it (e.g. GITHUB_CREATE_AN_ISSUE).')
            [CompletionResult]::new('--arguments', '--arguments', [CompletionResultType]::ParameterName, 'execute: the action''s arguments as a JSON object, e.g. {"owner": "x"} (an object is taken too).')
            [CompletionResult]::new('--toolkits', '--toolkits', [CompletionResultType]::ParameterName, 'discover: only these toolkits, e.g. ["github"].')
            [CompletionResult]::new('--query', '--query', [CompletionResultType]::ParameterName, 'discover: words to search actions by.')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'discover: the most actions listed (default 20, at most 1000).')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'discover: the most actions listed (default 20, at most 1000).')
            [CompletionResult]::new('--timeout-ms', '--timeout-ms', [CompletionResultType]::ParameterName, 'Give up after this many milliseconds (default 30000 or COMPOSIO_TIMEOUT_MS, at most 300000).')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;memory' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys')
            [CompletionResult]::new('--action', '--action', [CompletionResultType]::ParameterName, 'read, replace or append. [one of: read, replace, append]')
            [CompletionResult]::new('--content', '--content', [CompletionResultType]::ParameterName, 'The new note, or the line to append.')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;enter_plan_mode' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;exit_plan_mode' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys')
            [CompletionResult]::new('--plan', '--plan', [CompletionResultType]::ParameterName, 'The plan, in Markdown.')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;run_shell' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys')
            [CompletionResult]::new('--command', '--command', [CompletionResultType]::ParameterName, 'The shell command, run with sh -c (in a tmux pane, sourced by its bash).')
            [CompletionResult]::new('--risk', '--risk', [CompletionResultType]::ParameterName, 'Estimated risk of the action: low, medium or high. [one of: low, medium, high]')
            [CompletionResult]::new('--mutation', '--mutation', [CompletionResultType]::ParameterName, 'Whether the action changes the system''s state.')
            [CompletionResult]::new('--privesc', '--privesc', [CompletionResultType]::ParameterName, 'Whether the action uses privilege escalation (sudo, su, doas).')
            [CompletionResult]::new('--why', '--why', [CompletionResultType]::ParameterName, 'A short reason for the action and a justification of its risk.')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'A managed tmux session (default: the shared one); implies a tmux target.')
            [CompletionResult]::new('--pane', '--pane', [CompletionResultType]::ParameterName, 'A managed pane of the session (default: its shared pane); implies a tmux target.')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'true (default): until the command exits; false: dispatch to the tmux pane and return; "30s", "10m", "1h" or seconds: wait up to that long.')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;read_file' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys')
            [CompletionResult]::new('--path', '--path', [CompletionResultType]::ParameterName, 'The file to read.')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;write_file' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys')
            [CompletionResult]::new('--path', '--path', [CompletionResultType]::ParameterName, 'The file to write.')
            [CompletionResult]::new('--content', '--content', [CompletionResultType]::ParameterName, 'The complete new content.')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;fetch_url' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys')
            [CompletionResult]::new('--url', '--url', [CompletionResultType]::ParameterName, 'An absolute http or https URL.')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;web_search' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys')
            [CompletionResult]::new('--query', '--query', [CompletionResultType]::ParameterName, 'What to search for.')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;capture-pane' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys')
            [CompletionResult]::new('--target', '--target', [CompletionResultType]::ParameterName, 'A raw tmux target (-t syntax, e.g. %3 or mysession:1.0); beats session and pane.')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'A managed tmux session (default: the shared one).')
            [CompletionResult]::new('--pane', '--pane', [CompletionResultType]::ParameterName, 'A managed pane of the session (default: its shared pane).')
            [CompletionResult]::new('--start', '--start', [CompletionResultType]::ParameterName, 'First line (-S): a line number (negative = history) or "-" for the start of the history.')
            [CompletionResult]::new('--end', '--end', [CompletionResultType]::ParameterName, 'Last line (-E): a line number or "-" for the end of the visible area.')
            [CompletionResult]::new('--join-wrapped-lines', '--join-wrapped-lines', [CompletionResultType]::ParameterName, 'Join soft-wrapped lines (-J; default true).')
            [CompletionResult]::new('--preserve-trailing-spaces', '--preserve-trailing-spaces', [CompletionResultType]::ParameterName, 'Keep trailing spaces (-N; default false).')
            [CompletionResult]::new('--include-escape-sequences', '--include-escape-sequences', [CompletionResultType]::ParameterName, 'Keep colour and attribute escapes (-e; default false).')
            [CompletionResult]::new('--escape-non-printable', '--escape-non-printable', [CompletionResultType]::ParameterName, 'Octal-escape non-printable characters (-C; default false).')
            [CompletionResult]::new('--include-alternate-screen', '--include-alternate-screen', [CompletionResultType]::ParameterName, 'Capture the alternate screen (-a; default false); the main screen, with a notice, when none is active.')
            [CompletionResult]::new('--delay', '--delay', [CompletionResultType]::ParameterName, 'Wait this long before capturing ("2s", "500ms" or seconds).')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;send-keys' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys')
            [CompletionResult]::new('--target', '--target', [CompletionResultType]::ParameterName, 'A raw tmux target (-t syntax, e.g. %3 or mysession:1.0); beats session and pane.')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'A managed tmux session (default: the shared one).')
            [CompletionResult]::new('--pane', '--pane', [CompletionResultType]::ParameterName, 'A managed pane of the session (default: its shared pane).')
            [CompletionResult]::new('--keys', '--keys', [CompletionResultType]::ParameterName, 'tmux key names, sent in order: "C-c", "Enter", "Up", …')
            [CompletionResult]::new('--literal-text', '--literal-text', [CompletionResultType]::ParameterName, 'Text typed as is (send-keys -l).')
            [CompletionResult]::new('--enter', '--enter', [CompletionResultType]::ParameterName, 'Press Enter after the text and keys (default false).')
            [CompletionResult]::new('--delay', '--delay', [CompletionResultType]::ParameterName, 'Wait this long before sending ("500ms", "2s" or seconds).')
            [CompletionResult]::new('--risk', '--risk', [CompletionResultType]::ParameterName, 'Estimated risk of the action: low, medium or high. [one of: low, medium, high]')
            [CompletionResult]::new('--mutation', '--mutation', [CompletionResultType]::ParameterName, 'Whether the action changes the system''s state.')
            [CompletionResult]::new('--privesc', '--privesc', [CompletionResultType]::ParameterName, 'Whether the action uses privilege escalation (sudo, su, doas).')
            [CompletionResult]::new('--why', '--why', [CompletionResultType]::ParameterName, 'A short reason for the action and a justification of its risk.')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;tmux-create-session' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The managed session (its short name, or indus-<owner>-<name>).')
            [CompletionResult]::new('--risk', '--risk', [CompletionResultType]::ParameterName, 'Estimated risk of the action: low, medium or high. [one of: low, medium, high]')
            [CompletionResult]::new('--mutation', '--mutation', [CompletionResultType]::ParameterName, 'Whether the action changes the system''s state.')
            [CompletionResult]::new('--privesc', '--privesc', [CompletionResultType]::ParameterName, 'Whether the action uses privilege escalation (sudo, su, doas).')
            [CompletionResult]::new('--why', '--why', [CompletionResultType]::ParameterName, 'A short reason for the action and a justification of its risk.')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;tmux-kill-session' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The managed session (its short name, or indus-<owner>-<name>).')
            [CompletionResult]::new('--risk', '--risk', [CompletionResultType]::ParameterName, 'Estimated risk of the action: low, medium or high. [one of: low, medium, high]')
            [CompletionResult]::new('--mutation', '--mutation', [CompletionResultType]::ParameterName, 'Whether the action changes the system''s state.')
            [CompletionResult]::new('--privesc', '--privesc', [CompletionResultType]::ParameterName, 'Whether the action uses privilege escalation (sudo, su, doas).')
            [CompletionResult]::new('--why', '--why', [CompletionResultType]::ParameterName, 'A short reason for the action and a justification of its risk.')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;tmux-create-pane' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys')
            [CompletionResult]::new('--pane', '--pane', [CompletionResultType]::ParameterName, 'The managed pane''s name.')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The managed session (default: the shared one).')
            [CompletionResult]::new('--risk', '--risk', [CompletionResultType]::ParameterName, 'Estimated risk of the action: low, medium or high. [one of: low, medium, high]')
            [CompletionResult]::new('--mutation', '--mutation', [CompletionResultType]::ParameterName, 'Whether the action changes the system''s state.')
            [CompletionResult]::new('--privesc', '--privesc', [CompletionResultType]::ParameterName, 'Whether the action uses privilege escalation (sudo, su, doas).')
            [CompletionResult]::new('--why', '--why', [CompletionResultType]::ParameterName, 'A short reason for the action and a justification of its risk.')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;tmux-kill-pane' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys')
            [CompletionResult]::new('--pane', '--pane', [CompletionResultType]::ParameterName, 'The managed pane''s name.')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'The managed session (default: the shared one).')
            [CompletionResult]::new('--risk', '--risk', [CompletionResultType]::ParameterName, 'Estimated risk of the action: low, medium or high. [one of: low, medium, high]')
            [CompletionResult]::new('--mutation', '--mutation', [CompletionResultType]::ParameterName, 'Whether the action changes the system''s state.')
            [CompletionResult]::new('--privesc', '--privesc', [CompletionResultType]::ParameterName, 'Whether the action uses privilege escalation (sudo, su, doas).')
            [CompletionResult]::new('--why', '--why', [CompletionResultType]::ParameterName, 'A short reason for the action and a justification of its risk.')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;time' {
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'The whole input as a JSON object (''-'' reads stdin, ''@FILE'' reads a file); flags override its keys')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;list' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'indus-tool;describe' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'indus-tool;schema' {
            [CompletionResult]::new('--for', '--for', [CompletionResultType]::ParameterName, 'openai: Chat Completions `tools`; anthropic: Messages `tools`; mcp: the MCP server''s tools/list result')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'indus-tool;call' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'indus-tool;batch' {
            [CompletionResult]::new('-j', '-j', [CompletionResultType]::ParameterName, 'Run up to N calls at once; outcomes are then written as calls finish, each with its call''s id')
            [CompletionResult]::new('--jobs', '--jobs', [CompletionResultType]::ParameterName, 'Run up to N calls at once; outcomes are then written as calls finish, each with its call''s id')
            [CompletionResult]::new('--no-gate', '--no-gate', [CompletionResultType]::ParameterName, 'Turn the read-before-edit gate off (it is on in batch mode)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;mcp' {
            [CompletionResult]::new('--no-gate', '--no-gate', [CompletionResultType]::ParameterName, 'Turn the read-before-edit gate off (it is on in the MCP server)')
            [CompletionResult]::new('--tool-search', '--tool-search', [CompletionResultType]::ParameterName, 'List only read, grep, find, edit, write and bash, plus find_tool and load_tool to add the others when needed')
            [CompletionResult]::new('--no-output-schemas', '--no-output-schemas', [CompletionResultType]::ParameterName, 'List the tools without their outputSchema (half the list''s bytes; structuredContent is still sent)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve the selected tools (grafted ones included) on stdio, as `mcp` alone does')
            [CompletionResult]::new('servers', 'servers', [CompletionResultType]::ParameterValue, 'The configured MCP servers: name, transport, status, tool count, last error')
            [CompletionResult]::new('tools', 'tools', [CompletionResultType]::ParameterValue, 'The grafted tools (from the ledger cache; nothing is spawned)')
            [CompletionResult]::new('ledger', 'ledger', [CompletionResultType]::ParameterValue, 'The bridge ledger''s event log (--format json: one JSON event per line)')
            [CompletionResult]::new('refresh', 'refresh', [CompletionResultType]::ParameterValue, 'Connect to the configured servers (or SERVER), list their tools and update the ledger; exit 1 if one failed')
            [CompletionResult]::new('up', 'up', [CompletionResultType]::ParameterValue, 'Start the warm broker for this directory (unless it runs) and connect it to every configured server, so grafted calls skip the servers'' startup; exit 1 if it did not start or a server failed')
            [CompletionResult]::new('down', 'down', [CompletionResultType]::ParameterValue, 'Stop this directory''s warm broker and the servers it keeps open (not running is not an error)')
            [CompletionResult]::new('names', 'names', [CompletionResultType]::ParameterValue, 'The grafted tools as `NAME<TAB>SUMMARY` lines, from the ledger cache (for shell completion; nothing is spawned)')
            [CompletionResult]::new('broker', 'broker', [CompletionResultType]::ParameterValue, 'The warm broker itself (started by `mcp up`)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'indus-tool;mcp;serve' {
            [CompletionResult]::new('--no-gate', '--no-gate', [CompletionResultType]::ParameterName, 'Turn the read-before-edit gate off (it is on in the MCP server)')
            [CompletionResult]::new('--tool-search', '--tool-search', [CompletionResultType]::ParameterName, 'List only read, grep, find, edit, write and bash, plus find_tool and load_tool to add the others when needed')
            [CompletionResult]::new('--no-output-schemas', '--no-output-schemas', [CompletionResultType]::ParameterName, 'List the tools without their outputSchema (half the list''s bytes; structuredContent is still sent)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'indus-tool;mcp;servers' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'indus-tool;mcp;tools' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'indus-tool;mcp;ledger' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'indus-tool;mcp;refresh' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'indus-tool;mcp;up' {
            [CompletionResult]::new('--idle', '--idle', [CompletionResultType]::ParameterName, 'Exit after this many seconds without a call')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'indus-tool;mcp;down' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'indus-tool;mcp;names' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'indus-tool;mcp;broker' {
            [CompletionResult]::new('--idle', '--idle', [CompletionResultType]::ParameterName, 'idle')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'indus-tool;mcp;help' {
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve the selected tools (grafted ones included) on stdio, as `mcp` alone does')
            [CompletionResult]::new('servers', 'servers', [CompletionResultType]::ParameterValue, 'The configured MCP servers: name, transport, status, tool count, last error')
            [CompletionResult]::new('tools', 'tools', [CompletionResultType]::ParameterValue, 'The grafted tools (from the ledger cache; nothing is spawned)')
            [CompletionResult]::new('ledger', 'ledger', [CompletionResultType]::ParameterValue, 'The bridge ledger''s event log (--format json: one JSON event per line)')
            [CompletionResult]::new('refresh', 'refresh', [CompletionResultType]::ParameterValue, 'Connect to the configured servers (or SERVER), list their tools and update the ledger; exit 1 if one failed')
            [CompletionResult]::new('up', 'up', [CompletionResultType]::ParameterValue, 'Start the warm broker for this directory (unless it runs) and connect it to every configured server, so grafted calls skip the servers'' startup; exit 1 if it did not start or a server failed')
            [CompletionResult]::new('down', 'down', [CompletionResultType]::ParameterValue, 'Stop this directory''s warm broker and the servers it keeps open (not running is not an error)')
            [CompletionResult]::new('names', 'names', [CompletionResultType]::ParameterValue, 'The grafted tools as `NAME<TAB>SUMMARY` lines, from the ledger cache (for shell completion; nothing is spawned)')
            [CompletionResult]::new('broker', 'broker', [CompletionResultType]::ParameterValue, 'The warm broker itself (started by `mcp up`)')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'indus-tool;mcp;help;serve' {
            break
        }
        'indus-tool;mcp;help;servers' {
            break
        }
        'indus-tool;mcp;help;tools' {
            break
        }
        'indus-tool;mcp;help;ledger' {
            break
        }
        'indus-tool;mcp;help;refresh' {
            break
        }
        'indus-tool;mcp;help;up' {
            break
        }
        'indus-tool;mcp;help;down' {
            break
        }
        'indus-tool;mcp;help;names' {
            break
        }
        'indus-tool;mcp;help;broker' {
            break
        }
        'indus-tool;mcp;help;help' {
            break
        }
        'indus-tool;diff' {
            [CompletionResult]::new('-U', '-U ', [CompletionResultType]::ParameterName, 'Lines of context around each change (diff -U N)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'Lines of context around each change (diff -U N)')
            [CompletionResult]::new('--unified-context', '--unified-context', [CompletionResultType]::ParameterName, 'Lines of context around each change (diff -U N)')
            [CompletionResult]::new('-u', '-u', [CompletionResultType]::ParameterName, 'Unified format with 3 lines of context (the only format; accepted as diff''s -u)')
            [CompletionResult]::new('--unified', '--unified', [CompletionResultType]::ParameterName, 'Unified format with 3 lines of context (the only format; accepted as diff''s -u)')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Only say which files differ (diff -q)')
            [CompletionResult]::new('--brief', '--brief', [CompletionResultType]::ParameterName, 'Only say which files differ (diff -q)')
            [CompletionResult]::new('-r', '-r', [CompletionResultType]::ParameterName, 'Compare folders'' subfolders too (diff -r)')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Compare folders'' subfolders too (diff -r)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;lsp-broker' {
            [CompletionResult]::new('--idle', '--idle', [CompletionResultType]::ParameterName, 'idle')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'indus-tool;checkpoint' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'The nodes, oldest first, with their time and the files they touched (size before, or why not kept)')
            [CompletionResult]::new('on', 'on', [CompletionResultType]::ParameterValue, 'Checkpoint every write and edit of this session from now on, without --checkpoint (INDUS_CHECKPOINT=0 still turns it off for one invocation)')
            [CompletionResult]::new('off', 'off', [CompletionResultType]::ParameterValue, 'Stop checkpointing this session by default (the nodes already recorded stay)')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Unified diff from the state before NODE to now, for every file touched at or after NODE')
            [CompletionResult]::new('rewind', 'rewind', [CompletionResultType]::ParameterValue, 'Put every file touched at or after NODE back as it was before NODE (files created since are deleted), then forget NODE and later nodes')
            [CompletionResult]::new('gc', 'gc', [CompletionResultType]::ParameterValue, 'Delete kept contents no node needs; with --tree also the copy of the tree kept for checkpointing commands')
            [CompletionResult]::new('drop', 'drop', [CompletionResultType]::ParameterValue, 'Forget NODE and every older node (or --all), deleting contents no node needs')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'indus-tool;checkpoint;list' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'indus-tool;checkpoint;on' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'indus-tool;checkpoint;off' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'indus-tool;checkpoint;diff' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'indus-tool;checkpoint;rewind' {
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Overwrite files changed outside the toolbox since it wrote them (refused otherwise)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'indus-tool;checkpoint;gc' {
            [CompletionResult]::new('--tree', '--tree', [CompletionResultType]::ParameterName, 'Also forget the last scan of the tree and its copies (the next checkpointed command copies the tree again)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'indus-tool;checkpoint;drop' {
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Forget every node of the session')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'indus-tool;checkpoint;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'The nodes, oldest first, with their time and the files they touched (size before, or why not kept)')
            [CompletionResult]::new('on', 'on', [CompletionResultType]::ParameterValue, 'Checkpoint every write and edit of this session from now on, without --checkpoint (INDUS_CHECKPOINT=0 still turns it off for one invocation)')
            [CompletionResult]::new('off', 'off', [CompletionResultType]::ParameterValue, 'Stop checkpointing this session by default (the nodes already recorded stay)')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Unified diff from the state before NODE to now, for every file touched at or after NODE')
            [CompletionResult]::new('rewind', 'rewind', [CompletionResultType]::ParameterValue, 'Put every file touched at or after NODE back as it was before NODE (files created since are deleted), then forget NODE and later nodes')
            [CompletionResult]::new('gc', 'gc', [CompletionResultType]::ParameterValue, 'Delete kept contents no node needs; with --tree also the copy of the tree kept for checkpointing commands')
            [CompletionResult]::new('drop', 'drop', [CompletionResultType]::ParameterValue, 'Forget NODE and every older node (or --all), deleting contents no node needs')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'indus-tool;checkpoint;help;list' {
            break
        }
        'indus-tool;checkpoint;help;on' {
            break
        }
        'indus-tool;checkpoint;help;off' {
            break
        }
        'indus-tool;checkpoint;help;diff' {
            break
        }
        'indus-tool;checkpoint;help;rewind' {
            break
        }
        'indus-tool;checkpoint;help;gc' {
            break
        }
        'indus-tool;checkpoint;help;drop' {
            break
        }
        'indus-tool;checkpoint;help;help' {
            break
        }
        'indus-tool;trust' {
            [CompletionResult]::new('--list', '--list', [CompletionResultType]::ParameterName, 'List the trusted files: path, SHA-256, and whether the file still holds that content')
            [CompletionResult]::new('--revoke', '--revoke', [CompletionResultType]::ParameterName, 'Forget the trust of each FILE (whatever content was trusted)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'indus-tool;completions' {
            [CompletionResult]::new('--install', '--install', [CompletionResultType]::ParameterName, 'Write the script where the shell finds it for this user (bash: $XDG_DATA_HOME/bash-completion/completions, zsh: $XDG_DATA_HOME/zsh/site-functions, fish: $XDG_CONFIG_HOME/fish/completions; ~/.local/share and ~/.config when unset) and print its path')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'indus-tool;man' {
            [CompletionResult]::new('--install', '--install', [CompletionResultType]::ParameterName, 'Write the pages into PREFIX/share/man/man1 (PREFIX: ~/.local when not given), where `man indus-tool` finds them')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'indus-tool;help' {
            [CompletionResult]::new('read', 'read', [CompletionResultType]::ParameterValue, 'Read a file with line numbers (as cat -n), a window at a time; the header gives the offset to continue from.')
            [CompletionResult]::new('ls', 'ls', [CompletionResultType]::ParameterValue, 'List a directory''s entries (`kind size name`), directories first.')
            [CompletionResult]::new('grep', 'grep', [CompletionResultType]::ParameterValue, 'Search file contents for a regular expression (Rust syntax), like rg: `PATH:LINE: TEXT` rows in path order, then a summary.')
            [CompletionResult]::new('find', 'find', [CompletionResultType]::ParameterValue, 'Find files and directories by name (case-insensitive): a glob if the pattern holds * ? [ or { (with a /, matched against the path: "src/**/*.rs"), else a part of the name.')
            [CompletionResult]::new('websearch', 'websearch', [CompletionResultType]::ParameterValue, 'Search the web (DuckDuckGo): numbered results with title, URL and snippet.')
            [CompletionResult]::new('webfetch', 'webfetch', [CompletionResultType]::ParameterValue, 'Fetch a web page (http/https) as readable text, Markdown or raw HTML.')
            [CompletionResult]::new('todo_read', 'todo_read', [CompletionResultType]::ParameterValue, 'Show the session''s checklist (todo_set writes it).')
            [CompletionResult]::new('write', 'write', [CompletionResultType]::ParameterValue, 'Create or overwrite a file with exactly this content (atomic; makes parent folders).')
            [CompletionResult]::new('edit', 'edit', [CompletionResultType]::ParameterValue, 'Replace oldText with newText in a file; returns the diff.')
            [CompletionResult]::new('bash', 'bash', [CompletionResultType]::ParameterValue, 'Run a shell command (sh -c) and wait: output and exit status (non-zero is an error).')
            [CompletionResult]::new('process', 'process', [CompletionResultType]::ParameterValue, 'Background jobs that outlive this call (servers, REPLs): start (command → id; tty: a terminal), poll (id → new output; until, waitMs: wait for a line), write (input/keys → stdin), screen, stop, remove, list.')
            [CompletionResult]::new('todo_set', 'todo_set', [CompletionResultType]::ParameterValue, 'Replace the session''s checklist: items {id, text, status, priority?}; [] clears it.')
            [CompletionResult]::new('diagnose', 'diagnose', [CompletionResultType]::ParameterValue, 'Errors and warnings of files from their language server, settled for the text just sent: PATH:LINE:COL: error[CODE] message rows.')
            [CompletionResult]::new('lsp', 'lsp', [CompletionResultType]::ParameterValue, 'The language server at PATH:LINE:COL: definition, references, hover; symbols of a file; workspace-symbols by name; rename everywhere (one patch; check: diff only).')
            [CompletionResult]::new('outline', 'outline', [CompletionResultType]::ParameterValue, 'Definitions of files or a tree (Rust, Python, JS/TS, Go, C/C++, Java, Ruby): `PATH:LINE: kind name(signature)`, nested ones indented.')
            [CompletionResult]::new('sgrep', 'sgrep', [CompletionResultType]::ParameterValue, 'Structural search, as ast-grep: code with $X (one node) and $$$XS (many) matched on syntax trees, rows like grep''s.')
            [CompletionResult]::new('apply_patch', 'apply_patch', [CompletionResultType]::ParameterValue, 'Apply a patch to files, all or nothing: codex''s envelope (*** Begin Patch, *** Update File: PATH, @@, -old/+new lines, *** End Patch; also Add File, Delete File, Move to) or a unified diff.')
            [CompletionResult]::new('todo', 'todo', [CompletionResultType]::ParameterValue, 'A checklist of {task, state, weight} items (with dropped and weights), apart from todo_set''s: action read, or set (replace whole).')
            [CompletionResult]::new('bg-process', 'bg-process', [CompletionResultType]::ParameterValue, 'Background jobs of this session (bg-N) keeping each job''s last 2,000 lines: start, poll (sinceLast: only new), stop, list.')
            [CompletionResult]::new('task', 'task', [CompletionResultType]::ParameterValue, 'Delegate a self-contained objective to a sub-agent CLI (Claude Code, Codex, Gemini CLI, opencode) and return its final answer.')
            [CompletionResult]::new('saas-action', 'saas-action', [CompletionResultType]::ParameterValue, 'SaaS actions (GitHub, Slack, Gmail…) through Composio: discover (toolkits, query) lists them; execute runs one by slug with arguments.')
            [CompletionResult]::new('memory', 'memory', [CompletionResultType]::ParameterValue, 'A note for this session that survives across turns: read, replace or append (content).')
            [CompletionResult]::new('enter_plan_mode', 'enter_plan_mode', [CompletionResultType]::ParameterValue, 'Start a planning phase: explore and read, change nothing, then call exit_plan_mode with the plan.')
            [CompletionResult]::new('exit_plan_mode', 'exit_plan_mode', [CompletionResultType]::ParameterValue, 'Present the finished plan (Markdown) for approval; it is kept as a file under .indus-process/ and returned.')
            [CompletionResult]::new('run_shell', 'run_shell', [CompletionResultType]::ParameterValue, 'Run a shell command and return {exit_code, stdout, stderr}, each stream cut to 4,000 characters.')
            [CompletionResult]::new('read_file', 'read_file', [CompletionResultType]::ParameterValue, 'Read a text file and return its content as is, cut to 8,000 characters with ...[truncated] appended when longer.  When to use: to look at a configuration file, a log excerpt or a script before acting on it.  When NOT to use: for a large file you need a window of (use run_shell with sed -n or tail), or for binary files.  Disambiguation: returns raw text without line numbers; the path is relative to the working directory.  Examples: {"path": "/etc/hostname"}')
            [CompletionResult]::new('write_file', 'write_file', [CompletionResultType]::ParameterValue, 'Write content to a file, creating it (and missing parent folders) or replacing it atomically; answers Wrote N bytes to /path.  When to use: to create or wholly replace a configuration file, a script or a note.  When NOT to use: to change a few lines of a large file (write the whole new content, or use run_shell), or to append to a log.  Disambiguation: replaces the whole file; an existing file keeps its permissions and a symlink is written through.  Examples: {"path": "/tmp/output.txt", "content": "hello world\n"}')
            [CompletionResult]::new('fetch_url', 'fetch_url', [CompletionResultType]::ParameterValue, 'HTTP GET a URL and return the response body as text, cut to 8,000 characters with ...[truncated] appended when longer.  When to use: to read an API''s JSON, a raw configuration file or a documentation page by URL.  When NOT to use: to find pages about a topic (use web_search), for binary downloads, or for requests needing authentication or a method other than GET.  Disambiguation: the body comes as served (HTML stays HTML); redirects are followed.  Examples: {"url": "https://example.com/api/data"}')
            [CompletionResult]::new('web_search', 'web_search', [CompletionResultType]::ParameterValue, 'Search the web (DuckDuckGo''s HTML endpoint, no API key) and return up to 8 results, each with title, URL and snippet.  When to use: to find documentation, an error message''s explanation or a download page.  When NOT to use: when you already know the URL (use fetch_url).  Disambiguation: returns links and snippets only; fetch a result to read it.  Examples: {"query": "rust tokio tutorial"}')
            [CompletionResult]::new('capture-pane', 'capture-pane', [CompletionResultType]::ParameterValue, 'Capture the text of a tmux pane''s screen (and, with start, its history); the last 8,000 characters are kept, with [truncated N chars from start] when cut.  When to use: to watch a command dispatched with run_shell wait: false, to read a prompt a program is waiting at, or to see what a person left on a pane.  When NOT to use: to get a finished command''s output (run_shell returns it); to type into the pane (send-keys).  Disambiguation: read-only; the default is the shared pane of the shared session; a managed session or pane that is missing falls back once to the shared pane, with a notice saying so; delay waits before capturing, for polling.  Examples: {"delay": "5s"}; {"pane": "worker", "start": "-", "join_wrapped_lines": true}')
            [CompletionResult]::new('send-keys', 'send-keys', [CompletionResultType]::ParameterValue, 'Type into a tmux pane: literal_text first (sent as is), then tmux key names (C-c, C-z, Enter, Up, Down, Escape, …), then Enter when enter is true.')
            [CompletionResult]::new('tmux-create-session', 'tmux-create-session', [CompletionResultType]::ParameterValue, 'Create (or reuse) a managed tmux session, named indus-<owner>-<session>, with its shared pane ready; a person can attach to it.')
            [CompletionResult]::new('tmux-kill-session', 'tmux-kill-session', [CompletionResultType]::ParameterValue, 'Kill a managed tmux session and every command running in it.  When to use: when the work a session was made for is over, or to make room under tmux.max_sessions.  When NOT to use: for the shared session (protected), or for sessions indus-tool did not create (refused).  Disambiguation: kills the whole session; to close one pane use tmux-kill-pane.  Examples: {"session": "ops", "risk": "medium", "mutation": true, "privesc": false, "why": "The deployment is finished"}')
            [CompletionResult]::new('tmux-create-pane', 'tmux-create-pane', [CompletionResultType]::ParameterValue, 'Create (or reuse) a managed pane in a managed session (default: the shared session): a window of its own, named after the pane, running a fresh shell.')
            [CompletionResult]::new('tmux-kill-pane', 'tmux-kill-pane', [CompletionResultType]::ParameterValue, 'Kill a managed pane and whatever runs in it.  When to use: when a pane''s job is over or it is stuck beyond send-keys C-c.  When NOT to use: for a session''s shared pane (protected), or panes indus-tool did not create (refused).  Disambiguation: kills one pane; to end a whole session use tmux-kill-session.  Examples: {"pane": "worker", "risk": "medium", "mutation": true, "privesc": false, "why": "The dev server is no longer needed"}')
            [CompletionResult]::new('time', 'time', [CompletionResultType]::ParameterValue, 'The harness''s current wall-clock time (unix_millis, ISO 8601 UTC and local, RFC 2822).  When to use: to timestamp an action or compute a deadline.  When NOT to use: for a remote machine''s clock (run `date` there).  Disambiguation: the toolbox''s clock, not the shell target''s.  Examples: {} → {"iso_8601_utc": "2026-02-28T13:01:48.794Z", …}')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the exposed tools with their collections and one-line summaries')
            [CompletionResult]::new('describe', 'describe', [CompletionResultType]::ParameterValue, 'Print one tool''s descriptor (name, description, JSON Schema) as JSON')
            [CompletionResult]::new('schema', 'schema', [CompletionResultType]::ParameterValue, 'Print every exposed tool''s descriptor as a JSON array, or (--for) the tool definitions in the shape a model API takes')
            [CompletionResult]::new('call', 'call', [CompletionResultType]::ParameterValue, 'Run one ToolCall given as JSON: {"id":..,"name":..,"input":{..}} (''-'' reads stdin, ''@FILE'' reads a file)')
            [CompletionResult]::new('batch', 'batch', [CompletionResultType]::ParameterValue, 'Answer JSONL ToolCalls from stdin with JSONL ToolOutcomes on stdout, one line each, flushed as they are written')
            [CompletionResult]::new('mcp', 'mcp', [CompletionResultType]::ParameterValue, 'Serve the selected tools as an MCP server on stdio (tools/list, tools/call, cancellation), until stdin closes; or inspect the MCP servers whose tools are grafted')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Unified diff of two files (or with -r two trees), with the engine edit uses; exit 0 when equal, 1 when different, 2 on trouble')
            [CompletionResult]::new('lsp-broker', 'lsp-broker', [CompletionResultType]::ParameterValue, 'The warm language-server broker itself (started by diagnose and lsp)')
            [CompletionResult]::new('checkpoint', 'checkpoint', [CompletionResultType]::ParameterValue, 'List, diff, rewind or drop the checkpoints --checkpoint recorded for file tools and commands')
            [CompletionResult]::new('trust', 'trust', [CompletionResultType]::ParameterValue, 'Trust this project''s configuration files (MCP servers, agents, approval policy) as they are now, list or revoke trust')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script, or install it where the shell looks')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Write man pages (indus-tool.1 and one per subcommand) into a directory, or install them')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'indus-tool;help;read' {
            break
        }
        'indus-tool;help;ls' {
            break
        }
        'indus-tool;help;grep' {
            break
        }
        'indus-tool;help;find' {
            break
        }
        'indus-tool;help;websearch' {
            break
        }
        'indus-tool;help;webfetch' {
            break
        }
        'indus-tool;help;todo_read' {
            break
        }
        'indus-tool;help;write' {
            break
        }
        'indus-tool;help;edit' {
            break
        }
        'indus-tool;help;bash' {
            break
        }
        'indus-tool;help;process' {
            break
        }
        'indus-tool;help;todo_set' {
            break
        }
        'indus-tool;help;diagnose' {
            break
        }
        'indus-tool;help;lsp' {
            break
        }
        'indus-tool;help;outline' {
            break
        }
        'indus-tool;help;sgrep' {
            break
        }
        'indus-tool;help;apply_patch' {
            break
        }
        'indus-tool;help;todo' {
            break
        }
        'indus-tool;help;bg-process' {
            break
        }
        'indus-tool;help;task' {
            break
        }
        'indus-tool;help;saas-action' {
            break
        }
        'indus-tool;help;memory' {
            break
        }
        'indus-tool;help;enter_plan_mode' {
            break
        }
        'indus-tool;help;exit_plan_mode' {
            break
        }
        'indus-tool;help;run_shell' {
            break
        }
        'indus-tool;help;read_file' {
            break
        }
        'indus-tool;help;write_file' {
            break
        }
        'indus-tool;help;fetch_url' {
            break
        }
        'indus-tool;help;web_search' {
            break
        }
        'indus-tool;help;capture-pane' {
            break
        }
        'indus-tool;help;send-keys' {
            break
        }
        'indus-tool;help;tmux-create-session' {
            break
        }
        'indus-tool;help;tmux-kill-session' {
            break
        }
        'indus-tool;help;tmux-create-pane' {
            break
        }
        'indus-tool;help;tmux-kill-pane' {
            break
        }
        'indus-tool;help;time' {
            break
        }
        'indus-tool;help;list' {
            break
        }
        'indus-tool;help;describe' {
            break
        }
        'indus-tool;help;schema' {
            break
        }
        'indus-tool;help;call' {
            break
        }
        'indus-tool;help;batch' {
            break
        }
        'indus-tool;help;mcp' {
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve the selected tools (grafted ones included) on stdio, as `mcp` alone does')
            [CompletionResult]::new('servers', 'servers', [CompletionResultType]::ParameterValue, 'The configured MCP servers: name, transport, status, tool count, last error')
            [CompletionResult]::new('tools', 'tools', [CompletionResultType]::ParameterValue, 'The grafted tools (from the ledger cache; nothing is spawned)')
            [CompletionResult]::new('ledger', 'ledger', [CompletionResultType]::ParameterValue, 'The bridge ledger''s event log (--format json: one JSON event per line)')
            [CompletionResult]::new('refresh', 'refresh', [CompletionResultType]::ParameterValue, 'Connect to the configured servers (or SERVER), list their tools and update the ledger; exit 1 if one failed')
            [CompletionResult]::new('up', 'up', [CompletionResultType]::ParameterValue, 'Start the warm broker for this directory (unless it runs) and connect it to every configured server, so grafted calls skip the servers'' startup; exit 1 if it did not start or a server failed')
            [CompletionResult]::new('down', 'down', [CompletionResultType]::ParameterValue, 'Stop this directory''s warm broker and the servers it keeps open (not running is not an error)')
            [CompletionResult]::new('names', 'names', [CompletionResultType]::ParameterValue, 'The grafted tools as `NAME<TAB>SUMMARY` lines, from the ledger cache (for shell completion; nothing is spawned)')
            [CompletionResult]::new('broker', 'broker', [CompletionResultType]::ParameterValue, 'The warm broker itself (started by `mcp up`)')
            break
        }
        'indus-tool;help;mcp;serve' {
            break
        }
        'indus-tool;help;mcp;servers' {
            break
        }
        'indus-tool;help;mcp;tools' {
            break
        }
        'indus-tool;help;mcp;ledger' {
            break
        }
        'indus-tool;help;mcp;refresh' {
            break
        }
        'indus-tool;help;mcp;up' {
            break
        }
        'indus-tool;help;mcp;down' {
            break
        }
        'indus-tool;help;mcp;names' {
            break
        }
        'indus-tool;help;mcp;broker' {
            break
        }
        'indus-tool;help;diff' {
            break
        }
        'indus-tool;help;lsp-broker' {
            break
        }
        'indus-tool;help;checkpoint' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'The nodes, oldest first, with their time and the files they touched (size before, or why not kept)')
            [CompletionResult]::new('on', 'on', [CompletionResultType]::ParameterValue, 'Checkpoint every write and edit of this session from now on, without --checkpoint (INDUS_CHECKPOINT=0 still turns it off for one invocation)')
            [CompletionResult]::new('off', 'off', [CompletionResultType]::ParameterValue, 'Stop checkpointing this session by default (the nodes already recorded stay)')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Unified diff from the state before NODE to now, for every file touched at or after NODE')
            [CompletionResult]::new('rewind', 'rewind', [CompletionResultType]::ParameterValue, 'Put every file touched at or after NODE back as it was before NODE (files created since are deleted), then forget NODE and later nodes')
            [CompletionResult]::new('gc', 'gc', [CompletionResultType]::ParameterValue, 'Delete kept contents no node needs; with --tree also the copy of the tree kept for checkpointing commands')
            [CompletionResult]::new('drop', 'drop', [CompletionResultType]::ParameterValue, 'Forget NODE and every older node (or --all), deleting contents no node needs')
            break
        }
        'indus-tool;help;checkpoint;list' {
            break
        }
        'indus-tool;help;checkpoint;on' {
            break
        }
        'indus-tool;help;checkpoint;off' {
            break
        }
        'indus-tool;help;checkpoint;diff' {
            break
        }
        'indus-tool;help;checkpoint;rewind' {
            break
        }
        'indus-tool;help;checkpoint;gc' {
            break
        }
        'indus-tool;help;checkpoint;drop' {
            break
        }
        'indus-tool;help;trust' {
            break
        }
        'indus-tool;help;completions' {
            break
        }
        'indus-tool;help;man' {
            break
        }
        'indus-tool;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
