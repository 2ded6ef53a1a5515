"""Communication schedules for exchanging per-partition contributions.

Every superstep of a distributed BFS ends with an allgather: each of the
``p`` partitions has a *contribution* (data about the vertices it owns: the
new frontier vertices it found, or its slice of the frontier bitmap) and every
partition needs all of them.  Contributions of different partitions are
disjoint and addressable by origin, so a message carries an explicit tuple of
origins and the receiver can always split the payload back by origin.

A ``Schedule`` is a list of rounds; a round is a list of
``Transfer(src, dst, origins)``: ``src`` sends ``dst`` the contributions of
``origins``.  Transfers of one round run concurrently, so a sender may only
forward what it held *before* the round (its own contribution or one received
in an earlier round).  What travels is the concatenation of the listed
origins' payloads, in the listed order.

Butterfly (ButterFly BFS, fanout f)
-----------------------------------
The radix is ``r = max(2, f)``: the paper's fanout 1 is pairwise exchange
(log2 p rounds), fanout f >= 2 exchanges within groups of f (log_f p rounds),
and fanout >= p is all-to-all in one round.  To work for *any* p, not only
powers of r, we use Bruck-style dissemination on the ring of partitions.
Measure everything by the *offset* ``d = (dst - origin) mod p``:

- Before round k (step ``s = r**k``) partition q holds exactly the origins at
  offsets ``[0, min(s, p))``, i.e. ``q, q-1, ..., q-s+1`` (mod p).
- In round k, q receives from ``src = q - j*s`` (j = 1..r-1, while j*s < p)
  that sender's first ``n_j = min(s, p - j*s)`` held origins
  ``src, src-1, ..., src-n_j+1``; at q they are offsets ``[j*s, j*s + n_j)``.
  Transfers with ``j*s >= p`` would be empty and are dropped.
- These ranges for j = 1..r-1 are disjoint and together cover
  ``[s, min(r*s, p))``, so after round k q holds offsets ``[0, min(r*s, p))``.

Why every origin arrives exactly once and never at its owner: each offset d
in ``[1, p)`` is delivered in exactly one round (the k with r**k <= d <
r**(k+1)) by exactly one transfer (j = d // s), offset 0 (the own contribution)
is never sent, and offsets below p are distinct mod p.  The sender holds what it
forwards because ``n_j <= s``.  The loop stops once s >= p, i.e. after
``ceil(log_r p)`` rounds.  Each partition sends, and receives, at most r - 1
messages per round, to distinct partners; unlike the paper's XOR butterfly on a
non-power-of-two p (nine GPUs: eight send to one in the last round) the load
is the same on every partition in every round.  For the executors, a
transfer is always a *prefix* of the sender's offset-ordered buffer, placed
at offset j*s of the receiver's: buffers stay contiguous and are allocated
once.

Every exactly-once schedule moves the same bytes, (p - 1) times the sum of all
contributions; the fanout trades rounds (latency) against messages per round.
(The paper counts f messages per node and round, its own included; we count
the f - 1 that actually travel.)
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any, Callable, Mapping, NamedTuple, Sequence

from dgraph.errors import InputError

BUTTERFLY = "butterfly"
ALL_TO_ALL = "all-to-all"
KINDS = (BUTTERFLY, ALL_TO_ALL)
#: ButterFly BFS's fanout 4 beat fanout 1 on most graphs and GPU counts.
DEFAULT_FANOUT = 4
_ALIASES = {
    "butterfly": BUTTERFLY,
    "all-to-all": ALL_TO_ALL,
    "all_to_all": ALL_TO_ALL,
    "alltoall": ALL_TO_ALL,
    "a2a": ALL_TO_ALL,
}
_ALLOWED = ("'butterfly', 'butterfly:<fanout>', 'all-to-all' (or 'alltoall', 'a2a'), "
            "a Schedule, or {'kind': 'butterfly', 'fanout': <int>}")


class Transfer(NamedTuple):
    """In one round, ``src`` sends ``dst`` the contributions of ``origins``."""

    src: int
    dst: int
    origins: tuple


def ceil_log(p: int, r: int) -> int:
    """Smallest k with r**k >= p, in integers (0 for p <= 1)."""
    k, s = 0, 1
    while s < p:
        s *= r
        k += 1
    return k


@dataclass(frozen=True)
class Schedule:
    """``rounds[k]`` holds the transfers of round k (tuples, read like lists)."""

    p: int
    fanout: int
    kind: str
    rounds: tuple

    def __post_init__(self):
        object.__setattr__(self, "rounds",
                           tuple(tuple(Transfer(t[0], t[1], tuple(t[2])) for t in rnd)
                                 for rnd in self.rounds))

    @property
    def radix(self) -> int:
        """Group size per round: max(2, fanout)."""
        return max(2, self.fanout)

    @property
    def num_rounds(self) -> int:
        return len(self.rounds)

    @property
    def total_messages(self) -> int:
        return sum(len(rnd) for rnd in self.rounds)

    def sends(self, q: int, round: int) -> tuple:
        """Transfers partition ``q`` sends in ``round``."""
        return tuple(t for t in self.rounds[round] if t.src == q)

    def receives(self, q: int, round: int) -> tuple:
        """Transfers partition ``q`` receives in ``round``."""
        return tuple(t for t in self.rounds[round] if t.dst == q)

    def messages_per_partition(self) -> int:
        """Most messages any one partition sends in any one round."""
        most = 0
        for rnd in self.rounds:
            counts = [0] * self.p
            for t in rnd:
                counts[t.src] += 1
            most = max(most, max(counts, default=0))
        return most

    def describe(self) -> str:
        head = (f"{self.kind} p={self.p} fanout={self.fanout} (radix {self.radix}): "
                f"{self.num_rounds} round(s), {self.total_messages} message(s), "
                f"at most {self.messages_per_partition()} send(s) per partition per round")
        lines = [head]
        for k, rnd in enumerate(self.rounds):
            moved = sum(len(t.origins) for t in rnd)
            lines.append(f"  round {k}: {len(rnd)} message(s) carrying {moved} contribution(s)")
        return "\n".join(lines)

    def validate(self) -> "Schedule":
        """Check every invariant; raise AssertionError naming the first broken one.

        Ids in range; no empty round or transfer; at most one transfer per
        (src, dst) pair per round; a sender holds what it forwards at the start
        of the round; no partition receives an origin it already holds (its
        own included), and at the end every partition holds every origin, so
        each arrives exactly once; at most radix - 1 sends per partition per
        round; the round count the kind promises.  Returns self.
        """
        p = self.p
        assert isinstance(p, int) and p >= 1, f"p must be an int >= 1, got {p!r}"
        assert self.kind in KINDS, f"kind {self.kind!r} is not one of {KINDS}"
        assert isinstance(self.fanout, int) and self.fanout >= 1, \
            f"fanout must be an int >= 1, got {self.fanout!r}"
        held = [{q} for q in range(p)]
        for k, rnd in enumerate(self.rounds):
            assert rnd, f"round {k} is empty"
            before = [set(h) for h in held]
            pairs, sends = set(), [0] * p
            for t in rnd:
                assert 0 <= t.src < p and 0 <= t.dst < p, f"round {k}: {t} has an id outside 0..{p - 1}"
                assert t.src != t.dst, f"round {k}: {t} sends to itself"
                assert t.origins, f"round {k}: {t} carries no origins"
                assert len(set(t.origins)) == len(t.origins), f"round {k}: {t} repeats an origin"
                assert (t.src, t.dst) not in pairs, f"round {k}: two transfers {t.src}->{t.dst}"
                pairs.add((t.src, t.dst))
                sends[t.src] += 1
                for o in t.origins:
                    assert 0 <= o < p, f"round {k}: {t} has origin {o} outside 0..{p - 1}"
                    assert o in before[t.src], \
                        f"round {k}: {t.src} forwards origin {o} it does not hold yet"
                    assert o not in held[t.dst], \
                        f"round {k}: {t.dst} receives origin {o} a second time" + \
                        (" (its own)" if o == t.dst else "")
                    held[t.dst].add(o)
            assert max(sends) <= self.radix - 1, \
                f"round {k}: a partition sends {max(sends)} messages, more than radix-1={self.radix - 1}"
        for q in range(p):
            missing = sorted(set(range(p)) - held[q])
            assert not missing, f"partition {q} never receives origins {missing}"
        want = ceil_log(p, self.radix) if self.kind == BUTTERFLY else int(p > 1)
        assert self.num_rounds == want, \
            f"{self.kind} with p={p}, radix {self.radix} must take {want} round(s), not {self.num_rounds}"
        return self


# -- constructions ---------------------------------------------------------------------------------

def _check_p(p) -> int:
    if isinstance(p, bool) or not isinstance(p, numbers.Integral) or p < 1:
        raise InputError(f"number of partitions p must be an integer >= 1, got {p!r}")
    return int(p)


def _check_fanout(fanout) -> int:
    if isinstance(fanout, bool) or not isinstance(fanout, numbers.Integral) or fanout < 1:
        raise InputError(f"exchange fanout must be an integer >= 1, got {fanout!r}")
    return int(fanout)


def butterfly(p: int, fanout: int = DEFAULT_FANOUT) -> Schedule:
    """Bruck-style butterfly over ``p`` partitions (see the module docstring).

    Transfers of a round are ordered by sender, then by partner distance j.
    """
    p, fanout = _check_p(p), _check_fanout(fanout)
    r = max(2, fanout)
    rounds, s = [], 1
    while s < p:
        rnd = []
        for src in range(p):
            for j in range(1, r):
                if j * s >= p:
                    break
                n = min(s, p - j * s)
                rnd.append(Transfer(src, (src + j * s) % p, tuple((src - t) % p for t in range(n))))
        rounds.append(rnd)
        s *= r
    return Schedule(p, fanout, BUTTERFLY, rounds)


def all_to_all(p: int) -> Schedule:
    """One round: every partition sends its own contribution to every other (none for p=1).

    Its fanout is recorded as p: the paper's fanout f = p is all-to-all.
    """
    p = _check_p(p)
    rnd = [Transfer(src, dst, (src,)) for src in range(p) for dst in range(p) if dst != src]
    return Schedule(p, p, ALL_TO_ALL, [rnd] if rnd else [])


def parse_exchange(spec, fanout=None, *, p) -> Schedule:
    """Build the schedule a user asked for, for ``p`` partitions.

    ``spec``: "butterfly" (fanout from ``fanout``, else DEFAULT_FANOUT),
    "butterfly:<f>", "all-to-all" / "alltoall" / "a2a", a dict
    ``{"kind": ..., "fanout": ...}``, or a ready Schedule (validated, and its p
    must match).  A fanout given twice with different values, or given for
    all-to-all, is an InputError, as is any unknown kind.
    """
    p = _check_p(p)
    if isinstance(spec, Schedule):
        if spec.p != p:
            raise InputError(f"exchange schedule is for p={spec.p} partitions, not {p}")
        try:
            return spec.validate()
        except AssertionError as exc:
            raise InputError(f"exchange schedule is invalid: {exc}") from None
    if isinstance(spec, Mapping):
        extra = sorted(set(spec) - {"kind", "fanout"}, key=str)
        if extra:
            raise InputError(f"exchange: unknown key(s) {extra}; allowed: 'kind', 'fanout'")
        if "kind" not in spec:
            raise InputError(f"exchange {dict(spec)!r} has no 'kind'; expected one of {_ALLOWED}")
        kind, inner = spec["kind"], spec.get("fanout")
    elif isinstance(spec, str):
        kind, sep, tail = spec.strip().partition(":")
        inner = None
        if sep:
            try:
                inner = int(tail.strip())
            except ValueError:
                raise InputError(f"exchange {spec!r}: fanout {tail!r} is not an integer; "
                                 f"expected one of {_ALLOWED}") from None
    else:
        raise InputError(f"unknown exchange {spec!r}; expected one of {_ALLOWED}")
    name = _ALIASES.get(kind.strip().lower()) if isinstance(kind, str) else None
    if name is None:
        raise InputError(f"unknown exchange {spec!r}; expected one of {_ALLOWED}")
    if inner is not None and fanout is not None and _check_fanout(inner) != _check_fanout(fanout):
        raise InputError(f"exchange {spec!r} gives fanout {inner} but fanout={fanout!r} was also given")
    f = inner if inner is not None else fanout
    if name == ALL_TO_ALL:
        if f is not None:
            raise InputError(f"exchange {spec!r}: a fanout applies only to 'butterfly', "
                             f"all-to-all has none")
        return all_to_all(p)
    return butterfly(p, DEFAULT_FANOUT if f is None else _check_fanout(f))


# -- reference executor and accounting -------------------------------------------------------------

def simulate(schedule: Schedule, contributions: Sequence[Any],
             merge: Callable[[list], Any] | None = None) -> list:
    """Run ``schedule`` in one process; the reference the real executors must match.

    Each partition holds a dict origin -> payload, starting with its own
    ``contributions[q]``.  A transfer copies the listed origins' payloads as
    the sender held them at the start of the round.  Returns, per partition,
    that dict (keys in origin order), or ``merge(payloads in origin order)``
    when ``merge`` is given.  A broken schedule raises AssertionError.
    """
    p = schedule.p
    if len(contributions) != p:
        raise InputError(f"simulate: {len(contributions)} contributions for p={p} partitions")
    held = [{q: contributions[q]} for q in range(p)]
    for k, rnd in enumerate(schedule.rounds):
        sent = []
        for t in rnd:
            missing = [o for o in t.origins if o not in held[t.src]]
            assert not missing, f"round {k}: {t.src} forwards {missing} it does not hold yet"
            sent.append((t.dst, [(o, held[t.src][o]) for o in t.origins]))
        for dst, items in sent:
            for o, payload in items:
                assert o not in held[dst], f"round {k}: {dst} receives origin {o} a second time"
                held[dst][o] = payload
    out = []
    for q, h in enumerate(held):
        assert len(h) == p, f"partition {q} ends without origins {sorted(set(range(p)) - set(h))}"
        ordered = {o: h[o] for o in range(p)}
        out.append(ordered if merge is None else merge(list(ordered.values())))
    return out


def bytes_moved(schedule: Schedule, sizes) -> int:
    """Total bytes sent: sum over transfers of the sizes of the origins they carry.

    ``sizes[q]`` is the byte size of origin q's contribution (a sequence or
    array of length p, or a mapping origin -> bytes, absent origins 0).  For any exactly-once
    schedule this is (p - 1) * sum(sizes).
    """
    p = schedule.p
    if isinstance(sizes, Mapping):
        sizes = [sizes.get(q, 0) for q in range(p)]
    if len(sizes) != p:
        raise InputError(f"bytes_moved: {len(sizes)} sizes for p={p} partitions")
    sizes = [int(x) for x in sizes]
    if any(x < 0 for x in sizes):
        raise InputError(f"bytes_moved: sizes must be >= 0, got {sizes}")
    return sum(sizes[o] for rnd in schedule.rounds for t in rnd for o in t.origins)
