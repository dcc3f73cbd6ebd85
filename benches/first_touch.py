#!/usr/bin/env python3
"""What memory touched for the first time costs on this machine, per MiB.

    python3 benches/first_touch.py [--runs N] [--mib M]

Maps M MiB of anonymous memory (64 by default) N times (12) with transparent huge
pages asked for (`MADV_HUGEPAGE`, as mcp-warden's allocator asks for its chunks) and
N times without (`MADV_NOHUGEPAGE`: 4 KiB pages), writes one byte per 4 KiB page,
and prints each run's milliseconds per MiB and their median. Both of mcp-warden's
processes (and the floor's) pay this for every page they touch; on a virtual
machine the figure also carries the host's cost of backing guest memory that was
never touched before, which is what makes it vary from run to run. Nothing is
asserted.
"""
import argparse
import mmap
import statistics
import time

PAGE = 4096
MIB = 1 << 20


def touch_once(size, huge):
    m = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    m.madvise(mmap.MADV_HUGEPAGE if huge else mmap.MADV_NOHUGEPAGE)
    start = time.perf_counter()
    for offset in range(0, size, PAGE):
        m[offset] = 1
    elapsed = time.perf_counter() - start
    m.close()
    return elapsed * 1000 / (size / MIB)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=12)
    ap.add_argument("--mib", type=int, default=64)
    args = ap.parse_args()
    size = args.mib * MIB
    # The loop's own cost, to subtract: the same writes to memory already touched.
    m = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    for offset in range(0, size, PAGE):
        m[offset] = 1
    start = time.perf_counter()
    for offset in range(0, size, PAGE):
        m[offset] = 2
    loop = (time.perf_counter() - start) * 1000 / args.mib
    m.close()
    print(f"loop overhead (subtracted): {loop:.3f} ms per MiB")
    for huge, name in ((True, "huge pages (MADV_HUGEPAGE)"), (False, "4 KiB pages")):
        runs = [max(0.0, touch_once(size, huge) - loop) for _ in range(args.runs)]
        shown = " ".join(f"{r:.2f}" for r in runs)
        print(f"{name}: median {statistics.median(runs):.3f} ms per MiB, "
              f"min {min(runs):.3f}, max {max(runs):.3f}; runs: {shown}")


if __name__ == "__main__":
    main()
