"""Pipelines: a graph, a cluster and named steps, from Python (:class:`Pipeline`) or a YAML file
(``dgraph run FILE``, :func:`load_pipeline`)."""

from .config import load_pipeline
from .pipeline import Pipeline
from .run import PipelineRun

__all__ = ["Pipeline", "PipelineRun", "load_pipeline"]
