#!/usr/bin/env python3
"""update_results.py RESULTS.md SECTION.md: replaces the section whose '## ' heading matches the
first line of SECTION.md (up to the next '## ' heading), or appends it."""
import sys
path, section = sys.argv[1], open(sys.argv[2]).read().rstrip('\n') + '\n'
heading = section.splitlines()[0].strip()
lines = open(path).read().splitlines(keepends=True)
out, i, done = [], 0, False
while i < len(lines):
    if lines[i].strip() == heading and not done:
        j = i + 1
        while j < len(lines) and not lines[j].startswith('## '): j += 1
        out.append(section + ('\n' if j < len(lines) else ''))
        i, done = j, True
        continue
    out.append(lines[i]); i += 1
if not done:
    if out and not out[-1].endswith('\n'): out.append('\n')
    out.append('\n' + section)
open(path, 'w').writelines(out)
