"""The clients: `Toolbox` (blocking, for scripts and threads) and `AsyncToolbox`
(for asyncio), each keeping one `indus-tool batch` process for all its calls.

One transport serves both faces: a process started at the first call, answers
read (by the blocking callers themselves, or by a thread for asyncio) and handed
to the call waiting for each id, and a restart at the next call after the process
died. A process start costs more than most calls (bench/client.sh measures it),
which is why a toolbox is kept rather than a process per call.

Answers are matched by id, and without `jobs` the batch runs the calls one at a
time in the order they were sent, so concurrent callers are answered in order. A
caller that gives up (a cancelled asyncio task, a timeout, Ctrl-C) sends the
batch `{"cancel": ID}`, which stops the call in the toolbox too: a running
command loses its process group.
"""

from __future__ import annotations

import asyncio
import atexit
import collections
import concurrent.futures
import itertools
import json
import os
import select
import signal
import subprocess
import threading
import time
from typing import Any, Dict, Iterable, Mapping, Optional, Sequence, TypedDict

from ._binary import find_binary
from ._tools import AsyncTools, Tools

__all__ = ["AsyncToolbox", "Toolbox", "ToolboxError", "ToolError", "ToolOutcome"]


class ToolOutcome(TypedDict):
    """One call's answer, as the batch writes it."""

    id: str
    """The call's id (the client numbers its calls "1", "2", …)."""
    output: Any
    """The tool's record (a dict or list), or its text when it has none."""
    is_error: bool
    """The tool failed; `output` says why (and holds the record when there is one)."""


class ToolboxError(Exception):
    """The toolbox process could not be started, died before answering, or the
    toolbox was closed. A tool's own failure is not this: it is an outcome with
    `is_error` (or a ToolError from a typed method)."""


class ToolError(Exception):
    """A typed method's tool answered an error. `outcome` is the whole answer;
    `output` its output (the message, or the record: a failed `bash` keeps its
    exit code and output there)."""

    def __init__(self, outcome: ToolOutcome):
        self.outcome = outcome
        self.output = outcome.get("output")
        text = self.output if isinstance(self.output, str) else json.dumps(self.output)
        super().__init__(text)


def _quiet_thread(target):
    """A daemon thread that takes no signals, so that Ctrl-C reaches the main
    thread and interrupts its wait for an answer. A signal that landed on a reader
    thread blocked in read() would only set a flag, and the main thread would
    sleep on until the answer came. Linux already prefers the main thread; POSIX
    lets a kernel pick any thread that does not block the signal."""

    def run():
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_BLOCK, signal.valid_signals())
        target()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def _settle(future: concurrent.futures.Future, value: Any = None, error: Optional[BaseException] = None):
    # A future its caller already gave up on (cancelled) takes no answer.
    try:
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(value)
    except concurrent.futures.InvalidStateError:
        pass


