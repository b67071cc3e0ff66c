#!/usr/bin/env python3
"""Checks the structure of the `tile` Python package (python/tile):

1. no private name crosses a module boundary: no `from M import _x` and no
   `m._x` on an imported tile module, in the package, its tests, the
   benchmarks, the scripts and the examples;
2. no import cycle among the package's modules (every import counts, also
   one inside a function);
3. no submodule shadowed by another attribute of its package (a function
   `tile.matmul` over a module `tile/matmul.py`).

Prints each violation and exits 1 if there is one. python/tests runs it.
"""
import ast
import importlib
import pkgutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "python" / "tile"
USERS = [ROOT / "python" / "tests", ROOT / "python" / "examples", ROOT / "bench",
         ROOT / "scripts", ROOT / "test"]


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def package_modules():
    return {module_name(path): path for path in PACKAGE.rglob("*.py")}


def resolve(importer: str, is_package: bool, level: int, module):
    """The absolute name of a `from` import's module."""
    if level == 0:
        return module or ""
    base = importer.split(".")
    base = base if is_package else base[:-1]
    base = base[:len(base) - (level - 1)]
    return ".".join(base + ([module] if module else []))


def imports(path: Path, name: str, modules):
    """(kind, target, line) of every import of a tile module in `path`:
    ("module", "tile.x.y") edges and ("private", "M._x") uses."""
    tree = ast.parse(path.read_text(), str(path))
    is_package = path.name == "__init__.py"
    aliases = {}  # local name -> tile module
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "tile":
                    found.append(("module", alias.name, node.lineno))
                    if alias.asname:
                        aliases[alias.asname] = alias.name
        elif isinstance(node, ast.ImportFrom):
            source = resolve(name, is_package, node.level, node.module)
            if source.split(".")[0] != "tile":
                continue
            for alias in node.names:
                target = f"{source}.{alias.name}"
                if target in modules:  # a submodule
                    found.append(("module", target, node.lineno))
                    aliases[alias.asname or alias.name] = target
                else:
                    found.append(("module", source, node.lineno))
                    if alias.name.startswith("_") and not alias.name.startswith("__"):
                        found.append(("private", f"{source}.{alias.name}", node.lineno))
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in aliases and node.attr.startswith("_")
                and not node.attr.startswith("__")):
            found.append(("private", f"{aliases[node.value.id]}.{node.attr}", node.lineno))
    return found


def main() -> int:
    modules = package_modules()
    problems = []
    graph = {name: set() for name in modules}
    for name, path in modules.items():
        for kind, target, line in imports(path, name, modules):
            where = f"{path.relative_to(ROOT)}:{line}"
            if kind == "private":
                problems.append(f"{where}: imports the private name {target}")
            elif target in modules and target != name and not name.startswith(target + ".") \
                    and not (target == "tile" or name == target):
                # Importing a package's own parents runs their __init__
                # first in any case: not an edge of the structure.
                graph[name].add(target)
    for folder in USERS:
        for path in folder.rglob("*.py"):
            for kind, target, line in imports(path, "__main__", modules):
                if kind == "private":
                    problems.append(f"{path.relative_to(ROOT)}:{line}: imports the private "
                                    f"name {target}")
    # Cycles: depth-first search.
    state, stack = {}, []

    def visit(node):
        state[node] = "open"
        stack.append(node)
        for successor in sorted(graph[node]):
            if state.get(successor) == "open":
                cycle = stack[stack.index(successor):] + [successor]
                problems.append("import cycle: " + " -> ".join(cycle))
            elif successor not in state:
                visit(successor)
        stack.pop()
        state[node] = "done"

    for node in sorted(graph):
        if node not in state and not node.endswith("__main__"):
            visit(node)
    # Shadowed submodules.
    sys.path.insert(0, str(PACKAGE.parent))
    for name, path in sorted(modules.items()):
        if path.name != "__init__.py":
            continue
        package = importlib.import_module(name)
        for info in pkgutil.iter_modules(package.__path__):
            attribute = getattr(package, info.name, None)
            if attribute is None:
                continue
            submodule = importlib.import_module(f"{name}.{info.name}")
            if attribute is not submodule:
                problems.append(f"{name}.{info.name}: the submodule is shadowed by "
                                f"{type(attribute).__name__} {attribute!r}")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
