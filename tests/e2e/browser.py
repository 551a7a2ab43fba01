"""Playwright in a thread of its own, so the tests' database calls run with no event loop.

Playwright's sync API keeps an asyncio event loop in the thread that uses it, marked as
running there, and Django refuses database calls in a thread with a running loop (its
async-safety check, which is never lifted). So each browser is driven from one thread of its
own (:class:`BrowserThread`), and the tests hold proxies (:class:`Remote`): an attribute read
or a method call on a proxy is made in the browser's thread, its result handed back (a
Playwright object as a proxy again, a plain value as it is). A test reads like a plain
Playwright test, and its own ORM calls run in the main thread, where no loop is.

:data:`expect` is Playwright's ``expect`` for proxies: the assertion, and its waiting, run
in the browser's thread. A callback given to Playwright (``page.on``, ``page.route``, a
predicate) is called in the browser's thread with proxies; a proxy used there is called
directly.
"""

from __future__ import annotations

import functools
import inspect
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from playwright.sync_api import expect as playwright_expect

T = TypeVar("T")


def _is_playwright_object(value: object) -> bool:
    """A Playwright API object (Page, Locator, Keyboard, assertions...), not plain data."""
    return not isinstance(value, BaseException | type) and type(value).__module__.startswith(
        "playwright."
    )


class BrowserThread:
    """The one thread that makes every Playwright call of one browser."""

    def __init__(self) -> None:
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="playwright")
        self._ident = self._executor.submit(threading.get_ident).result()
        #: The wrapper made for each callback given to Playwright, so it stays the same one
        #: (``page.remove_listener`` finds the listener ``page.on`` added).
        self._callbacks: dict[int, tuple[Callable[..., Any], Callable[..., Any]]] = {}

    def run(self, func: Callable[..., T], /, *args: Any, **kwargs: Any) -> T:
        """``func(*args, **kwargs)`` in the browser's thread (at once when already there)."""
        if threading.get_ident() == self._ident:
            return func(*args, **kwargs)
        return self._executor.submit(func, *args, **kwargs).result()

    def call(self, func: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Any:
        """``func`` called in the browser's thread on the proxies' targets; its result with
        every Playwright object in it as a proxy."""

        def inside() -> Any:
            return self.wrap(func(*self.unwrap(args), **self.unwrap(kwargs)))

        return self.run(inside)

    def wrap(self, value: Any) -> Any:
        """``value`` as the test sees it: Playwright objects as proxies."""
        if isinstance(value, Remote):
            return value
        if _is_playwright_object(value):
            return Remote(self, value)
        if isinstance(value, list | tuple):
            return type(value)(self.wrap(item) for item in value)
        if isinstance(value, dict):
            return {key: self.wrap(item) for key, item in value.items()}
        return value

    def unwrap(self, value: Any) -> Any:
        """``value`` as Playwright takes it: proxies as their targets, callbacks wrapped."""
        if isinstance(value, Remote):
            return value.playwright_object
        if isinstance(value, list | tuple):
            return type(value)(self.unwrap(item) for item in value)
        if isinstance(value, dict):
            return {key: self.unwrap(item) for key, item in value.items()}
        if callable(value) and not isinstance(value, type) and not _is_playwright_object(value):
            return self._callback(value)
        return value

    def _callback(self, func: Callable[..., Any]) -> Callable[..., Any]:
        """``func`` as Playwright calls it (in this thread): given proxies, its answer
        unwrapped."""
        known = self._callbacks.get(id(func))
        if known is not None and known[0] is func:
            return known[1]

        @functools.wraps(func)
        def callback(*args: Any, **kwargs: Any) -> Any:
            return self.unwrap(func(*self.wrap(args), **self.wrap(kwargs)))

        self._callbacks[id(func)] = (func, callback)
        return callback

    def close(self) -> None:
        self._executor.shutdown(wait=True)


class Remote:
    """A Playwright object used from another thread: every attribute read and method call
    is made in its browser's thread."""

    __slots__ = ("_thread", "playwright_object")

    def __init__(self, thread: BrowserThread, target: Any) -> None:
        object.__setattr__(self, "_thread", thread)
        object.__setattr__(self, "playwright_object", target)

    def __getattr__(self, name: str) -> Any:
        target = self.playwright_object
        if inspect.isfunction(inspect.getattr_static(type(target), name, None)):
            # A method: binding it runs nothing; the call is made in the browser's thread.
            return functools.partial(self._thread.call, getattr(target, name))
        return self._thread.call(getattr, target, name)  # a property may ask the browser

    def __setattr__(self, name: str, value: Any) -> None:
        self._thread.call(setattr, self.playwright_object, name, value)

    def __enter__(self) -> Any:
        return self._thread.call(type(self.playwright_object).__enter__, self.playwright_object)

    def __exit__(self, *exc_info: Any) -> Any:
        return self._thread.call(
            type(self.playwright_object).__exit__, self.playwright_object, *exc_info
        )

    def __eq__(self, other: object) -> bool:
        other_target = other.playwright_object if isinstance(other, Remote) else other
        return bool(self.playwright_object == other_target)

    def __hash__(self) -> int:
        return hash(self.playwright_object)

    def __repr__(self) -> str:
        return str(self._thread.run(repr, self.playwright_object))

    def __str__(self) -> str:
        return str(self._thread.run(str, self.playwright_object))


class Expect:
    """Playwright's ``expect`` for proxies: ``expect(locator).to_have_text(...)`` asserts
    (and waits) in the browser's thread; ``expect.set_options`` sets the default timeout."""

    def __call__(self, actual: Remote, message: str | None = None) -> Any:
        if not isinstance(actual, Remote):
            raise TypeError(f"expect() takes a page, locator or response of a test: {actual!r}")
        return actual._thread.call(playwright_expect, actual, message)

    def set_options(self, timeout: float | None = None) -> None:
        playwright_expect.set_options(timeout=timeout)


expect = Expect()
