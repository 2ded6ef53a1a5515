"""Graphs in CSR form and how they are built from edge lists."""

from .build import from_edges
from .graph import Graph
from .ids import VertexIds

__all__ = ["Graph", "VertexIds", "from_edges"]