class _Batch:
    """One running `indus-tool batch` and the calls waiting for its answers."""

    def __init__(self, argv: Sequence[str], env: Optional[Mapping[str, str]], callers_read: bool):
        try:
            # Its own session: a terminal's Ctrl-C reaches the caller, which
            # cancels its call, not the whole batch behind the caller's back.
            self.proc = subprocess.Popen(
                list(argv),
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=None if env is None else dict(env),
                start_new_session=True,
            )
        except OSError as e:
            raise ToolboxError(f"could not start {argv[0]}: {e}") from e
        self.lock = threading.Lock()
        self.pending: Dict[str, concurrent.futures.Future] = {}
        self.ended: Optional[ToolboxError] = None
        self.stderr_tail: collections.deque = collections.deque(maxlen=20)
        self._err = _quiet_thread(self._read_stderr)
        # Blocking callers read the answers themselves, one of them at a time (the
        # one holding `reading`), and hand the others theirs: a thread of its own
        # would cost every call two wake-ups (bench/client.sh measured the client
        # at 2x a raw pipe that way). asyncio callers get a reader thread.
        self.callers_read = callers_read
        self.reading = threading.Lock()
        self.stepped_down = threading.Condition()
        self._buffer = bytearray()
        if not callers_read:
            _quiet_thread(self._read_answers)

    def send(self, call_id: str, line: bytes, future: concurrent.futures.Future):
        with self.lock:
            if self.ended is not None:
                raise self.ended
            self.pending[call_id] = future
        try:
            self.proc.stdin.write(line)
            self.proc.stdin.flush()
        except OSError:
            # The process is gone; its reader fails every pending call, this one too.
            pass

    def cancel(self, call_id: str):
        with self.lock:
            if self.ended is not None or call_id not in self.pending:
                return
        try:
            self.proc.stdin.write(json.dumps({"cancel": call_id}).encode() + b"\n")
            self.proc.stdin.flush()
        except (OSError, ValueError):
            pass

    def _read_stderr(self):
        for raw in self.proc.stderr:
            self.stderr_tail.append(raw.decode("utf-8", "replace").rstrip("\n"))

    def wait(self, future: concurrent.futures.Future, timeout: Optional[float]):
        """A blocking caller's wait for its answer: it reads the batch's answers
        while no other caller does, else waits for the reader to hand it its own
        or to step down. Raises TimeoutError past `timeout` seconds."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while not future.done():
            left = None if deadline is None else deadline - time.monotonic()
            if left is not None and left <= 0:
                raise TimeoutError(f"no answer within {timeout} s")
            if self.reading.acquire(blocking=False):
                try:
                    if not future.done() and self.ended is None:
                        self._read_some(left)
                finally:
                    self.reading.release()
                    with self.stepped_down:
                        self.stepped_down.notify_all()
            else:
                with self.stepped_down:
                    if not future.done() and self.reading.locked():
                        # Woken when the reader hands out answers or steps down;
                        # the cap covers a hand-off between the checks and the wait.
                        self.stepped_down.wait(0.05 if left is None else min(left, 0.05))
        return future.result()

    def _read_some(self, timeout: Optional[float]):
        """Read what the batch has written (waiting up to `timeout` seconds for
        it) and hand out every whole answer; at end of output, end the batch."""
        fd = self.proc.stdout.fileno()
        if timeout is not None:
            poller = select.poll()
            poller.register(fd, select.POLLIN)
            if not poller.poll(max(0, int(timeout * 1000))):
                return
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            self._ended()
            return
        self._buffer += chunk
        end = self._buffer.rfind(b"\n")
        if end < 0:
            return
        lines, self._buffer = bytes(self._buffer[:end]), self._buffer[end + 1 :]
        for raw in lines.split(b"\n"):
            self._hand_out(raw)
        with self.stepped_down:
            self.stepped_down.notify_all()

    def _read_answers(self):
        for raw in self.proc.stdout:
            self._hand_out(raw)
        self._ended()

    def _hand_out(self, raw: bytes):
        """One answer line to the call waiting for its id."""
        try:
            answer = json.loads(raw)
            call_id = answer["id"]
        except (ValueError, KeyError, TypeError):
            self.stderr_tail.append("unreadable answer: " + raw.decode("utf-8", "replace").rstrip())
            return
        # Every line the client writes opens with its id, and the batch answers
        # even a line it cannot read (or hold) with that id; an answer with none
        # is not one of ours.
        with self.lock:
            future = self.pending.pop(str(call_id), None) if call_id is not None else None
        if future is not None:
            _settle(future, answer)

    def _ended(self):
        """The batch's output ended: every call still waiting fails, naming how
        the process ended and its last words."""
        code = self.proc.wait()
        self._err.join(timeout=1)
        tail = "\n".join(self.stderr_tail)
        error = ToolboxError(
            f"indus-tool batch ended (exit status {code}) before answering"
            + (f"; its last words:\n{tail}" if tail else "")
        )
        with self.lock:
            self.ended = error
            waiting = list(self.pending.values())
            self.pending.clear()
        for future in waiting:
            _settle(future, error=error)
        with self.stepped_down:
            self.stepped_down.notify_all()

    def end_input(self):
        """End the batch's input: it answers what it was sent and exits."""
        try:
            self.proc.stdin.close()
        except OSError:
            pass

    def close(self, timeout: float):
        """End of input, then wait for the batch to exit; past `timeout` it is
        interrupted (its calls cancelled), then killed."""
        self.end_input()
        deadline = time.monotonic() + timeout
        if self.callers_read:
            # Take the last answers, so that the batch is never stuck writing them
            # to a full pipe (a caller reading now does so itself).
            if self.reading.acquire(timeout=timeout):
                try:
                    while self.ended is None and time.monotonic() < deadline:
                        self._read_some(deadline - time.monotonic())
                finally:
                    self.reading.release()
        left = max(0.0, deadline - time.monotonic())
        for stop, wait in ((None, left), (self.proc.terminate, 5.0), (self.proc.kill, None)):
            if stop is not None:
                try:
                    stop()
                except OSError:
                    pass
            try:
                self.proc.wait(wait)
                return
            except subprocess.TimeoutExpired:
                continue


