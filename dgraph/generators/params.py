"""Parameter checks shared by the generators.

Every bad parameter raises :class:`~dgraph.errors.InputError` whose message
names the parameter, the value given and what is allowed, so that a pipeline
YAML key or a CLI flag can be fixed from the message alone.
"""

from __future__ import annotations

import math
import numbers

from ..errors import InputError


def check_int(name, value, lo=None, hi=None):
    """An int (numpy ints too; bools and floats refused) within ``[lo, hi]``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InputError(f"{name}={value!r}: expected an integer" + _range(lo, hi))
    value = int(value)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise InputError(f"{name}={value}: expected an integer" + _range(lo, hi))
    return value


def check_float(name, value, lo=None, hi=None):
    """A finite real number within ``[lo, hi]``."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not math.isfinite(float(value)):
        raise InputError(f"{name}={value!r}: expected a finite number" + _range(lo, hi))
    value = float(value)
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise InputError(f"{name}={value!r}: expected a number" + _range(lo, hi))
    return value


def check_choice(name, value, choices):
    if value not in choices:
        raise InputError(f"{name}={value!r}: expected one of {', '.join(map(repr, choices))}")
    return value


def check_known(kind, params, allowed):
    """Refuse parameters a generator does not take, listing the ones it does."""
    unknown = sorted(set(params) - set(allowed))
    if unknown:
        raise InputError(
            f"generate({kind!r}): unknown parameter {unknown[0]!r}; "
            f"{kind!r} takes {', '.join(sorted(allowed))}"
        )


def exclusive(kind, params, *names):
    given = [n for n in names if params.get(n) is not None]
    if len(given) > 1:
        raise InputError(f"generate({kind!r}): give only one of {', '.join(names)} (got {', '.join(given)})")
    return given[0] if given else None


def _range(lo, hi):
    if lo is not None and hi is not None:
        return f" in [{lo}, {hi}]"
    if lo is not None:
        return f" >= {lo}"
    if hi is not None:
        return f" <= {hi}"
    return ""
