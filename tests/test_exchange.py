"""dgraph.exchange: butterfly / all-to-all schedules deliver every contribution exactly once."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from dgraph.errors import InputError
from dgraph.exchange import (
    DEFAULT_FANOUT,
    Schedule,
    Transfer,
    all_to_all,
    butterfly,
    bytes_moved,
    parse_exchange,
    simulate,
)

CASES = [(p, f) for p in range(1, 18) for f in range(1, p + 1)]


def rounds_needed(p, r):
    """ceil(log_r p) in integers, written independently of the module's helper."""
    k = 0
    while r ** k < p:
        k += 1
    return k


def check_exactly_once(s: Schedule):
    """Independent check: senders hold what they forward; every origin arrives once, never home."""
    p = s.p
    held = [{q} for q in range(p)]
    received = [[] for _ in range(p)]
    for rnd in s.rounds:
        before = [set(h) for h in held]
        for t in rnd:
            assert t.src != t.dst and t.origins
            assert set(t.origins) <= before[t.src], (t, before[t.src])
            received[t.dst].extend(t.origins)
            held[t.dst].update(t.origins)
    for q in range(p):
        assert sorted(received[q]) == [o for o in range(p) if o != q], (q, received[q])


def max_sends(s: Schedule):
    return max((sum(t.src == q for t in rnd) for rnd in s.rounds for q in range(s.p)), default=0)


# -- butterfly: the exhaustive property loop -------------------------------------------------------

def test_butterfly_exhaustive():
    for p, f in CASES:
        s = butterfly(p, f)
        r = max(2, f)
        assert (s.p, s.fanout, s.kind, s.radix) == (p, f, "butterfly", r)
        check_exactly_once(s)
        assert s.num_rounds == len(s.rounds) == rounds_needed(p, r), (p, f)
        assert max_sends(s) == s.messages_per_partition() <= r - 1
        assert all(rnd for rnd in s.rounds)
        assert s.total_messages == sum(len(rnd) for rnd in s.rounds)
        assert s.validate() is s
        # each partition also receives at most r-1 messages per round, from distinct senders
        for k, rnd in enumerate(s.rounds):
            for q in range(p):
                srcs = [t.src for t in s.receives(q, k)]
                assert len(srcs) == len(set(srcs)) <= r - 1
                assert all(t.src == q for t in s.sends(q, k))
        sizes = [3 * q + 1 for q in range(p)]
        assert bytes_moved(s, sizes) == (p - 1) * sum(sizes)


def test_butterfly_known_shapes():
    # the paper's counts: 16 nodes, fanout 1 -> 4 rounds of 16 messages
    s = butterfly(16, 1)
    assert s.num_rounds == 4 and s.total_messages == 64
    # fanout 4 -> 2 rounds, 3 real sends per node and round (the paper counts its own as a 4th)
    s = butterfly(16, 4)
    assert s.num_rounds == 2 and s.total_messages == 16 * 3 * 2
    # fanout >= p is all-to-all in one round
    for p in range(2, 9):
        s = butterfly(p, p)
        assert s.num_rounds == 1
        assert sorted(s.rounds[0]) == sorted(all_to_all(p).rounds[0])
    # non-power of r: p=9, fanout 1 -> 4 rounds, last round truncated to one origin per message
    s = butterfly(9, 1)
    assert s.num_rounds == 4
    assert all(t.origins == (t.src,) for t in s.rounds[-1])
    assert s.receives(0, 1) == (Transfer(7, 0, (7, 6)),)
    assert butterfly(1, 3).rounds == () and butterfly(1).num_rounds == 0


def test_all_to_all():
    for p in range(1, 18):
        s = all_to_all(p)
        assert s.kind == "all-to-all" and s.p == p
        check_exactly_once(s)
        assert s.num_rounds == (1 if p > 1 else 0)
        assert s.total_messages == p * (p - 1)
        assert s.messages_per_partition() == p - 1
        assert all(t.origins == (t.src,) for rnd in s.rounds for t in rnd)
        s.validate()


def test_simulate_gathers_everything():
    for p, f in CASES:
        contrib = [np.arange(q, q + 2) for q in range(p)]
        for s in (butterfly(p, f), all_to_all(p)):
            out = simulate(s, contrib)
            for q in range(p):
                assert list(out[q]) == list(range(p))
                assert all(out[q][o] is contrib[o] for o in range(p))
            merged = simulate(s, contrib, merge=np.concatenate)
            for m in merged:
                np.testing.assert_array_equal(m, np.concatenate(contrib))


@settings(max_examples=60, deadline=None)
@given(p=st.integers(1, 70), fanout=st.integers(1, 80), data=st.data())
def test_butterfly_random_sizes(p, fanout, data):
    s = butterfly(p, fanout)
    s.validate()
    sets = [frozenset(data.draw(st.sets(st.integers(0, 10 ** 6), max_size=4))) for _ in range(p)]
    union = frozenset().union(*sets)
    assert simulate(s, sets, merge=lambda xs: frozenset().union(*xs)) == [union] * p
    assert s.num_rounds == rounds_needed(p, max(2, fanout))


# -- validate catches broken schedules -------------------------------------------------------------

