"""``/docs`` (Swagger UI) and ``/redoc`` served with no network: the JS, CSS and favicon come
from the ``fastapi-offline`` wheel (Swagger UI 5, ReDoc 2), mounted as static files.

FastAPI's own pages load these assets from a CDN, which is a blank page on an offline machine.
Nothing here is downloaded at run time, and the pages reference no URL outside the server
(the Swagger validator badge, an image from validator.swagger.io, is turned off; ReDoc is
served without Google Fonts), and their Content-Security-Policy lets the browser load nothing
from anywhere else: ReDoc's "by Redocly" footer logo (cdn.redoc.ly) is blocked and ReDoc then
drops it.
"""

from __future__ import annotations

from importlib.util import find_spec
from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.openapi.docs import get_redoc_html, get_swagger_ui_html
from fastapi.responses import HTMLResponse
from fastapi.staticfiles import StaticFiles

ASSETS_URL = "/docs-assets"
"""Where the bundled Swagger UI / ReDoc files are mounted."""

CSP = (
    "default-src 'self'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' data:; font-src 'self' data:; worker-src 'self' blob:; connect-src 'self'"
)
"""The docs pages may load only from this server (inline scripts and styles: FastAPI's page templates)."""


def assets_dir() -> str:
    """The folder of the packaged assets (``swagger-ui-bundle.js``, ``swagger-ui.css``,
    ``redoc.standalone.js``, ``favicon.png``), found without importing ``fastapi_offline`` (its import
    would be a noticeable part of a server's start)."""
    spec = find_spec("fastapi_offline")
    if spec is None or not spec.submodule_search_locations:
        needs = "fastapi_offline is not installed (pip install 'toklane[serve]')"
        raise ModuleNotFoundError(needs, name="fastapi_offline")
    return str(Path(next(iter(spec.submodule_search_locations))) / "static")


def add_docs(app: FastAPI, docs_url: str = "/docs", redoc_url: str = "/redoc") -> None:
    """Serve Swagger UI at ``docs_url`` and ReDoc at ``redoc_url`` from local assets.

    Build ``app`` with ``docs_url=None, redoc_url=None`` (FastAPI's CDN pages) first."""
    app.mount(ASSETS_URL, StaticFiles(directory=assets_dir()), name="docs-assets")
    openapi_url = app.openapi_url or "/openapi.json"

    @app.get(docs_url, include_in_schema=False)
    async def swagger_ui(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        page = get_swagger_ui_html(
            openapi_url=f"{root}{openapi_url}",
            title=f"{app.title} - Swagger UI",
            swagger_js_url=f"{root}{ASSETS_URL}/swagger-ui-bundle.js",
            swagger_css_url=f"{root}{ASSETS_URL}/swagger-ui.css",
            swagger_favicon_url=f"{root}{ASSETS_URL}/favicon.png",
            swagger_ui_parameters={"validatorUrl": None, **(app.swagger_ui_parameters or {})},
        )
        page.headers["Content-Security-Policy"] = CSP
        return page

    @app.get(redoc_url, include_in_schema=False)
    async def redoc(request: Request) -> HTMLResponse:
        root = request.scope.get("root_path", "")
        page = get_redoc_html(
            openapi_url=f"{root}{openapi_url}",
            title=f"{app.title} - ReDoc",
            redoc_js_url=f"{root}{ASSETS_URL}/redoc.standalone.js",
            redoc_favicon_url=f"{root}{ASSETS_URL}/favicon.png",
            with_google_fonts=False,
        )
        page.headers["Content-Security-Policy"] = CSP
        return page
