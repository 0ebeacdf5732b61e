"""pool.py - multiprocessing.Pool(2) with the fork start method: the workers
are forked from the interpreter without exec, so their samples resolve only
through the maps they inherited.  Each task runs for MS ms of its thread's
CPU time (never an assumed iteration count).

    python3 pool.py MS
"""
import multiprocessing
import sys
import time


def work(ms):
    end = time.thread_time_ns() + int(ms * 1e6)
    s = 0
    while time.thread_time_ns() < end:
        for i in range(1000):
            s += i * i
    return s


if __name__ == "__main__":
    ms = float(sys.argv[1]) if len(sys.argv) > 1 else 100
    with multiprocessing.get_context("fork").Pool(2) as pool:
        pool.map(work, [ms] * 8)
