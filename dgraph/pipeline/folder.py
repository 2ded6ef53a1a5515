"""The results folder of a pipeline run: checked before the run, written through a staging folder.

A run writes its outputs, ``plots/<step>.png`` and ``manifest.json``, and nothing
else, all inside one folder.  Before any work :func:`check_folder` makes sure the
folder can be made and written and that none of those files exists (unless
``overwrite``).  After the steps, :class:`Stage` writes every file into a hidden
folder inside it (``.dgraph-unfinished-<random>/``, with a ``run.json`` saying
which pipeline it is) and then moves each into place, the manifest last, so
that:

- a run that fails or is killed while writing leaves no partial file beside the
  user's files, only the hidden folder;
- a run killed while moving files leaves some outputs and no manifest, and
  ``run.json`` records them (inode and size, which a rename keeps): running the
  *same* pipeline again (same steps, options and outputs; the cluster may
  differ) replaces exactly those files without ``--overwrite``, while a
  different pipeline is told what is there;
- a link or a file where a folder should be is refused: nothing lands outside.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import tempfile
from pathlib import Path, PurePosixPath

from ..errors import PipelineError
from . import checks

MARKER = "run.json"
#: a path longer than this (bytes) is refused before the run: Linux's PATH_MAX is 4096
MAX_PATH_BYTES = 4000


# -- what a run writes -------------------------------------------------------------------------------

def planned_files(p, results):
    """[(relative path, kind, pipeline path to blame)] of every file a run will write, manifest last."""
    out = [(o["rel"], "output", o["path"] + ("to",)) for o in p.outputs]
    if results is not None:
        out += [(PurePosixPath(checks.PLOTS, f"{s['name']}.png"), "plot", s["path"] + ("name",))
                for s in p.steps if s["run"] != checks.SUBGRAPH]
        out.append((PurePosixPath(checks.MANIFEST), "manifest", ("results",)))
    return out


def identity(p):
    """A digest of what the pipeline computes and writes (not where, nor on which cluster)."""
    graph = p.graph if isinstance(p.graph, dict) else {
        "object": repr(getattr(p.graph, "name", None)), "vertices": int(p.graph.num_vertices),
        "edges": int(p.graph.num_edges)}
    what = {"name": p.name, "graph": graph, "partition": p.partition,
            "steps": [[s["name"], s["run"], s["graph"], s["options"]] for s in p.steps],
            "outputs": [[o["from"], str(o["rel"]), o["format"], o["columns"]] for o in p.outputs]}
    return hashlib.sha256(json.dumps(what, sort_keys=True, default=repr).encode()).hexdigest()


# -- unfinished runs ------------------------------------------------------------------------------------

class Unfinished:
    """A staging folder left in a results folder: by a run still writing, or by one that was stopped."""

    def __init__(self, folder):
        self.folder = folder
        try:
            info = json.loads((folder / MARKER).read_text())
            if not isinstance(info, dict):
                raise ValueError
        except (OSError, ValueError):
            info = {}  # killed before its marker was written: it committed nothing
        self.identity = info.get("identity")
        self.name = info.get("pipeline")
        self.phase = info.get("phase", "staging")
        self.pid, self.host = info.get("pid"), info.get("host")
        files = info.get("files")
        self.files = files if isinstance(files, dict) else {}

    def active(self):
        """Whether the run that made it is still running (on this machine; another machine's is assumed to)."""
        if self.host is None or self.pid is None:
            return False
        if self.host != socket.gethostname():
            return True
        if self.pid == os.getpid():
            return False
        try:
            os.kill(int(self.pid), 0)
        except ProcessLookupError:
            return False
        except (PermissionError, OverflowError, ValueError, TypeError):
            return True
        return True

    def owns(self, dest, rel):
        """Whether ``dest`` is the file this run moved there as ``rel`` (same inode and size)."""
        rec = self.files.get(str(rel))
        try:
            st = dest.lstat()
        except OSError:
            return False
        return isinstance(rec, list) and len(rec) == 2 and [st.st_ino, st.st_size] == rec


def unfinished_runs(root):
    try:
        entries = list(root.iterdir()) if root.is_dir() else []
    except OSError:
        return []
    return [Unfinished(e) for e in sorted(entries) if e.name.startswith(checks.STAGING_PREFIX) and e.is_dir()
            and not e.is_symlink()]


# -- before the run -------------------------------------------------------------------------------------

def _existing_ancestor(path):
    path = Path(os.path.abspath(path))
    while not os.path.lexists(path) and path.parent != path:
        path = path.parent
    return path


def _blocking_parent(root, rel):
    """The first folder of ``rel`` under ``root`` that exists and is not a plain folder (a file, a link)."""
    q = root
    for part in rel.parts[:-1]:
        q = q / part
        if q.is_symlink() or (q.exists() and not q.is_dir()):
            return q
        if not q.exists():
            return None
    return None


def _same_file(a, b):
    try:
        return b is not None and os.path.samefile(a, b)
    except (OSError, ValueError):
        return False


def check_folder(p, results, overwrite):
    """Raise PipelineError (naming the output, plot or setting at fault) when the run could not write
    every file it plans in ``results`` (None: outputs under the current folder) without replacing one
    of the user's files; with ``overwrite`` existing files are replaced, links and files in the way
    of a folder are still refused."""
    fail = p._fail
    root = Path(results) if results is not None else Path(".")
    if os.path.lexists(root) and not root.is_dir():
        fail(("results",), f"{root} is a file, not a folder")
    top = _existing_ancestor(root)
    if not top.is_dir():
        fail(("results",), f"{top} is a file: the results folder {root} cannot be made under it")
    if not os.access(top, os.W_OK | os.X_OK):
        fail(("results",), f"cannot write in {top} (permission denied): choose another results folder")
    base = len(os.fsencode(os.path.abspath(root))) + len(checks.STAGING_PREFIX) + 20
    if base + 2 * checks.MAX_PATH_PART > MAX_PATH_BYTES:
        fail(("results",), f"the results folder's path is {base:,} bytes long: too long for the file system")
    runs = unfinished_runs(root)
    me = identity(p)
    for u in runs:
        if u.active():
            fail(("results",), f"{root}: another run (pid {u.pid} on {u.host}) is writing there now; if it is "
                               f"not, remove {u.folder}")
        if u.identity != me and u.phase == "committing" and not overwrite:
            which = f"pipeline {u.name!r}" if u.name else "another pipeline"
            fail(("results",), f"{root} holds an unfinished run of {which} (killed while moving its files into "
                               f"place); rerun that pipeline, pass overwrite (dgraph run --overwrite), or choose "
                               f"another results folder")
    ours = [u for u in runs if u.identity == me]
    inputs = [("the pipeline file", getattr(p, "source_name", None))]
    if isinstance(p.graph, dict) and "path" in p.graph["source"]:
        inputs.append(("the graph's input file", checks.resolve(p.base_dir, p.graph["source"]["path"])))
    planned = planned_files(p, results)
    n = len(p.outputs)  # outputs, then an earlier run's manifest (the clearest news), then plots
    for rel, kind, where in planned if results is None else planned[:n] + planned[-1:] + planned[n:-1]:
        if base + len(os.fsencode(str(rel))) > MAX_PATH_BYTES:
            fail(where, f"{str(rel)[:60]}...: the path in the results folder is too long for the file system")
        blocked = _blocking_parent(root, rel)
        if blocked is not None:
            if blocked.is_symlink():
                fail(where, f"{blocked} is a link, not a folder: an output stays inside the results folder")
            fail(where, f"{blocked} is a file, not a folder: cannot write {root / rel}")
        dest = root / rel
        if not os.path.lexists(dest):
            continue
        if dest.is_dir() and not dest.is_symlink() and not (overwrite and _is_dataset(rel)):
            fail(where, f"{dest} is a folder")
        for what, q in inputs:
            if _same_file(dest, q):
                fail(where, f"{dest} is {what}: a run never writes over its own input, even with overwrite")
        if overwrite or any(u.owns(dest, rel) for u in ours):
            continue
        if kind == "manifest":
            fail(where, f"{root} holds an earlier run (manifest.json); pass overwrite (dgraph run --overwrite) "
                        f"or choose another results folder")
        fail(where, f"{dest} exists; pass overwrite (dgraph run --overwrite) to replace it")


def describe_state(p, results, rel, overwrite=False):
    """'new', 'exists: ...' or 'left by an unfinished run of this pipeline: ...' (for the dry-run plan)."""
    root = Path(results) if results is not None else Path(".")
    dest = root / rel
    if not os.path.lexists(dest):
        return "new"
    me = identity(p)
    if any(u.identity == me and u.owns(dest, rel) for u in unfinished_runs(root)):
        return "left by an unfinished run of this pipeline: will be replaced"
    return "exists: would be replaced only with --overwrite"


# -- the run's writing ------------------------------------------------------------------------------------

class Stage:
    """A hidden staging folder inside the results folder: files are written there, then moved into place.

    Use ``path(rel)`` for where to write a file, ``commit(rels)`` to move them (the last one last), and
    ``abort()`` when the run failed before committing (the staging folder goes, and the results folder
    too if this run made it and it is empty)."""

    def __init__(self, p, results, overwrite):
        self.p, self.overwrite = p, overwrite
        self.root = Path(results) if results is not None else Path(".")
        self.identity = identity(p)
        self.made = []
        self.dir = None
        try:
            missing = []
            q = Path(os.path.abspath(self.root))
            while not os.path.lexists(q):
                missing.append(q)
                q = q.parent
            self.root.mkdir(parents=True, exist_ok=True)
            self.made = list(reversed(missing))  # outermost first
            self.dir = Path(tempfile.mkdtemp(prefix=checks.STAGING_PREFIX, dir=self.root))
            self._mark("staging")
        except OSError as e:
            if self.dir is not None:
                shutil.rmtree(self.dir, ignore_errors=True)
            self._remove_made()
            raise self._error(f"cannot write the results folder {self.root}: {e.strerror or e}") from None

    def _error(self, message):
        return PipelineError(f"{self.p._where(('results',))}{message}")

    def _mark(self, phase, files=None):
        info = {"pipeline": self.p.name, "identity": self.identity, "phase": phase, "pid": os.getpid(),
                "host": socket.gethostname(), "files": files or {}}
        tmp = self.dir / f".{MARKER}.tmp"
        tmp.write_text(json.dumps(info, indent=1) + "\n")
        os.replace(tmp, self.dir / MARKER)

    def path(self, rel):
        """Where to write the file that will become ``results/rel``."""
        out = self.dir / rel
        out.parent.mkdir(parents=True, exist_ok=True)
        return out

    def final(self, rel):
        return self.root / rel

    def commit(self, rels):
        """Move the staged files into the results folder in the order given, then drop the staging folder
        and those of earlier unfinished runs of this pipeline."""
        try:
            files = {}
            for rel in rels:
                st = (self.dir / rel).lstat()
                files[str(rel)] = [st.st_ino, st.st_size]
            self._mark("committing", files)
            earlier = [u for u in unfinished_runs(self.root) if u.folder != self.dir and not u.active()]
            ours = [u for u in earlier if u.identity == self.identity]
            real_root = os.path.realpath(self.root)
            for rel in rels:
                self._move(rel, ours, real_root)
        except OSError as e:
            raise self._error(f"moving the outputs into {self.root} failed: {e.strerror or e}; it holds an "
                              f"unfinished run ({self.dir.name}): run the same pipeline again to finish it") from None
        for u in earlier:
            if u.identity == self.identity or u.phase != "committing" or self.overwrite:
                shutil.rmtree(u.folder, ignore_errors=True)
        shutil.rmtree(self.dir, ignore_errors=True)

    def _move(self, rel, ours, real_root):
        src, dest = self.dir / rel, self.root / rel
        q = self.root
        for part in rel.parts[:-1]:
            q = q / part
            if q.is_symlink() or (os.path.lexists(q) and not q.is_dir()):
                raise self._error(f"{q} is not a plain folder: {dest} would not be inside the results folder; "
                                  f"it holds an unfinished run ({self.dir.name})")
            if not os.path.lexists(q):
                q.mkdir()
        if os.path.commonpath([real_root, os.path.realpath(dest.parent)]) != real_root:
            raise self._error(f"{dest} would not be inside the results folder")
        if self.overwrite or any(u.owns(dest, rel) for u in ours):
            if dest.is_dir() and not dest.is_symlink() and _is_dataset(rel):  # a Parquet dataset folder
                old = dest.with_name(f".{dest.name}.replaced")
                os.replace(dest, old)
                os.replace(src, dest)
                shutil.rmtree(old, ignore_errors=True)
                return
            os.replace(src, dest)
            return
        try:
            os.link(src, dest)  # fails if dest exists: a file that appeared since the check is never replaced
        except FileExistsError:
            raise self._error(f"{dest} appeared during the run; it was kept (pass overwrite to replace it), "
                              f"and the results folder holds an unfinished run ({self.dir.name})") from None
        except OSError:  # no hard links on this file system
            if os.path.lexists(dest):
                raise self._error(f"{dest} appeared during the run; it was kept") from None
            os.replace(src, dest)
            return
        os.unlink(src)

    def abort(self):
        shutil.rmtree(self.dir, ignore_errors=True)
        self._remove_made()

    def _remove_made(self):
        for q in reversed(self.made):  # innermost first; only folders this run made, and only if empty
            try:
                q.rmdir()
            except OSError:
                break


__all__ = ["check_folder", "planned_files", "identity", "Stage", "Unfinished", "unfinished_runs",
           "describe_state"]


def _is_dataset(rel):
    """A Parquet output, which a partitioned result writes as a folder of one file a partition."""
    return PurePosixPath(rel).suffix.lower() in (".parquet", ".pq")
