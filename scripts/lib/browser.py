"""A headless Chromium driven over the DevTools protocol, with the standard library only.

Chromium's --remote-debugging-pipe reads protocol messages on its file descriptor 3 and
writes on 4, each a JSON object ended by a NUL byte, so no WebSocket client is needed.

    with Browser() as browser:
        page = browser.open("file:///.../page.html", width=1280, height=900)
        text = page.evaluate("document.title")
        page.screenshot("page.png")

Every wait is bounded: a browser that does not answer within its timeout raises
BrowserError, and leaving the block always ends the browser process.
"""

import base64
import json
import os
import select
import shutil
import subprocess
import tempfile
import time


class BrowserError(Exception):
    pass


def find_chromium():
    """The Chromium program, or None."""
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    return None


class Page:
    def __init__(self, browser, session):
        self._browser = browser
        self._session = session

    def call(self, method, **params):
        return self._browser.call(method, session=self._session, **params)

    def evaluate(self, expression, timeout=20):
        """The value of a JavaScript expression in the page (a promise is awaited)."""
        answer = self._browser.call("Runtime.evaluate", session=self._session, timeout=timeout,
                                    expression=expression, awaitPromise=True, returnByValue=True)
        if "exceptionDetails" in answer:
            details = answer["exceptionDetails"]
            thrown = details.get("exception", {}).get("description") or details.get("text", "")
            raise BrowserError(f"the page threw: {thrown}")
        return answer["result"].get("value")

    def screenshot(self, path, full_page=True):
        """Writes a PNG of the page (the whole page, not only the window, by default)."""
        params = {"format": "png"}
        if full_page:
            size = self.call("Page.getLayoutMetrics")["cssContentSize"]
            params["clip"] = {"x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1}
            params["captureBeyondViewport"] = True
        data = base64.b64decode(self.call("Page.captureScreenshot", **params)["data"])
        temp = f"{path}.{os.getpid()}.tmp"
        try:
            with open(temp, "wb") as out:
                out.write(data)
            os.replace(temp, path)
        finally:
            if os.path.exists(temp):
                os.remove(temp)


class Browser:
    def __init__(self, program=None, timeout=30):
        self._program = program or find_chromium()
        if not self._program:
            raise BrowserError("chromium not found (the Debian package chromium provides it)")
        self._timeout = timeout
        self._process = None
        self._profile = None
        self._next_id = 0
        self._buffer = b""
        self._events = []

    def __enter__(self):
        self._profile = tempfile.mkdtemp(prefix="moq-browser-")
        to_browser_read, to_browser_write = os.pipe()
        from_browser_read, from_browser_write = os.pipe()

        def wire_descriptors():
            # In the child: its end of each pipe as descriptors 3 and 4. Copy both out of the
            # way first, in case either already sits on 3 or 4.
            reading, writing = os.dup(to_browser_read), os.dup(from_browser_write)
            os.dup2(reading, 3)
            os.dup2(writing, 4)

        command = [self._program, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                   "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                   "--disable-background-networking", "--disable-dev-shm-usage", "--mute-audio",
                   "--remote-debugging-pipe", f"--user-data-dir={self._profile}", "about:blank"]
        self._log = tempfile.TemporaryFile()
        try:
            # The child wires 3 and 4 first, then closes every other descriptor but those.
            self._process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=self._log,
                                             stderr=self._log, preexec_fn=wire_descriptors,
                                             close_fds=True, pass_fds=(3, 4))
        except OSError as error:
            raise BrowserError(f"cannot start {self._program}: {error}") from error
        finally:
            os.close(to_browser_read)
            os.close(from_browser_write)
        self._write = to_browser_write
        self._read = from_browser_read
        return self

    def __exit__(self, *exc):
        try:
            if self._process and self._process.poll() is None:
                try:
                    self._send("Browser.close", None, {})
                    self._process.wait(timeout=5)
                except (BrowserError, OSError, subprocess.TimeoutExpired):
                    pass
        finally:
            if self._process and self._process.poll() is None:
                self._process.kill()
                self._process.wait()
            for descriptor in (self._write, self._read):
                try:
                    os.close(descriptor)
                except OSError:
                    pass
            self._log.close()
            shutil.rmtree(self._profile, ignore_errors=True)
        return False

    def log_tail(self, lines=20):
        """The last lines Chromium printed, to explain a failure."""
        self._log.seek(0)
        return "\n".join(self._log.read().decode(errors="replace").splitlines()[-lines:])

    def _send(self, method, session, params):
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        try:
            os.write(self._write, json.dumps(message).encode() + b"\0")
        except OSError as error:
            raise BrowserError(f"chromium stopped listening ({error})") from error
        return self._next_id

    def _receive(self, deadline):
        while b"\0" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                raise BrowserError("chromium did not answer in time")
            ready, _, _ = select.select([self._read], [], [], left)
            if not ready:
                continue
            chunk = os.read(self._read, 1 << 20)
            if not chunk:
                raise BrowserError(f"chromium exited:\n{self.log_tail()}")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method, session=None, timeout=None, **params):
        """Sends one command and returns its result; events that arrive meanwhile are kept."""
        number = self._send(method, session, params)
        deadline = time.monotonic() + (timeout or self._timeout)
        while True:
            message = self._receive(deadline)
            if message.get("id") == number:
                if "error" in message:
                    raise BrowserError(f"{method}: {message['error'].get('message')}")
                return message.get("result", {})
            if "method" in message:
                self._events.append(message)

    def wait_for_event(self, method, session, timeout=None):
        deadline = time.monotonic() + (timeout or self._timeout)
        while True:
            for event in self._events:
                if event["method"] == method and event.get("sessionId") == session:
                    self._events.remove(event)
                    return event["params"]
            message = self._receive(deadline)
            if "method" in message:
                self._events.append(message)

    def open(self, url, width=1280, height=900):
        """A new tab at url, loaded (its load event fired), with a window of width x height."""
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        page = Page(self, session)
        page.call("Page.enable")
        page.call("Runtime.enable")
        page.call("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                  mobile=False)
        page.call("Page.navigate", url=url)
        self.wait_for_event("Page.loadEventFired", session)
        return page
