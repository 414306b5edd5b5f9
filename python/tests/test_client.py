"""The Python client against the real toolbox, on temp trees.

Run with the interpreter of an environment where the wheel is installed
(`pip install .`): tests/it/python_package.rs does, with HOME in a temp folder.
Every test works in its own temp folder; nothing outside it is touched.
"""

import asyncio
import os
import signal
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
import unittest
from pathlib import Path

from indus_tool import AsyncToolbox, Toolbox, ToolboxError, ToolError, find_binary
from indus_tool import _tools


def running(marker):
    """Whether a process whose command line holds `marker` is alive."""
    return subprocess.run(["pgrep", "-f", marker], capture_output=True).returncode == 0


class Tree(unittest.TestCase):
    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.root = Path(self._tmp.name)
        (self.root / "src").mkdir()
        (self.root / "src" / "app.py").write_text(
            "def f():\n    return 1\n\ndef g():\n    return 1\n\ndef h():\n    return 1\n"
        )
        (self.root / "notes.txt").write_text("alpha\nbeta\ngamma\n")

    def tearDown(self):
        self._tmp.cleanup()


class Installed(unittest.TestCase):
    def test_the_binary_is_on_the_environments_path(self):
        import indus_tool

        self.assertTrue(indus_tool.__file__.startswith(sysconfig.get_path("purelib")), indus_tool.__file__)
        scripts = sysconfig.get_path("scripts")
        self.assertEqual(find_binary(), os.path.join(scripts, "indus-tool"))
        out = subprocess.run([find_binary(), "--version"], capture_output=True, text=True, check=True)
        self.assertRegex(out.stdout, r"^indus-tool \d+\.\d+\.\d+\n$")
        # python -m indus_tool runs the same binary.
        out = subprocess.run([sys.executable, "-m", "indus_tool", "--version"], capture_output=True, text=True)
        self.assertEqual(out.returncode, 0, out.stderr)
        self.assertRegex(out.stdout, r"^indus-tool ")

    def test_the_typed_methods_cover_every_tool(self):
        for profile in ("all", "survey", "authoring"):
            out = subprocess.run(
                [find_binary(), "--no-mcp", "--checkpoint", "--profile", profile, "list"],
                capture_output=True, text=True, check=True,
            )
            names = {line.split()[0] for line in out.stdout.splitlines() if line.strip()}
            self.assertLessEqual(names, set(_tools.TOOL_NAMES), profile)
        for name in _tools.TOOL_NAMES:
            method = name.replace("-", "_")
            self.assertTrue(callable(getattr(Toolbox, method)), method)
            self.assertTrue(asyncio.iscoroutinefunction(getattr(AsyncToolbox, method)), method)


