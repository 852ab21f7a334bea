"""The import graph of dali_migrate/ and its circles.

    python benchmarks/import_graph.py              # every import counts, those inside functions too
    python benchmarks/import_graph.py --top-level  # only the imports Python runs when the module loads
    python benchmarks/import_graph.py --edges      # also list, for each circle, the arrows inside it

An import inside a function is an arrow all the same: it only postpones the circle to the first call. Importing
``a.b.c`` runs the packages ``a`` and ``a.b`` first, so those are arrows too (a module's own parent packages,
which Python has already started when it runs the module, are not).
A circle is a strongly connected component of the graph (Tarjan), printed largest first with its
modules. Reads the source with ``ast``; imports nothing of the package.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "dali_migrate"


def module_names(root: Path) -> dict[str, Path]:
    """Dotted name -> file, for every module of the package (a package is its ``__init__``)."""
    names = {}
    for path in sorted((root / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        names[".".join(parts)] = path
    return names


def _is_package(name: str, modules: dict[str, Path]) -> bool:
    return modules[name].name == "__init__.py"


def _top_level_nodes(tree: ast.Module):
    """Statements Python runs when the module loads: not inside a def or lambda (class bodies and
    if/try blocks at module level run at import)."""
    stack = list(tree.body)
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        stack.extend(ast.iter_child_nodes(node))


def imports_of(name: str, modules: dict[str, Path], top_level: bool) -> set[str]:
    """The package's modules that ``name`` imports."""
    tree = ast.parse(modules[name].read_text(encoding="utf-8"))
    package = name if _is_package(name, modules) else name.rpartition(".")[0]
    targets = set()
    for node in (_top_level_nodes(tree) if top_level else ast.walk(tree)):
        if isinstance(node, ast.Import):
            targets.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module or ""
            for alias in node.names:  # `from . import x` and `from .pkg import mod` import a submodule
                sub = f"{source}.{alias.name}"
                targets.add(sub if sub in modules else source)
    found = set()
    for target in targets:
        while target and target not in modules:  # `import a.b.c` of a name inside a module
            target = target.rpartition(".")[0]
        while target:  # importing a.b.c runs a/__init__ and a/b/__init__ first: arrows too
            if target != name and not name.startswith(target + "."):
                found.add(target)
            target = target.rpartition(".")[0]
    return found


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, on_stack, stack, result = {}, {}, set(), [], []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    result.append(sorted(component))
    return sorted(result, key=lambda c: (-len(c), c))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--top-level", action="store_true", help="only imports that run when a module loads")
    parser.add_argument("--edges", action="store_true", help="list the arrows inside each circle")
    args = parser.parse_args(argv)
    modules = module_names(ROOT)
    graph = {name: imports_of(name, modules, args.top_level) for name in modules}
    found = circles(graph)
    kind = "module-level imports only" if args.top_level else "every import, those inside functions too"
    print(f"{len(modules)} modules, {sum(map(len, graph.values()))} arrows ({kind}); "
          f"{len(found)} circle(s), {sum(map(len, found))} modules in them")
    for number, component in enumerate(found, 1):
        print(f"\ncircle {number}: {len(component)} modules")
        members = set(component)
        for name in component:
            inside = sorted(graph[name] & members)
            print(f"  {name}" + (f" -> {', '.join(inside)}" if args.edges else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
