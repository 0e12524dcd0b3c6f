#!/usr/bin/env python3
"""The big-file benchmark: `headless-table` on a generated JSON array, beside Python.

    python3 Benchmarks/big-file.py run [--objects 2080000] [--seed 1] [--tool PATH] [--dir /tmp]
    python3 Benchmarks/big-file.py generate [--objects N] [--seed S] [--changed] OUT

`run` generates two files with the seeded generator (OLD, about 200 MB at the
default size, and NEW: OLD with 1% of the objects deleted, 1% inserted, 1%
changed and a few moved), then measures with `/usr/bin/time -v`, one after
another in this one run:

- `python3 -c 'import json,sys; json.load(open(sys.argv[1]))' OLD`
- `headless-table query OLD` (the release build; its output to /dev/null)
- `headless-table query OLD --where 'age >= 40' --sort city,name` (the store and the controller)
- `headless-table diff OLD NEW` and `headless-table diff OLD OLD`

and prints the wall times, the maximum resident set sizes and the ratios to
its goals as JSON: `query` within 1.5x Python's time and 2x the
file's size in memory, `diff` of two such files within 2.5x the file's size.
The files are deleted at the end (`--keep` keeps them).

Build the tool first: `swift build -c release --product headless-table`.
`generate` writes one file (the CI-sized test reads one of a few MB).

    python3 Benchmarks/big-file.py memory [--objects 900000] [--seed 1] [--tool PATH] [--dir /tmp]

`memory` measures what the store and a controller over a file's objects hold
(the goal: at most 2.5x the file at peak; python's json.load holds about 6x):
it generates a file of people with an email and tags (about 141 bytes an
object: 127 MB at the default size), and prints the maximum resident set
size of `python3 json.load`, `query --sort age --limit 1`, `query --where
'age >= 40' --sort city,name --limit 1` and `render` (the data's order),
`render --sort name`, and `browse --sort name` in a pseudo-terminal (its
first screen, then a search for `a` until every result is found, then q;
typed 3 s after the first screen, once the search index is made, and at
once), each as a ratio to the file's size.
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile

FIRST = ["Anna", "Ben", "Chloé", "Dmitri", "Elif", "Farah", "Gustav", "Hana", "Ivan", "Jürgen", "Kenji", "Lena",
         "Maria", "Noah", "Olga", "Pedro", "Quinn", "Rosa", "Sven", "Tomás", "Uma", "Viktor", "Wei", "Yara", "Zoë"]
LAST = ["Smith", "Müller", "García", "Rossi", "Kowalski", "Nakamura", "Ivanova", "Dubois", "Andersson", "Novák",
        "Öztürk", "Silva", "Jensen", "O'Brien", "Kim", "Wang", "Nguyen", "Sato", "Berg", "Lee"]
CITIES = ["Berlin", "München", "Zürich", "Paris", "London", "New York", "São Paulo", "Tokyo", "Kraków", "Oslo",
          "Lisbon", "Wien", "Toronto", "Seoul", "Madrid", "Rome"]


def person(rng, id):
    """One object: about 96 bytes of JSON (ints, doubles, strings with accents, bools, arrays)."""
    return {
        "id": id,
        "name": rng.choice(FIRST) + " " + rng.choice(LAST),
        "city": rng.choice(CITIES),
        "age": rng.randint(18, 90),
        "score": round(rng.uniform(0, 100), 2),
        "active": rng.random() < 0.7,
        "tags": rng.sample(["a", "b", "c", "d"], rng.randint(0, 2)),
    }


TAGS = ["admin", "beta", "customer", "staff", "vip", "newsletter", "trial"]


def member(rng, id):
    """One object of the memory benchmark: about 141 bytes of JSON, an email and 0-2 tags."""
    first, last = rng.choice(FIRST), rng.choice(LAST)
    return {
        "id": id,
        "name": first + " " + last,
        "city": rng.choice(CITIES),
        "age": rng.randint(18, 90),
        "email": "%s.%s%d@mail.de" % (first.lower(), last.lower().replace("'", ""), rng.randrange(1000)),
        "score": round(rng.uniform(0, 100), 2),
        "active": rng.random() < 0.7,
        "tags": rng.sample(TAGS, rng.randint(0, 2)),
    }


def generate_members(path, count, seed):
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as out:
        out.write("[\n")
        for k in range(count):
            if k:
                out.write(",\n")
            out.write(json.dumps(member(rng, k + 1), ensure_ascii=False, separators=(",", ":")))
        out.write("\n]\n")
    return os.path.getsize(path)


def objects(count, seed, changed):
    """The objects of OLD, or of NEW (`changed`): deletes, inserts, updates and moves."""
    rng = random.Random(seed)
    items = [person(rng, id) for id in range(1, count + 1)]
    if changed:
        rng = random.Random(seed + 1)
        items = [item for item in items if rng.random() >= 0.01]
        for item in rng.sample(items, len(items) // 100):
            item["score"] = round(item["score"] + 1, 2)
        inserts = sorted((rng.randrange(len(items) + 1), k) for k in range(count // 100))
        merged, at = [], 0
        for place, k in inserts:
            merged.extend(items[at:place])
            at = place
            merged.append(person(rng, count + 1 + k))
        merged.extend(items[at:])
        items = merged
        for _ in range(10):
            items.insert(rng.randrange(len(items)), items.pop(rng.randrange(len(items))))
    return items


def generate(path, count, seed, changed=False):
    with open(path, "w", encoding="utf-8") as out:
        out.write("[\n")
        first = True
        for item in objects(count, seed, changed):
            if not first:
                out.write(",\n")
            out.write(json.dumps(item, ensure_ascii=False, separators=(",", ":")))
            first = False
        out.write("\n]\n")
    return os.path.getsize(path)


def measure(command):
    """Wall seconds and max RSS in bytes of `command`, by /usr/bin/time -v."""
    with open(os.devnull, "w") as devnull:
        run = subprocess.run(["/usr/bin/time", "-v"] + command, stdout=devnull, stderr=subprocess.PIPE, text=True)
    report = run.stderr
    if run.returncode != 0:
        raise SystemExit("failed (%d): %s\n%s" % (run.returncode, " ".join(command), report[-2000:]))
    wall = re.search(r"Elapsed \(wall clock\) time \(h:mm:ss or m:ss\): (?:(\d+):)?(\d+):([\d.]+)", report)
    seconds = int(wall.group(1) or 0) * 3600 + int(wall.group(2)) * 60 + float(wall.group(3))
    rss = int(re.search(r"Maximum resident set size \(kbytes\): (\d+)", report).group(1)) * 1024
    return {"seconds": round(seconds, 2), "maxRSSMB": round(rss / 1e6, 1), "rss": rss}


def measure_browse(tool, path, text, settle, seconds=600):
    """Wall seconds and max RSS in bytes of `browse PATH --sort name` in a
    pseudo-terminal of 80 x 24: `settle` seconds after its first screen is
    drawn (as a person reads it; the search index is made meanwhile), `/`,
    TEXT, and when every result is found (the title says `N found`, not
    `N… found`), Esc and q."""
    import fcntl
    import pty
    import select
    import struct
    import termios
    import time
    start = time.monotonic()
    pid, fd = pty.fork()
    if pid == 0:
        os.execv(tool, [tool, "browse", path, "--sort", "name"])
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    seen = b""

    def wait_for(pattern):
        nonlocal seen
        while not re.search(pattern, seen):
            if time.monotonic() - start > seconds:
                os.kill(pid, 9)
                raise SystemExit("browse: waited %d s for %r; the last output: %r" % (seconds, pattern, seen[-400:]))
            ready, _, _ = select.select([fd], [], [], 1)
            if ready:
                try:
                    seen = (seen + os.read(fd, 65536))[-8192:]
                except OSError:
                    raise SystemExit("browse ended before %r; the last output: %r" % (pattern, seen[-400:]))

    wait_for(rb" objects")
    time.sleep(settle)
    os.write(fd, b"/")
    time.sleep(0.2)
    seen = b""
    os.write(fd, text.encode())
    wait_for(rb"\d found")
    os.write(fd, b"\x1b")
    time.sleep(0.2)
    os.write(fd, b"q")
    while True:   # read until the terminal closes, so that browse never blocks writing
        try:
            if not os.read(fd, 65536):
                break
        except OSError:
            break
    _, status, usage = os.wait4(pid, 0)
    if status != 0:
        raise SystemExit("browse failed (status %d)" % status)
    # ru_maxrss: kilobytes on Linux, bytes on macOS.
    rss = usage.ru_maxrss * (1 if sys.platform == "darwin" else 1024)
    return {"seconds": round(time.monotonic() - start, 2), "maxRSSMB": round(rss / 1e6, 1), "rss": rss}


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="mode", required=True)
    gen = sub.add_parser("generate", help="write one file")
    gen.add_argument("out")
    gen.add_argument("--objects", type=int, default=2_080_000)
    gen.add_argument("--seed", type=int, default=1)
    gen.add_argument("--changed", action="store_true", help="the NEW file: OLD with deletes, inserts, updates, moves")
    run = sub.add_parser("run", help="generate, measure, print JSON")
    run.add_argument("--objects", type=int, default=2_080_000)
    run.add_argument("--seed", type=int, default=1)
    run.add_argument("--tool", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".build", "release", "headless-table"))
    run.add_argument("--dir", default=tempfile.gettempdir())
    run.add_argument("--keep", action="store_true")
    memory = sub.add_parser("memory", help="peak memory of the store and a controller, as ratios to the file")
    memory.add_argument("--objects", type=int, default=900_000)
    memory.add_argument("--seed", type=int, default=1)
    memory.add_argument("--tool", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".build", "release", "headless-table"))
    memory.add_argument("--dir", default=tempfile.gettempdir())
    memory.add_argument("--keep", action="store_true")
    args = parser.parse_args()

    if args.mode == "memory":
        if not os.access(args.tool, os.X_OK):
            raise SystemExit("no tool at %s: build it with `swift build -c release --product headless-table` or pass --tool" % args.tool)
        folder = tempfile.mkdtemp(prefix="big-file-memory-", dir=args.dir)
        try:
            path = os.path.join(folder, "members.json")
            size = generate_members(path, args.objects, args.seed)
            runs = {
                "python json.load": [sys.executable, "-c", "import json,sys; json.load(open(sys.argv[1]))", path],
                "query --sort age --limit 1": [args.tool, "query", path, "--sort", "age", "--limit", "1", "--quiet"],
                "query --where 'age >= 40' --sort city,name --limit 1": [args.tool, "query", path, "--where", "age >= 40", "--sort", "city,name", "--limit", "1", "--quiet"],
                "render": [args.tool, "render", path, "--quiet"],
                "render --sort name": [args.tool, "render", path, "--sort", "name", "--quiet"],
            }
            results = {"objects": args.objects, "fileMB": round(size / 1e6, 1)}
            for name, command in runs.items():
                measured = measure(command)
                measured["maxRSS / file (goal <= 2.5)"] = round(measured.pop("rss") / size, 2)
                results[name] = measured
            for settle in [3, 0]:
                measured = measure_browse(args.tool, path, "a", settle)
                measured["maxRSS / file (goal <= 2.5)"] = round(measured.pop("rss") / size, 2)
                results["browse --sort name, the search 'a' %d s after the first screen" % settle] = measured
            print(json.dumps(results, indent=2, ensure_ascii=False))
        finally:
            if args.keep:
                print("kept %s" % folder, file=sys.stderr)
            else:
                shutil.rmtree(folder, ignore_errors=True)
        return

    if args.mode == "generate":
        size = generate(args.out, args.objects, args.seed, args.changed)
        print(json.dumps({"path": args.out, "objects": args.objects, "bytes": size}))
        return

    if not os.access(args.tool, os.X_OK):
        raise SystemExit("no tool at %s: build it with `swift build -c release --product headless-table` or pass --tool" % args.tool)
    folder = tempfile.mkdtemp(prefix="big-file-", dir=args.dir)
    try:
        old, new = os.path.join(folder, "old.json"), os.path.join(folder, "new.json")
        size = generate(old, args.objects, args.seed)
        generate(new, args.objects, args.seed, changed=True)
        python = measure([sys.executable, "-c", "import json,sys; json.load(open(sys.argv[1]))", old])
        query = measure([args.tool, "query", old])
        sorted_query = measure([args.tool, "query", old, "--where", "age >= 40", "--sort", "city,name"])
        diff = measure([args.tool, "diff", old, new])
        diff_same = measure([args.tool, "diff", old, old])
        results = {
            "objects": args.objects,
            "fileMB": round(size / 1e6, 1),
            "python json.load": python,
            "query": query,
            "query --where --sort": sorted_query,
            "diff OLD NEW": diff,
            "diff OLD OLD": diff_same,
            "ratios": {
                "query time / python (goal <= 1.5)": round(query["seconds"] / python["seconds"], 2),
                "query max RSS / file (goal <= 2)": round(query["rss"] / size, 2),
                "diff max RSS / file (goal <= 2.5)": round(diff["rss"] / size, 2),
                "query --where --sort time / python": round(sorted_query["seconds"] / python["seconds"], 2),
                "query --where --sort max RSS / file": round(sorted_query["rss"] / size, 2),
                "diff time / python": round(diff["seconds"] / python["seconds"], 2),
            },
        }
        for entry in results.values():
            if isinstance(entry, dict):
                entry.pop("rss", None)
        print(json.dumps(results, indent=2, ensure_ascii=False))
    finally:
        if args.keep:
            print("kept %s" % folder, file=sys.stderr)
        else:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