class Sync(Tree):
    def test_read_grep_edit_patch(self):
        with Toolbox(self.root) as tb:
            got = tb.read(path="notes.txt")
            self.assertEqual((got["totalLines"], got["remainingLines"], got["nextOffset"]), (3, 0, None))
            outcome = tb.call("read", {"path": "notes.txt", "offset": 2, "limit": 1})
            self.assertEqual(outcome["is_error"], False)
            self.assertEqual(outcome["output"]["startLine"], 2)

            found = tb.grep(pattern="return 1", path="src")
            self.assertEqual(found["count"], 3)
            self.assertEqual([r["line"] for r in found["rows"]], [2, 5, 8])

            # The batch's read-before-edit gate: the file was not read yet.
            with self.assertRaises(ToolError) as refused:
                tb.edit(path="src/app.py", oldText="return 1", newText="return 2", replaceAll=True)
            self.assertIn("read", str(refused.exception))
            tb.read(path="src/app.py")
            edited = tb.edit(path="src/app.py", oldText="return 1", newText="return 2", replaceAll=True)
            self.assertEqual(edited["replacements"], 3)
            self.assertEqual((self.root / "src/app.py").read_text().count("return 2"), 3)

            patch = (
                "*** Begin Patch\n*** Update File: notes.txt\n@@\n alpha\n-beta\n+BETA\n gamma\n"
                "*** Add File: new.txt\n+made by a patch\n*** End Patch\n"
            )
            tb.read(path="notes.txt")
            applied = tb.apply_patch(patch=patch)
            self.assertTrue(applied["applied"])
            self.assertEqual(sorted(f["status"] for f in applied["files"]), ["added", "modified"])
            self.assertEqual((self.root / "notes.txt").read_text(), "alpha\nBETA\ngamma\n")
            self.assertEqual((self.root / "new.txt").read_text(), "made by a patch\n")

    def test_a_tools_failure_is_an_outcome_and_a_typed_error(self):
        with Toolbox(self.root) as tb:
            outcome = tb.call("read", {"path": "missing.txt"})
            self.assertTrue(outcome["is_error"])
            self.assertEqual(outcome["id"], "1")
            with self.assertRaises(ToolError) as failed:
                tb.bash(command="echo out; exit 3")
            self.assertEqual(failed.exception.output["exitCode"], 3)
            self.assertEqual(failed.exception.output["stdout"], "out\n")
            # An unknown key is refused by the toolbox, by its name.
            outcome = tb.call("grep", {"pattern": "x", "pathz": "src"})
            self.assertTrue(outcome["is_error"])
            self.assertIn('"pathz"', outcome["output"])

    def test_a_background_job_is_started_and_polled(self):
        with Toolbox(self.root) as tb:
            job = tb.bg_process(action="start", command="sleep 0.3; echo done > flag.txt; echo finished")
            self.assertEqual(job["status"], "running")
            deadline = time.monotonic() + 20
            while True:
                polled = tb.bg_process(action="poll", id=job["id"])
                if polled["status"] != "running":
                    break
                self.assertLess(time.monotonic(), deadline, "the job never ended")
                time.sleep(0.05)
            self.assertEqual((polled["status"], polled["exitCode"]), ("exited", 0))
            self.assertIn("finished", polled["stdout"])
            self.assertEqual((self.root / "flag.txt").read_text(), "done\n")

    def test_a_timeout_cancels_the_call_in_the_toolbox(self):
        marker = f"indus-py-timeout-{os.getpid()}"
        with Toolbox(self.root) as tb:
            t0 = time.monotonic()
            with self.assertRaises(TimeoutError):
                tb.call("bash", {"command": f"sleep 30; echo {marker}"}, timeout=0.5)
            # The toolbox goes on, and the command is gone.
            self.assertEqual(tb.bash(command="echo next")["stdout"], "next\n")
            self.assertLess(time.monotonic() - t0, 10)
            self.assertFalse(running(marker))

    def test_ctrl_c_cancels_the_call_in_the_toolbox(self):
        marker = f"indus-py-sigint-{os.getpid()}"
        script = (
            "import signal, sys\n"
            # A background process of a script starts with SIGINT ignored.
            "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
            "from indus_tool import Toolbox\n"
            "tb = Toolbox(sys.argv[1])\n"
            "print(tb.bash(command='echo ready')['stdout'], end='', flush=True)\n"
            "try:\n"
            f"    tb.bash(command='sleep 30; echo {marker}')\n"
            "except KeyboardInterrupt:\n"
            "    print('interrupted', tb.bash(command='echo next')['stdout'], end='', flush=True)\n"
        )
        child = subprocess.Popen([sys.executable, "-c", script, str(self.root)], stdout=subprocess.PIPE, text=True)
        self.assertEqual(child.stdout.readline(), "ready\n")
        deadline = time.monotonic() + 10
        while not running(marker):
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.02)
        child.send_signal(signal.SIGINT)
        self.assertEqual(child.stdout.read(), "interrupted next\n")
        self.assertEqual(child.wait(10), 0)
        self.assertFalse(running(marker))

    def test_threads_share_one_toolbox(self):
        with Toolbox(self.root) as tb:
            got = {}

            def one(i):
                got[i] = tb.bash(command=f"echo {i}")["stdout"]

            threads = [threading.Thread(target=one, args=(i,)) for i in range(16)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            self.assertEqual(got, {i: f"{i}\n" for i in range(16)})

    def test_jobs_run_calls_at_once(self):
        with Toolbox(self.root, jobs=4) as tb:
            self.assertEqual(tb.argv[-2:], ["--jobs", "4"])
            outs = {}

            def one(i):
                outs[i] = tb.bash(command=f"sleep 0.5; echo {i}")["stdout"]

            t0 = time.monotonic()
            threads = [threading.Thread(target=one, args=(i,)) for i in range(4)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            self.assertEqual(outs, {i: f"{i}\n" for i in range(4)})
            self.assertLess(time.monotonic() - t0, 1.9)

    def test_a_dead_toolbox_process_is_restarted(self):
        tb = Toolbox(self.root)
        self.assertEqual(tb.bash(command="echo one")["stdout"], "one\n")
        first = tb._core.batch.proc
        first.kill()
        first.wait()
        # The next call starts a new process; the session's gate state is on disk.
        self.assertEqual(tb.bash(command="echo two")["stdout"], "two\n")
        self.assertIsNot(tb._core.batch.proc, first)
        tb.close()
        self.assertIsNotNone(first.returncode)
        with self.assertRaises(ToolboxError):
            tb.call("ls")

    def test_close_with_a_call_in_flight_waits_then_interrupts_it(self):
        marker = f"indus-py-close-{os.getpid()}"
        tb = Toolbox(self.root)
        result = {}

        def slow():
            try:
                result["outcome"] = tb.call("bash", {"command": f"sleep 30; echo {marker}"})
            except ToolboxError as e:
                result["error"] = str(e)

        t = threading.Thread(target=slow)
        t.start()
        deadline = time.monotonic() + 10
        while not running(marker):
            self.assertLess(time.monotonic(), deadline)
            time.sleep(0.02)
        t0 = time.monotonic()
        tb.close(timeout=0.5)
        t.join(10)
        # Past the grace the batch is interrupted: the command is cancelled, and
        # its call answered as cancelled (or failed with the process).
        self.assertLess(time.monotonic() - t0, 8)
        self.assertFalse(running(marker))
        said = result.get("outcome", {}).get("output") or result.get("error")
        self.assertTrue(said, result)

    def test_a_call_in_flight_when_the_process_dies_fails_clearly(self):
        tb = Toolbox(self.root)
        result = {}

        def slow():
            try:
                tb.call("bash", {"command": "sleep 20"})
            except ToolboxError as e:
                result["error"] = str(e)

        t = threading.Thread(target=slow)
        t.start()
        while tb._core.batch is None or not tb._core.batch.pending:
            time.sleep(0.01)
        time.sleep(0.2)
        tb._core.batch.proc.kill()
        t.join(10)
        self.assertIn("ended (exit status -9) before answering", result.get("error", ""))
        tb.close()

    def test_global_options_reach_the_toolbox(self):
        with Toolbox(self.root, profile="authoring", session="py") as tb:
            self.assertIn("--profile", tb.argv)
            outcome = tb.call("bash", {"command": "true"})
            self.assertTrue(outcome["is_error"])
        with Toolbox(self.root / "src", root=self.root / "src") as tb:
            self.assertIn("outside", tb.call("read", {"path": "../notes.txt"})["output"])
            self.assertFalse(tb.call("read", {"path": "app.py"})["is_error"])

    def test_the_environments_text_format_does_not_reach_the_answers(self):
        with Toolbox(self.root, env={"INDUS_FORMAT": "text"}) as tb:
            self.assertEqual(tb.read(path="notes.txt")["totalLines"], 3)

    def test_a_call_over_the_batch_limit_is_answered_not_left_waiting(self):
        with Toolbox(self.root) as tb:
            outcome = tb.call("write", {"path": "big.txt", "content": "x" * (65 * 1024 * 1024)}, timeout=60)
            self.assertTrue(outcome["is_error"])
            self.assertIn("over the batch limit of 64 MiB", outcome["output"])
            self.assertFalse((self.root / "big.txt").exists())
            self.assertEqual(tb.ls(path=".")["count"], 2)

    def test_nan_and_bad_names_are_refused_here(self):
        with Toolbox(self.root) as tb:
            with self.assertRaises(ValueError):
                tb.call("read", {"path": float("nan")})
            with self.assertRaises(ValueError):
                tb.call("", {})
            with self.assertRaises(ValueError):
                tb.call("read", {"path": "\ud800"})
            self.assertTrue(tb.call("nope", {})["is_error"])


class Async(Tree):
    def test_concurrent_tasks_are_answered_in_order_and_a_cancelled_task_stops_its_command(self):
        marker = f"indus-py-cancel-{os.getpid()}"

        async def main():
            async with AsyncToolbox(self.root) as tb:
                order = []

                async def one(i):
                    out = await tb.bash(command=f"echo {i}")
                    order.append(i)
                    return out["stdout"]

                outs = await asyncio.gather(*(one(i) for i in range(20)))
                self.assertEqual(outs, [f"{i}\n" for i in range(20)])
                self.assertEqual(order, list(range(20)))

                slow = asyncio.create_task(tb.call("bash", {"command": f"sleep 30; echo {marker}"}))
                deadline = time.monotonic() + 10
                while not running(marker):
                    self.assertLess(time.monotonic(), deadline)
                    await asyncio.sleep(0.02)
                t0 = time.monotonic()
                slow.cancel()
                with self.assertRaises(asyncio.CancelledError):
                    await slow
                # The next call is answered once the cancelled one has ended.
                self.assertEqual((await tb.read(path="notes.txt"))["totalLines"], 3)
                self.assertLess(time.monotonic() - t0, 5)
                self.assertFalse(running(marker))

                # wait_for's timeout is a cancellation too.
                with self.assertRaises(asyncio.TimeoutError):
                    await asyncio.wait_for(tb.bash(command=f"sleep 30; echo {marker}"), 0.5)
                self.assertEqual((await tb.ls(path="."))["count"], 2)
                self.assertFalse(running(marker))

        asyncio.run(main())

    def test_an_unclosed_toolbox_ends_with_the_interpreter(self):
        script = (
            "import asyncio, sys\n"
            "from indus_tool import AsyncToolbox\n"
            "async def main():\n"
            "    tb = AsyncToolbox(sys.argv[1])\n"
            "    await tb.ls()\n"
            "    print(tb._core.batch.proc.pid)\n"
            "asyncio.run(main())\n"
        )
        out = subprocess.run([sys.executable, "-c", script, str(self.root)], capture_output=True, text=True, timeout=30)
        self.assertEqual(out.returncode, 0, out.stderr)
        pid = int(out.stdout)
        with self.assertRaises(ProcessLookupError):
            os.kill(pid, 0)


if __name__ == "__main__":
    unittest.main()
