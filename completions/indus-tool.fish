# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_indus_tool_global_optspecs
    string join \n format= cwd= root= allow-protected= allow-outside= collection= profile= tools= no-tools max-bytes= session= gate color= id= checkpoint confirm allow-private-network suppress-repeats= envelope turn= mcp-config= no-mcp mcp-log= save-media= exact= state-dir= tmux= exec= exec-cwd= engine= ssh-config= h/help V/version
end

function __fish_indus_tool_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_indus_tool_global_optspecs) -- $cmd 2>/dev/null
    or return 0
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_indus_tool_using_subcommand
    set -l cmd (__fish_indus_tool_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c indus-tool -n "__fish_indus_tool_needs_command" -l format -d 'Output format: text blocks, or one JSON ToolOutcome line' -r -f -a "text\t''
json\t''"
complete -c indus-tool -n "__fish_indus_tool_needs_command" -l cwd -d 'Working directory the tools resolve paths against (default: the current directory)' -r -F
complete -c indus-tool -n "__fish_indus_tool_needs_command" -l root -d 'Confine every path a tool touches to DIR, after symlinks (commands bash runs are not sandboxed)' -r
complete -c indus-tool -n "__fish_indus_tool_needs_command" -l allow-protected -d 'Let write, edit and apply_patch write PATH though protected' -r -F
complete -c indus-tool -n "__fish_indus_tool_needs_command" -l allow-outside -d 'Let write, edit and apply_patch write in DIR outside the project' -r -F
complete -c indus-tool -n "__fish_indus_tool_needs_command" -l collection -d 'Expose a standard collection of the twelve built-ins (read-only, coding, all)' -r -f -a "read-only\t''
coding\t''
all\t''"
complete -c indus-tool -n "__fish_indus_tool_needs_command" -l profile -d 'Expose a deck profile (default all; it wins over --collection)' -r -f -a "authoring\t''
survey\t''
all\t''
buddy\t''"
complete -c indus-tool -n "__fish_indus_tool_needs_command" -l tools -d 'Expose only these tools of the profile (case, _ and - ignored)' -r
complete -c indus-tool -n "__fish_indus_tool_needs_command" -l max-bytes -d 'Output budget in bytes (default 65536); longer output is clamped with a notice' -r
complete -c indus-tool -n "__fish_indus_tool_needs_command" -l session -d 'Session name keying the checklist and the gate\'s read-state' -r
complete -c indus-tool -n "__fish_indus_tool_needs_command" -l color -d 'Colour on a terminal (auto honours NO_COLOR); never in JSON' -r -f -a "auto\t''
always\t''
never\t''"
complete -c indus-tool -n "__fish_indus_tool_needs_command" -l id -d 'The id of the ToolCall (echoed in the JSON outcome; default "cli")' -r
complete -c indus-tool -n "__fish_indus_tool_needs_command" -l suppress-repeats -d 'Refuse a call that failed the same way 3 times in the session (default: on in buddy, batch, mcp)' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_needs_command" -l turn -d 'The checkpoint node this invocation\'s changes belong to (default: one per invocation)' -r
complete -c indus-tool -n "__fish_indus_tool_needs_command" -l mcp-config -d 'An MCP config file read before the discovered ones; its tools are grafted as SERVER__TOOL' -r -F
complete -c indus-tool -n "__fish_indus_tool_needs_command" -l mcp-log -d 'Print MCP servers\' log notifications at LEVEL and above on stderr' -r -f -a "debug\t''
info\t''
notice\t''
warning\t''
error\t''
critical\t''
alert\t''
emergency\t''"
complete -c indus-tool -n "__fish_indus_tool_needs_command" -l save-media -d 'Write the images, audio and binary resources MCP tools return into DIR' -r -F
complete -c indus-tool -n "__fish_indus_tool_needs_command" -l exact -d 'Print the call exactly as an agent receives it, even to a pipe: cli (bare --exact) the text, batch the batch line, mcp the MCP tool result' -r -f -a "cli\t''
batch\t''
mcp\t''"
complete -c indus-tool -n "__fish_indus_tool_needs_command" -l state-dir -d 'The folder holding .indus-process/ (default: the nearest upwards with .git or .indus-process)' -r -F
complete -c indus-tool -n "__fish_indus_tool_needs_command" -l tmux -d 'Type bash\'s commands into a managed tmux pane a person can attach to' -r
complete -c indus-tool -n "__fish_indus_tool_needs_command" -l exec -d 'Run the invocation elsewhere: local, container:NAME or ssh:[USER@]HOST[:PORT]' -r
complete -c indus-tool -n "__fish_indus_tool_needs_command" -l exec-cwd -d 'The working directory on the --exec target (default: the login directory)' -r
complete -c indus-tool -n "__fish_indus_tool_needs_command" -l engine -d 'The container engine of --exec container: (default: podman, else docker)' -r -f -a "docker\t''
podman\t''"
complete -c indus-tool -n "__fish_indus_tool_needs_command" -l ssh-config -d 'The ssh configuration file of --exec ssh: (ssh -F)' -r -F
complete -c indus-tool -n "__fish_indus_tool_needs_command" -l no-tools -d 'Expose no tools at all'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -l gate -d 'write/edit refuse a file not read (or changed since) in this session'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -l checkpoint -d 'Record what write, edit and apply_patch change, and what commands (bash, run_shell, task, process start) change in the project tree, for `checkpoint diff|rewind`'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -l confirm -d 'Ask on the terminal before a command the policy does not allow runs (no terminal: denied)'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -l allow-private-network -d 'Let webfetch and websearch reach loopback, link-local and private addresses (refused by default)'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -l envelope -d 'Wrap every result in the harness_timestamp envelope (always on in buddy)'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -l no-mcp -d 'Graft no MCP server\'s tools (read no MCP config)'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -s V -l version -d 'Print version'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "read" -d 'Read a file with line numbers (as cat -n), a window at a time; the header gives the offset to continue from.'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "ls" -d 'List a directory\'s entries (`kind size name`), directories first.'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "grep" -d 'Search file contents for a regular expression (Rust syntax), like rg: `PATH:LINE: TEXT` rows in path order, then a summary.'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "find" -d 'Find files and directories by name (case-insensitive): a glob if the pattern holds * ? [ or { (with a /, matched against the path: "src/**/*.rs"), else a part of the name.'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "websearch" -d 'Search the web (DuckDuckGo): numbered results with title, URL and snippet.'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "webfetch" -d 'Fetch a web page (http/https) as readable text, Markdown or raw HTML.'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "todo_read" -d 'Show the session\'s checklist (todo_set writes it).'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "write" -d 'Create or overwrite a file with exactly this content (atomic; makes parent folders).'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "edit" -d 'Replace oldText with newText in a file; returns the diff.'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "bash" -d 'Run a shell command (sh -c) and wait: output and exit status (non-zero is an error).'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "process" -d 'Background jobs that outlive this call (servers, REPLs): start (command → id; tty: a terminal), poll (id → new output; until, waitMs: wait for a line), write (input/keys → stdin), screen, stop, remove, list.'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "todo_set" -d 'Replace the session\'s checklist: items {id, text, status, priority?}; [] clears it.'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "diagnose" -d 'Errors and warnings of files from their language server, settled for the text just sent: PATH:LINE:COL: error[CODE] message rows.'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "lsp" -d 'The language server at PATH:LINE:COL: definition, references, hover; symbols of a file; workspace-symbols by name; rename everywhere (one patch; check: diff only).'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "outline" -d 'Definitions of files or a tree (Rust, Python, JS/TS, Go, C/C++, Java, Ruby): `PATH:LINE: kind name(signature)`, nested ones indented.'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "sgrep" -d 'Structural search, as ast-grep: code with $X (one node) and $$$XS (many) matched on syntax trees, rows like grep\'s.'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "apply_patch" -d 'Apply a patch to files, all or nothing: codex\'s envelope (*** Begin Patch, *** Update File: PATH, @@, -old/+new lines, *** End Patch; also Add File, Delete File, Move to) or a unified diff.'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "todo" -d 'A checklist of {task, state, weight} items (with dropped and weights), apart from todo_set\'s: action read, or set (replace whole).'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "bg-process" -d 'Background jobs of this session (bg-N) keeping each job\'s last 2,000 lines: start, poll (sinceLast: only new), stop, list.'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "task" -d 'Delegate a self-contained objective to a sub-agent CLI (Claude Code, Codex, Gemini CLI, opencode) and return its final answer.'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "saas-action" -d 'SaaS actions (GitHub, Slack, Gmail…) through Composio: discover (toolkits, query) lists them; execute runs one by slug with arguments.'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "memory" -d 'A note for this session that survives across turns: read, replace or append (content).'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "enter_plan_mode" -d 'Start a planning phase: explore and read, change nothing, then call exit_plan_mode with the plan.'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "exit_plan_mode" -d 'Present the finished plan (Markdown) for approval; it is kept as a file under .indus-process/ and returned.'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "run_shell" -d 'Run a shell command and return {exit_code, stdout, stderr}, each stream cut to 4,000 characters.'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "read_file" -d 'Read a text file and return its content as is, cut to 8,000 characters with ...[truncated] appended when longer.  When to use: to look at a configuration file, a log excerpt or a script before acting on it.  When NOT to use: for a large file you need a window of (use run_shell with sed -n or tail), or for binary files.  Disambiguation: returns raw text without line numbers; the path is relative to the working directory.  Examples: {"path": "/etc/hostname"}'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "write_file" -d 'Write content to a file, creating it (and missing parent folders) or replacing it atomically; answers Wrote N bytes to /path.  When to use: to create or wholly replace a configuration file, a script or a note.  When NOT to use: to change a few lines of a large file (write the whole new content, or use run_shell), or to append to a log.  Disambiguation: replaces the whole file; an existing file keeps its permissions and a symlink is written through.  Examples: {"path": "/tmp/output.txt", "content": "hello world\\n"}'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "fetch_url" -d 'HTTP GET a URL and return the response body as text, cut to 8,000 characters with ...[truncated] appended when longer.  When to use: to read an API\'s JSON, a raw configuration file or a documentation page by URL.  When NOT to use: to find pages about a topic (use web_search), for binary downloads, or for requests needing authentication or a method other than GET.  Disambiguation: the body comes as served (HTML stays HTML); redirects are followed.  Examples: {"url": "https://example.com/api/data"}'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "web_search" -d 'Search the web (DuckDuckGo\'s HTML endpoint, no API key) and return up to 8 results, each with title, URL and snippet.  When to use: to find documentation, an error message\'s explanation or a download page.  When NOT to use: when you already know the URL (use fetch_url).  Disambiguation: returns links and snippets only; fetch a result to read it.  Examples: {"query": "rust tokio tutorial"}'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "capture-pane" -d 'Capture the text of a tmux pane\'s screen (and, with start, its history); the last 8,000 characters are kept, with [truncated N chars from start] when cut.  When to use: to watch a command dispatched with run_shell wait: false, to read a prompt a program is waiting at, or to see what a person left on a pane.  When NOT to use: to get a finished command\'s output (run_shell returns it); to type into the pane (send-keys).  Disambiguation: read-only; the default is the shared pane of the shared session; a managed session or pane that is missing falls back once to the shared pane, with a notice saying so; delay waits before capturing, for polling.  Examples: {"delay": "5s"}; {"pane": "worker", "start": "-", "join_wrapped_lines": true}'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "send-keys" -d 'Type into a tmux pane: literal_text first (sent as is), then tmux key names (C-c, C-z, Enter, Up, Down, Escape, …), then Enter when enter is true.'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "tmux-create-session" -d 'Create (or reuse) a managed tmux session, named indus-<owner>-<session>, with its shared pane ready; a person can attach to it.'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "tmux-kill-session" -d 'Kill a managed tmux session and every command running in it.  When to use: when the work a session was made for is over, or to make room under tmux.max_sessions.  When NOT to use: for the shared session (protected), or for sessions indus-tool did not create (refused).  Disambiguation: kills the whole session; to close one pane use tmux-kill-pane.  Examples: {"session": "ops", "risk": "medium", "mutation": true, "privesc": false, "why": "The deployment is finished"}'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "tmux-create-pane" -d 'Create (or reuse) a managed pane in a managed session (default: the shared session): a window of its own, named after the pane, running a fresh shell.'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "tmux-kill-pane" -d 'Kill a managed pane and whatever runs in it.  When to use: when a pane\'s job is over or it is stuck beyond send-keys C-c.  When NOT to use: for a session\'s shared pane (protected), or panes indus-tool did not create (refused).  Disambiguation: kills one pane; to end a whole session use tmux-kill-session.  Examples: {"pane": "worker", "risk": "medium", "mutation": true, "privesc": false, "why": "The dev server is no longer needed"}'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "time" -d 'The harness\'s current wall-clock time (unix_millis, ISO 8601 UTC and local, RFC 2822).  When to use: to timestamp an action or compute a deadline.  When NOT to use: for a remote machine\'s clock (run `date` there).  Disambiguation: the toolbox\'s clock, not the shell target\'s.  Examples: {} → {"iso_8601_utc": "2026-02-28T13:01:48.794Z", …}'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "list" -d 'List the exposed tools with their collections and one-line summaries'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "describe" -d 'Print one tool\'s descriptor (name, description, JSON Schema) as JSON'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "schema" -d 'Print every exposed tool\'s descriptor as a JSON array, or (--for) the tool definitions in the shape a model API takes'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "call" -d 'Run one ToolCall given as JSON: {"id":..,"name":..,"input":{..}} (\'-\' reads stdin, \'@FILE\' reads a file)'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "batch" -d 'Answer JSONL ToolCalls from stdin with JSONL ToolOutcomes on stdout, one line each, flushed as they are written'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "mcp" -d 'Serve the selected tools as an MCP server on stdio (tools/list, tools/call, cancellation), until stdin closes; or inspect the MCP servers whose tools are grafted'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "diff" -d 'Unified diff of two files (or with -r two trees), with the engine edit uses; exit 0 when equal, 1 when different, 2 on trouble'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "lsp-broker" -d 'The warm language-server broker itself (started by diagnose and lsp)'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "checkpoint" -d 'List, diff, rewind or drop the checkpoints --checkpoint recorded for file tools and commands'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "trust" -d 'Trust this project\'s configuration files (MCP servers, agents, approval policy) as they are now, list or revoke trust'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "completions" -d 'Print a shell completion script, or install it where the shell looks'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "man" -d 'Write man pages (indus-tool.1 and one per subcommand) into a directory, or install them'
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand read" -l json -d 'The whole input as a JSON object (\'-\' reads stdin, \'@FILE\' reads a file); flags override its keys' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand read" -l path -d 'File path.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand read" -l offset -d 'First line (1-based; -20: the last 20).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand read" -s n -l limit -d 'How many lines (for agents 500 by default, lines cut at 500 characters).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand read" -l tail -d 'The last N lines.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand read" -l encoding -d 'Text encoding (latin1, shift_jis, utf-16le…) or auto.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand read" -l pages -d 'PDF pages (3-5).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand read" -l max-image-side -d 'Image long-side cap (1568).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand read" -l max-image-bytes -d 'Image byte cap (3932160).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand read" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand ls" -l json -d 'The whole input as a JSON object (\'-\' reads stdin, \'@FILE\' reads a file); flags override its keys' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand ls" -l path -d 'Directory (default ".").' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand ls" -l show-hidden -d 'Include dot-entries.' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand ls" -s n -l limit -d 'Most entries shown.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand ls" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand grep" -l json -d 'The whole input as a JSON object (\'-\' reads stdin, \'@FILE\' reads a file); flags override its keys' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand grep" -s A -l after-context -d 'Show N lines after each match (rg -A)' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand grep" -s B -l before-context -d 'Show N lines before each match (rg -B)' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand grep" -s g -l glob -d 'Only search files matching GLOB; a leading ! excludes (files and folders); repeatable (rg -g)' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand grep" -s t -l type -d 'Only search files of this rg type (rust, py, js, md, ...); repeatable (rg -t)' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand grep" -s T -l type-not -d 'Do not search files of this rg type; repeatable (rg -T)' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand grep" -s m -l max-count -d 'At most N matching lines per file (rg -m)' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand grep" -s e -l pattern -d 'Regex (exact text with literal).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand grep" -l path -d 'Directory or file (default: the working directory).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand grep" -l flags -d 'JavaScript-style flag letters: i ignores case, m and s set the inline flags (?m)/(?s); g, u and y are accepted and change nothing.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand grep" -s i -l ignore-case -d 'Ignore case.' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand grep" -l literal -d 'pattern is exact text.' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand grep" -s C -l context -d 'Lines of context around matches.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand grep" -l limit -d 'Most rows (default 200, at most 5000).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand grep" -l gitignore -d 'Skip files .gitignore excludes.' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand grep" -l skip-hidden -d 'Skip files and directories whose name starts with a dot below the search root (default false: unlike rg, hidden files are searched, since an agent must see every file it may edit; a dot-named path given outright is still searched).' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand grep" -l max-file-size -d 'Skip files found by the walk that are larger than this many bytes, counting them in the summary (default 2097152 = 2 MiB, at most 134217728 = 128 MiB); a file named as path is searched whatever its size.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand grep" -l paths -d 'Several directories or files to search instead of path, in the order given, each one\'s rows spelled under it as given (not together with path).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand grep" -l globs -d 'Globs as in rg -g, tested on the path below the search root (later ones win): "*.rs" includes, "!*.min.js" excludes; with any include, files matching none are skipped, and an excluded directory is not entered (glob joins this list first).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand grep" -l offset -d 'Skip this many matches (files) first: the next page.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand grep" -l output-mode -d 'content (matching lines, default), files (paths) or count (PATH:N). [one of: content, files, count]' -r -f -a "content\t''
files\t''
count\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand grep" -s S -l smart-case -d 'Ignore case when the pattern has no uppercase letter (rg -S)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand grep" -s F -l fixed-strings -d 'Take the pattern as exact text, not a regular expression (rg -F; same as --literal)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand grep" -s w -l word-regexp -d 'Only match whole words (rg -w)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand grep" -s v -l invert-match -d 'Show the lines that do not match (rg -v)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand grep" -s l -l files-with-matches -d 'Print only the paths of files with a match, one per line (rg -l)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand grep" -s U -l multiline -d 'Let a match span lines; each line of it is a row (rg -U)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand grep" -s c -l count -d 'Print PATH:N, the number of matching lines of each file with a match (rg -c)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand grep" -s n -l line-number -d 'Show line numbers (always on; accepted as rg\'s -n)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand grep" -l hidden -d 'Search hidden files and folders (the default here; rg needs --hidden)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand grep" -l no-ignore -d 'Search what ignore files exclude (the default here; rg needs --no-ignore)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand grep" -s q -l quiet -d 'Print nothing; exit 0 if a line matched, 1 if none, 2 on error (rg -q)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand grep" -s 0 -l null -d 'With -l: end each path with NUL instead of a newline, for xargs -0 (rg -0)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand grep" -l stats -d 'Print the summary line on stderr even when stdout is not a terminal'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand grep" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand find" -l json -d 'The whole input as a JSON object (\'-\' reads stdin, \'@FILE\' reads a file); flags override its keys' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand find" -s t -l type -d 'Only list this kind: f file, d directory, l symlink, x executable (fd -t)' -r -f -a "f\t''
d\t''
l\t''
x\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand find" -s e -l extension -d 'Only list entries with this file extension; repeatable (fd -e)' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand find" -s E -l exclude -d 'Leave out entries matching GLOB and do not enter such folders; repeatable (fd -E)' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand find" -s d -l max-depth -d 'Descend at most N levels; 1 lists the root\'s own entries (fd -d)' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand find" -l pattern -d 'Glob or part of a name.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand find" -l path -d 'Directory (default: the working directory).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand find" -l limit -d 'Most rows (default 500, at most 10000).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand find" -l gitignore -d 'Skip entries .gitignore excludes.' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand find" -l skip-hidden -d 'Skip files and directories whose name starts with a dot below the search root (default false: unlike fd, hidden entries are listed, since an agent must see every file it may edit; a dot-named path given outright is still searched).' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand find" -l paths -d 'Several directories to search instead of path, in the order given, each one\'s rows spelled under it as given (not together with path).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand find" -s H -l hidden -d 'List hidden entries (the default here; fd needs -H)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand find" -s I -l no-ignore -d 'List what ignore files exclude (the default here; fd needs -I)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand find" -s q -l quiet -d 'Print nothing; exit 0 if something matched, 1 if nothing, 2 on error (fd -q)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand find" -s 0 -l print0 -d 'End each path with NUL instead of a newline, for xargs -0 (fd -0)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand find" -l stats -d 'Print the summary line on stderr even when stdout is not a terminal'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand find" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand websearch" -l json -d 'The whole input as a JSON object (\'-\' reads stdin, \'@FILE\' reads a file); flags override its keys' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand websearch" -l query -d 'What to search for.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand websearch" -s n -l count -d 'How many results (default 5, at most 25).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand websearch" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand webfetch" -l json -d 'The whole input as a JSON object (\'-\' reads stdin, \'@FILE\' reads a file); flags override its keys' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand webfetch" -l url -d 'Absolute http(s) URL.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand webfetch" -l format -d 'text (default), markdown or html. [one of: text, markdown, html]' -r -f -a "text\t''
markdown\t''
html\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand webfetch" -l max-bytes -d 'Most bytes of content returned (default 1 MiB).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand webfetch" -l timeout-ms -d 'Give up after this many milliseconds (default 30000).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand webfetch" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand todo_read" -l json -d 'The whole input as a JSON object (\'-\' reads stdin, \'@FILE\' reads a file); flags override its keys' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand todo_read" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand write" -l json -d 'The whole input as a JSON object (\'-\' reads stdin, \'@FILE\' reads a file); flags override its keys' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand write" -l path -d 'File path.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand write" -l content -d 'The whole new content.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand write" -l encoding -d 'Encoding to write; auto keeps the file\'s.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand write" -l diagnose -d 'Append new language-server errors.' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand write" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand edit" -l json -d 'The whole input as a JSON object (\'-\' reads stdin, \'@FILE\' reads a file); flags override its keys' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand edit" -l path -d 'File path.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand edit" -l old-text -d 'Exact text to replace.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand edit" -l new-text -d 'Replacement.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand edit" -l replace-all -d 'Replace every occurrence.' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand edit" -l edits -d '[{oldText, newText}] instead, each matched against the file as it was.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand edit" -l expect-sha256 -d 'Refuse unless the file\'s SHA-256 is this (read gives it).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand edit" -l encoding -d 'The file\'s encoding, or auto; kept.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand edit" -l cell -d 'Notebook cell id or number.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand edit" -l cell-action -d 'Insert newText after cell (0: first), or delete it. [one of: replace, insert, delete]' -r -f -a "replace\t''
insert\t''
delete\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand edit" -l cell-type -d 'Inserted cell\'s type. [one of: code, markdown, raw]' -r -f -a "code\t''
markdown\t''
raw\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand edit" -l diagnose -d 'Append new language-server errors.' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand edit" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand bash" -l json -d 'The whole input as a JSON object (\'-\' reads stdin, \'@FILE\' reads a file); flags override its keys' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand bash" -l command -d 'Command line.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand bash" -l timeout-ms -d 'Deadline in ms (default 120000, at most 600000).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand bash" -l cwd -d 'Directory to run in.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand bash" -l exit-status -d 'Exit with the command\'s own status (128+N for signal N, 124 on timeout)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand bash" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand process" -l json -d 'The whole input as a JSON object (\'-\' reads stdin, \'@FILE\' reads a file); flags override its keys' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand process" -l action -d 'What to do. [one of: start, list, poll, stop, write, remove, screen]' -r -f -a "start\t''
list\t''
poll\t''
stop\t''
write\t''
remove\t''
screen\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand process" -l command -d 'start: command line.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand process" -l cwd -d 'start: directory.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand process" -l tty -d 'start: in a terminal.' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand process" -l size -d 'start: COLSxROWS (80x24).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand process" -l id -d 'Job id.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand process" -l input -d 'write: text for stdin.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand process" -l keys -d 'write: keys after input ("Up Enter", C-c).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand process" -l until -d 'poll: wait for a line matching this regex.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand process" -l wait-ms -d 'poll: wait at most this long.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand process" -l raw -d 'poll: keep escapes.' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand process" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand todo_set" -l json -d 'The whole input as a JSON object (\'-\' reads stdin, \'@FILE\' reads a file); flags override its keys' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand todo_set" -l items -d 'The whole list, in order.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand todo_set" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand diagnose" -l json -d 'The whole input as a JSON object (\'-\' reads stdin, \'@FILE\' reads a file); flags override its keys' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand diagnose" -l paths -d 'Files (default: those of the last change).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand diagnose" -l new -d 'Only new ones.' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand diagnose" -l since -d 'Checkpoint node to compare from.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand diagnose" -l baseline -d 'Baseline file (implies new).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand diagnose" -l save-baseline -d 'Write a baseline file.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand diagnose" -l severity -d 'Least severity shown (default warning). [one of: error, warning, information, hint]' -r -f -a "error\t''
warning\t''
information\t''
hint\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand diagnose" -l server -d 'Server name.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand diagnose" -l timeout-ms -d 'Default 60000.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand diagnose" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand lsp" -l json -d 'The whole input as a JSON object (\'-\' reads stdin, \'@FILE\' reads a file); flags override its keys' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand lsp" -l action -d 'What to ask. [one of: definition, references, hover, symbols, workspace-symbols, rename, status, stop]' -r -f -a "definition\t''
references\t''
hover\t''
symbols\t''
workspace-symbols\t''
rename\t''
status\t''
stop\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand lsp" -l at -d 'PATH:LINE:COL (symbols: PATH).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand lsp" -l query -d 'workspace-symbols: name.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand lsp" -l path -d 'workspace-symbols: a file of the language.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand lsp" -l new-name -d 'rename: new name.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand lsp" -l check -d 'rename: diff only.' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand lsp" -l server -d 'Server name.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand lsp" -l timeout-ms -d 'Default 60000.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand lsp" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand outline" -l json -d 'The whole input as a JSON object (\'-\' reads stdin, \'@FILE\' reads a file); flags override its keys' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand outline" -s g -l glob -d 'Only files matching GLOB; a leading ! excludes; repeatable (rg -g)' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand outline" -s t -l type -d 'Only files of this rg type (rust, py, ...); repeatable (rg -t)' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand outline" -l path -d 'File or directory (default: the working directory).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand outline" -l paths -d 'Several files or directories instead of path, in the order given.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand outline" -l map -d 'Repository map: ranked by references.' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand outline" -l budget -d 'map: bytes of rows (default 8192).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand outline" -s l -l lang -d 'Only this language.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand outline" -l globs -d 'Globs as in rg -g: "*.rs" includes, "!tests/**" excludes.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand outline" -l gitignore -d 'Skip files .gitignore excludes.' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand outline" -l max-file-size -d 'Skip files larger than this many bytes (default 2 MiB).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand outline" -l stats -d 'Print the summary line on stderr even when stdout is not a terminal'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand outline" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand sgrep" -l json -d 'The whole input as a JSON object (\'-\' reads stdin, \'@FILE\' reads a file); flags override its keys' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand sgrep" -s g -l glob -d 'Only search files matching GLOB; a leading ! excludes; repeatable (rg -g)' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand sgrep" -s t -l type -d 'Only search files of this rg type; repeatable (rg -t)' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand sgrep" -s T -l type-not -d 'Do not search files of this rg type; repeatable (rg -T)' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand sgrep" -l pattern -d 'Code, e.g. "foo($A, $$$REST)".' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand sgrep" -l path -d 'File or directory (default: the working directory).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand sgrep" -l paths -d 'Several files or directories instead of path, in the order given.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand sgrep" -l lang -d 'rust, python, javascript, typescript, tsx, go, c, cpp, java or ruby.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand sgrep" -s r -l rewrite -d 'Template replacing each match.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand sgrep" -l check -d 'rewrite: show the diff only.' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand sgrep" -l output-mode -d 'content (default), files (paths) or count (PATH:N), as grep\'s. [one of: content, files, count]' -r -f -a "content\t''
files\t''
count\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand sgrep" -s n -l limit -d 'Most matches (default 200).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand sgrep" -l globs -d 'Globs as in rg -g: "*.rs" includes, "!vendor/**" excludes.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand sgrep" -l gitignore -d 'Skip files .gitignore excludes.' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand sgrep" -l max-file-size -d 'Skip files larger than this many bytes (default 2 MiB).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand sgrep" -s l -l files-with-matches -d 'Print only the paths of files with a match (rg -l)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand sgrep" -s c -l count -d 'Print PATH:N, the matches of each file with one (rg -c)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand sgrep" -s 0 -l null -d 'With -l: end each path with NUL instead of a newline, for xargs -0 (rg -0)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand sgrep" -l stats -d 'Print the summary line on stderr even when stdout is not a terminal'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand sgrep" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand apply_patch" -l json -d 'The whole input as a JSON object (\'-\' reads stdin, \'@FILE\' reads a file); flags override its keys' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand apply_patch" -l patch -d 'Patch text.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand apply_patch" -l check -d 'Only test whether it applies.' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand apply_patch" -l diagnose -d 'Append new language-server errors.' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand apply_patch" -s R -l reverse -d 'Apply a unified diff in reverse (patch -R, git apply -R)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand apply_patch" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand todo" -l json -d 'The whole input as a JSON object (\'-\' reads stdin, \'@FILE\' reads a file); flags override its keys' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand todo" -l action -d 'read or set. [one of: read, set]' -r -f -a "read\t''
set\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand todo" -l items -d 'set: the whole list, in order.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand todo" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand bg-process" -l json -d 'The whole input as a JSON object (\'-\' reads stdin, \'@FILE\' reads a file); flags override its keys' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand bg-process" -l action -d 'What to do. [one of: start, poll, stop, list]' -r -f -a "start\t''
poll\t''
stop\t''
list\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand bg-process" -l command -d 'start: command line.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand bg-process" -l cwd -d 'start: directory.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand bg-process" -l id -d 'Job id.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand bg-process" -l since-last -d 'poll: only what is new.' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand bg-process" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand task" -l json -d 'The whole input as a JSON object (\'-\' reads stdin, \'@FILE\' reads a file); flags override its keys' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand task" -l objective -d 'What the sub-agent should accomplish, complete in itself.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand task" -l agent -d 'Which configured agent (default: the default).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand task" -s C -l context -d 'Background for it.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand task" -l timeout-ms -d 'Deadline in milliseconds (default 600000, at most 3600000).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand task" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand saas-action" -l json -d 'The whole input as a JSON object (\'-\' reads stdin, \'@FILE\' reads a file); flags override its keys' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand saas-action" -l action -d 'discover or execute. [one of: discover, execute]' -r -f -a "discover\t''
execute\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand saas-action" -l slug -d 'execute: the action, as discover lists it (e.g. GITHUB_CREATE_AN_ISSUE).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand saas-action" -l arguments -d 'execute: the action\'s arguments as a JSON object, e.g. {"owner": "x"} (an object is taken too).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand saas-action" -l toolkits -d 'discover: only these toolkits, e.g. ["github"].' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand saas-action" -l query -d 'discover: words to search actions by.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand saas-action" -s n -l limit -d 'discover: the most actions listed (default 20, at most 1000).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand saas-action" -l timeout-ms -d 'Give up after this many milliseconds (default 30000 or COMPOSIO_TIMEOUT_MS, at most 300000).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand saas-action" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand memory" -l json -d 'The whole input as a JSON object (\'-\' reads stdin, \'@FILE\' reads a file); flags override its keys' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand memory" -l action -d 'read, replace or append. [one of: read, replace, append]' -r -f -a "read\t''
replace\t''
append\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand memory" -l content -d 'The new note, or the line to append.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand memory" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand enter_plan_mode" -l json -d 'The whole input as a JSON object (\'-\' reads stdin, \'@FILE\' reads a file); flags override its keys' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand enter_plan_mode" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand exit_plan_mode" -l json -d 'The whole input as a JSON object (\'-\' reads stdin, \'@FILE\' reads a file); flags override its keys' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand exit_plan_mode" -l plan -d 'The plan, in Markdown.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand exit_plan_mode" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand run_shell" -l json -d 'The whole input as a JSON object (\'-\' reads stdin, \'@FILE\' reads a file); flags override its keys' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand run_shell" -l command -d 'The shell command, run with sh -c (in a tmux pane, sourced by its bash).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand run_shell" -l risk -d 'Estimated risk of the action: low, medium or high. [one of: low, medium, high]' -r -f -a "low\t''
medium\t''
high\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand run_shell" -l mutation -d 'Whether the action changes the system\'s state.' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand run_shell" -l privesc -d 'Whether the action uses privilege escalation (sudo, su, doas).' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand run_shell" -l why -d 'A short reason for the action and a justification of its risk.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand run_shell" -l session -d 'A managed tmux session (default: the shared one); implies a tmux target.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand run_shell" -l pane -d 'A managed pane of the session (default: its shared pane); implies a tmux target.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand run_shell" -l wait -d 'true (default): until the command exits; false: dispatch to the tmux pane and return; "30s", "10m", "1h" or seconds: wait up to that long.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand run_shell" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand read_file" -l json -d 'The whole input as a JSON object (\'-\' reads stdin, \'@FILE\' reads a file); flags override its keys' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand read_file" -l path -d 'The file to read.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand read_file" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand write_file" -l json -d 'The whole input as a JSON object (\'-\' reads stdin, \'@FILE\' reads a file); flags override its keys' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand write_file" -l path -d 'The file to write.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand write_file" -l content -d 'The complete new content.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand write_file" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand fetch_url" -l json -d 'The whole input as a JSON object (\'-\' reads stdin, \'@FILE\' reads a file); flags override its keys' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand fetch_url" -l url -d 'An absolute http or https URL.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand fetch_url" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand web_search" -l json -d 'The whole input as a JSON object (\'-\' reads stdin, \'@FILE\' reads a file); flags override its keys' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand web_search" -l query -d 'What to search for.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand web_search" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand capture-pane" -l json -d 'The whole input as a JSON object (\'-\' reads stdin, \'@FILE\' reads a file); flags override its keys' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand capture-pane" -l target -d 'A raw tmux target (-t syntax, e.g. %3 or mysession:1.0); beats session and pane.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand capture-pane" -l session -d 'A managed tmux session (default: the shared one).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand capture-pane" -l pane -d 'A managed pane of the session (default: its shared pane).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand capture-pane" -l start -d 'First line (-S): a line number (negative = history) or "-" for the start of the history.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand capture-pane" -l end -d 'Last line (-E): a line number or "-" for the end of the visible area.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand capture-pane" -l join-wrapped-lines -d 'Join soft-wrapped lines (-J; default true).' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand capture-pane" -l preserve-trailing-spaces -d 'Keep trailing spaces (-N; default false).' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand capture-pane" -l include-escape-sequences -d 'Keep colour and attribute escapes (-e; default false).' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand capture-pane" -l escape-non-printable -d 'Octal-escape non-printable characters (-C; default false).' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand capture-pane" -l include-alternate-screen -d 'Capture the alternate screen (-a; default false); the main screen, with a notice, when none is active.' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand capture-pane" -l delay -d 'Wait this long before capturing ("2s", "500ms" or seconds).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand capture-pane" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand send-keys" -l json -d 'The whole input as a JSON object (\'-\' reads stdin, \'@FILE\' reads a file); flags override its keys' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand send-keys" -l target -d 'A raw tmux target (-t syntax, e.g. %3 or mysession:1.0); beats session and pane.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand send-keys" -l session -d 'A managed tmux session (default: the shared one).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand send-keys" -l pane -d 'A managed pane of the session (default: its shared pane).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand send-keys" -l keys -d 'tmux key names, sent in order: "C-c", "Enter", "Up", …' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand send-keys" -l literal-text -d 'Text typed as is (send-keys -l).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand send-keys" -l enter -d 'Press Enter after the text and keys (default false).' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand send-keys" -l delay -d 'Wait this long before sending ("500ms", "2s" or seconds).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand send-keys" -l risk -d 'Estimated risk of the action: low, medium or high. [one of: low, medium, high]' -r -f -a "low\t''
medium\t''
high\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand send-keys" -l mutation -d 'Whether the action changes the system\'s state.' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand send-keys" -l privesc -d 'Whether the action uses privilege escalation (sudo, su, doas).' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand send-keys" -l why -d 'A short reason for the action and a justification of its risk.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand send-keys" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand tmux-create-session" -l json -d 'The whole input as a JSON object (\'-\' reads stdin, \'@FILE\' reads a file); flags override its keys' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand tmux-create-session" -l session -d 'The managed session (its short name, or indus-<owner>-<name>).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand tmux-create-session" -l risk -d 'Estimated risk of the action: low, medium or high. [one of: low, medium, high]' -r -f -a "low\t''
medium\t''
high\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand tmux-create-session" -l mutation -d 'Whether the action changes the system\'s state.' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand tmux-create-session" -l privesc -d 'Whether the action uses privilege escalation (sudo, su, doas).' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand tmux-create-session" -l why -d 'A short reason for the action and a justification of its risk.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand tmux-create-session" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand tmux-kill-session" -l json -d 'The whole input as a JSON object (\'-\' reads stdin, \'@FILE\' reads a file); flags override its keys' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand tmux-kill-session" -l session -d 'The managed session (its short name, or indus-<owner>-<name>).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand tmux-kill-session" -l risk -d 'Estimated risk of the action: low, medium or high. [one of: low, medium, high]' -r -f -a "low\t''
medium\t''
high\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand tmux-kill-session" -l mutation -d 'Whether the action changes the system\'s state.' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand tmux-kill-session" -l privesc -d 'Whether the action uses privilege escalation (sudo, su, doas).' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand tmux-kill-session" -l why -d 'A short reason for the action and a justification of its risk.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand tmux-kill-session" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand tmux-create-pane" -l json -d 'The whole input as a JSON object (\'-\' reads stdin, \'@FILE\' reads a file); flags override its keys' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand tmux-create-pane" -l pane -d 'The managed pane\'s name.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand tmux-create-pane" -l session -d 'The managed session (default: the shared one).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand tmux-create-pane" -l risk -d 'Estimated risk of the action: low, medium or high. [one of: low, medium, high]' -r -f -a "low\t''
medium\t''
high\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand tmux-create-pane" -l mutation -d 'Whether the action changes the system\'s state.' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand tmux-create-pane" -l privesc -d 'Whether the action uses privilege escalation (sudo, su, doas).' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand tmux-create-pane" -l why -d 'A short reason for the action and a justification of its risk.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand tmux-create-pane" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand tmux-kill-pane" -l json -d 'The whole input as a JSON object (\'-\' reads stdin, \'@FILE\' reads a file); flags override its keys' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand tmux-kill-pane" -l pane -d 'The managed pane\'s name.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand tmux-kill-pane" -l session -d 'The managed session (default: the shared one).' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand tmux-kill-pane" -l risk -d 'Estimated risk of the action: low, medium or high. [one of: low, medium, high]' -r -f -a "low\t''
medium\t''
high\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand tmux-kill-pane" -l mutation -d 'Whether the action changes the system\'s state.' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand tmux-kill-pane" -l privesc -d 'Whether the action uses privilege escalation (sudo, su, doas).' -r -f -a "true\t''
false\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand tmux-kill-pane" -l why -d 'A short reason for the action and a justification of its risk.' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand tmux-kill-pane" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand time" -l json -d 'The whole input as a JSON object (\'-\' reads stdin, \'@FILE\' reads a file); flags override its keys' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand time" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand list" -s h -l help -d 'Print help'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand describe" -s h -l help -d 'Print help'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand schema" -l for -d 'openai: Chat Completions `tools`; anthropic: Messages `tools`; mcp: the MCP server\'s tools/list result' -r -f -a "openai\t''
anthropic\t''
mcp\t''"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand schema" -s h -l help -d 'Print help'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand call" -s h -l help -d 'Print help'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand batch" -s j -l jobs -d 'Run up to N calls at once; outcomes are then written as calls finish, each with its call\'s id' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand batch" -l no-gate -d 'Turn the read-before-edit gate off (it is on in batch mode)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand batch" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and not __fish_seen_subcommand_from serve servers tools ledger refresh up down names broker help" -l no-gate -d 'Turn the read-before-edit gate off (it is on in the MCP server)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and not __fish_seen_subcommand_from serve servers tools ledger refresh up down names broker help" -l tool-search -d 'List only read, grep, find, edit, write and bash, plus find_tool and load_tool to add the others when needed'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and not __fish_seen_subcommand_from serve servers tools ledger refresh up down names broker help" -l no-output-schemas -d 'List the tools without their outputSchema (half the list\'s bytes; structuredContent is still sent)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and not __fish_seen_subcommand_from serve servers tools ledger refresh up down names broker help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and not __fish_seen_subcommand_from serve servers tools ledger refresh up down names broker help" -f -a "serve" -d 'Serve the selected tools (grafted ones included) on stdio, as `mcp` alone does'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and not __fish_seen_subcommand_from serve servers tools ledger refresh up down names broker help" -f -a "servers" -d 'The configured MCP servers: name, transport, status, tool count, last error'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and not __fish_seen_subcommand_from serve servers tools ledger refresh up down names broker help" -f -a "tools" -d 'The grafted tools (from the ledger cache; nothing is spawned)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and not __fish_seen_subcommand_from serve servers tools ledger refresh up down names broker help" -f -a "ledger" -d 'The bridge ledger\'s event log (--format json: one JSON event per line)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and not __fish_seen_subcommand_from serve servers tools ledger refresh up down names broker help" -f -a "refresh" -d 'Connect to the configured servers (or SERVER), list their tools and update the ledger; exit 1 if one failed'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and not __fish_seen_subcommand_from serve servers tools ledger refresh up down names broker help" -f -a "up" -d 'Start the warm broker for this directory (unless it runs) and connect it to every configured server, so grafted calls skip the servers\' startup; exit 1 if it did not start or a server failed'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and not __fish_seen_subcommand_from serve servers tools ledger refresh up down names broker help" -f -a "down" -d 'Stop this directory\'s warm broker and the servers it keeps open (not running is not an error)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and not __fish_seen_subcommand_from serve servers tools ledger refresh up down names broker help" -f -a "names" -d 'The grafted tools as `NAME<TAB>SUMMARY` lines, from the ledger cache (for shell completion; nothing is spawned)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and not __fish_seen_subcommand_from serve servers tools ledger refresh up down names broker help" -f -a "broker" -d 'The warm broker itself (started by `mcp up`)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and not __fish_seen_subcommand_from serve servers tools ledger refresh up down names broker help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and __fish_seen_subcommand_from serve" -l no-gate -d 'Turn the read-before-edit gate off (it is on in the MCP server)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and __fish_seen_subcommand_from serve" -l tool-search -d 'List only read, grep, find, edit, write and bash, plus find_tool and load_tool to add the others when needed'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and __fish_seen_subcommand_from serve" -l no-output-schemas -d 'List the tools without their outputSchema (half the list\'s bytes; structuredContent is still sent)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and __fish_seen_subcommand_from serve" -s h -l help -d 'Print help'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and __fish_seen_subcommand_from servers" -s h -l help -d 'Print help'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and __fish_seen_subcommand_from tools" -s h -l help -d 'Print help'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and __fish_seen_subcommand_from ledger" -s h -l help -d 'Print help'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and __fish_seen_subcommand_from refresh" -s h -l help -d 'Print help'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and __fish_seen_subcommand_from up" -l idle -d 'Exit after this many seconds without a call' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and __fish_seen_subcommand_from up" -s h -l help -d 'Print help'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and __fish_seen_subcommand_from down" -s h -l help -d 'Print help'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and __fish_seen_subcommand_from names" -s h -l help -d 'Print help'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and __fish_seen_subcommand_from broker" -l idle -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and __fish_seen_subcommand_from broker" -s h -l help -d 'Print help'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and __fish_seen_subcommand_from help" -f -a "serve" -d 'Serve the selected tools (grafted ones included) on stdio, as `mcp` alone does'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and __fish_seen_subcommand_from help" -f -a "servers" -d 'The configured MCP servers: name, transport, status, tool count, last error'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and __fish_seen_subcommand_from help" -f -a "tools" -d 'The grafted tools (from the ledger cache; nothing is spawned)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and __fish_seen_subcommand_from help" -f -a "ledger" -d 'The bridge ledger\'s event log (--format json: one JSON event per line)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and __fish_seen_subcommand_from help" -f -a "refresh" -d 'Connect to the configured servers (or SERVER), list their tools and update the ledger; exit 1 if one failed'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and __fish_seen_subcommand_from help" -f -a "up" -d 'Start the warm broker for this directory (unless it runs) and connect it to every configured server, so grafted calls skip the servers\' startup; exit 1 if it did not start or a server failed'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and __fish_seen_subcommand_from help" -f -a "down" -d 'Stop this directory\'s warm broker and the servers it keeps open (not running is not an error)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and __fish_seen_subcommand_from help" -f -a "names" -d 'The grafted tools as `NAME<TAB>SUMMARY` lines, from the ledger cache (for shell completion; nothing is spawned)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and __fish_seen_subcommand_from help" -f -a "broker" -d 'The warm broker itself (started by `mcp up`)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand mcp; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand diff" -s U -l context -l unified-context -d 'Lines of context around each change (diff -U N)' -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand diff" -s u -l unified -d 'Unified format with 3 lines of context (the only format; accepted as diff\'s -u)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand diff" -s q -l brief -d 'Only say which files differ (diff -q)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand diff" -s r -l recursive -d 'Compare folders\' subfolders too (diff -r)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand diff" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand lsp-broker" -l idle -r
complete -c indus-tool -n "__fish_indus_tool_using_subcommand lsp-broker" -s h -l help -d 'Print help'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand checkpoint; and not __fish_seen_subcommand_from list on off diff rewind gc drop help" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand checkpoint; and not __fish_seen_subcommand_from list on off diff rewind gc drop help" -f -a "list" -d 'The nodes, oldest first, with their time and the files they touched (size before, or why not kept)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand checkpoint; and not __fish_seen_subcommand_from list on off diff rewind gc drop help" -f -a "on" -d 'Checkpoint every write and edit of this session from now on, without --checkpoint (INDUS_CHECKPOINT=0 still turns it off for one invocation)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand checkpoint; and not __fish_seen_subcommand_from list on off diff rewind gc drop help" -f -a "off" -d 'Stop checkpointing this session by default (the nodes already recorded stay)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand checkpoint; and not __fish_seen_subcommand_from list on off diff rewind gc drop help" -f -a "diff" -d 'Unified diff from the state before NODE to now, for every file touched at or after NODE'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand checkpoint; and not __fish_seen_subcommand_from list on off diff rewind gc drop help" -f -a "rewind" -d 'Put every file touched at or after NODE back as it was before NODE (files created since are deleted), then forget NODE and later nodes'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand checkpoint; and not __fish_seen_subcommand_from list on off diff rewind gc drop help" -f -a "gc" -d 'Delete kept contents no node needs; with --tree also the copy of the tree kept for checkpointing commands'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand checkpoint; and not __fish_seen_subcommand_from list on off diff rewind gc drop help" -f -a "drop" -d 'Forget NODE and every older node (or --all), deleting contents no node needs'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand checkpoint; and not __fish_seen_subcommand_from list on off diff rewind gc drop help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand checkpoint; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand checkpoint; and __fish_seen_subcommand_from on" -s h -l help -d 'Print help'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand checkpoint; and __fish_seen_subcommand_from off" -s h -l help -d 'Print help'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand checkpoint; and __fish_seen_subcommand_from diff" -s h -l help -d 'Print help'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand checkpoint; and __fish_seen_subcommand_from rewind" -l force -d 'Overwrite files changed outside the toolbox since it wrote them (refused otherwise)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand checkpoint; and __fish_seen_subcommand_from rewind" -s h -l help -d 'Print help'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand checkpoint; and __fish_seen_subcommand_from gc" -l tree -d 'Also forget the last scan of the tree and its copies (the next checkpointed command copies the tree again)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand checkpoint; and __fish_seen_subcommand_from gc" -s h -l help -d 'Print help'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand checkpoint; and __fish_seen_subcommand_from drop" -l all -d 'Forget every node of the session'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand checkpoint; and __fish_seen_subcommand_from drop" -s h -l help -d 'Print help'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand checkpoint; and __fish_seen_subcommand_from help" -f -a "list" -d 'The nodes, oldest first, with their time and the files they touched (size before, or why not kept)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand checkpoint; and __fish_seen_subcommand_from help" -f -a "on" -d 'Checkpoint every write and edit of this session from now on, without --checkpoint (INDUS_CHECKPOINT=0 still turns it off for one invocation)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand checkpoint; and __fish_seen_subcommand_from help" -f -a "off" -d 'Stop checkpointing this session by default (the nodes already recorded stay)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand checkpoint; and __fish_seen_subcommand_from help" -f -a "diff" -d 'Unified diff from the state before NODE to now, for every file touched at or after NODE'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand checkpoint; and __fish_seen_subcommand_from help" -f -a "rewind" -d 'Put every file touched at or after NODE back as it was before NODE (files created since are deleted), then forget NODE and later nodes'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand checkpoint; and __fish_seen_subcommand_from help" -f -a "gc" -d 'Delete kept contents no node needs; with --tree also the copy of the tree kept for checkpointing commands'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand checkpoint; and __fish_seen_subcommand_from help" -f -a "drop" -d 'Forget NODE and every older node (or --all), deleting contents no node needs'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand checkpoint; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand trust" -l list -d 'List the trusted files: path, SHA-256, and whether the file still holds that content'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand trust" -l revoke -d 'Forget the trust of each FILE (whatever content was trusted)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand trust" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand completions" -l install -d 'Write the script where the shell finds it for this user (bash: $XDG_DATA_HOME/bash-completion/completions, zsh: $XDG_DATA_HOME/zsh/site-functions, fish: $XDG_CONFIG_HOME/fish/completions; ~/.local/share and ~/.config when unset) and print its path'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand completions" -s h -l help -d 'Print help'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand man" -l install -d 'Write the pages into PREFIX/share/man/man1 (PREFIX: ~/.local when not given), where `man indus-tool` finds them' -r -F
complete -c indus-tool -n "__fish_indus_tool_using_subcommand man" -s h -l help -d 'Print help'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "read" -d 'Read a file with line numbers (as cat -n), a window at a time; the header gives the offset to continue from.'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "ls" -d 'List a directory\'s entries (`kind size name`), directories first.'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "grep" -d 'Search file contents for a regular expression (Rust syntax), like rg: `PATH:LINE: TEXT` rows in path order, then a summary.'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "find" -d 'Find files and directories by name (case-insensitive): a glob if the pattern holds * ? [ or { (with a /, matched against the path: "src/**/*.rs"), else a part of the name.'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "websearch" -d 'Search the web (DuckDuckGo): numbered results with title, URL and snippet.'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "webfetch" -d 'Fetch a web page (http/https) as readable text, Markdown or raw HTML.'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "todo_read" -d 'Show the session\'s checklist (todo_set writes it).'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "write" -d 'Create or overwrite a file with exactly this content (atomic; makes parent folders).'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "edit" -d 'Replace oldText with newText in a file; returns the diff.'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "bash" -d 'Run a shell command (sh -c) and wait: output and exit status (non-zero is an error).'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "process" -d 'Background jobs that outlive this call (servers, REPLs): start (command → id; tty: a terminal), poll (id → new output; until, waitMs: wait for a line), write (input/keys → stdin), screen, stop, remove, list.'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "todo_set" -d 'Replace the session\'s checklist: items {id, text, status, priority?}; [] clears it.'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "diagnose" -d 'Errors and warnings of files from their language server, settled for the text just sent: PATH:LINE:COL: error[CODE] message rows.'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "lsp" -d 'The language server at PATH:LINE:COL: definition, references, hover; symbols of a file; workspace-symbols by name; rename everywhere (one patch; check: diff only).'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "outline" -d 'Definitions of files or a tree (Rust, Python, JS/TS, Go, C/C++, Java, Ruby): `PATH:LINE: kind name(signature)`, nested ones indented.'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "sgrep" -d 'Structural search, as ast-grep: code with $X (one node) and $$$XS (many) matched on syntax trees, rows like grep\'s.'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "apply_patch" -d 'Apply a patch to files, all or nothing: codex\'s envelope (*** Begin Patch, *** Update File: PATH, @@, -old/+new lines, *** End Patch; also Add File, Delete File, Move to) or a unified diff.'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "todo" -d 'A checklist of {task, state, weight} items (with dropped and weights), apart from todo_set\'s: action read, or set (replace whole).'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "bg-process" -d 'Background jobs of this session (bg-N) keeping each job\'s last 2,000 lines: start, poll (sinceLast: only new), stop, list.'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "task" -d 'Delegate a self-contained objective to a sub-agent CLI (Claude Code, Codex, Gemini CLI, opencode) and return its final answer.'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "saas-action" -d 'SaaS actions (GitHub, Slack, Gmail…) through Composio: discover (toolkits, query) lists them; execute runs one by slug with arguments.'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "memory" -d 'A note for this session that survives across turns: read, replace or append (content).'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "enter_plan_mode" -d 'Start a planning phase: explore and read, change nothing, then call exit_plan_mode with the plan.'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "exit_plan_mode" -d 'Present the finished plan (Markdown) for approval; it is kept as a file under .indus-process/ and returned.'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "run_shell" -d 'Run a shell command and return {exit_code, stdout, stderr}, each stream cut to 4,000 characters.'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "read_file" -d 'Read a text file and return its content as is, cut to 8,000 characters with ...[truncated] appended when longer.  When to use: to look at a configuration file, a log excerpt or a script before acting on it.  When NOT to use: for a large file you need a window of (use run_shell with sed -n or tail), or for binary files.  Disambiguation: returns raw text without line numbers; the path is relative to the working directory.  Examples: {"path": "/etc/hostname"}'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "write_file" -d 'Write content to a file, creating it (and missing parent folders) or replacing it atomically; answers Wrote N bytes to /path.  When to use: to create or wholly replace a configuration file, a script or a note.  When NOT to use: to change a few lines of a large file (write the whole new content, or use run_shell), or to append to a log.  Disambiguation: replaces the whole file; an existing file keeps its permissions and a symlink is written through.  Examples: {"path": "/tmp/output.txt", "content": "hello world\\n"}'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "fetch_url" -d 'HTTP GET a URL and return the response body as text, cut to 8,000 characters with ...[truncated] appended when longer.  When to use: to read an API\'s JSON, a raw configuration file or a documentation page by URL.  When NOT to use: to find pages about a topic (use web_search), for binary downloads, or for requests needing authentication or a method other than GET.  Disambiguation: the body comes as served (HTML stays HTML); redirects are followed.  Examples: {"url": "https://example.com/api/data"}'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "web_search" -d 'Search the web (DuckDuckGo\'s HTML endpoint, no API key) and return up to 8 results, each with title, URL and snippet.  When to use: to find documentation, an error message\'s explanation or a download page.  When NOT to use: when you already know the URL (use fetch_url).  Disambiguation: returns links and snippets only; fetch a result to read it.  Examples: {"query": "rust tokio tutorial"}'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "capture-pane" -d 'Capture the text of a tmux pane\'s screen (and, with start, its history); the last 8,000 characters are kept, with [truncated N chars from start] when cut.  When to use: to watch a command dispatched with run_shell wait: false, to read a prompt a program is waiting at, or to see what a person left on a pane.  When NOT to use: to get a finished command\'s output (run_shell returns it); to type into the pane (send-keys).  Disambiguation: read-only; the default is the shared pane of the shared session; a managed session or pane that is missing falls back once to the shared pane, with a notice saying so; delay waits before capturing, for polling.  Examples: {"delay": "5s"}; {"pane": "worker", "start": "-", "join_wrapped_lines": true}'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "send-keys" -d 'Type into a tmux pane: literal_text first (sent as is), then tmux key names (C-c, C-z, Enter, Up, Down, Escape, …), then Enter when enter is true.'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "tmux-create-session" -d 'Create (or reuse) a managed tmux session, named indus-<owner>-<session>, with its shared pane ready; a person can attach to it.'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "tmux-kill-session" -d 'Kill a managed tmux session and every command running in it.  When to use: when the work a session was made for is over, or to make room under tmux.max_sessions.  When NOT to use: for the shared session (protected), or for sessions indus-tool did not create (refused).  Disambiguation: kills the whole session; to close one pane use tmux-kill-pane.  Examples: {"session": "ops", "risk": "medium", "mutation": true, "privesc": false, "why": "The deployment is finished"}'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "tmux-create-pane" -d 'Create (or reuse) a managed pane in a managed session (default: the shared session): a window of its own, named after the pane, running a fresh shell.'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "tmux-kill-pane" -d 'Kill a managed pane and whatever runs in it.  When to use: when a pane\'s job is over or it is stuck beyond send-keys C-c.  When NOT to use: for a session\'s shared pane (protected), or panes indus-tool did not create (refused).  Disambiguation: kills one pane; to end a whole session use tmux-kill-session.  Examples: {"pane": "worker", "risk": "medium", "mutation": true, "privesc": false, "why": "The dev server is no longer needed"}'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "time" -d 'The harness\'s current wall-clock time (unix_millis, ISO 8601 UTC and local, RFC 2822).  When to use: to timestamp an action or compute a deadline.  When NOT to use: for a remote machine\'s clock (run `date` there).  Disambiguation: the toolbox\'s clock, not the shell target\'s.  Examples: {} → {"iso_8601_utc": "2026-02-28T13:01:48.794Z", …}'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "list" -d 'List the exposed tools with their collections and one-line summaries'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "describe" -d 'Print one tool\'s descriptor (name, description, JSON Schema) as JSON'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "schema" -d 'Print every exposed tool\'s descriptor as a JSON array, or (--for) the tool definitions in the shape a model API takes'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "call" -d 'Run one ToolCall given as JSON: {"id":..,"name":..,"input":{..}} (\'-\' reads stdin, \'@FILE\' reads a file)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "batch" -d 'Answer JSONL ToolCalls from stdin with JSONL ToolOutcomes on stdout, one line each, flushed as they are written'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "mcp" -d 'Serve the selected tools as an MCP server on stdio (tools/list, tools/call, cancellation), until stdin closes; or inspect the MCP servers whose tools are grafted'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "diff" -d 'Unified diff of two files (or with -r two trees), with the engine edit uses; exit 0 when equal, 1 when different, 2 on trouble'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "lsp-broker" -d 'The warm language-server broker itself (started by diagnose and lsp)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "checkpoint" -d 'List, diff, rewind or drop the checkpoints --checkpoint recorded for file tools and commands'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "trust" -d 'Trust this project\'s configuration files (MCP servers, agents, approval policy) as they are now, list or revoke trust'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "completions" -d 'Print a shell completion script, or install it where the shell looks'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "man" -d 'Write man pages (indus-tool.1 and one per subcommand) into a directory, or install them'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and not __fish_seen_subcommand_from read ls grep find websearch webfetch todo_read write edit bash process todo_set diagnose lsp outline sgrep apply_patch todo bg-process task saas-action memory enter_plan_mode exit_plan_mode run_shell read_file write_file fetch_url web_search capture-pane send-keys tmux-create-session tmux-kill-session tmux-create-pane tmux-kill-pane time list describe schema call batch mcp diff lsp-broker checkpoint trust completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and __fish_seen_subcommand_from mcp" -f -a "serve" -d 'Serve the selected tools (grafted ones included) on stdio, as `mcp` alone does'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and __fish_seen_subcommand_from mcp" -f -a "servers" -d 'The configured MCP servers: name, transport, status, tool count, last error'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and __fish_seen_subcommand_from mcp" -f -a "tools" -d 'The grafted tools (from the ledger cache; nothing is spawned)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and __fish_seen_subcommand_from mcp" -f -a "ledger" -d 'The bridge ledger\'s event log (--format json: one JSON event per line)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and __fish_seen_subcommand_from mcp" -f -a "refresh" -d 'Connect to the configured servers (or SERVER), list their tools and update the ledger; exit 1 if one failed'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and __fish_seen_subcommand_from mcp" -f -a "up" -d 'Start the warm broker for this directory (unless it runs) and connect it to every configured server, so grafted calls skip the servers\' startup; exit 1 if it did not start or a server failed'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and __fish_seen_subcommand_from mcp" -f -a "down" -d 'Stop this directory\'s warm broker and the servers it keeps open (not running is not an error)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and __fish_seen_subcommand_from mcp" -f -a "names" -d 'The grafted tools as `NAME<TAB>SUMMARY` lines, from the ledger cache (for shell completion; nothing is spawned)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and __fish_seen_subcommand_from mcp" -f -a "broker" -d 'The warm broker itself (started by `mcp up`)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and __fish_seen_subcommand_from checkpoint" -f -a "list" -d 'The nodes, oldest first, with their time and the files they touched (size before, or why not kept)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and __fish_seen_subcommand_from checkpoint" -f -a "on" -d 'Checkpoint every write and edit of this session from now on, without --checkpoint (INDUS_CHECKPOINT=0 still turns it off for one invocation)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and __fish_seen_subcommand_from checkpoint" -f -a "off" -d 'Stop checkpointing this session by default (the nodes already recorded stay)'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and __fish_seen_subcommand_from checkpoint" -f -a "diff" -d 'Unified diff from the state before NODE to now, for every file touched at or after NODE'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and __fish_seen_subcommand_from checkpoint" -f -a "rewind" -d 'Put every file touched at or after NODE back as it was before NODE (files created since are deleted), then forget NODE and later nodes'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and __fish_seen_subcommand_from checkpoint" -f -a "gc" -d 'Delete kept contents no node needs; with --tree also the copy of the tree kept for checkpointing commands'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand help; and __fish_seen_subcommand_from checkpoint" -f -a "drop" -d 'Forget NODE and every older node (or --all), deleting contents no node needs'
complete -c indus-tool -n "__fish_indus_tool_using_subcommand process" -f -a "start list poll stop write remove screen"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand lsp" -f -a "definition references hover symbols workspace-symbols rename status stop"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand todo" -f -a "read set"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand bg-process" -f -a "start poll stop list"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand saas-action" -f -a "discover execute"
complete -c indus-tool -n "__fish_indus_tool_using_subcommand memory" -f -a "read replace append"

# Grafted MCP tools (SERVER__TOOL), from the ledger cache (`mcp names` spawns nothing).
function __fish_indus_tool_grafted
    set -l cmd (commandline -opc)
    $cmd[1] mcp names 2>/dev/null
end
complete -c indus-tool -n "__fish_indus_tool_needs_command" -f -a "(__fish_indus_tool_grafted)"
