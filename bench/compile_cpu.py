#!/usr/bin/env python3
"""CPU time (user + system) to compile a target's translation units one after the other.

  bench/compile_cpu.py BUILD_DIR OBJECT_PART   e.g. build/release jetchar_jetson.dir

Runs each command of BUILD_DIR/compile_commands.json whose object path contains OBJECT_PART, without
ccache and writing its object to a temporary file, and prints each unit's CPU seconds and the total.
CPU time, not wall time: it holds on a machine that runs other work (docs/building.md)."""
import json
import os
import re
import resource
import shlex
import subprocess
import sys
import tempfile


def cpu_seconds(args, cwd):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(args, cwd=cwd, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    build, part = sys.argv[1], sys.argv[2]
    units = []
    for entry in json.load(open(os.path.join(build, 'compile_commands.json'))):
        obj = re.search(r' -o (\S+)', entry['command'])
        if obj and part in obj.group(1):
            units.append(entry)
    if not units:
        sys.exit(f'compile_cpu.py: no unit of {build} has an object path containing {part!r}')
    total = 0.0
    with tempfile.TemporaryDirectory() as tmp:
        for entry in units:
            args = shlex.split(entry['command'])
            if os.path.basename(args[0]) == 'ccache':
                args = args[1:]
            at = args.index('-o')
            args[at + 1] = os.path.join(tmp, 'unit.o')
            seconds = cpu_seconds(args, entry['directory'])
            total += seconds
            print(f'{seconds:7.1f} s  {os.path.relpath(entry["file"], entry["directory"])}', flush=True)
    print(f'{total:.1f} s of CPU over {len(units)} translation units')


if __name__ == '__main__':
    main()
