"""A pipeline file (YAML) into a checked :class:`~dgraph.pipeline.pipeline.Pipeline`.

Top-level keys: ``name``, ``cluster``, ``graph`` (required), ``partition``,
``steps`` (required), ``outputs``, ``results``.  Input paths (``graph.source.path``)
are read relative to the pipeline file's folder; output paths (``outputs[].to``)
are relative to the results folder and stay inside it (no ``..``, ``~`` or absolute
path), and the file's ``results:`` folder is relative to the current one in the same way
(``--results DIR`` may name any folder).  Every error names the file, line and
column of the node at fault (or the ``--set`` that gave it) and what is
allowed there.
"""

from __future__ import annotations

from pathlib import Path

from . import checks
from .pipeline import Pipeline
from .source import _dotted, apply_overrides, load_source, parse_source

TOP_KEYS = ("name", "cluster", "graph", "partition", "steps", "outputs", "results")
OUTPUT_KEYS = ("from", "to", "format", "columns")
#: the step keys that name another step
REFERENCES = ("graph", "largest_component_of", "reachable_from", "k_core_of")


def load_pipeline(path, overrides=(), *, text=None):
    """(Pipeline, results folder named in the file or None) from a file (or ``text`` named ``path``)."""
    source = parse_source(text, str(path)) if text is not None else load_source(path)
    apply_overrides(source, overrides)
    base_dir = Path(path).parent
    p = pipeline_from_source(source, base_dir, default_name=Path(path).stem)
    p.source_name = str(path)
    p.source_text = source.text
    p.overrides = list(overrides or ())
    return p, source.data.get("results")


def pipeline_from_source(source, base_dir, default_name="pipeline"):
    data = source.data

    def fail(path, message):
        raise source.error(path, message)

    def where(path):
        return f"{source.where(path)}: {_dotted(path)}{': ' if path else ''}"

    checks.check_mapping(fail, (), data, TOP_KEYS, "a pipeline")
    if "graph" not in data:
        fail((), "needs graph: {source: {generate: rmat, scale: 16}} (or {source: {path: FILE}})")
    if "name" in data:
        checks.check_text(fail, ("name",), data["name"], "a name")
    if "results" in data and data["results"] is not None:
        checks.check_results_key(fail, ("results",), data["results"])
    steps = data.get("steps")
    if not isinstance(steps, list) or not steps:
        fail(("steps",), "expected a non-empty list of steps, e.g. - {name: reach, run: bfs, source: 0}")
    p = Pipeline(graph=data["graph"], cluster=data.get("cluster"), partition=data.get("partition"),
                 name=data.get("name", default_name), base_dir=base_dir, _where=where)
    names = [s.get("name") if isinstance(s, dict) else None for s in steps]
    for i, step in enumerate(steps):
        path = ("steps", i)
        if not isinstance(step, dict):
            fail(path, "expected a mapping {name: ..., run: ALGORITHM, ...options}")
        for key in ("name", "run"):
            if key not in step:
                fail(path, f"needs {key}:")
        for key in REFERENCES:
            ref, where = step.get(key), path + (key,)
            if key == "k_core_of" and isinstance(ref, dict):  # {step: NAME, k: K}
                ref, where = ref.get("step"), where + ("step",)
            if isinstance(ref, str) and ref in names[i + 1:] and ref not in names[:i]:
                fail(where, f"refers to step {ref!r}, which comes later: steps run in the order given")
        for k in step:
            if not isinstance(k, str):
                fail(path + (k,), f"unknown option {k!r}; options are words")
        options = {k: v for k, v in step.items() if k not in checks.STEP_KEYS}
        p.step(step["name"], step["run"], graph=step.get("graph"), _index=i, **options)
    outputs = data.get("outputs") or []
    if not isinstance(outputs, list):
        fail(("outputs",), "expected a list of {from: STEP, to: FILE}")
    for i, out in enumerate(outputs):
        path = ("outputs", i)
        checks.check_mapping(fail, path, out, OUTPUT_KEYS, "an output")
        for key in ("from", "to"):
            if key not in out:
                fail(path, f"needs {key}:")
        p.output(out["from"], out["to"], format=out.get("format"), columns=out.get("columns"), _index=i)
    return p


__all__ = ["load_pipeline", "pipeline_from_source"]
