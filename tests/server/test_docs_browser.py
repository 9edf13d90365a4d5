"""``/docs`` and ``/redoc`` render in a real headless Chromium with no network.

Chromium (Debian's ``chromium`` package; ``.ci/run`` installs it) opens the pages of a live
server with every host but 127.0.0.1 unresolvable, and its net log lists every request the
page made: the rendered DOM must show the operations (Swagger UI / ReDoc built the page
from /openapi.json with local assets), and no request of the page may leave the server.
Skipped where no Chromium is installed.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from tests.server.live import live_server

CHROMIUM = next((p for p in map(shutil.which, ("chromium", "chromium-browser")) if p), None)

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="no Chromium installed (apt-get install -y --no-install-recommends chromium)"
)


def render(url: str, tmp: Path) -> tuple[str, list[str]]:
    """The DOM of ``url`` after its scripts ran, and the URLs of every request the page made."""
    net_log = tmp / "net.json"
    cmd = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-features=AutofillServerCommunication,OptimizationHints,MediaRouter",
        "--enable-logging=stderr",
        f"--user-data-dir={tmp / 'profile'}",
        # Offline: any host but the server's fails to resolve, as on a machine with no network.
        "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1",
        f"--log-net-log={net_log}",
        "--virtual-time-budget=15000",
        "--dump-dom",
        url,
    ]
    env = {**os.environ, "HOME": str(tmp)}
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=180, env=env, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc.stdout, page_requests(net_log.read_text())


def page_requests(text: str) -> list[str]:
    """URLs of the requests a page made (the browser's own update/sync pings are not the page's)."""
    text = text.rstrip()
    if not text.endswith("}"):  # a log Chromium did not close: end the event list
        text = text.rstrip(",") + "]}"
    log = json.loads(text)
    start_job = log["constants"]["logEventTypes"]["URL_REQUEST_START_JOB"]
    urls = []
    for event in log["events"]:
        params = event.get("params") or {}
        if event["type"] == start_job and params.get("network_isolation_key", "").startswith("http://127.0.0.1"):
            urls.append(params["url"])
    return urls


def assert_offline(urls: list[str], port: int, *must_load: str) -> None:
    outside = [u for u in urls if urlsplit(u).netloc != f"127.0.0.1:{port}"]
    assert not outside, f"the page requested URLs outside the server: {outside}"
    paths = {urlsplit(u).path for u in urls}
    for path in must_load:
        assert path in paths, (path, sorted(paths))


def test_swagger_ui_renders_offline(tmp_path: Path) -> None:
    with live_server() as port:
        dom, urls = render(f"http://127.0.0.1:{port}/docs", tmp_path)
    # Rendered by Swagger UI's JS from the schema, not the static shell (an empty <div id="swagger-ui">).
    assert 'class="swagger-ui' in dom, dom[:2000]
    assert "opblock" in dom, dom[:2000]
    for path in ("/v1/count", "/v1/tokenize", "/v1/parse", "/health"):
        assert f'data-path="{path}"' in dom, path
    assert_offline(urls, port, "/docs", "/openapi.json")
    assert any(u.endswith("/swagger-ui-bundle.js") for u in urls), urls
    assert any(u.endswith("/swagger-ui.css") for u in urls), urls


def test_redoc_renders_offline(tmp_path: Path) -> None:
    with live_server() as port:
        dom, urls = render(f"http://127.0.0.1:{port}/redoc", tmp_path)
    # ReDoc replaced the <redoc> tag with the rendered API: the operations and their paths.
    assert "/v1/count" in dom and "/v1/parse" in dom, dom[:2000]
    assert "toklane" in dom and "api-content" in dom, dom[:2000]
    assert_offline(urls, port, "/redoc", "/openapi.json")
    assert any(u.endswith("/redoc.standalone.js") for u in urls), urls
