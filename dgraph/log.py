"""dgraph's logger: ``logging.getLogger("dgraph")``, for everything dgraph says that is not a result.

What it says (INFO): that kernels are being compiled on first use and where they are cached, the
phases of a pipeline run (the cluster, the graph, each step).  Problems are WARNINGs.

Routing follows the standard library's rules, with one convenience for scripts and notebooks: when
dgraph is imported into a program that has configured no logging (the root logger has no
handler), the ``dgraph`` logger gets a handler of its own that writes ``dgraph: <message>`` lines
to stderr at INFO, above any progress bar.  That handler steps aside as soon as the program
configures logging (the records then reach the root handlers like any library's).  To silence
dgraph::

    logging.getLogger("dgraph").setLevel(logging.WARNING)

and to route it elsewhere, remove the handler (``logging.getLogger("dgraph").handlers.clear()``)
and add your own, or configure the root logger.
"""

from __future__ import annotations

import logging
import sys
from contextlib import contextmanager

logger = logging.getLogger("dgraph")


class StderrHandler(logging.Handler):
    """stderr lines, written through tqdm so an active progress bar is redrawn below them.

    ``defer``: silent while the root logger has handlers of its own (they get the record by
    propagation): the default handler.  The command line uses one that does not defer.
    """

    def __init__(self, defer=False):
        super().__init__()
        self.defer = defer
        self.setFormatter(logging.Formatter("dgraph: %(message)s"))

    def emit(self, record):
        if self.defer and logging.getLogger().handlers:
            return
        try:
            msg = self.format(record)
            stream = sys.stderr
            try:
                from tqdm import tqdm  # noqa: PLC0415

                tqdm.write(msg, file=stream)
            except ImportError:  # pragma: no cover - tqdm is a dependency
                stream.write(msg + "\n")
                stream.flush()
        except Exception:  # noqa: BLE001 - logging must never raise
            self.handleError(record)


def _install_default_handler():
    if logger.handlers or logger.level != logging.NOTSET or logging.getLogger().handlers:
        return
    logger.addHandler(StderrHandler(defer=True))
    logger.setLevel(logging.INFO)


_install_default_handler()


@contextmanager
def command_logging(quiet=False):
    """For the command line (an application, so it decides): dgraph's records go to stderr, INFO
    and up (WARNING and up when ``quiet``), whatever else is configured; restored afterwards."""
    saved = logger.handlers[:], logger.level, logger.propagate
    logger.handlers[:] = [StderrHandler()]
    logger.setLevel(logging.WARNING if quiet else logging.INFO)
    logger.propagate = False
    try:
        yield logger
    finally:
        logger.handlers[:], logger.level, logger.propagate = saved
