"""The launch lane: a resident connection from the client to each shard's worker that starts spmd runs.

An spmd run's own work on two GPUs can be a few milliseconds (BFS on rmat26:
6-10 ms), and starting it through Dask's worker RPC cost 1.6-3.6 ms more: the
client's call hops to its event loop, crosses Dask's comm to the worker's
event loop, is handed to a loop thread, and the reply takes the same way back
(docs/BENCHMARKS.md, "Where a launch goes").  Two processes' event loops and a
thread hand-off each way are what a launch paid for, not the bytes.

Here each worker keeps a listening socket and, for every connection a client
opens, a thread that waits on it.  The client sends a run's request from its
own thread; the worker's thread reads it, runs the shard's loop itself
(:func:`dgraph.engine.spmd.run_job`) and writes the reply on the same socket;
the client waits on every shard's socket at once (``select``).  No event loop
is on the path either way, and the connections stay open from run to run.
Everything else about a run stays Dask's: the shards are Dask data on the
workers, results are claimed by Dask tasks, cancellation, lost workers and the
progress feed go through the workers' Dask handlers.

A ``tasks`` run uses the same connections the other way (:mod:`dgraph.engine.tasks`): the
client asks a worker to *watch* a run (``{"op": "watch", "run": ...}``, with a function to call
there and then: the run's first superstep, started without waiting for the scheduler), and the
run's reports come back on that connection as the worker makes them (:func:`report`) instead of
as Dask events through the scheduler; ``{"op": "unwatch"}`` (with a function to call there too:
the run is over) ends it with a ``{"op": "bye"}`` frame, after which the connection serves the
next request as before.

Security: the lane carries pickles, so nobody may talk to it who could not
already run code on the cluster.  The client makes a random 32-byte key and
gives it to its workers over Dask's own comm (the channel every Dask task
travels on); a connection is served only after both ends proved they hold
the key (HMAC-SHA256 over fresh nonces, each way), and no frame is read
before that.  A cluster whose comm is encrypted (``tls://``) gets no lane:
its runs keep the Dask RPC (:data:`dgraph.config.spmd_launch` ``'direct'``),
as do clusters whose workers' hosts the client cannot reach.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import pickle
import select
import socket
import struct
import threading
import time
import weakref

from ..log import logger

#: bytes of the nonces and of the key
NONCE = 32
#: seconds a new connection may take to authenticate (a silent peer must not hold a thread forever)
HANDSHAKE_S = 5.0
#: the frame header: the payload's length
_HEADER = struct.Struct("!Q")
#: seconds a worker's report may wait to be written to a client that does not read (then the run's
#: reports go as Dask events again: a stalled client must not stall the worker's event loop)
REPORT_SEND_S = 1.0


class LaneError(Exception):
    """The lane could not be used (connection refused, authentication failed); the run falls back."""


# -- frames and the handshake --------------------------------------------------------------

def send_frame(sock, data):
    """One frame: the length, then the bytes."""
    sock.sendall(_HEADER.pack(len(data)))
    sock.sendall(data)


def _recv_exact(sock, n):
    buf = bytearray(n)
    view, got = memoryview(buf), 0
    while got < n:
        k = sock.recv_into(view[got:], n - got)
        if k == 0:
            raise EOFError("the lane's peer closed the connection")
        got += k
    return buf


def recv_frame(sock):
    """The bytes of one frame (EOFError when the peer closed the connection)."""
    (n,) = _HEADER.unpack(_recv_exact(sock, _HEADER.size))
    return _recv_exact(sock, n)


def _mac(key, nonce):
    return hmac.new(key, bytes(nonce), hashlib.sha256).digest()


def _prove(sock, key, server):
    """Mutual proof that both ends hold ``key``; LaneError when the peer does not."""
    mine = os.urandom(NONCE)
    if server:
        sock.sendall(mine)
        theirs = _recv_exact(sock, NONCE)
        if not hmac.compare_digest(bytes(_recv_exact(sock, 32)), _mac(key, mine)):
            raise LaneError("a lane connection did not prove the client's key")
        sock.sendall(_mac(key, theirs))
    else:
        theirs = _recv_exact(sock, NONCE)
        sock.sendall(mine + _mac(key, theirs))
        if not hmac.compare_digest(bytes(_recv_exact(sock, 32)), _mac(key, mine)):
            raise LaneError("the lane's worker did not prove the client's key")


def _host(address):
    """The host part of a Dask address (``tcp://10.0.0.5:40123`` -> ``10.0.0.5``); None when the
    scheme is one the lane does not serve (``tls://``: an encrypted cluster keeps the Dask RPC)."""
    from distributed.comm.addressing import parse_address, parse_host_port  # noqa: PLC0415

    scheme, location = parse_address(address)
    if scheme not in ("tcp", "ucx", "ucxx", "inproc"):
        return None
    if scheme == "inproc":  # workers in the client's process: its own loopback
        return "127.0.0.1"
    return parse_host_port(location)[0]


# -- on a worker ---------------------------------------------------------------------------

class LaneServer:
    """A worker's listener for one client's key, and one thread per connection the client opened.

    Closed with the worker (it is in the worker's plugins, whose ``teardown`` runs at close)."""

    def __init__(self, worker, key, serve):
        self.worker, self.key, self.serve = worker, key, serve
        host = _host(worker.address)
        family = socket.AF_INET6 if host and ":" in host else socket.AF_INET
        self.sock = socket.socket(family, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind((host, 0))
        self.sock.listen(64)
        self.address = (host, self.sock.getsockname()[1])
        self.conns = set()
        self.served = 0  # requests read (what the tests count)
        self.closed = False
        self.shards = weakref.WeakValueDictionary()  # shard key -> the shard, once looked up
        threading.Thread(target=self._accept, name="dgraph-lane-accept", daemon=True).start()

    def _accept(self):
        while not self.closed:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return  # closed
            threading.Thread(target=self._connection, args=(conn,), name="dgraph-lane", daemon=True).start()

    def _connection(self, conn):
        self.conns.add(conn)
        lock = threading.Lock()  # one writer at a time: replies, and a watched run's reports

        def reply(msg):
            data = pickle.dumps(msg, protocol=5)
            with lock:
                send_frame(conn, data)

        try:
            conn.settimeout(HANDSHAKE_S)
            _prove(conn, self.key, server=True)
            conn.settimeout(None)
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            while not self.closed:
                request = pickle.loads(recv_frame(conn))
                self.served += 1
                if isinstance(request, dict) and request.get("op") in ("watch", "unwatch"):
                    self._watch(conn, lock, request, reply)
                else:
                    self.serve(self, request, reply)
        except (OSError, EOFError, LaneError, socket.timeout) as exc:
            if not self.closed and not isinstance(exc, EOFError):
                logger.debug("dgraph lane connection on %s ended: %s", self.worker.address, exc)
        finally:
            self.conns.discard(conn)
            watches = _watches(self.worker)
            for run in [r for r, (c, _) in list(watches.items()) if c is conn]:
                watches.pop(run, None)
            conn.close()

    def _watch(self, conn, lock, request, reply):
        """Start (``watch``) or end (``unwatch``) sending run ``request["run"]``'s reports on ``conn``.
        A watch may carry ``call``: ``(function, kwargs)``, called here as ``function(self, **kwargs)``
        once the watch is in place.  An unwatch is answered with ``{"op": "bye"}``: no report of that run
        follows it on this connection."""
        watches, run = _watches(self.worker), request["run"]
        if request["op"] == "unwatch":
            with lock:
                if watches.get(run, (None,))[0] is conn:
                    del watches[run]
                _send_timeout(conn, 0.0)
            self._call(request, run)
            reply({"op": "bye", "run": run})
            return
        # a report written to a client that stopped reading gives up (see report) instead of waiting
        _send_timeout(conn, REPORT_SEND_S)
        watches[run] = (conn, lock)
        self._call(request, run)

    def _call(self, request, run):
        """A watch's or an unwatch's ``call`` ((function, kwargs) or None): ``function(self, **kwargs)``."""
        if request.get("call") is not None:
            fn, kwargs = request["call"]
            try:
                fn(self, **kwargs)
            except Exception as exc:  # noqa: BLE001 - the run goes on without it (its tasks do the work)
                logger.debug("dgraph lane: the call of run %s's %s failed: %s", run, request["op"], exc)

    def shard(self, key):
        """The shard under ``key`` in the worker's data (looked up on its event loop once); None
        when the worker does not hold it."""
        shard = self.shards.get(key)
        if shard is not None:
            return shard
        import asyncio  # noqa: PLC0415

        async def look():
            return self.worker.data[key] if key in self.worker.data else None

        shard = asyncio.run_coroutine_threadsafe(look(), self.worker.loop.asyncio_loop).result()
        if shard is not None:
            self.shards[key] = shard
        return shard

    def teardown(self, worker):
        self.close()

    def close(self):
        self.closed = True
        for s in [self.sock, *list(self.conns)]:
            try:
                s.shutdown(socket.SHUT_RDWR)  # wakes a thread blocked in recv
            except OSError:
                pass
            s.close()


def _send_timeout(conn, seconds):
    """The seconds a write on ``conn`` may block (0: for ever); where the system allows setting it."""
    try:
        conn.setsockopt(socket.SOL_SOCKET, socket.SO_SNDTIMEO, struct.pack("ll", int(seconds),
                                                                         int(seconds % 1 * 1e6)))
    except (OSError, struct.error):
        pass


def _watches(worker):
    """run -> (connection, its write lock): the runs whose reports this worker sends on a lane."""
    from .worker_state import kept  # noqa: PLC0415

    return kept(worker, "_dgraph_lane_watches")


def report(worker, run, msg):
    """Send ``msg`` to the client that watches ``run`` on one of ``worker``'s lanes; -> whether it went
    (False: nobody watches it here, or the write failed or timed out, and the watch is dropped: the
    caller sends it another way)."""
    watches = getattr(worker, "_dgraph_lane_watches", None)
    entry = watches.get(run) if watches else None
    if entry is None:
        return False
    conn, lock = entry
    data = pickle.dumps(msg, protocol=5)
    try:
        with lock:
            if watches.get(run) is not entry:  # unwatched meanwhile
                return False
            send_frame(conn, data)
        return True
    except OSError as exc:  # the client went, or stopped reading (REPORT_SEND_S)
        logger.debug("dgraph lane: a report of run %s was not sent: %s", run, exc)
        watches.pop(run, None)
        try:  # part of a frame may have gone: the connection is of no further use
            conn.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        return False


def open_server(dask_worker, key, serve):
    """Start (once per key) this worker's lane for the client holding ``key``; -> (host, port), or
    None when its address is not one the lane serves."""
    if _host(dask_worker.address) is None:
        return None
    name = "dgraph-lane-" + hashlib.sha256(key).hexdigest()[:16]
    server = dask_worker.plugins.get(name)
    if server is None:
        server = LaneServer(dask_worker, key, serve)
        dask_worker.plugins[name] = server  # Worker.close calls its teardown
    return server.address


# -- on the client -------------------------------------------------------------------------

class Lanes:
    """The client's connections to its workers' lanes: one open connection per shard of a run,
    kept from run to run (a worker holding two shards of a run gets two)."""

    def __init__(self):
        self.key = os.urandom(NONCE)
        self.endpoints = {}   # worker address -> (host, port), or None (no lane there)
        self.idle = {}        # worker address -> [sockets]
        self.lock = threading.Lock()

    def ready(self, workers):
        """Whether every worker in ``workers`` has a lane."""
        return all(self.endpoints.get(w) is not None for w in workers)

    def take(self, workers):
        """One authenticated socket to each of ``workers`` (in order; repeats get their own);
        LaneError when one cannot be opened (the sockets taken are closed)."""
        got = []
        try:
            for w in workers:
                with self.lock:
                    pool = self.idle.get(w)
                    sock = pool.pop() if pool else None
                got.append(sock if sock is not None else self._open(w))
        except Exception as exc:
            self.discard(got)
            raise LaneError(f"no lane to {w}: {type(exc).__name__}: {exc}") from exc
        return got

    def _open(self, worker):
        host, port = self.endpoints[worker]
        sock = socket.create_connection((host, port), timeout=HANDSHAKE_S)
        try:
            _prove(sock, self.key, server=False)
            sock.settimeout(None)
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        except Exception:
            sock.close()
            raise
        return sock

    def give_back(self, workers, socks):
        """Sockets whose replies were read in full: kept for the next run."""
        with self.lock:
            for w, s in zip(workers, socks):
                self.idle.setdefault(w, []).append(s)

    def discard(self, socks):
        """Sockets in an unknown state (a run failed or was given up): closed."""
        for s in socks:
            try:
                s.close()
            except OSError:
                pass

    def forget(self, workers=None):
        """The workers (all, by default) restarted or left: their endpoints and sockets are stale."""
        with self.lock:
            for w in list(self.endpoints if workers is None else workers):
                self.endpoints.pop(w, None)
                self.discard(self.idle.pop(w, []))


class Watch:
    """The client's end of a watched run (see the module docstring): one lane connection to each of
    ``workers``, the watch sent on each (with ``calls[i]``, ``(function, kwargs)`` or None, for
    worker i), and a thread that hands every report to ``deliver`` as it comes.  LaneError when a
    connection cannot be had (nothing is watched then).  ``ending`` (a call as those) goes with
    each unwatch.

    :meth:`close` ends it: ``ok`` unwatches (each connection goes back to ``lanes`` once its worker
    said "bye"), else the connections are shut (a run that failed, a worker that may be gone)."""

    #: seconds after close(ok=True) that a worker may take to say "bye" before its connection is shut
    BYE_S = 10.0

    def __init__(self, lanes, workers, run, deliver, calls, ending=None):
        self.lanes, self.workers, self.run, self.deliver = lanes, list(workers), run, deliver
        self.ending = ending  # (function, kwargs) or None: called on each worker as it is unwatched
        self.socks = lanes.take(self.workers)
        self.closing = None  # when close() was called
        try:
            for sock, call in zip(self.socks, calls):
                send_frame(sock, pickle.dumps({"op": "watch", "run": run, "call": call}, protocol=5))
        except OSError as exc:
            lanes.discard(self.socks)
            raise LaneError(f"a watch of run {run} could not be sent: {exc}") from exc
        self.thread = threading.Thread(target=self._read, name=f"dgraph-watch-{run}", daemon=True)
        self.thread.start()

    def _read(self):
        open_ = dict(zip(self.socks, self.workers))
        while open_:
            ready = wait_readable(list(open_), 1.0)
            if not ready and self.closing is not None and time.monotonic() - self.closing > self.BYE_S:
                self.lanes.discard(list(open_))  # no "bye": the worker's state is unknown
                return
            for sock in ready:
                try:
                    msg = pickle.loads(recv_frame(sock))
                except Exception as exc:  # noqa: BLE001 - the worker went, or the run was closed
                    if self.closing is None:
                        logger.debug("dgraph lane: watch of run %s ended: %s", self.run, exc)
                    open_.pop(sock)
                    self.lanes.discard([sock])
                    continue
                if isinstance(msg, dict) and msg.get("op") == "bye":
                    self.lanes.give_back([open_.pop(sock)], [sock])
                    continue
                try:
                    self.deliver(msg)
                except Exception as exc:  # noqa: BLE001 - one bad report must not end the others
                    logger.debug("dgraph lane: a report of run %s was not delivered: %s", self.run, exc)

    def close(self, ok=True):
        """End the watch (once)."""
        if self.closing is not None:
            return
        self.closing = time.monotonic()
        frame = pickle.dumps({"op": "unwatch", "run": self.run, "call": self.ending}, protocol=5)
        for sock in self.socks:
            try:
                if not ok:
                    raise OSError("the run failed")
                send_frame(sock, frame)
            except OSError:
                try:
                    sock.shutdown(socket.SHUT_RDWR)  # the reader sees its end and closes it
                except OSError:
                    pass


def wait_readable(socks, timeout):
    """The sockets among ``socks`` with something to read (or closed), within ``timeout`` s."""
    ready, _, _ = select.select(socks, [], [], timeout)
    return ready


__all__ = ["LaneError", "LaneServer", "Lanes", "Watch", "open_server", "recv_frame", "report", "send_frame",
           "wait_readable"]
