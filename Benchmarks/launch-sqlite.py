#!/usr/bin/env python3
"""The SQLite side of the launch benchmark (`store/launch-…`).

  launch-sqlite.py make DB COUNT   writes the people of the Swift benchmark's
                                   `People.make(COUNT)` (the same generator,
                                   the same rows) into a new SQLite database
                                   with an index on name
  launch-sqlite.py launch DB       what Core Data does for a controller sorted
                                   by name with a batch size: every row id in
                                   name order (read from the index), then the
                                   first batch of 50 rows; prints its figures
                                   as JSON (peak memory from getrusage)
"""
import json, os, resource, sqlite3, sys, time

FIRST = ["Anna", "Ben", "Carla", "Dário", "Emre", "Fatma", "Greta", "Hugo", "Ines", "Jonas", "Kai", "Lena", "Mia", "Noah",
         "Olga", "Paul", "Quentin", "Rosa", "Sven", "Tilda", "Ümit", "Vera", "Wim", "Xenia", "Yusuf", "Zoë"]
LAST = ["Müller", "Münalp", "Mundt", "Kalinowski", "Kaya", "Schmidt", "Nguyen", "García", "Öztürk", "Novák", "Rossi",
        "Dubois", "Jensen", "Kowalski", "Smith", "Tanaka", "Ivanova", "Hoang", "Eriksson", "Fischer", "Okafor", "Petrov",
        "Quinn", "Berg", "Chen", "López", "Şahin", "Weiß", "Lindqvist", "Ahmed"]
CITIES = ["City %03d" % k for k in range(100)]
MASK = (1 << 64) - 1


def people(count, seed=25):
    state = seed
    def next_value():
        nonlocal state
        state = (state + 0x9E3779B97F4A7C15) & MASK
        z = state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)
    for id in range(count):
        first = FIRST[next_value() % len(FIRST)]
        last = LAST[next_value() % len(LAST)]
        name = "%s %s %d" % (first, last, next_value() % 1000)
        city = CITIES[next_value() % 100]
        age = next_value() % 90
        yield (id, name, city, age)


def make(path, count):
    if os.path.exists(path):
        os.remove(path)
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE people (id INTEGER PRIMARY KEY, name TEXT, city TEXT, age INTEGER)")
    db.executemany("INSERT INTO people VALUES (?, ?, ?, ?)", people(count))
    db.execute("CREATE INDEX people_name ON people (name)")
    db.commit()
    db.close()


def launch(path):
    start = time.monotonic()
    db = sqlite3.connect(path)
    ids = [row[0] for row in db.execute("SELECT id FROM people ORDER BY name")]
    fetched = time.monotonic()
    first = ids[:50]
    rows = db.execute("SELECT id, name, city, age FROM people WHERE id IN (%s)" % ",".join("?" * len(first)), first).fetchall()
    by_id = {row[0]: row for row in rows}
    screen = "\n".join("%s  %s" % (by_id[i][1], by_id[i][2]) for i in first[:24])
    done = time.monotonic()
    print(json.dumps({"fetch": (fetched - start) * 1e3, "frame": (done - start) * 1e3, "rows": len(ids),
                      "peakKiB": peak_kib(), "first": screen.split("\n")[0]}))


def peak_kib():
    """This process's peak resident memory in KiB: VmHWM on Linux (ru_maxrss
    there keeps the peak of the process before exec, the benchmark that
    spawned this one), getrusage on macOS (bytes there)."""
    try:
        with open("/proc/self/status") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // 1024 if sys.platform == "darwin" else peak


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "make":
        make(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) == 3 and sys.argv[1] == "launch":
        launch(sys.argv[2])
    else:
        sys.exit(__doc__)
