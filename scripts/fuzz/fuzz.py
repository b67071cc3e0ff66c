#!/usr/bin/env python3
"""Mutation fuzzer for tile-opt (Python 3.11, stdlib only).

Seeds are the `*.mlir` files under test/ and examples/ (split at `// -----`, comment
lines dropped). Every case picks a seed, a pipeline and 1-4 mutations with
`random.Random(f"{seed}-{case}")`, so a (seed, case) pair always builds the same mutant.
tile-opt reads the mutant from stdin and writes to /dev/null; a run is ok, diag (rc 1
with `error:`), other, crash (a signal or LLVM's crash texts) or hang (past --timeout,
confirmed at 3x the time, or past --mem-mb of resident memory).

A crash's signature is the first three project-or-MLIR frames of LLVM's symbolized
stack dump (else the LLVM ERROR/assertion text, else the signal); a hang's is its first
three project frames, from gdb (or from the dump SIGABRT makes LLVM print). It is
"project" when a frame of ours (tile::, mlir::tile::, or a function that build/lib/*.a
defines) lies above the pass-manager or parser frames, else "upstream". The first
reproducer of a new signature is minimized by greedy line deletion and written to
OUT/<kind>-<class>-<function>-<hash>.mlir; OUT/signatures.json accumulates counts over
the campaigns that share OUT (a signature with a reproducer is not minimized again).

Usage:
  scripts/fuzz/fuzz.py --runs 5000 --jobs 2                # fuzz, report, exit 1 on a project crash or a hang
  scripts/fuzz/fuzz.py --seconds 600 --seed 7 --out /tmp/fuzz-out
  scripts/fuzz/fuzz.py --pipelines parse,lower-tile-ops --runs 1000
  scripts/fuzz/fuzz.py --ci                                 # fixed seed and budget, < 60 s on 2 cores
  scripts/fuzz/fuzz.py --recheck --out /tmp/fuzz-out       # which stored reproducers still fail
  scripts/fuzz/fuzz.py --list-pipelines
"""
import argparse
import concurrent.futures as cf
import hashlib
import json
import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PIPELINES = {
    "parse": [],
    "check-target": ["--tile-check-target=chip=sm_90a"],
    "check-target-sm80": ["--tile-check-target=chip=sm_80"],
    "lower-tile-ops": ["--tile-lower-tile-ops"],
    "verify-protocol": ["--tile-verify-async-protocol"],
    "swizzle": ["--tile-swizzle-accesses"],
    "bank-conflicts": ["--tile-analyze-bank-conflicts"],
    "bank-conflicts-apply": ["--tile-analyze-bank-conflicts=apply"],
    "to-nvvm": ["--convert-tile-to-nvvm"],
    "pipeline-copies": ["--tile-pipeline-async-copies"],
    "layout-algebra": ["--tile-test-layout-algebra"],
    "host": ["--tile-kernel-manifest", "--tile-stream-order-host-launches",
             "--tile-tensor-maps-by-value"],
    "tile-chain": ["--tile-pipeline-async-copies", "--tile-lower-tile-ops",
                   "--tile-verify-async-protocol", "--tile-swizzle-accesses",
                   "--tile-analyze-bank-conflicts", "--convert-tile-to-nvvm"],
    "ptx-sm90a": ["--tile-to-ptx-pipeline=chip=sm_90a"],
    "ptx-sm80": ["--tile-to-ptx-pipeline=chip=sm_80"],
}

CRASH_MARKERS = ("Stack dump", "PLEASE submit a bug report", "LLVM ERROR",
                 "UNREACHABLE", "Assertion")

# ----------------------------------------------------------------------------
# Seeds


