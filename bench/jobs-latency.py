"""Wake-up latency of `process poll --until` against a `sleep 0.1` polling loop.

Usage: jobs-latency.py INDUS WORKDIR N

A job `cat` echoes what is written to its stdin FIFO into its captured stdout. Each
trial starts the waiter, gives it 150 ms to settle into its wait, writes one line to
the FIFO and times from the write to the waiter's exit: `indus-tool process poll
job-1 --until mark-K` against `until grep -q mark-K STDOUT; do sleep 0.1; done`. The
line travels the same path for both (FIFO, cat, capture file). Prints two rows of
the bench table: the peer's median and ours, and ours against the 50 ms bar.
"""
import os, statistics, subprocess, sys, time

indus, work, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
os.makedirs(work, exist_ok=True)
run = lambda *a: subprocess.run([indus, "--cwd", work, *a], capture_output=True, text=True, check=True)
run("process", "start", "--command", "cat")
job = os.path.join(work, ".indus-process/jobs/job-1")
fifo = os.open(os.path.join(job, "stdin"), os.O_WRONLY)
stdout = os.path.join(job, "stdout")


def timed(make_cmd, k):
    mark = f"mark-{k}"
    waiter = subprocess.Popen(make_cmd(mark), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(0.15)
    t0 = time.perf_counter()
    os.write(fifo, (mark + "\n").encode())
    waiter.wait()
    return (time.perf_counter() - t0) * 1000

ours_cmd = lambda m: [indus, "--cwd", work, "process", "poll", "job-1", "--until", m, "--wait-ms", "10000"]
peer_cmd = lambda m: ["sh", "-c", f"until grep -q {m} {stdout}; do sleep 0.1; done"]
ours, peer = [], []
for k in range(n):
    peer.append(timed(peer_cmd, f"p{k}"))
    ours.append(timed(ours_cmd, f"o{k}"))
run("process", "stop", "job-1")
p, o = statistics.median(peer), statistics.median(ours)
print(f"poll --until wake-up vs sleep 0.1 loop\tsh\t{p:.2f}\t{o:.2f}\t{o / p:.2f}\t-\t")
print(f"poll --until wake-up, median of {n}\t-\t-\t{o:.2f}\t-\t<= 50 ms\t{'ok' if o <= 50 else 'OVER'}")
print(f"jobs: wake-up p90 ours {sorted(ours)[int(n * 0.9)]:.1f} ms, peer {sorted(peer)[int(n * 0.9)]:.1f} ms", file=sys.stderr)
