"""The spmd launch lane (dgraph/engine/lane.py): runs go through it by default, only a client holding
the key is served, and a lane that cannot be used leaves the run to Dask's RPC with the same answer."""

import pickle
import socket
import threading

import numpy as np
import pytest

import dgraph
from dgraph.engine import lane


def _served(dask_worker):
    return sum(p.served for name, p in dask_worker.plugins.items() if name.startswith("dgraph-lane-"))


def _lanes(client):
    return getattr(client, "_dgraph_lanes")


def test_runs_go_through_the_lane_and_equal_local(client):
    G = dgraph.generate("rmat", scale=7, seed=3, directed=True)
    PG = G.partition(3, client=client)
    dgraph.bfs(PG, 0, executor="spmd")  # the lanes open on the first run
    before = sum(client.run(_served).values())
    got, ref = dgraph.bfs(PG, 0, executor="spmd"), dgraph.bfs(G, 0)
    np.testing.assert_array_equal(got.raw("depth"), ref.raw("depth"))
    np.testing.assert_array_equal(got.raw("parent"), ref.raw("parent"))
    assert sum(client.run(_served).values()) - before == 3  # one request a shard, none through the RPC
    w = dgraph.wcc(PG, executor="spmd")
    np.testing.assert_array_equal(w.raw("component"), dgraph.wcc(G).raw("component"))


def test_an_unusable_lane_falls_back_to_the_rpc_and_comes_back(client):
    G = dgraph.generate("grid", rows=4, cols=9)
    PG = G.partition(2, client=client)
    dgraph.bfs(PG, 0, executor="spmd")
    lanes = _lanes(client)
    w = PG.workers[0]
    good = lanes.endpoints[w]
    dead = socket.socket()
    dead.bind((good[0], 0))
    port = dead.getsockname()[1]
    dead.close()  # nothing listens there now
    with lanes.lock:
        lanes.endpoints[w] = (good[0], port)
        for s in lanes.idle.pop(w, []):
            s.close()
    before = sum(client.run(_served).values())
    r = dgraph.bfs(PG, 0, executor="spmd")
    assert int(r.depth.max()) == 11
    assert sum(client.run(_served).values()) == before  # the RPC ran it
    r = dgraph.bfs(PG, 0, executor="spmd")  # the endpoints were looked up again: the lane is back
    assert int(r.depth.max()) == 11
    assert sum(client.run(_served).values()) == before + 2
    assert lanes.endpoints[w] == good


def test_a_lane_serves_only_the_key_holder(client):
    PG = dgraph.generate("grid", rows=3, cols=3).partition(2, client=client)
    dgraph.bfs(PG, 0, executor="spmd")
    lanes = _lanes(client)
    host, port = lanes.endpoints[PG.workers[0]]
    before = sum(client.run(_served).values())
    # a peer without the key: its proof is refused and nothing it sends is read as a request
    with socket.create_connection((host, port), timeout=10) as s:
        nonce = lane._recv_exact(s, lane.NONCE)
        assert len(nonce) == lane.NONCE
        s.sendall(b"\0" * lane.NONCE + b"\1" * 32)
        s.sendall(lane._HEADER.pack(8) + pickle.dumps(None)[:8])
        s.settimeout(10)
        try:
            got = s.recv(64)
        except ConnectionResetError:  # closed with our frame unread
            got = b""
        assert got == b""  # closed on us, nothing sent back
    # a client with the wrong key cannot open a lane either
    wrong = lane.Lanes()
    wrong.endpoints[PG.workers[0]] = (host, port)
    with pytest.raises(lane.LaneError):
        wrong.take([PG.workers[0]])
    assert sum(client.run(_served).values()) == before
    assert int(dgraph.bfs(PG, 0, executor="spmd").depth.max()) == 4  # the lane still works


def test_the_handshake_proves_the_key_both_ways():
    def pair(server_key, client_key):
        a, b = socket.socketpair()
        errors = {}

        def side(sock, key, server):
            try:
                lane._prove(sock, key, server)
            except Exception as exc:  # noqa: BLE001
                errors[server] = exc
            finally:
                if server and server in errors:
                    sock.close()

        t = threading.Thread(target=side, args=(a, server_key, True))
        t.start()
        side(b, client_key, False)
        t.join(10)
        a.close()
        b.close()
        return errors

    assert pair(b"k" * 32, b"k" * 32) == {}
    errors = pair(b"k" * 32, b"x" * 32)
    assert isinstance(errors.get(True), lane.LaneError)
    assert False in errors  # the client learns it too (closed or refused), never a reply


@pytest.mark.parametrize("address, host", [("tcp://10.0.0.5:40123", "10.0.0.5"), ("ucx://node-7:1234", "node-7"),
                                           ("tcp://[::1]:8786", "::1"), ("inproc://10.1.1.1/123/4", "127.0.0.1"),
                                           ("tls://10.0.0.5:40123", None)])
def test_which_clusters_get_a_lane(address, host):
    assert lane._host(address) == host


def test_frames_round_trip():
    a, b = socket.socketpair()
    with a, b:
        lane.send_frame(a, b"")
        lane.send_frame(a, b"x" * 100_000)
        assert lane.recv_frame(b) == b""
        assert lane.recv_frame(b) == b"x" * 100_000
        a.close()
        with pytest.raises(EOFError):
            lane.recv_frame(b)
