"""The HTML leaderboard in headless Chromium (Debian's `chromium`): it renders, a column sort works, the figures load.

Chromium is driven over the DevTools protocol on a pipe (--remote-debugging-pipe: NUL-separated JSON on fds 3
and 4), so the test needs nothing but the browser: no driver binary, no port, no websocket library. The page's
screenshot is kept as a CI artifact at results/screenshots/leaderboard.png. Skips when chromium is absent.
"""

from __future__ import annotations

import base64
import fcntl
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from hpceval.report import build_report
from test_report import report_inputs

REPO = Path(__file__).resolve().parents[1]
SCREENSHOT = REPO / "results" / "screenshots" / "leaderboard.png"
CHROMIUM = next((p for p in (shutil.which("chromium"), shutil.which("chromium-browser")) if p), None)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--disable-dev-shm-usage", "--hide-scrollbars", "--mute-audio", "--window-size=1400,1000"]

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="chromium not installed (apt-get install chromium)")


class CDPError(RuntimeError):
    pass


def _high_fd(fd: int) -> int:
    high = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return high


class Browser:
    """Headless Chromium with a DevTools-protocol client over --remote-debugging-pipe."""

    def __init__(self, user_data_dir: Path, timeout: float = 60.0):
        self.timeout = timeout
        to_child_r, self._to_child = os.pipe()
        self._from_child, from_child_w = os.pipe()
        # the child's ends move above fd 10 first, so that the shell's redirections cannot clobber them
        to_child_r, from_child_w = _high_fd(to_child_r), _high_fd(from_child_w)
        # bash (dash has no fds above 9) puts the pipes on fds 3 (browser reads) and 4 (browser writes), then execs chromium
        script = f'exec "$0" "$@" 3<&{to_child_r} 4>&{from_child_w} {to_child_r}<&- {from_child_w}>&-'
        self.proc = subprocess.Popen(
            ["bash", "-c", script, CHROMIUM, *FLAGS, f"--user-data-dir={user_data_dir}", "--remote-debugging-pipe",
             "about:blank"],
            pass_fds=(to_child_r, from_child_w), stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL, start_new_session=True)
        os.close(to_child_r)
        os.close(from_child_w)
        self._buf = b""
        self._next_id = 0
        self.events: list[dict] = []

    # -------------------------------------------------------------------------------- protocol
    def _read_message(self, deadline: float) -> dict:
        while b"\0" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no answer from chromium")
            ready, _, _ = select.select([self._from_child], [], [], left)
            if ready:
                chunk = os.read(self._from_child, 1 << 20)
                if not chunk:
                    raise CDPError(f"chromium closed the pipe (exit {self.proc.poll()})")
                self._buf += chunk
        raw, self._buf = self._buf.split(b"\0", 1)
        return json.loads(raw)

    def send(self, method: str, params: dict | None = None, session: str | None = None) -> dict:
        self._next_id += 1
        msg = {"id": self._next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._to_child, json.dumps(msg).encode() + b"\0")
        deadline = time.monotonic() + self.timeout
        while True:
            reply = self._read_message(deadline)
            if reply.get("id") == self._next_id:
                if "error" in reply:
                    raise CDPError(f"{method}: {reply['error']}")
                return reply.get("result", {})
            self.events.append(reply)

    def wait_event(self, method: str, session: str | None = None) -> dict:
        deadline = time.monotonic() + self.timeout
        while True:
            for i, ev in enumerate(self.events):
                if ev.get("method") == method and (session is None or ev.get("sessionId") == session):
                    return self.events.pop(i)
            self.events.append(self._read_message(deadline))

    def close(self) -> None:
        try:
            self.send("Browser.close")
        except (CDPError, TimeoutError, OSError):
            pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, 9)
            self.proc.wait()
        for fd in (self._to_child, self._from_child):
            try:
                os.close(fd)
            except OSError:
                pass


