#!/usr/bin/env python3
"""Checks the structure of the `tile` Python package (python/tile):

1. no private name crosses a module boundary: no `from M import _x`, no
   `m._x` (also `tile.m._x`) and no `getattr(m, "_x")` on an imported tile
   module, in the package, its tests, the benchmarks, the scripts and the
   examples;
2. no import cycle among the package's modules (every import counts, also
   one inside a function);
3. `tile.core` imports nothing of the package outside `tile.core` (the
   ground floor the rest builds on);
4. no submodule shadowed by another attribute of its package (a function
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
                    else:
                        aliases["tile"] = "tile"  # `import tile.x` binds `tile`
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
    private = lambda name: name.startswith("_") and not name.startswith("__")  # noqa: E731

    def module_of(expression):
        """The tile module an expression names (`m`, `tile.ops.matmul`)."""
        if isinstance(expression, ast.Name):
            return aliases.get(expression.id)
        if isinstance(expression, ast.Attribute):
            base = module_of(expression.value)
            if base is not None and f"{base}.{expression.attr}" in modules:
                return f"{base}.{expression.attr}"
        return None

    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and private(node.attr):
            base = module_of(node.value)
            if base is not None:
                found.append(("private", f"{base}.{node.attr}", node.lineno))
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
              and node.func.id == "getattr" and len(node.args) >= 2
              and isinstance(node.args[1], ast.Constant)
              and isinstance(node.args[1].value, str) and private(node.args[1].value)):
            base = module_of(node.args[0])
            if base is not None:
                found.append(("private", f"{base}.{node.args[1].value}", node.lineno))
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
    # The core is the ground floor.
    for name, targets in sorted(graph.items()):
        if name.startswith("tile.core"):
            for target in sorted(targets):
                if not target.startswith("tile.core"):
                    problems.append(f"{modules[name].relative_to(ROOT)}: tile.core imports "
                                    f"{target}, outside tile.core")
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
