#!/usr/bin/env python3
"""Which diagnostics of lib/ have a test that expects them.

    python3 scripts/diagnostic-coverage.py [--missing]

Finds every `emitOpError(...)` / `emitError(...)` / `emitWarning(...)` /
`emitRemark(...)` / `fail()` diagnostic in lib/**/*.cpp, takes the string
literals streamed into it (up to the statement's end), and counts the
diagnostic as covered when one of its literal fragments (at least 12
characters, or its whole text when shorter and distinctive) appears in a
test under test/ or python/tests/. Prints the coverage and, with
--missing, the uncovered diagnostics by file and line.
"""
import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_EMIT = re.compile(r"\b(emitOpError|emitError|emitWarning|emitRemark|fail)\s*\(")
_LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')


def diagnostics(path: Path):
    """(line, [literal fragments]) of each diagnostic in `path`."""
    text = path.read_text()
    for match in _EMIT.finditer(text):
        end = text.find(";", match.end())
        statement = text[match.end():end]
        fragments = [f.encode().decode("unicode_escape") for f in _LITERAL.findall(statement)]
        fragments = [f.strip(" ,;:()") for f in fragments]
        fragments = [f for f in fragments if len(f) >= 6]
        if fragments:
            yield text.count("\n", 0, match.start()) + 1, fragments


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--missing", action="store_true", help="list uncovered diagnostics")
    args = parser.parse_args()
    tests = "\n".join(p.read_text(errors="replace") for pattern in ("test/**/*.mlir", "test/**/*.test", "python/tests/*.py")
                      for p in ROOT.glob(pattern))
    total, covered, missing = 0, 0, []
    for path in sorted((ROOT / "lib").rglob("*.cpp")):
        for line, fragments in diagnostics(path):
            total += 1
            if any(fragment in tests for fragment in fragments):
                covered += 1
            else:
                missing.append(f"{path.relative_to(ROOT)}:{line}: {' … '.join(fragments)[:110]}")
    print(f"{covered} of {total} diagnostics in lib/ are expected by a test "
          f"({100 * covered / max(total, 1):.0f}%)")
    if args.missing:
        print("\n".join(missing))
    return 0


if __name__ == "__main__":
    sys.exit(main())