class Page:
    def __init__(self, browser: Browser, width: int = 1400, height: int = 1000):
        self.b = browser
        target = browser.send("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = browser.send("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.send("Page.enable")
        self.send("Runtime.enable")
        self.send("Emulation.setDeviceMetricsOverride", {"width": width, "height": height, "deviceScaleFactor": 1,
                                                         "mobile": False})

    def send(self, method: str, params: dict | None = None) -> dict:
        return self.b.send(method, params, self.session)

    def goto(self, url: str) -> None:
        self.send("Page.navigate", {"url": url})
        self.b.wait_event("Page.loadEventFired", self.session)

    def js(self, expression: str):
        result = self.send("Runtime.evaluate", {"expression": expression, "returnByValue": True,
                                                "awaitPromise": True})
        if "exceptionDetails" in result:
            raise CDPError(f"{expression[:80]}: {result['exceptionDetails'].get('text')} "
                           f"{result['exceptionDetails'].get('exception', {}).get('description', '')}")
        return result["result"].get("value")

    def click(self, selector: str) -> None:
        """A real mouse click in the middle of the element (scrolled into view first)."""
        box = self.js(f"(() => {{ const e = document.querySelector({json.dumps(selector)});"
                      " e.scrollIntoView({block: 'center'}); const r = e.getBoundingClientRect();"
                      " return [r.x + r.width / 2, r.y + r.height / 2]; })()")
        for kind in ("mouseMoved", "mousePressed", "mouseReleased"):
            self.send("Input.dispatchMouseEvent", {"type": kind, "x": box[0], "y": box[1], "button": "left",
                                                   "clickCount": 1})

    def screenshot(self, path: Path) -> None:
        self.js("window.scrollTo(0, 0)")
        height = min(int(self.js("document.documentElement.scrollHeight")), 8000)
        self.send("Emulation.setDeviceMetricsOverride", {"width": 1400, "height": height, "deviceScaleFactor": 1,
                                                         "mobile": False})
        data = self.send("Page.captureScreenshot", {"format": "png"})["data"]
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(data))


@pytest.fixture(scope="module")
def page_url(tmp_path_factory) -> str:
    ref, synthetic = report_inputs(tmp_path_factory.getbasetemp() / "report-inputs")
    out = tmp_path_factory.mktemp("html")
    build_report([ref, synthetic], out, n_boot=500)
    return (out / "index.html").as_uri()


@pytest.fixture(scope="module")
def page(page_url, tmp_path_factory):
    browser = Browser(tmp_path_factory.mktemp("chromium-profile"))
    try:
        p = Page(browser)
        p.goto(page_url)
        yield p
    finally:
        browser.close()


def column(page: Page, table: str, index: int) -> list[str]:
    return page.js(f"Array.from(document.querySelectorAll('#{table} tbody tr'))"
                   f".map(r => r.cells[{index}].getAttribute('data-v'))")


def test_page_renders_tables_and_counts(page: Page):
    assert page.js("document.title") == "hpceval leaderboard"
    assert page.js("document.querySelectorAll('#leaderboard tbody tr').length") == 4   # 2 LLMs x 2 models x axpy
    assert page.js("document.querySelectorAll('#summary tbody tr').length") == 4
    assert "infra_error: 2" in page.js("document.getElementById('infra-count').innerText")
    llms = set(column(page, "leaderboard", 0))
    assert llms == {"reference", "openai:synthetic-coder"}
    # laid out, not just parsed: the table has a real size on the page
    assert page.js("document.getElementById('leaderboard').getBoundingClientRect().width") > 600


def test_figures_load(page: Page):
    images = page.js("Promise.all(Array.from(document.images).map(i => i.decode().then(() => "
                     "[i.getAttribute('src'), i.naturalWidth, i.naturalHeight], () => [i.getAttribute('src'), 0, 0])))")
    assert len(images) >= 5
    broken = [src for src, w, h in images if w < 100 or h < 100]
    assert not broken, f"figures that did not load: {broken}"
    assert {"figures/pass_at_k.png", "figures/speedup.png", "figures/verdicts.png"} <= {src for src, _, _ in images}


def test_clicking_a_header_sorts_the_column(page: Page):
    headers = page.js("Array.from(document.querySelectorAll('#leaderboard thead th')).map(h => h.innerText.trim())")
    index = next(i for i, h in enumerate(headers) if h.startswith("proficiency"))
    selector = f"#leaderboard thead th:nth-child({index + 1})"

    def values() -> list[float]:
        return [float(v) for v in column(page, "leaderboard", index) if v]

    page.click(selector)
    assert page.js(f"document.querySelector('{selector}').getAttribute('aria-sort')") == "ascending"
    up = values()
    assert up == sorted(up) and len(up) == 4
    page.click(selector)
    assert page.js(f"document.querySelector('{selector}').getAttribute('aria-sort')") == "descending"
    down = values()
    assert down == sorted(up, reverse=True)
    assert down != up, "the test data should have distinct proficiencies"
    # a text column sorts too
    page.click("#leaderboard thead th:nth-child(1)")
    llms = column(page, "leaderboard", 0)
    assert llms == sorted(llms, key=str.lower)


def test_screenshot_is_kept(page: Page):
    page.screenshot(SCREENSHOT)
    data = SCREENSHOT.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20000
