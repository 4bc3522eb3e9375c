#!/usr/bin/env python3
"""Self cost per shared object of a callgrind dump, divided by a request count.

    callgrind_objects.py DUMP REQUESTS [EVENT...]

Prints one line per object with the events asked for (default: every event in the dump), largest
Ir first. Reads the dump's own format: `ob=` names the object of the functions that follow, the
line after `calls=` is a call's inclusive cost (skipped: only self costs are summed), and names
may be compressed to "(id)" after their first use (in an `ob=` or a `cob=` line).
"""
import collections
import sys


def main():
    path, requests = sys.argv[1], float(sys.argv[2])
    wanted = sys.argv[3:]
    events, names, totals = [], {}, collections.defaultdict(lambda: None)
    current, skip_next = "?", False

    def name_of(value):
        value = value.strip()
        if value.startswith("("):
            ident, _, rest = value.partition(")")
            rest = rest.strip()
            if rest:
                names[ident] = rest
            return names.get(ident, value)
        return value

    with open(path) as dump:
        for line in dump:
            if line.startswith("events:"):
                events = line.split()[1:]
            elif line.startswith("ob="):
                current = name_of(line[3:]).rsplit("/", 1)[-1]
            elif line.startswith("cob="):
                name_of(line[4:])  # a first use defines the id for later ob= lines
            elif line.startswith("calls="):
                skip_next = True
            elif line[:1].isdigit() or line[:1] in "+-*":
                if skip_next:
                    skip_next = False
                    continue
                values = [int(v) for v in line.split()[1:]]
                row = totals[current] or [0] * len(events)
                for i, v in enumerate(values):
                    row[i] += v
                totals[current] = row
    columns = [events.index(e) for e in wanted] if wanted else list(range(len(events)))
    print("object " + " ".join(events[c] for c in columns))
    everything = [0] * len(events)
    for obj, row in sorted(totals.items(), key=lambda kv: -kv[1][0]):
        everything = [a + b for a, b in zip(everything, row)]
        print(obj + " " + " ".join(f"{row[c] / requests:.0f}" for c in columns))
    print("all " + " ".join(f"{everything[c] / requests:.0f}" for c in columns))


if __name__ == "__main__":
    main()
