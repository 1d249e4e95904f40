"""ember's modules import each other without cycles: the graph of every ``import`` in every module
of the package (function-local ones included) has no cycle, so each layer can be read, and
imported, on its own."""

import ast
import os

import ember

PACKAGE = os.path.dirname(ember.__file__)


def _modules():
    found = {}
    for folder, _, files in os.walk(PACKAGE):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                rel = os.path.relpath(path, os.path.dirname(PACKAGE))[:-3].replace(os.sep, ".")
                found[rel[:-len(".__init__")] if rel.endswith(".__init__") else rel] = path
    return found


def _targets(module, path, node, modules):
    """The ember modules an import statement of ``module`` loads."""
    package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            parts = package.split(".")
            base = ".".join(parts[:len(parts) - node.level + 1] + ([base] if base else []))
        names = [f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                 for alias in node.names]
    out = set()
    for name in names:
        while name not in modules and "." in name:
            name = name.rpartition(".")[0]
        if name in modules and name != module:
            out.add(name)
    return out


def import_graph():
    modules = _modules()
    graph = {}
    for module, path in modules.items():
        with open(path) as f:
            tree = ast.parse(f.read())
        graph[module] = set()
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                graph[module] |= _targets(module, path, node, modules)
    return graph


def cycles(graph):
    """The strongly connected components of more than one module (Tarjan's algorithm)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_the_checker_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_graph_sees_relative_and_local_imports():
    graph = import_graph()
    assert "ember.autodiff.graph" in graph["ember._tensor"]  # from .autodiff.graph import ...
    assert "ember.distributed.params" in graph["ember._tensor"]  # a function-local import
    assert "ember.nn.module" in graph["ember.nn.reparam"]


def test_no_import_cycle_in_ember():
    assert cycles(import_graph()) == []