# Toolboxes still open when the interpreter exits are closed then, so that no
# batch process outlives its program. Held strongly: a toolbox dropped without
# close() has its input closed at once (see _Options.__del__) and is waited for
# here.
_OPEN: "set[_Core]" = set()


@atexit.register
def _close_all():
    for core in list(_OPEN):
        core.close(timeout=2.0)


def _global_options(cwd, profile, session, checkpoint, root, args) -> list:
    argv = []
    if cwd is not None:
        # Absolute, so a restarted batch works in the same folder after a chdir.
        argv += ["--cwd", os.path.abspath(os.fspath(cwd))]
    if root is not None:
        argv += ["--root", os.path.abspath(os.fspath(root))]
    if profile is not None:
        argv += ["--profile", str(profile)]
    if session is not None:
        argv += ["--session", str(session)]
    if checkpoint:
        argv.append("--checkpoint")
    return argv + [str(a) for a in args]


class _Core:
    """What both faces share: the options, the id counter and the current batch."""

    def __init__(self, cwd, profile, session, checkpoint, root, binary, env, args, jobs, callers_read):
        self.callers_read = callers_read
        binary = os.fspath(binary) if binary is not None else find_binary()
        # --format json: an INDUS_FORMAT=text in the environment would otherwise
        # make the batch answer text lines.
        self.argv = [binary, *_global_options(cwd, profile, session, checkpoint, root, args), "--format", "json", "batch"]
        if jobs is not None:
            self.argv += ["--jobs", str(int(jobs))]
        self.env = None if env is None else {**os.environ, **env}
        self.lock = threading.Lock()
        self.ids = itertools.count(1)
        self.batch: Optional[_Batch] = None
        self.closed = False
        _OPEN.add(self)

    def submit(self, name: str, input: Any, turn: Optional[str]):
        if not isinstance(name, str) or not name:
            raise ValueError(f"a tool's name must be a non-empty string, got {name!r}")
        call: Dict[str, Any] = {"name": name, "input": {} if input is None else input}
        if turn is not None:
            call["turn"] = turn
        future: concurrent.futures.Future = concurrent.futures.Future()
        with self.lock:
            if self.closed:
                raise ToolboxError("the toolbox is closed")
            call_id = str(next(self.ids))
            # NaN and lone surrogates are not JSON: refused here (ValueError), with
            # the caller's own stack. The id goes first: the batch answers a line it
            # cannot read with the id the line opens with.
            line = json.dumps({"id": call_id, **call}, allow_nan=False, ensure_ascii=False).encode() + b"\n"
            # A process seen dead is replaced even before its reader has noticed.
            if self.batch is None or self.batch.ended is not None or self.batch.proc.poll() is not None:
                self.batch = _Batch(self.argv, self.env, self.callers_read)
            batch = self.batch
            batch.send(call_id, line, future)
        return batch, call_id, future

    def close(self, timeout: float = 10.0):
        with self.lock:
            self.closed = True
            batch, self.batch = self.batch, None
        if batch is not None:
            batch.close(timeout)
        _OPEN.discard(self)

    def release(self):
        """The toolbox was dropped unclosed: end the batch's input without
        waiting (it answers what it has and exits); exit waits for it."""
        with self.lock:
            self.closed = True
            batch = self.batch
        if batch is not None:
            batch.end_input()


