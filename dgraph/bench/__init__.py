"""Benchmarks behind ``dgraph bench``: figures printed beside their anchors, never timed tests."""

from .bfs import bench_bfs
from .report import format_report

__all__ = ["bench_bfs", "format_report"]
