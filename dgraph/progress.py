"""Progress bars (tqdm) fed superstep by superstep, for the API (``progress=True``), the CLI, the
pipeline runner and ``dgraph bench``.

In a Jupyter kernel with ipywidgets the bar is tqdm's notebook widget; elsewhere it is tqdm's
text bar on stderr.  ``progress=None`` (the CLI's and the pipeline's default) shows a bar only
when stderr is a terminal, so logs and CI output stay clean.
"""

from __future__ import annotations

import sys
import threading
from contextlib import contextmanager


def _in_notebook():
    shell = sys.modules.get("IPython")
    if shell is None:
        return False
    try:
        ip = shell.get_ipython()
    except Exception:  # noqa: BLE001
        return False
    return ip is not None and type(ip).__name__ == "ZMQInteractiveShell"


def tqdm_class():
    """tqdm's notebook bar in a Jupyter kernel that has ipywidgets, else the text bar."""
    if _in_notebook():
        try:
            import ipywidgets  # noqa: F401, PLC0415
            from tqdm.notebook import tqdm  # noqa: PLC0415

            return tqdm
        except ImportError:
            pass
    from tqdm import tqdm  # noqa: PLC0415

    return tqdm


def enabled(progress):
    """``progress`` as tqdm's ``disable``: True shows, False hides, None shows on a terminal."""
    if progress is None:
        return None if not _in_notebook() else False
    return not bool(progress)


class SuperstepBar:
    """A bar counting supersteps; call it with each superstep record (an ``on_step`` callback).

    The count follows the records' ``superstep`` numbers, so a record seen twice (a live record,
    then the final one) counts once.  The postfix shows the last frontier size (or the change, or
    the hooks) and the superstep's time.
    """

    #: the text bar when the number of supersteps is not known ahead (most runs: BFS, SSSP, WCC...)
    COUNTING = "{desc}: supersteps {n_fmt} [{elapsed}, {rate_fmt}{postfix}]"

    def __init__(self, desc=None, *, progress=True, total=None, leave=True):
        self.options = dict(total=total, unit=" superstep", leave=leave, disable=enabled(progress), file=sys.stderr,
                            dynamic_ncols=True, mininterval=0.1)
        if total is None:
            self.options["bar_format"] = self.COUNTING
        self._bar = None
        if desc is not None:
            self.describe(desc)

    @property
    def bar(self):
        if self._bar is None:
            self.describe("supersteps")
        return self._bar

    def describe(self, desc):
        """Name the bar (the algorithm); it is drawn from then on."""
        if self._bar is None:
            self._bar = tqdm_class()(desc=desc, **self.options)
        else:
            self._bar.set_description_str(desc, refresh=False)

    def __call__(self, record):
        n = int(record.get("superstep", self.bar.n)) + 1
        shown = {}
        for key in ("frontier", "components", "changed", "delta"):
            if key in record:
                value = record[key]
                shown[key] = f"{value:.3g}" if isinstance(value, float) else f"{int(value):,}"
                break
        if record.get("time_s") is not None:
            shown["step"] = f"{record['time_s'] * 1e3:.2f} ms"
        if shown:
            self.bar.set_postfix(shown, refresh=False)
        if n > self.bar.n:
            self.bar.update(n - self.bar.n)

    def close(self):
        if self._bar is not None:
            self._bar.close()


def chain(*callbacks):
    """One on_step callback calling each of ``callbacks`` that is not None (None when none is)."""
    calls = [c for c in callbacks if c is not None]
    if not calls:
        return None
    if len(calls) == 1:
        return calls[0]

    def both(record):
        for c in calls:
            c(record)
    return both


# -- a long job's runs (dgraph bench) --------------------------------------------------------------

_ambient = threading.local()


@contextmanager
def activity(desc, *, progress=None, unit="run"):
    """A bar counting the runs of a long job (``dgraph bench``): every dgraph algorithm call made
    inside it counts one (:func:`tick`, from the executor), and so does every anchor run that
    calls :func:`tick`; :func:`note` says what runs now."""
    bar = tqdm_class()(desc=desc, unit=unit, disable=enabled(progress), file=sys.stderr, dynamic_ncols=True,
                       leave=False)
    before = getattr(_ambient, "bar", None)
    _ambient.bar = bar
    try:
        yield bar
    finally:
        _ambient.bar = before
        bar.close()


def end_activity():
    """Close the current :func:`activity`'s bar now (before printing a report under it)."""
    bar = getattr(_ambient, "bar", None)
    if bar is not None:
        bar.close()
        _ambient.bar = None


def note(what):
    """Say what the current :func:`activity` runs now (nothing when none is active)."""
    bar = getattr(_ambient, "bar", None)
    if bar is not None:
        bar.set_postfix_str(what)


def tick(what=None):
    """One run of the current :func:`activity` is done (nothing when none is active)."""
    bar = getattr(_ambient, "bar", None)
    if bar is not None:
        if what is not None:
            bar.set_postfix_str(what, refresh=False)
        bar.update()
