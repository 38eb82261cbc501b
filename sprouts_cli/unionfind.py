"""Disjoint sets (union–find) of the numbers ``0 … n−1``, for grouping regions, spots and curves.

One small structure with path halving serves the engine (lands, pieces of a land,
Euler's parts) and the picture layer (connected parts, the nesting of regions).
"""

from __future__ import annotations


class UnionFind:
    """Disjoint sets of ``0 … n−1``; a union keeps the smaller root, so roots are first members."""

    __slots__ = ("parent",)

    def __init__(self, n: int) -> None:
        self.parent = list(range(n))

    def find(self, i: int) -> int:
        """The root of ``i``'s set (the paths walked are halved on the way)."""
        parent = self.parent
        while parent[i] != i:
            parent[i] = i = parent[parent[i]]
        return i

    def union(self, a: int, b: int) -> bool:
        """Join the sets of ``a`` and ``b``; False when they were one set already."""
        parent = self.parent
        while parent[a] != a:
            parent[a] = a = parent[parent[a]]
        while parent[b] != b:
            parent[b] = b = parent[parent[b]]
        if a == b:
            return False
        if a < b:
            parent[b] = a
        else:
            parent[a] = b
        return True

    def groups(self) -> list[list[int]]:
        """The sets, each in increasing order, in order of their least member."""
        out: dict[int, list[int]] = {}
        find = self.find
        for i in range(len(self.parent)):
            out.setdefault(find(i), []).append(i)
        return list(out.values())

    def count(self) -> int:
        """How many sets there are."""
        return sum(1 for i, p in enumerate(self.parent) if i == p)
