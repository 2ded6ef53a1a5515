"""Readers that return a :class:`~dgraph.Graph` and writers for per-vertex results.

- :func:`read`: edge lists (.el .txt .edges .tsv .snap .wel), CSV, Matrix
  Market (.mtx), LDBC Graphalytics (.v/.e/.properties) and Parquet.
- :func:`from_scipy`, :func:`from_networkx`: graphs from in-memory objects.
- :func:`write_result`: a Result to CSV, Parquet, NPZ or Graphalytics output;
  :func:`check_output_path` checks an output path before the work that fills it.

Every bad input raises a :class:`~dgraph.errors.DGraphError` whose message
names the file and (1-based) line, and what was expected there.
"""

from .convert import from_networkx, from_scipy
from .read import read
from .writers import check_output_path, write_result

__all__ = ["read", "write_result", "check_output_path", "from_scipy", "from_networkx"]