def load_seeds(dirs):
    """Return the distinct, comment-free `// -----` chunks of every seed file."""
    chunks = {}
    for d in dirs:
        for path in sorted(Path(d).rglob("*.mlir")):
            text = path.read_text(errors="replace")
            for chunk in re.split(r"(?m)^// -----.*$", text):
                lines = [l for l in chunk.splitlines()
                         if l.strip() and not l.lstrip().startswith("//")]
                if lines:
                    chunks.setdefault("\n".join(lines) + "\n", path)
    return list(chunks)


# ----------------------------------------------------------------------------
# Mutations: each takes (text, rng) and returns the new text (or the old one
# when it finds nothing to change).

TYPE_RE = re.compile(r"(?:(?<=\W)|(?<=\dx))(bf16|f16|f32|f64|tf32|f8E4M3FN|f8E5M2|"
                     r"i1|i8|i16|i32|i64|index)\b")
NEW_TYPES = ["f16", "bf16", "f32", "f64", "i1", "i8", "i32", "i64", "index", "tf32",
             "f8E4M3FN", "vector<4xf32>", "complex<f32>", "memref<4xf32>", "none"]
INT_RE = re.compile(r"(?<![\w%#@.$-])-?\d+(?![\w.])")
DIM_RE = re.compile(r"(?<=[<x])(\d+|\?)(?=x)")
ATTR_RE = re.compile(r"(?:[#!]tile\.\w+|array)<[^>]*>|\b\w+ = -?\d+")
CONST_RE = re.compile(r"(arith\.constant\s+)([^:{\n]+?)(\s*:)")
SSA_RE = re.compile(r"%[\w$.-]+")
KEYWORD_GROUPS = [
    ["cg", "ca"], ["b32", "b64", "b128", "b256", "none"],
    ["workgroup", "global", "private", "constant"],
    ["sm_75", "sm_80", "sm_86", "sm_89", "sm_90", "sm_90a", "sm_100a"],
    ["x", "y", "z"], ["eq", "ne", "slt", "sle", "sgt", "ult", "uge"],
    ["true", "false"],
]
KEYWORD_RE = re.compile(r"\b(%s)\b" % "|".join(sorted({w for g in KEYWORD_GROUPS for w in g})))
GARBAGE = "{}()<>[]%@#^:,=?x0123456789-\"! \n"


def interesting_ints(n, rng):
    """Boundary values plus neighbours of n."""
    return [0, 1, -1, 2, 3, 7, 8, 16, 32, 128, 255, 256, 1 << 20, 2**31 - 1, 2**31,
            2**32 + 1, 2**63 - 1, -2**63, 2**64, n - 1, n + 1, n * 2, -n,
            rng.randrange(-4, 300)]


def replace_match(text, regex, rng, make, everywhere=False):
    """Replace one random match m of regex with make(m), a value other than m[0];
    with everywhere, every match equal to m[0] (a consistent change)."""
    ms = list(regex.finditer(text))
    if not ms:
        return text
    m = rng.choice(ms)
    new = next((v for v in (make(m) for _ in range(5)) if v != m[0]), m[0])
    if everywhere:
        return regex.sub(lambda n: new if n[0] == m[0] else n[0], text)
    return text[:m.start()] + new + text[m.end():]


def mut_type(t, rng):
    """Swap an element type in a type position, in half the cases everywhere."""
    return replace_match(t, TYPE_RE, rng, lambda m: rng.choice(NEW_TYPES), rng.random() < 0.5)


def mut_int(t, rng):
    """Change an integer literal to a boundary or neighbour value."""
    return replace_match(t, INT_RE, rng, lambda m: str(rng.choice(interesting_ints(int(m[0]), rng))))