class _Options:
    """The constructor both faces take."""

    def __init__(
        self,
        cwd: Optional[os.PathLike | str] = None,
        *,
        profile: Optional[str] = None,
        session: Optional[str] = None,
        checkpoint: bool = False,
        root: Optional[os.PathLike | str] = None,
        binary: Optional[os.PathLike | str] = None,
        env: Optional[Mapping[str, str]] = None,
        args: Iterable[str] = (),
        jobs: Optional[int] = None,
    ):
        """A toolbox working in `cwd` (default: this process's working folder).

        profile, session, checkpoint, root: the global options `--profile`,
        `--session`, `--checkpoint`, `--root` (docs/command-line.md).
        binary: the `indus-tool` to run (default: `$INDUS_TOOL_BIN`, else the one
        installed with this package, else PATH's). env: variables added to this
        process's environment for it. args: more global options, as on the
        command line. jobs: run up to this many calls at once (`batch --jobs`);
        answers then come as calls finish.
        """
        self._core = _Core(
            cwd, profile, session, checkpoint, root, binary, env, tuple(args), jobs, isinstance(self, Toolbox)
        )

    def __del__(self):
        core = getattr(self, "_core", None)
        if core is not None:
            core.release()

    @property
    def argv(self) -> list:
        """The command line of the batch process."""
        return list(self._core.argv)


def _checked(outcome: ToolOutcome) -> Any:
    if outcome["is_error"]:
        raise ToolError(outcome)
    return outcome["output"]


def _sent(args: Dict[str, Any]) -> Dict[str, Any]:
    # None means "not given": the tool's own default applies.
    return {k: v for k, v in args.items() if v is not None}


class Toolbox(_Options, Tools):
    """The toolbox for blocking code: `tb.call(name, input)` or `tb.grep(pattern=…)`.
    Safe to share between threads. Use it as a context manager, or `close()` it."""

    def call(
        self, name: str, input: Optional[Mapping[str, Any]] = None, *, turn: Optional[str] = None,
        timeout: Optional[float] = None,
    ) -> ToolOutcome:
        """Run tool `name` with `input` and return its outcome. `turn` is the
        checkpoint turn (with `checkpoint=True`). Past `timeout` seconds, or on
        Ctrl-C, the call is cancelled in the toolbox and TimeoutError (or
        KeyboardInterrupt) raised."""
        batch, call_id, future = self._core.submit(name, input, turn)
        try:
            return batch.wait(future, timeout)
        except BaseException:
            if not future.done():
                batch.cancel(call_id)
                future.cancel()
            raise

    def _typed(self, name, args, turn):
        return _checked(self.call(name, _sent(args), turn=turn))

    def close(self, timeout: float = 10.0) -> None:
        """Let the batch answer what it was sent and exit (interrupted past
        `timeout` seconds). A later call raises ToolboxError."""
        self._core.close(timeout)

    def __enter__(self) -> "Toolbox":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class AsyncToolbox(_Options, AsyncTools):
    """The toolbox for asyncio: `await tb.call(name, input)` or `await tb.grep(…)`.
    Concurrent tasks may share it; cancelling a task cancels its call in the
    toolbox. Use `async with`, or `await tb.close()`."""

    async def call(
        self, name: str, input: Optional[Mapping[str, Any]] = None, *, turn: Optional[str] = None,
    ) -> ToolOutcome:
        """Run tool `name` with `input` and return its outcome. `turn` is the
        checkpoint turn (with `checkpoint=True`)."""
        batch, call_id, future = self._core.submit(name, input, turn)
        try:
            return await asyncio.wrap_future(future)
        except asyncio.CancelledError:
            batch.cancel(call_id)
            raise

    async def _typed(self, name, args, turn):
        return _checked(await self.call(name, _sent(args), turn=turn))

    async def close(self, timeout: float = 10.0) -> None:
        """As Toolbox.close, without blocking the event loop."""
        await asyncio.get_running_loop().run_in_executor(None, self._core.close, timeout)

    async def __aenter__(self) -> "AsyncToolbox":
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()
