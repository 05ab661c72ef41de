#!/usr/bin/env python3
"""calibration.py BUILD [DIR]: how far 'capplan calibrate' carries.

Every public set in DIR (tests/validation) is written as measurements of
'capplan calibrate' by the validation harnesses (validate and
validate_serving --measurements=FILE: each row's workload as --set pairs,
its metric named as the command's JSON names it).  The rows are grouped
by file, source (the case name's tag, up to its first '-'), device and,
for serving under load, engine.  In every group of at least three rows the
first two rows in file order (a fixed rule) calibrate a profile
('capplan calibrate ROWS -o PROFILE'); every other row of the group is
planned with 'capplan train|infer --format json', without and with
--profile PROFILE, and its error and whether the 80% interval holds it
are printed.  specs/calibration.md ("Validation of calibration") gives
the targets and what calibration can and cannot fix.

Exit status 0, or 1 when a row cannot be planned or calibrated; the
figures are printed, not gated (the gates are the targets in
specs/calibration.md, met or not).
"""
import csv
import json
import os
import statistics
import subprocess
import sys
import shutil
import tempfile
from concurrent.futures import ThreadPoolExecutor

CAL_ROWS = 2


def metric_class(metric):
    """The kind of figure a row measures: a user calibrates on what
    they will ask of the plans."""
    if metric.startswith("ttft"):
        return "ttft"
    if metric.startswith("tpot"):
        return "tpot"
    if metric == "latency_s":
        return "latency"
    return "rate"


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def plan(capplan, row, workdir, profile):
    cmd = [capplan, row["command"], os.path.join(workdir, "base.ini"),
           "--gpu", row["gpu"], "--format", "json"]
    for pair in row["set"].split(";"):
        if pair:
            cmd += ["--set", pair]
    if profile:
        cmd += ["--profile", profile]
    rc, out, err = run(cmd)
    if rc not in (0, 1) or not out.strip():
        return None, "status %d: %s" % (rc, err.strip()[:300])
    d = json.loads(out)
    value = d.get(row["metric"])
    band = d.get("interval", {}).get(row["metric"])
    if not isinstance(value, (int, float)) or value <= 0:
        return None, "no %s in the plan" % row["metric"]
    return (value, band, d.get("interval", {}).get("calibrated")), None


def calibrate(capplan, group, rows, root):
    work = os.path.join(root, "g%03d" % group)
    os.makedirs(work)
    with open(os.path.join(work, "base.ini"), "w") as f:
        f.write("# every key of a row is in its 'set'\n")
    cal = os.path.join(work, "cal.csv")
    with open(cal, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["command", "workload", "gpu", "gpus", "set", "metric",
                    "measured"])
        for r in rows[:CAL_ROWS]:
            w.writerow([r["command"], "base.ini", r["gpu"], "", r["set"],
                        r["metric"], r["measured"]])
    prof = os.path.join(work, "profile.ini")
    rc, out, err = run([capplan, "calibrate", cal, "-o", prof,
                        "--format", "json"])
    if rc != 0:
        return work, None, "calibrate: status %d: %s" % (rc, err.strip()[:300])
    return work, prof, None


def main():
    if len(sys.argv) < 2:
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    build = sys.argv[1]
    vdir = os.path.abspath(sys.argv[2] if len(sys.argv) > 2 else
                           os.path.join(os.path.dirname(__file__)))
    capplan = os.path.abspath(os.path.join(build, "capplan"))
    root = tempfile.mkdtemp(prefix="capplan-cal-")
    meas = []
    for tool, name in (("validate", "train.csv"),
                       ("validate_serving", "serve.csv")):
        path = os.path.join(root, name)
        rc, _, err = run([os.path.join(build, "tests", tool), vdir,
                          "--measurements=" + path])
        if not os.path.exists(path):
            print("calibration: %s wrote no measurements: %s" % (tool, err),
                  file=sys.stderr)
            return 1
        with open(path, newline="") as f:
            meas += list(csv.DictReader(f))
    groups = {}
    for r in meas:
        groups.setdefault(r["group"] + ":" + metric_class(r["metric"]),
                          []).append(r)
    groups = [(k, v) for k, v in groups.items() if len(v) > CAL_ROWS]
    jobs = os.cpu_count() or 2
    failed = 0
    with ThreadPoolExecutor(max_workers=jobs) as ex:
        cals = list(ex.map(lambda a: calibrate(capplan, a[0], a[1][1], root),
                           enumerate(groups)))
        tasks = []
        for (key, rows), (work, prof, why) in zip(groups, cals):
            if why:
                print("%s: %s" % (key, why))
                failed += 1
                continue
            for r in rows[CAL_ROWS:]:
                tasks.append((key, r, work, prof))
        before = list(ex.map(lambda t: plan(capplan, t[1], t[2], None),
                             tasks))
        after = list(ex.map(lambda t: plan(capplan, t[1], t[2], t[3]),
                            tasks))
    per_file = {}
    for (key, r, _, _), (b, why_b), (a, why_a) in zip(tasks, before, after):
        if why_b or why_a:
            print("%s: cannot plan: %s" % (r["case"], why_b or why_a))
            failed += 1
            continue
        m = float(r["measured"])
        e0 = b[0] / m - 1.0
        e1 = a[0] / m - 1.0
        cov0 = b[1] is not None and b[1][0] <= m <= b[1][1]
        cov1 = a[1] is not None and a[1][0] <= m <= a[1][1]
        per_file.setdefault(key.split(":")[0], []).append(
            (r["case"], r["metric"], m, e0, e1, cov0, cov1, bool(a[2])))
    print("Calibration on the first %d rows of each group (file, source, "
          "device, engine),\nthe other rows of the group held out: "
          "|predicted / measured - 1| without\nand with the profile, and "
          "the share of them inside the 80%% intervals.\n" % CAL_ROWS)
    print("%-26s %5s %15s %15s %6s %9s %9s" % (
        "file", "rows", "median before", "after", "gain", "covered",
        "before"))
    allrows = []

    def line(name, rows):
        b = [abs(x[3]) for x in rows]
        a = [abs(x[4]) for x in rows]
        mb, ma = statistics.median(b), statistics.median(a)
        print("%-26s %5d %6.1f%% %6.1f%% %6.1f%% %6.1f%% %5.1fx %8.0f%% %8.0f%%"
              % (name, len(rows), 100 * mb, 100 * max(b), 100 * ma,
                 100 * max(a), mb / ma if ma > 0 else float("inf"),
                 100.0 * sum(x[6] for x in rows) / len(rows),
                 100.0 * sum(x[5] for x in rows) / len(rows)))

    for name in sorted(per_file):
        line(name, per_file[name])
        allrows += per_file[name]
    if allrows:
        print()
        line("all held-out rows", allrows)
        print("\n(median and worst; gain = median before / after; covered: "
              "inside the calibrated\n80% interval, before: inside the "
              "validation interval without the profile)")
    if os.environ.get("CALIBRATION_VERBOSE"):
        for name in sorted(per_file):
            for x in per_file[name]:
                print("%-50.50s %-28s %10.4g %+7.1f%% %+7.1f%% %s" % (
                    x[0], x[1], x[2], 100 * x[3], 100 * x[4],
                    "in" if x[6] else "OUT"))
    if not os.environ.get("CALIBRATION_KEEP"):
        shutil.rmtree(root, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
