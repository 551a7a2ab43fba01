"""Daphne's websocket text frames, built once per message and written straight away.

A move watched by a thousand spectators is one ``websocket.send`` of the same text on each of
a thousand sockets of the process. Through Autobahn each of those builds its frame anew
(checks, traffic counters, a debug line whose arguments are formatted even with debug
logging off) and Twisted then queues it: the socket is registered for writing, written on
the next turn of the loop, and unregistered, two ``epoll_ctl`` calls a frame. That was most
of a spectator's cost in the web process (docs/PERFORMANCE.md, "Fan-out").

Here a server's text frame, which is never masked (RFC 6455, section 5.1) and so is the same
bytes for every recipient, is built once for the text the process last sent, and written to
the socket at once when nothing is queued before it, as asyncio's own transports do; what
the kernel does not take, and any frame behind a queue, goes through Twisted's buffer as
before. Anything other than a plain text frame on an open, uncompressed connection
(binary data, compression, fragmentation, size limits, Autobahn's frame logging, a socket
not yet accepted) takes Autobahn's path unchanged.

:func:`install` makes Daphne's server use this protocol; ``python -m wordduel.serve`` does it.
"""

from __future__ import annotations

import struct
from typing import Any

from daphne.ws_protocol import WebSocketFactory, WebSocketProtocol
from twisted.internet import tcp

#: FIN and the text opcode: a whole text message in one frame.
_FINAL_TEXT = 0x81


def text_frame(payload: bytes) -> bytes:
    """A server's unmasked, unfragmented text frame carrying ``payload`` (UTF-8)."""
    length = len(payload)
    if length <= 125:
        header = struct.pack("!BB", _FINAL_TEXT, length)
    elif length <= 0xFFFF:
        header = struct.pack("!BBH", _FINAL_TEXT, 126, length)
    else:
        header = struct.pack("!BBQ", _FINAL_TEXT, 127, length)
    return header + payload


def write_now(transport: Any, data: bytes) -> None:
    """Write ``data`` to a TCP transport, sending it at once if nothing is queued before it.

    Twisted's ``write`` always queues and sends on the next turn of the loop. When the
    transport's buffer is empty this sends now and queues only what the kernel did not take,
    so the order of bytes is the same either way. TLS, other transports, and a connection
    that is closing keep Twisted's own ``write``.
    """
    if (
        not isinstance(transport, tcp.Connection)
        or getattr(transport, "TLS", False)
        or not transport.connected
        or transport.disconnecting
        or transport._writeDisconnected
        or transport._tempDataLen
        or transport.offset != len(transport.dataBuffer)
    ):
        transport.write(data)
        return
    sent = transport.writeSomeData(data)
    if isinstance(sent, Exception):  # the connection is gone: Twisted's write notices it
        transport.write(data)
    elif sent < len(data):
        transport.write(data[sent:])


class FrameWriterProtocol(WebSocketProtocol):
    """Daphne's websocket protocol, with text frames built once and written at once."""

    #: The text this process last framed, and its frame: a thousand sends of one message's
    #: text reuse one frame. Compared by identity (the broadcast hands every socket the
    #: same string), so it costs nothing when it misses.
    _last_text: str | None = None
    _last_frame: bytes = b""
    _last_length: int = 0
    #: Whether this connection's options let its text frames be written directly (once open).
    _plain: bool | None = None

    def connectionMade(self) -> None:  # noqa: N802 - Twisted's name
        """No Nagle: frames written one by one (a move's news, then its ack) go out at once
        instead of waiting for the client to acknowledge the first, as asyncio's sockets do."""
        super().connectionMade()
        if isinstance(self.transport, tcp.Connection):
            self.transport.setTcpNoDelay(True)

    def serverSend(self, content: Any, binary: bool = False) -> None:  # noqa: N802 - Daphne's signature
        if binary or not self._sends_plain_frames():
            super().serverSend(content, binary)
            return
        cls = FrameWriterProtocol
        if content is not cls._last_text:
            payload = content.encode("utf8")
            cls._last_text, cls._last_frame, cls._last_length = (
                content,
                text_frame(payload),
                len(payload),
            )
        frame, length = cls._last_frame, cls._last_length
        if 0 < self.maxMessagePayloadSize < length or 0 < self.autoFragmentSize < length:
            super().serverSend(content, binary)  # Autobahn refuses it, or fragments it
            return
        stats = self.trafficStats  # counted as Autobahn counts them
        stats.outgoingWebSocketMessages += 1
        stats.outgoingOctetsAppLevel += length
        stats.outgoingOctetsWebSocketLevel += length
        stats.outgoingOctetsWireLevel += len(frame)
        write_now(self.transport, frame)

    def _sends_plain_frames(self) -> bool:
        """True when Autobahn would send a text as one plain frame, written directly.

        Compression, masking, timing and frame logging are settled by the handshake, so they
        are read once, on the first send after it."""
        if self.state != self.STATE_OPEN or self.send_queue:
            return False
        if self._plain is None:
            self._plain = (
                self._perMessageCompress is None
                and not (self.factory.isServer and self.maskServerFrames)
                and not self.trackedTimings
                and not self.logFrames
                and not self.logOctets
            )
        return self._plain


class FrameWriterFactory(WebSocketFactory):
    protocol = FrameWriterProtocol


def install() -> None:
    """Make Daphne's server, built after this call, speak websockets through
    :class:`FrameWriterProtocol` (Daphne builds its factory from this module-level name)."""
    from daphne import server  # noqa: PLC0415 - Twisted is loaded only by the serving process

    server.WebSocketFactory = FrameWriterFactory
