"""Wake-up latency of `process poll --until` against a `sleep 0.1` polling loop.

Usage: jobs-latency.py INDUS WORKDIR N

A job `tail -F` copies what is appended to a trigger file into its captured stdout
(not `cat` on its stdin: a job blocked reading its stdin is waiting for input, and a
wait returns 3 for it at once). Each trial starts the waiter, gives it 150 ms to
settle into its wait, appends one line to the trigger and times from the append to
the waiter's exit: `indus-tool process poll
job-1 --until mark-K` against `until grep -q mark-K STDOUT; do sleep 0.1; done`. The
line travels the same path for both (trigger, tail, capture file). Prints two rows of
the bench table: the peer's median and ours, and ours against the 50 ms bar.
"""
import os, statistics, subprocess, sys, time

indus, work, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
os.makedirs(work, exist_ok=True)
run = lambda *a: subprocess.run([indus, "--cwd", work, *a], capture_output=True, text=True, check=True)
trigger = os.path.join(work, "trigger")
open(trigger, "w").close()
run("process", "start", "--command", f"tail -n0 -F {trigger}")
job = os.path.join(work, ".indus-process/jobs/job-1")
stdout = os.path.join(job, "stdout")
time.sleep(0.5)


def timed(make_cmd, k):
    mark = f"mark-{k}"
    waiter = subprocess.Popen(make_cmd(mark), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.15)
    t0 = time.perf_counter()
    with open(trigger, "a") as f:
        f.write(mark + "\n")
    if waiter.wait() != 0:
        sys.exit(f"the waiter for {mark} exited with {waiter.returncode}")
    return (time.perf_counter() - t0) * 1000

ours_cmd = lambda m: [indus, "--cwd", work, "process", "poll", "job-1", "--until", f"^{m}$", "--wait-ms", "10000"]
peer_cmd = lambda m: ["sh", "-c", f"until grep -qx {m} {stdout}; do sleep 0.1; done"]
ours, peer = [], []
for k in range(n):
    peer.append(timed(peer_cmd, f"p{k}"))
    ours.append(timed(ours_cmd, f"o{k}"))
run("process", "stop", "job-1")
p, o = statistics.median(peer), statistics.median(ours)
print(f"poll --until wake-up vs sleep 0.1 loop\tsh\t{p:.2f}\t{o:.2f}\t{o / p:.2f}\t-\t")
print(f"poll --until wake-up, median of {n}\t-\t-\t{o:.2f}\t-\t<= 50 ms\t{'ok' if o <= 50 else 'OVER'}")
print(f"jobs: wake-up p90 ours {sorted(ours)[int(n * 0.9)]:.1f} ms, peer {sorted(peer)[int(n * 0.9)]:.1f} ms", file=sys.stderr)