@pytest.mark.parametrize("rounds, reason", [
    ([[Transfer(0, 1, (0,)), Transfer(1, 0, (1,)), Transfer(1, 2, (0,))]], "does not hold"),
    ([[Transfer(0, 1, (0,)), Transfer(1, 2, (1,)), Transfer(2, 0, (2,))],
      [Transfer(0, 1, (2, 0)), Transfer(1, 2, (0,)), Transfer(2, 0, (1,))]], "second time"),
    ([[Transfer(0, 1, (0,))], [Transfer(1, 0, (0,))]], "0 receives origin 0 a second time (its own)"),
    ([[Transfer(0, 1, (0,)), Transfer(1, 0, (1,))]], "never receives"),
    ([[Transfer(0, 0, (0,))]], "sends to itself"),
    ([[]], "empty"),
])
def test_validate_rejects(rounds, reason):
    with pytest.raises(AssertionError, match=re.escape(reason)):
        Schedule(3, 1, "butterfly", rounds).validate()


def test_validate_rejects_too_many_sends_and_wrong_round_count():
    a2a = all_to_all(4)
    with pytest.raises(AssertionError, match="more than radix-1=1"):
        Schedule(4, 1, "butterfly", a2a.rounds).validate()
    # exactly-once, at most 2 sends per round, but 3 rounds where ceil(log3 3) = 1
    slow = [[Transfer(0, 1, (0,))], [Transfer(1, 2, (0, 1))],
            [Transfer(2, 0, (1, 2)), Transfer(2, 1, (2,))]]
    with pytest.raises(AssertionError, match="must take 1 round"):
        Schedule(3, 3, "butterfly", slow).validate()
    with pytest.raises(AssertionError, match="second time"):
        simulate(Schedule(2, 1, "butterfly", [[Transfer(0, 1, (0,))], [Transfer(0, 1, (0,))]]), [1, 2])


# -- parse_exchange --------------------------------------------------------------------------------

def test_parse_exchange_accepts():
    assert parse_exchange("butterfly", p=8) == butterfly(8, DEFAULT_FANOUT)
    assert parse_exchange("butterfly", 2, p=8) == butterfly(8, 2)
    assert parse_exchange("butterfly:4", p=9) == butterfly(9, 4)
    assert parse_exchange(" Butterfly : 1 ", p=9) == butterfly(9, 1)
    assert parse_exchange("butterfly:3", 3, p=9) == butterfly(9, 3)
    assert parse_exchange({"kind": "butterfly", "fanout": 2}, p=5) == butterfly(5, 2)
    assert parse_exchange({"kind": "butterfly"}, fanout=np.int64(3), p=5) == butterfly(5, 3)
    for name in ("all-to-all", "alltoall", "a2a", "ALL-TO-ALL"):
        assert parse_exchange(name, p=6) == all_to_all(6)
    assert parse_exchange({"kind": "a2a"}, p=6) == all_to_all(6)
    s = butterfly(7, 2)
    assert parse_exchange(s, p=7) is s


@pytest.mark.parametrize("spec, fanout, match", [
    ("ring", None, r"unknown exchange 'ring'; expected one of 'butterfly'.*'all-to-all'"),
    ("", None, r"unknown exchange ''"),
    ({"kind": "tree"}, None, r"unknown exchange \{'kind': 'tree'\}.*'butterfly'"),
    (42, None, r"unknown exchange 42"),
    ({"fanout": 2}, None, r"has no 'kind'"),
    ({"kind": "butterfly", "radix": 2}, None, r"unknown key\(s\) \['radix'\]"),
    ("butterfly:0", None, r"fanout must be an integer >= 1, got 0"),
    ("butterfly:-2", None, r"fanout must be an integer >= 1, got -2"),
    ("butterfly:x", None, r"fanout 'x' is not an integer"),
    ("butterfly", 0, r"fanout must be an integer >= 1, got 0"),
    ("butterfly", 2.5, r"fanout must be an integer >= 1, got 2.5"),
    ("butterfly", "4", r"fanout must be an integer >= 1, got '4'"),
    ("butterfly", True, r"fanout must be an integer >= 1, got True"),
    ({"kind": "butterfly", "fanout": 1.0}, None, r"got 1.0"),
    ("butterfly:4", 2, r"gives fanout 4 but fanout=2"),
    ("all-to-all", 4, r"applies only to 'butterfly'"),
])
def test_parse_exchange_rejects(spec, fanout, match):
    with pytest.raises(InputError, match=match):
        parse_exchange(spec, fanout, p=8)


def test_parse_exchange_rejects_bad_p_and_schedules():
    with pytest.raises(InputError, match="p must be an integer >= 1, got 0"):
        parse_exchange("butterfly", p=0)
    with pytest.raises(InputError, match="for p=4 partitions, not 5"):
        parse_exchange(butterfly(4), p=5)
    broken = Schedule(2, 1, "butterfly", [[Transfer(0, 1, (0,))]])
    with pytest.raises(InputError, match="invalid: partition 0 never receives"):
        parse_exchange(broken, p=2)
    with pytest.raises(InputError, match="fanout must be an integer >= 1"):
        butterfly(4, 0)


def test_describe_and_bytes_moved():
    s = butterfly(9, 1)
    text = s.describe()
    assert text.startswith("butterfly p=9 fanout=1 (radix 2): 4 round(s), 36 message(s)")
    assert "round 3: 9 message(s) carrying 9 contribution(s)" in text
    assert bytes_moved(s, {q: 8 for q in range(9)}) == 8 * 8 * 9
    assert bytes_moved(s, np.full(9, 2, dtype=np.int64)) == 2 * 8 * 9
    with pytest.raises(InputError, match="3 sizes for p=9"):
        bytes_moved(s, [1, 2, 3])
