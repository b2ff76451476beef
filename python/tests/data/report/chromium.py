# SPDX-License-Identifier: BSD-3-Clause
"""Open an HTML file in headless Chromium and record what it did, over the DevTools protocol.

A test helper (stdlib only): starts Chromium with the flags of PLATFORM.md and a DevTools port
on 127.0.0.1, attaches to its page with a minimal WebSocket client, enables the Network,
Runtime, Log and Page domains, navigates to the file and collects every request, console
message, exception and log entry until the load event (and a short settle time). Used by the
report tests (no console errors, no network request) and by bench/report_large.py.

Without Chromium, `require_chromium` skips a test with the reason, except in CI (CI=true), where
scripts/setup.sh installs Chromium and its absence is a failure: a CI run must not pass by
skipping the browser tests.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
         "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-quic",
         "--disable-default-apps", "--disable-extensions", "--mute-audio"]


def find_chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None


MISSING = ("chromium is not installed (looked for chromium, chromium-browser and google-chrome on PATH, "
           "and /usr/bin/chromium); install it with `MM_WITH_CHROMIUM=1 scripts/setup.sh` or "
           "`apt-get install chromium`")


def in_ci() -> bool:
    """True when the environment variable CI says so (true, 1 or yes, in any case), as CI
    services set it."""
    return os.environ.get("CI", "").strip().lower() in ("true", "1", "yes")


def require_chromium() -> str:
    """The Chromium binary, for a test that needs it. Without one the test is skipped with the
    reason; in CI it fails instead. pytest is imported here only: the rest of this helper is
    stdlib only, for bench/report_large.py."""
    import pytest

    binary = find_chromium()
    if binary is not None:
        return binary
    if in_ci():
        pytest.fail(f"{MISSING}. CI is set ({os.environ['CI']!r}), and CI must run the browser tests, "
                    "not skip them", pytrace=False)
    pytest.skip(f"{MISSING} (in CI, with CI=true, this is a failure, not a skip)")


class WebSocket:
    """Just enough of RFC 6455 for the DevTools protocol: text frames, client-side masking."""

    def __init__(self, url: str, timeout: float) -> None:
        parts = urllib.parse.urlparse(url)
        self.sock = socket.create_connection((parts.hostname, parts.port), timeout=timeout)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {parts.path} HTTP/1.1\r\nHost: {parts.hostname}:{parts.port}\r\n"
                           "Upgrade: websocket\r\nConnection: Upgrade\r\n"
                           f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n").encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("DevTools closed the connection during the handshake")
            head += chunk
        if b" 101 " not in head.split(b"\r\n", 1)[0]:
            raise ConnectionError(f"DevTools refused the WebSocket: {head[:200]!r}")
        self.buffer = head.split(b"\r\n\r\n", 1)[1]

    def _read(self, n: int) -> bytes:
        while len(self.buffer) < n:
            chunk = self.sock.recv(max(65536, n - len(self.buffer)))
            if not chunk:
                raise ConnectionError("DevTools closed the connection")
            self.buffer += chunk
        data, self.buffer = self.buffer[:n], self.buffer[n:]
        return data

    def send(self, text: str) -> None:
        payload = text.encode()
        n = len(payload)
        if n < 126:
            length = bytes([0x80 | n])
        elif n < 1 << 16:
            length = bytes([0x80 | 126]) + n.to_bytes(2, "big")
        else:
            length = bytes([0x80 | 127]) + n.to_bytes(8, "big")
        mask = os.urandom(4)
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
        self.sock.sendall(bytes([0x81]) + length + mask + masked)

    def recv(self) -> str:
        message = b""
        while True:
            b0, b1 = self._read(2)
            n = b1 & 0x7F
            if n == 126:
                n = int.from_bytes(self._read(2), "big")
            elif n == 127:
                n = int.from_bytes(self._read(8), "big")
            payload = self._read(n)
            opcode = b0 & 0x0F
            if opcode == 0x8:
                raise ConnectionError("DevTools closed the WebSocket")
            if opcode in (0x9, 0xA):  # ping/pong: ignore
                continue
            message += payload
            if b0 & 0x80:
                return message.decode()

    def close(self) -> None:
        self.sock.close()


@dataclass
class PageVisit:
    requests: list[str] = field(default_factory=list)  # every URL the page asked for
    console_errors: list[str] = field(default_factory=list)  # console, exceptions, log errors
    load_seconds: float = float("nan")  # navigate → load event
    evaluated: object = None  # result of the `expression` evaluated after load


def visit(path: Path, *, expression: str | None = None, timeout: float = 90.0,
          settle: float = 0.5) -> PageVisit:
    """Loads file `path` in headless Chromium and returns what happened."""
    binary = find_chromium()
    if binary is None:
        raise FileNotFoundError("no chromium found")
    profile = tempfile.mkdtemp(prefix="mpimeter-chromium-")
    proc = subprocess.Popen([binary, *FLAGS, f"--user-data-dir={profile}", "--remote-debugging-port=0",
                             "--remote-debugging-address=127.0.0.1", "about:blank"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        port = _devtools_port(proc, timeout)
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/json/list", timeout=timeout) as r:
            targets = json.load(r)
        page = next(t for t in targets if t.get("type") == "page")
        ws = WebSocket(page["webSocketDebuggerUrl"], timeout)
        try:
            return _session(ws, Path(path).resolve().as_uri(), expression, timeout, settle)
        finally:
            ws.close()
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        shutil.rmtree(profile, ignore_errors=True)


def _devtools_port(proc: subprocess.Popen, timeout: float) -> int:
    deadline = time.monotonic() + timeout
    lines = []
    while time.monotonic() < deadline:
        line = proc.stderr.readline()
        if not line:
            break
        lines.append(line)
        if "DevTools listening on ws://" in line:
            return urllib.parse.urlparse(line.split("listening on ", 1)[1].strip()).port
    raise RuntimeError("chromium did not open its DevTools port:\n" + "".join(lines[-20:]))


def _session(ws: WebSocket, url: str, expression: str | None, timeout: float,
             settle: float) -> PageVisit:
    visit_ = PageVisit()
    next_id = iter(range(1, 1 << 30))
    replies: dict[int, dict] = {}
    loaded = {"at": None}

    def handle(message: dict) -> None:
        method, params = message.get("method"), message.get("params", {})
        if "id" in message:
            replies[message["id"]] = message
        elif method == "Network.requestWillBeSent":
            visit_.requests.append(params["request"]["url"])
        elif method == "Runtime.exceptionThrown":
            visit_.console_errors.append("exception: " + json.dumps(params.get("exceptionDetails"))[:500])
        elif method == "Runtime.consoleAPICalled" and params.get("type") in ("error", "assert"):
            visit_.console_errors.append("console: " + json.dumps(params.get("args"))[:500])
        elif method == "Log.entryAdded" and params.get("entry", {}).get("level") == "error":
            visit_.console_errors.append("log: " + params["entry"].get("text", "")[:500])
        elif method == "Page.loadEventFired":
            loaded["at"] = time.monotonic()

    def call(method: str, **params) -> dict:
        ident = next(next_id)
        ws.send(json.dumps({"id": ident, "method": method, "params": params}))
        deadline = time.monotonic() + timeout
        while ident not in replies:
            if time.monotonic() > deadline:
                raise TimeoutError(method)
            handle(json.loads(ws.recv()))
        reply = replies.pop(ident)
        if "error" in reply:
            raise RuntimeError(f"{method}: {reply['error']}")
        return reply.get("result", {})

    for domain in ("Network", "Runtime", "Log", "Page"):
        call(f"{domain}.enable")
    start = time.monotonic()
    call("Page.navigate", url=url)
    deadline = start + timeout
    while loaded["at"] is None:
        if time.monotonic() > deadline:
            raise TimeoutError(f"{url} did not finish loading in {timeout} s")
        handle(json.loads(ws.recv()))
    visit_.load_seconds = loaded["at"] - start
    if expression is not None:
        result = call("Runtime.evaluate", expression=expression, returnByValue=True, awaitPromise=True)
        if "exceptionDetails" in result:
            raise RuntimeError(f"evaluation failed: {result['exceptionDetails']}")
        visit_.evaluated = result.get("result", {}).get("value")
    # let late events (lazy images, errors) arrive
    call("Runtime.evaluate", expression=f"new Promise(r => setTimeout(r, {int(settle * 1000)}))",
         awaitPromise=True)
    return visit_


def screenshot(path: Path, out: Path, *, width: int = 1280, height: int = 2000,
               timeout: float = 120.0) -> Path:
    """Chromium's own --screenshot of the page at `path`."""
    binary = find_chromium()
    if binary is None:
        raise FileNotFoundError("no chromium found")
    profile = tempfile.mkdtemp(prefix="mpimeter-chromium-")
    try:
        subprocess.run([binary, *FLAGS, f"--user-data-dir={profile}", f"--screenshot={out}",
                        f"--window-size={width},{height}", "--hide-scrollbars",
                        Path(path).resolve().as_uri()],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout, check=True)
    finally:
        shutil.rmtree(profile, ignore_errors=True)
    return out
