"""The exception family of dgraph.

Every error that bad input can cause is a ``DGraphError`` subclass whose
message names where the problem is (file and line, argument, or pipeline key)
and what was expected there.  The CLI prints that one line and exits 2.
"""

from __future__ import annotations


class DGraphError(Exception):
    """Root of every error dgraph raises on purpose."""


class InputError(DGraphError, ValueError):
    """An argument has a wrong value or type."""


class FileFormatError(DGraphError, ValueError):
    """A file could not be parsed; the message names file and line."""

    def __init__(self, path, line, message):
        self.path, self.line = str(path), line
        self.message = message
        where = f"{path}:{line}" if line is not None else f"{path}"
        super().__init__(f"{where}: {message}")

    def __reduce__(self):  # raised on a Dask worker, re-raised on the client: pickled with its own arguments
        return type(self), (self.path, self.line, self.message)


class MissingFileError(DGraphError, FileNotFoundError):
    """An input file does not exist or cannot be opened."""


class OutputExistsError(DGraphError, FileExistsError):
    """An output file exists and overwriting it was not asked for."""


class VertexNotFoundError(DGraphError, KeyError):
    """A vertex id given as an argument is not in the graph."""

    def __str__(self):  # KeyError would quote the message
        return str(self.args[0]) if self.args else ""


class BackendError(DGraphError, RuntimeError):
    """The requested array backend (e.g. CuPy on a GPU) is not usable."""


class GraphTooLargeError(DGraphError, MemoryError):
    """The graph does not fit in the memory of the device it should go to."""


class ExecutorError(DGraphError, RuntimeError):
    """A distributed run failed (a task raised, or a peer stopped answering)."""


class WorkerLostError(ExecutorError):
    """A worker holding a partition died during a run; the run was cancelled."""


class WorkerRestartedError(WorkerLostError):
    """A run failed and left a worker unusable (its GPU failed a check after the run: a sticky CUDA
    error, or no answer), so dgraph restarted that worker; its shards are rebuilt by the next run.
    The message names the worker and the error its check met."""


class PipelineError(InputError):
    """A pipeline file or a Pipeline definition is wrong; the message names the file, line and column
    of the YAML node (or the step and key) and what is allowed there."""


class EMVError(InputError):
    """An edge-message-vertex program is wrong: a bad declaration, or a user function that cannot be
    traced into array expressions; the message names the function's file and line and why."""


class ConvergenceError(DGraphError, RuntimeError):
    """An iterative algorithm did not converge within the iterations it was given; the message names
    the algorithm, the iterations and the last change against the tolerance."""

    def __init__(self, message, iterations=None, delta=None):
        super().__init__(message)
        self.iterations, self.delta = iterations, delta

    def __reduce__(self):
        return type(self), (self.args[0], self.iterations, self.delta)
