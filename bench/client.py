"""Per-call latency of the Python client (bench/client.sh).

Three ways to make the same call from Python, measured in one run, interleaved
round by round so that drift on the machine hits all three alike:
  client:  indus_tool.Toolbox(...).read(path=...)   (one batch process, kept)
  pipe:    one `indus-tool batch` process, a line written and a line read by hand
           (the floor the client adds its matching, JSON and thread hand-off to)
  spawn:   subprocess.run([indus-tool, "--format", "json", "read", path]) per call

Usage: client.py INDUS WORKDIR ROUNDS
Prints three tab-separated rows for bench/run's table.
"""

import json
import os
import statistics
import subprocess
import sys
import time

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "python"))
from indus_tool import Toolbox  # noqa: E402

indus, work, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(os.path.join(work, "small.txt"), "w") as f:
    f.write("".join(f"line {i}\n" for i in range(40)))
call = {"name": "read", "input": {"path": "small.txt"}}
expect = 40

tb = Toolbox(work, binary=indus)
pipe = subprocess.Popen([indus, "--cwd", work, "batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)


def by_client():
    assert tb.read(path="small.txt")["totalLines"] == expect


def by_pipe(i=[0]):
    i[0] += 1
    pipe.stdin.write(json.dumps({"id": str(i[0]), **call}).encode() + b"\n")
    pipe.stdin.flush()
    answer = json.loads(pipe.stdout.readline())
    assert answer["output"]["totalLines"] == expect


def by_spawn():
    out = subprocess.run([indus, "--cwd", work, "--format", "json", "read", "small.txt"],
                         capture_output=True, check=True)
    assert json.loads(out.stdout)["output"]["totalLines"] == expect


ways = {"client": by_client, "pipe": by_pipe, "spawn": by_spawn}
times = {name: [] for name in ways}
for _ in range(20):  # warm-up: the processes started, the page cache filled
    for f in ways.values():
        f()
for r in range(rounds):
    for name, f in ways.items():
        t0 = time.perf_counter()
        f()
        times[name].append(time.perf_counter() - t0)
tb.close()
pipe.stdin.close()
pipe.wait()

ms = {name: statistics.median(t) * 1000 for name, t in times.items()}
bars = {
    # What the client adds to the raw pipe: its id matching, locks and the typed
    # method's wrapping. (With a reader thread handing each answer to the caller
    # it measured 1.8-2.0x; the blocking client now reads its answers itself.)
    "pipe": 1.5,
    # What keeping one process saves against a process per call.
    "spawn": 0.25,
}
rows = [
    ("Python client: read of a 40-line file, per call", "raw batch pipe from Python", "pipe"),
    ("Python client: read of a 40-line file, per call", "one indus-tool process per call (subprocess.run)", "spawn"),
]
for name, peer, key in rows:
    ratio = ms["client"] / ms[key]
    ok = "ok" if ratio <= bars[key] else "OVER"
    print(f"{name}\t{peer}\t{ms[key]:.3f}\t{ms['client']:.3f}\t{ratio:.2f}\t<= {bars[key]}\t{ok}")
