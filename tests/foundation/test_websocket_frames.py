"""The web process's own websocket frames (wordduel/websocket_frames.py).

A text frame built once must be what any websocket client reads as that text, at every
length class of RFC 6455's header; and writing it straight to the socket must never reorder
or lose bytes, whether the kernel takes all, part or none of it. The frames are decoded
with the ``websockets`` library's own parser, and written over a real Twisted TCP
connection on the asyncio reactor Daphne runs.
"""

from __future__ import annotations

import asyncio
import socket
import threading

import pytest
from twisted.internet import protocol
from twisted.internet.asyncioreactor import AsyncioSelectorReactor
from websockets.frames import Frame, Opcode
from websockets.streams import StreamReader

from wordduel.websocket_frames import text_frame, write_now


def parse(data: bytes) -> tuple[Frame, bytes]:
    """One server frame read from ``data`` by websockets' parser, and what was left after it."""
    reader = StreamReader()
    reader.feed_data(data)
    parser = Frame.parse(reader.read_exact, mask=False)
    try:
        next(parser)
    except StopIteration as done:
        return done.value, bytes(reader.buffer)
    raise AssertionError("the frame was incomplete")


@pytest.mark.parametrize("length", [0, 1, 125, 126, 127, 65535, 65536, 200_000])
def test_a_text_frame_reads_back_as_its_text_at_every_header_length(length: int) -> None:
    text = ("é" * length)[: length // 2] + "x" * (length - length // 2 * 2)
    payload = text.encode()

    frame, rest = parse(text_frame(payload) + b"next")

    assert (frame.fin, frame.opcode, frame.rsv1, frame.rsv2, frame.rsv3) == (
        True,
        Opcode.TEXT,
        False,
        False,
        False,
    )
    assert frame.data.decode() == text
    assert rest == b"next"  # the header said exactly how long the payload is


class _Writes(protocol.Protocol):
    """Writes the chunks it is given with ``write_now`` once connected, noting after each
    whether the transport still held anything back (sent at once, or queued)."""

    def __init__(self, chunks: list[bytes], held: list[int], written: threading.Event) -> None:
        self.chunks = chunks
        self.held = held
        self.written = written

    def connectionMade(self) -> None:  # noqa: N802 - Twisted's name
        for chunk in self.chunks:
            write_now(self.transport, chunk)
            pending = len(self.transport.dataBuffer) - self.transport.offset
            self.held.append(pending + self.transport._tempDataLen)
        self.transport.loseConnection()  # after the queue is written, as Twisted promises
        self.written.set()


def serve_and_read(
    chunks: list[bytes], *, receive_buffer: int | None = None
) -> tuple[bytes, list[int]]:
    """Run a Twisted server that writes ``chunks`` to one client; what the client read, and
    how many bytes the transport still held after each write."""
    loop = asyncio.new_event_loop()
    reactor = AsyncioSelectorReactor(loop)
    held: list[int] = []
    written = threading.Event()
    factory = protocol.Factory.forProtocol(lambda: _Writes(chunks, held, written))
    port = reactor.listenTCP(0, factory, interface="127.0.0.1")
    received = bytearray()

    def client() -> None:
        with socket.socket() as sock:
            if receive_buffer is not None:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, receive_buffer)
            sock.connect(("127.0.0.1", port.getHost().port))
            if receive_buffer is not None:
                written.wait(10)  # read nothing until every chunk has been handed over
            while data := sock.recv(65536):
                received.extend(data)
        reactor.callFromThread(reactor.stop)

    reader = threading.Thread(target=client)
    reader.start()
    reactor.callLater(30, reactor.stop)  # a bound, should anything hang
    try:
        reactor.run(installSignalHandlers=False)
    finally:
        reader.join(10)
        port.stopListening()
        loop.close()
    return bytes(received), held


def test_frames_written_at_once_arrive_whole_and_in_order() -> None:
    chunks = [text_frame(f"frame {n}".encode()) for n in range(50)]

    received, held = serve_and_read(chunks)

    assert received == b"".join(chunks)
    assert held == [0] * 50  # each was sent at once: nothing waited for the next turn


def test_what_the_kernel_cannot_take_is_queued_and_the_order_kept() -> None:
    # A client that reads nothing until all is written, and a big first chunk: the kernel
    # takes part of it, the rest and every later frame must queue behind it.
    big = text_frame(b"b" * 8_000_000)
    chunks = [big, *(text_frame(f"after {n}".encode()) for n in range(20))]

    received, held = serve_and_read(chunks, receive_buffer=4096)

    assert received == b"".join(chunks)
    assert held[0] > 0  # the kernel did not take the 8 MB at once
    assert all(later > held[0] for later in held[1:])  # later frames queued, not sent past it