def mut_dim(t, rng):
    """Change a shaped type's dimension (?, 0, 1, huge, neighbour), in half the cases everywhere."""
    def new(m):
        n = 0 if m[0] == "?" else int(m[0])
        return str(rng.choice(["?", 0, 1, 2, 3, n + 1, max(n - 1, 0), n * 2, n // 2, 1 << 20, 2**31, 2**40]))
    return replace_match(t, DIM_RE, rng, new, rng.random() < 0.5)


def mut_attr(t, rng):
    """Change a number inside a tile attribute/type, an array<> or a `name = N` attribute."""
    spans = [m.span() for m in ATTR_RE.finditer(t)]
    ms = [m for m in INT_RE.finditer(t) if any(a <= m.start() < b for a, b in spans)]
    if not ms:
        return t
    m = rng.choice(ms)
    new = str(rng.choice([v for v in interesting_ints(int(m[0]), rng) if v != int(m[0])]))
    return t[:m.start()] + new + t[m.end():]


def mut_keyword(t, rng):
    """Swap a keyword (cache mode, swizzle mode, address space, chip, predicate, ...)."""
    def new(m):
        return rng.choice([g for g in KEYWORD_GROUPS if m[0] in g][0])
    return replace_match(t, KEYWORD_RE, rng, new)


def mut_constant(t, rng):
    """Change an arith.constant's value."""
    vals = ["0", "1", "-1", "2147483648", "4294967297", "1048576", "-9223372036854775808",
            "0.0", "-0.0", "1.0e+38", "0x7FC00000", "true", "dense<0>"]
    return replace_match(t, CONST_RE, rng, lambda m: m[1] + rng.choice(vals) + m[3])


def mut_operand(t, rng):
    """Replace an SSA value use with another value name of the same text."""
    names = sorted(set(SSA_RE.findall(t)))
    if len(names) < 2:
        return t
    return replace_match(t, SSA_RE, rng, lambda m: rng.choice(names))


def _lines(t, rng):
    lines = t.splitlines()
    return lines, (rng.randrange(1, len(lines) - 1) if len(lines) > 2 else None)


def mut_drop_line(t, rng):
    """Delete an operation line."""
    lines, i = _lines(t, rng)
    return t if i is None else "\n".join(lines[:i] + lines[i + 1:]) + "\n"


def mut_dup_line(t, rng):
    """Duplicate an operation line."""
    lines, i = _lines(t, rng)
    return t if i is None else "\n".join(lines[:i + 1] + lines[i:]) + "\n"


def mut_swap_lines(t, rng):
    """Swap two nearby lines of the same indentation (same block, usually)."""
    lines, i = _lines(t, rng)
    if i is None:
        return t
    ind = len(lines[i]) - len(lines[i].lstrip())
    js = [j for j in range(max(1, i - 8), min(len(lines) - 1, i + 9))
          if j != i and len(lines[j]) - len(lines[j].lstrip()) == ind]
    if not js:
        return t
    j = rng.choice(js)
    lines[i], lines[j] = lines[j], lines[i]
    return "\n".join(lines) + "\n"


def mut_delete(t, rng):
    """Delete a random span of 1-20 characters or one whitespace-separated token."""
    if not t:
        return t
    toks = list(re.finditer(r"\S+", t))
    if toks and rng.random() < 0.5:
        m = rng.choice(toks)
        return t[:m.start()] + t[m.end():]
    i = rng.randrange(len(t))
    return t[:i] + t[i + rng.randint(1, 20):]


def mut_truncate(t, rng):
    """Cut the text at a random point."""
    return t[:rng.randrange(len(t) + 1)]


def mut_garbage(t, rng):
    """Insert random punctuation or a token copied from elsewhere in the text."""
    i = rng.randrange(len(t) + 1)
    if rng.random() < 0.5:
        junk = "".join(rng.choice(GARBAGE) for _ in range(rng.randint(1, 8)))
    else:
        toks = re.findall(r"\S+", t) or ["}"]
        junk = " " + rng.choice(toks) + " "
    return t[:i] + junk + t[i:]


PARSE_PRESERVING = [(mut_type, 3), (mut_int, 3), (mut_dim, 3), (mut_attr, 3), (mut_keyword, 2),
                    (mut_constant, 2), (mut_operand, 1), (mut_drop_line, 2), (mut_dup_line, 2),
                    (mut_swap_lines, 2)]
BREAKING = [(mut_delete, 2), (mut_truncate, 1), (mut_garbage, 2)]


def mutate(text, rng):
    """Apply 1-4 mutations (15% of them parse-breaking); return (text, names)."""
    names = []
    for _ in range(rng.choice([1, 1, 2, 2, 3, 4])):
        pool = BREAKING if rng.random() < 0.15 else PARSE_PRESERVING
        fn = rng.choices([f for f, _ in pool], [w for _, w in pool])[0]
        text = fn(text, rng)
        names.append(fn.__name__[4:])
    return text, names


# ----------------------------------------------------------------------------
# Running and classifying


@dataclass
class Outcome:
    kind: str                  # ok | diag | other | crash | hang
    sig: str = ""              # crash/hang signature
    cls: str = ""              # project | upstream
    what: str = ""             # signal, LLVM ERROR or assertion text
    stderr: str = field(default="", repr=False)


FRAME_RE = re.compile(r"^\s*#\d+ 0x[0-9a-f]+ (.*)$")
INFRA_RE = re.compile(r"^(llvm::sys::|SignalHandler|__|_start|call_init|abort|raise|gsignal|"
                      r"pthread_kill|llvm::report_fatal_error|llvm::reportFatal|"
                      r"llvm::llvm_unreachable_internal|std::terminate|_Unwind)")
DRIVER_RE = re.compile(r"mlir::detail::OpToOpPassAdaptor::|mlir::PassManager::run|mlir::MlirOptMain|"
                       r"^tile::tileOptMain|mlir::parseSourceFile|mlir::parseAsmSourceFile|"
                       r"mlir::detail::Parser::|OperationParser::|performActions")
PROJECT_NS_RE = re.compile(r"(^|[^\w])(tile|tile_tma|tma)::")
PROJECT_FUNCS = set()   # short names of the functions our static libraries define (nm t/T)


def load_project_funcs(build_dir):
    """Collect the functions defined (not inline-instantiated) in build/lib/*.a."""
    libs = sorted(Path(build_dir, "lib").glob("*.a"))
    if not libs or not shutil.which("nm"):
        return
    out = subprocess.run(["nm", "-C", "--defined-only", *map(str, libs)],
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[1] in ("t", "T"):
            PROJECT_FUNCS.add(short_name(parts[2]))


def parse_frame(rest):
    """The function of a symbolized frame ('' if the frame has none)."""
    if re.fullmatch(r"\(\S+\+0x[0-9a-f]+\)", rest):
        return ""
    return re.sub(r" (\(\S+\+0x[0-9a-f]+\)|\S+:\d+:\d+)$", "", rest)


def short_name(fn):
    """Drop the parameter list and qualifiers of a demangled name."""
    fn = re.sub(r"\s+const$", "", fn.strip()).replace("(anonymous namespace)", "(anon)")
    if fn.endswith(")"):
        depth = 0
        for i in range(len(fn) - 1, -1, -1):
            depth += {")": 1, "(": -1}.get(fn[i], 0)
            if depth == 0:
                fn = fn[:i] if i > 0 and not fn[:i].endswith("operator") else fn
                break
    return fn[:160]


def is_project(fn):
    """A frame in our code: one of our namespaces or a function of our libraries."""
    return bool(PROJECT_NS_RE.search(fn)) or short_name(fn) in PROJECT_FUNCS


def crash_signature(stderr, fallback, hang=False):
    """Return (signature, class, what) for a stack dump in stderr. The signature is the first
    three project-or-MLIR frames; for a hang, whose innermost frames are wherever it was
    stopped, the first three project frames if there are any."""
    what = ""
    m = re.search(r"^(LLVM ERROR: .*|.*Assertion .* failed.*|.*UNREACHABLE.*)$", stderr, re.M)
    if m:
        what = re.sub(r"\d+", "N", m[1].strip())[:200]
    picked, ours, cls, above_driver = [], [], "upstream", True
    for line in stderr.splitlines():
        fm = FRAME_RE.match(line)
        fn = parse_frame(fm[1]) if fm else ""
        if not fn or INFRA_RE.match(fn):
            continue
        above_driver = above_driver and not DRIVER_RE.search(fn)
        proj, name = is_project(fn), short_name(fn)
        cls = "project" if proj and above_driver else cls
        if proj or "mlir::" in name or name.startswith("(anon)"):
            picked.append(name)
        if proj:
            ours.append(name)
    frames = (ours if hang and ours else picked)[:3]
    return (" <- ".join(frames) or what or fallback), cls, (what or fallback)


SIGNAMES = {-s.value: s.name for s in signal.Signals}


def rss_mb(pid):
    """Resident memory of a process in MiB (0 once it is gone)."""
    try:
        return int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE") >> 20
    except (OSError, IndexError):
        return 0


def gdb_stack(pid):
    """The stack of a live process as LLVM-style frame lines, by gdb ('' without gdb).
    Safer than SIGABRT for a process inside malloc, where LLVM's handler deadlocks."""
    if not shutil.which("gdb"):
        return ""
    try:
        out = subprocess.run(["gdb", "-p", str(pid), "-batch", "-nx", "-ex", "bt 40"],
                             capture_output=True, text=True, timeout=60).stdout
    except subprocess.TimeoutExpired:
        return ""
    frames = re.findall(r"^#(\d+)\s+(?:0x[0-9a-f]+ in )?(.+?)(?: \(.*?\) at \S+| \(\)| from \S+)?$", out, re.M)
    return "".join(f"\n #{n} 0x0 {fn}" for n, fn in frames)


def run_tile_opt(binary, args, text, timeout, env, mem_mb, stack=True):
    """Run tile-opt on text. Past the timeout or mem_mb of RSS, take its stack with gdb (else
    SIGABRT it so that LLVM prints one) and kill it. Returns (rc, stderr, why), why being
    None, "timeout" or "memory"."""
    p = subprocess.Popen([binary, "-", *args, "-o", "/dev/null"], stdin=subprocess.PIPE,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    data, why, extra = text.encode(), None, ""
    deadline = time.monotonic() + timeout
    while True:
        try:
            _, err = p.communicate(data, timeout=20 if why else 0.2)
            break
        except subprocess.TimeoutExpired:
            data = None                       # already being sent
            if why:                           # the stack dump itself got stuck
                p.kill()
                _, err = p.communicate()
                break
            why = ("timeout" if time.monotonic() > deadline else
                   "memory" if rss_mb(p.pid) > mem_mb else None)
            if why:
                extra = gdb_stack(p.pid) if stack else ""
                p.send_signal(signal.SIGABRT if stack and not extra else signal.SIGKILL)
    return p.returncode, err.decode(errors="replace") + extra, why


def classify(run, args, text, thorough=True):
    """Run once and classify. A run past the memory limit is a hang; a timeout is one when
    a run at 3x the time times out too. thorough=False (minimizing) skips that re-run and
    the hang's stack."""
    rc, err, why = run(args, text, 1, thorough)
    if why == "timeout" and thorough:
        first = err
        rc, err, why = run(args, text, 3, thorough)
        if why and not crash_signature(err, "")[0]:
            err = first                       # a stack dump can be cut short; keep the other one
    if why:
        sig, cls, _ = crash_signature(err, "no stack", hang=True)
        return Outcome("hang", "hang: " + sig, cls, why, err)
    if rc < 0 or any(mk in err for mk in CRASH_MARKERS):
        sig, cls, what = crash_signature(err, SIGNAMES.get(rc, f"rc {rc}"))
        return Outcome("crash", sig, cls, what, err)
    if rc == 0:
        return Outcome("ok")
    return Outcome("diag" if re.search(r"\berror:", err) else "other", stderr=err)


# ----------------------------------------------------------------------------
# Minimization and reporting


def block_end(lines, i):
    """Index of the line that closes the braces opened on lines[i], or None."""
    depth = 0
    for j in range(i, len(lines)):
        depth += lines[j].count("{") - lines[j].count("}")
        if depth <= 0:
            return j
    return None


def minimize(text, fails, deadline):
    """Greedy deletion while fails(text) holds, until the deadline: whole `{ ... }` blocks,
    then chunks of lines, halving down to single lines, until nothing more goes."""
    lines = text.splitlines()

    def drop(i, j):
        nonlocal lines
        cand = lines[:i] + lines[j:]
        if cand and time.monotonic() < deadline and fails("\n".join(cand) + "\n"):
            lines = cand
            return True
        return False

    n, progress = max(1, len(lines) // 2), True
    while progress and time.monotonic() < deadline:
        progress, i = False, 0
        while i < len(lines):
            j = block_end(lines, i) if lines[i].rstrip().endswith("{") else None
            if j is not None and drop(i, j + 1):
                progress = True
            else:
                i += 1
        i = 0
        while i < len(lines):
            if drop(i, i + n):
                progress = True
            else:
                i += n
        if n > 1:
            n, progress = n // 2, True
    return "\n".join(lines) + "\n"


def slug(sig, cls, kind):
    """File-name-safe name: class, innermost function, hash."""
    first = sig.removeprefix("hang: ").split(" <- ")[0]
    name = "-".join(re.sub(r"<.*>", "", first).split("::")[-2:])
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", name).strip("_")[:60] or "nosym"
    h = hashlib.sha1(sig.encode()).hexdigest()[:8]
    return f"{'hang' if kind == 'hang' else 'crash'}-{cls}-{name}-{h}"


def write_repro(path, text, pipeline, tool, sig, cls, what):
    """Write the reproducer with a header that says how to run it."""
    cmd = " ".join([tool, str(path), *PIPELINES[pipeline], "-o", "/dev/null"])
    header = (f"// tile-opt fuzz reproducer ({cls})\n// command: {cmd}\n"
              f"// signature: {sig}\n// what: {what}\n")
    path.write_text(header + text)


def print_report(totals, found, db, elapsed, out):
    """Print totals and the signature table of this campaign."""
    runs = sum(totals.values())
    print(f"\n{runs} runs in {elapsed:.1f} s ({runs / max(elapsed, 1e-9):.1f} runs/s): "
          + ", ".join(f"{k} {totals[k]}" for k in ("ok", "diag", "other", "crash", "hang")))
    if not found:
        print("no crashes or hangs")
        return
    print(f"\n{'count':>6} {'total':>6}  {'class':8} {'kind':5}  signature / repro")
    for sig, n in sorted(found.items(), key=lambda kv: -kv[1]):
        e = db[sig]
        print(f"{n:6} {e['count']:6}  {e['class']:8} {e['kind']:5}  {sig}\n"
              f"{'':31}{e['what']}; first seen on the build of {e.get('first_build', '?')}\n"
              f"{'':31}{e.get('repro', '(not minimized)')}  [{e['pipeline']}]")
    print(f"\nsignature database: {out / 'signatures.json'}")


# ----------------------------------------------------------------------------
# Driver


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--tile-opt", default=str(ROOT / "build/bin/tile-opt"))
    ap.add_argument("--seed", type=int, default=None, help="default: time-based")
    ap.add_argument("--runs", type=int, default=None, help="number of cases (default 1000 without --seconds)")
    ap.add_argument("--seconds", type=float, default=None, help="time budget for fuzzing")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=10.0, help="per-run timeout (s)")
    ap.add_argument("--mem-mb", type=int, default=4096, help="per-run resident-memory limit (MiB)")
    ap.add_argument("--pipelines", default=",".join(PIPELINES), help="comma-separated subset")
    ap.add_argument("--out", default=None, help="default /tmp/fuzz-out (--ci: /tmp/fuzz-ci)")
    ap.add_argument("--min-seconds", type=float, default=60.0, help="minimization budget per signature")
    ap.add_argument("--fail-on", choices=["project", "any", "never"], default="project",
                    help="project: exit 1 on a project crash or any hang; any: on any crash or hang")
    ap.add_argument("--ci", action="store_true",
                    help="seed 1, 3000 runs capped at 40 s, 5 s minimization, fail on project")
    ap.add_argument("--recheck", action="store_true",
                    help="re-run the reproducers of OUT/signatures.json on the current tile-opt")
    ap.add_argument("--list-pipelines", action="store_true")
    a = ap.parse_args(argv)
    if a.ci:
        a.seed, a.runs, a.seconds, a.min_seconds, a.fail_on = 1, 3000, 40.0, 5.0, "project"
    a.out = a.out or ("/tmp/fuzz-ci" if a.ci else "/tmp/fuzz-out")
    if a.runs is None and a.seconds is None:
        a.runs = 1000
    if a.seed is None:
        a.seed = int(time.time())
    return a


def snapshot(tool, out):
    """Copy tile-opt into OUT/.bin so that rebuilds during a campaign do not change it; wait
    (up to 5 minutes) while a rebuild relinks it."""
    key = lambda st: (st.st_size, st.st_mtime_ns)
    for _ in range(300):
        try:
            st = Path(tool).stat()
            time.sleep(0.5)
            if key(Path(tool).stat()) == key(st):
                break
        except FileNotFoundError:
            time.sleep(1)
    else:
        sys.exit(f"no stable {tool}")
    snap = out / ".bin" / "tile-opt"
    if not snap.exists() or key(snap.stat()) != key(st):
        snap.parent.mkdir(exist_ok=True)
        shutil.copy2(tool, snap.with_suffix(".tmp"))
        os.replace(snap.with_suffix(".tmp"), snap)
    return str(snap)


def fuzz(a, run, seeds, pipelines):
    """Run the cases of the budget; return totals, signature counts and first finds."""
    with cf.ThreadPoolExecutor(a.jobs) as pool:
        # 80% of the cases start from a seed that parses and verifies, so that they reach the passes.
        valid = [s for s, o in zip(seeds, pool.map(lambda s: run([], s), seeds)) if o.kind == "ok"]
    print(f"{len(valid)} of them parse and verify", flush=True)

    def case(i):
        rng = random.Random(f"{a.seed}-{i}")
        text, names = mutate(rng.choice(valid if valid and rng.random() < 0.8 else seeds), rng)
        pipeline = rng.choice(pipelines)
        return text, pipeline, names, run(PIPELINES[pipeline], text)

    totals = dict.fromkeys(("ok", "diag", "other", "crash", "hang"), 0)
    found, first = {}, {}    # signature -> count / (text, pipeline, outcome)
    stop = time.monotonic() + a.seconds if a.seconds else float("inf")
    more = lambda: time.monotonic() < stop and (a.runs is None or i < a.runs)
    i, pending = 0, set()
    with cf.ThreadPoolExecutor(a.jobs) as pool:   # the threads only wait on their tile-opt process
        while pending or more():
            while len(pending) < 2 * a.jobs and more():
                pending.add(pool.submit(case, i))
                i += 1
            done, pending = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
            for text, pipeline, names, o in (f.result() for f in done):
                totals[o.kind] += 1
                if o.kind in ("crash", "hang"):
                    found[o.sig] = found.get(o.sig, 0) + 1
                    if o.sig not in first:
                        first[o.sig] = (text, pipeline, o)
                        print(f"  new {o.kind} ({o.cls}) [{pipeline}; {'+'.join(names)}]: {o.sig}",
                              flush=True)
    return totals, found, first


def failing(a, e):
    """Whether a database entry makes the run fail under --fail-on."""
    project_or_hang = e["class"] == "project" or e["kind"] == "hang"
    return a.fail_on == "any" or (a.fail_on == "project" and project_or_hang)


def record(a, run, found, first, db, out, build):
    """Add this campaign's finds to the database; minimize and write new reproducers."""
    for sig, (text, pipeline, o) in first.items():
        e = db.setdefault(sig, {"class": o.cls, "kind": o.kind, "what": o.what,
                                "pipeline": pipeline, "count": 0, "first_build": build})
        e["status"] = "reproduces"
        e["count"] += found[sig]
        if "repro" not in e or not Path(e["repro"]).exists():
            def fails(t):   # a hang's stack depends on when it was stopped: any hang will do
                r = run(PIPELINES[pipeline], t, thorough=False)
                return r.kind == o.kind and (o.kind == "hang" or r.sig == sig)
            small = minimize(text, fails, time.monotonic() + a.min_seconds)
            path = out / (slug(sig, o.cls, o.kind) + ".mlir")
            write_repro(path, small, pipeline, a.tile_opt, sig, o.cls, o.what)
            e["repro"] = str(path)
        (out / "signatures.json").write_text(json.dumps(db, indent=1))


def recheck(a, run, db):
    """Re-run every stored reproducer on the current binary; mark it 'reproduces' or 'gone'."""
    for sig, e in db.items():
        path = Path(e.get("repro", ""))
        if path.is_file():
            r = run(PIPELINES[e["pipeline"]], path.read_text(), thorough=False)
            same = r.kind == e["kind"] and (e["kind"] == "hang" or r.sig == sig)
            e["status"] = "reproduces" if same else f"gone ({r.kind})"
            print(f"{e['status']:14} {e['class']:8} {e['kind']:5} {path}")
    return [e for e in db.values() if e.get("status") == "reproduces" and failing(a, e)]


def main(argv=None):
    a = parse_args(argv)
    if a.list_pipelines:
        for name, args in PIPELINES.items():
            print(f"{name:22} {' '.join(args) or '(parse and verify)'}")
        return 0
    pipelines = a.pipelines.split(",")
    if bad := [p for p in pipelines if p not in PIPELINES]:
        sys.exit(f"unknown pipelines: {bad}; see --list-pipelines")
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    env = dict(os.environ)
    if sym := shutil.which("llvm-symbolizer") or shutil.which("llvm-symbolizer-22"):
        env["LLVM_SYMBOLIZER_PATH"] = sym
    binary = a.tile_opt if a.ci else snapshot(a.tile_opt, out)   # CI tests the build it just made
    build = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(Path(binary).stat().st_mtime))
    load_project_funcs(Path(a.tile_opt).resolve().parents[1])
    raw = lambda args, text, scale, stack: run_tile_opt(binary, args, text, scale * a.timeout, env,
                                                       a.mem_mb, stack)
    run = lambda args, text, thorough=True: classify(raw, args, text, thorough)
    seeds = load_seeds([ROOT / "test", ROOT / "examples"])
    dbpath = out / "signatures.json"
    db = json.loads(dbpath.read_text()) if dbpath.exists() else {}
    if a.recheck:
        bad = recheck(a, run, db)
        dbpath.write_text(json.dumps(db, indent=1))
        return 1 if bad else 0
    print(f"tile-opt fuzz: seed {a.seed}, {len(seeds)} seed chunks, {len(pipelines)} pipelines, "
          f"jobs {a.jobs}, budget {a.runs or 'inf'} runs / {a.seconds or 'inf'} s", flush=True)

    start = time.monotonic()
    totals, found, first = fuzz(a, run, seeds, pipelines)
    elapsed = time.monotonic() - start
    record(a, run, found, first, db, out, build)
    print_report(totals, found, db, elapsed, out)

    return 1 if any(failing(a, db[s]) for s in found) else 0


if __name__ == "__main__":
    sys.exit(main())
