"""The stamp every bench writes beside its figures: the machine (CPU model, cores, memory, OS) and
the commit it ran at."""

import os
import platform
import subprocess


def machine():
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    mem = 0
    try:
        with open("/proc/meminfo") as f:
            mem = int(f.readline().split()[1]) // (1024 * 1024)
    except (OSError, ValueError, IndexError):
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "memory_gib": mem, "os": platform.platform()}


def commit():
    try:
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                              check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], capture_output=True,
                               text=True).stdout.strip()
        return head + ("+changes" if dirty else "")
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
