"""A client of the cei API, with Python's standard library only (3.9 or later).

One ``call(operation_id, **params)`` for every operation of the contract: the method, path and
parameter places of each are read from the server's own ``/openapi.json`` (free, never metered)
on the first call, so a new operation needs no change here. The behaviour is the TypeScript
client's (clients/typescript): errors are typed (one class per error code); a 429 is retried after
``Retry-After``, and a connection that fails (refused, reset) is retried with a growing delay, up
to ``max_retries`` times; any other 4xx (402 included) and 5xx is raised at once; each attempt has
a timeout, and a timed-out call is not retried (the service may have answered and charged).

    from cei import CeiClient
    cei = CeiClient("http://127.0.0.1:8787", os.environ["CEI_KEY"])
    project = cei.call("get_project", slug="aurora-swap")
    print(project["data"]["name"], project["meta"]["credits_remaining"])
"""

from __future__ import annotations

import http.client
import json
import random
import socket
import time
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Callable, Dict, List, Optional, Set, Tuple, Type, TypedDict

__all__ = [
    "CeiClient", "CeiError", "CeiApiError", "InvalidApiKeyError", "InsufficientCreditsError",
    "ForbiddenError", "NotFoundError", "InvalidRequestError", "RateLimitedError", "InternalError",
    "CeiConnectionError", "CeiTimeoutError", "RateLimit", "Meta", "Envelope", "RetryEvent",
]


class RateLimit(TypedDict):
    limit: int
    remaining: int
    reset_at: str
    tier: str


class Meta(TypedDict, total=False):
    request_id: str
    credits_used: int
    credits_remaining: int
    rate_limit: RateLimit


class Envelope(TypedDict):
    """A success: ``data`` is the operation's answer; ``meta`` says what it cost and what is left."""
    data: Any
    meta: Meta


class RetryEvent(TypedDict):
    attempt: int
    reason: str  # "rate_limited" or "connection"
    delay_s: float


class CeiError(Exception):
    """Anything a call of this client raises."""


class CeiApiError(CeiError):
    """The API answered with its error envelope."""

    def __init__(self, status: int, body: Dict[str, Any]) -> None:
        error = body.get("error", {})
        super().__init__(error.get("message", f"HTTP {status}"))
        self.status: int = status
        self.code: str = error.get("code", "INTERNAL_ERROR")
        self.message: str = error.get("message", "")
        #: INVALID_REQUEST only: every problem found, each naming the parameter (``path``).
        self.details: Optional[List[Dict[str, str]]] = error.get("details")
        self.meta: Meta = body.get("meta", {})
        #: Quote it when reporting a problem.
        self.request_id: str = self.meta.get("request_id", "")


class InvalidApiKeyError(CeiApiError):
    """401: no key, or not one the service knows. Not retried."""


class InsufficientCreditsError(CeiApiError):
    """402: the balance is below the operation's cost (the message names both). Never retried."""


class ForbiddenError(CeiApiError):
    """403: the key is disabled or revoked, or lacks the operation's scope. Not retried."""


class NotFoundError(CeiApiError):
    """404: no such record (or a served record without the part asked for: the message says which)."""


class InvalidRequestError(CeiApiError):
    """422: ``details`` names every problem with the parameters or body. Not retried."""


class RateLimitedError(CeiApiError):
    """429 after the client's retries, or when ``Retry-After`` is longer than it will wait."""

    def __init__(self, status: int, body: Dict[str, Any], retry_after_s: int) -> None:
        super().__init__(status, body)
        #: Whole seconds until the key's window ends.
        self.retry_after_s: int = retry_after_s


class InternalError(CeiApiError):
    """500: stale data or a fault in the service; the message says which. Not retried."""


class CeiConnectionError(CeiError):
    """The connection failed (refused, reset, closed) on every attempt."""


class CeiTimeoutError(CeiError):
    """No whole answer arrived within the timeout. Not retried."""


#: The class of each error code: the contract's closed set.
ERROR_CLASSES: Dict[str, Type[CeiApiError]] = {
    "INVALID_API_KEY": InvalidApiKeyError,
    "INSUFFICIENT_CREDITS": InsufficientCreditsError,
    "FORBIDDEN": ForbiddenError,
    "NOT_FOUND": NotFoundError,
    "INVALID_REQUEST": InvalidRequestError,
    "RATE_LIMITED": RateLimitedError,
    "INTERNAL_ERROR": InternalError,
}

_Route = Tuple[str, str, Set[str], Set[str]]  # method, path, path parameters, query parameters


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:  # the API never redirects
        return None


class CeiClient:
    """Calls the API with one key. Thread-safe for calls once the first has loaded the routes."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout_s: float = 10.0,
        max_retries: int = 2,
        max_retry_after_s: float = 60.0,
        on_retry: Optional[Callable[[RetryEvent], None]] = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._api_key = api_key
        self.timeout_s = timeout_s
        self.max_retries = max_retries
        self.max_retry_after_s = max_retry_after_s
        self.on_retry = on_retry
        self._routes: Optional[Dict[str, _Route]] = None
        self._opener = urllib.request.build_opener(_NoRedirect)

    def call(self, operation_id: str, **params: Any) -> Any:
        """Calls one operation by its id; path, query and body parameters all go in ``params``.

        Returns the success body (an ``Envelope`` for the operations under /v1); raises a
        ``CeiError`` subclass.
        """
        routes = self._route_table()
        if operation_id not in routes:
            raise ValueError(f'the service publishes no operation "{operation_id}"')
        method, path, in_path, in_query = routes[operation_id]
        query: Dict[str, str] = {}
        body: Dict[str, Any] = {}
        for name, value in params.items():
            if value is None:
                continue
            if name in in_path:
                path = path.replace("{" + name + "}", urllib.parse.quote(str(value), safe=""))
            elif name in in_query:
                query[name] = str(value).lower() if isinstance(value, bool) else str(value)
            else:
                body[name] = value
        if query:
            path += "?" + urllib.parse.urlencode(query)
        data = json.dumps(body).encode("utf-8") if method == "POST" else None
        _, headers, text = self._send(method, path, data)
        return json.loads(text) if headers.get("content-type", "").startswith("application/json") else text

    def _route_table(self) -> Dict[str, _Route]:
        if self._routes is None:
            _, _, text = self._send("GET", "/openapi.json", None)
            document = json.loads(text)
            routes: Dict[str, _Route] = {}
            for path, item in document["paths"].items():
                for method, operation in item.items():
                    parameters = operation.get("parameters", [])
                    in_path = {p["name"] for p in parameters if p["in"] == "path"}
                    in_query = {p["name"] for p in parameters if p["in"] == "query"}
                    routes[operation["operationId"]] = (method.upper(), path, in_path, in_query)
            self._routes = routes
        return self._routes

    def _send(self, method: str, path: str, data: Optional[bytes]) -> Tuple[int, Dict[str, str], str]:
        headers = {"Authorization": f"Bearer {self._api_key}", "Accept": "application/json"}
        if data is not None:
            headers["Content-Type"] = "application/json"
        attempt = 0
        while True:
            attempt += 1
            request = urllib.request.Request(self.base_url + path, data=data, headers=headers, method=method)
            try:
                with self._opener.open(request, timeout=self.timeout_s) as response:
                    return response.status, _lower(response.headers), response.read().decode("utf-8")
            except urllib.error.HTTPError as answer:
                failure = _failure(answer.code, _lower(answer.headers), answer.read().decode("utf-8", "replace"))
                if not isinstance(failure, RateLimitedError):
                    raise failure from None
                # A little random delay, so that clients sharing a key do not all retry at once.
                delay_s = failure.retry_after_s + random.uniform(0, 0.25)
                if attempt > self.max_retries or delay_s > self.max_retry_after_s:
                    raise failure from None
                self._retrying(attempt, "rate_limited", delay_s)
            except (socket.timeout, TimeoutError) as error:
                raise CeiTimeoutError(f"{method} {path}: no answer within {self.timeout_s} s") from error
            except (urllib.error.URLError, ConnectionError, http.client.HTTPException) as error:
                reason = getattr(error, "reason", error)
                if isinstance(reason, (socket.timeout, TimeoutError)):
                    raise CeiTimeoutError(f"{method} {path}: no answer within {self.timeout_s} s") from error
                if attempt > self.max_retries:
                    raise CeiConnectionError(f"{method} {path}: {reason}") from error
                self._retrying(attempt, "connection", 0.25 * 2 ** (attempt - 1))

    def _retrying(self, attempt: int, reason: str, delay_s: float) -> None:
        if self.on_retry is not None:
            self.on_retry({"attempt": attempt, "reason": reason, "delay_s": delay_s})
        time.sleep(delay_s)


def _lower(headers: Any) -> Dict[str, str]:
    return {name.lower(): value for name, value in headers.items()}


def _failure(status: int, headers: Dict[str, str], text: str) -> CeiApiError:
    try:
        body = json.loads(text)
    except ValueError:
        body = None
    code = body.get("error", {}).get("code") if isinstance(body, dict) else None
    if code not in ERROR_CLASSES:
        message = f"HTTP {status}: {text[:200]}"
        return CeiApiError(status, {"error": {"code": "INTERNAL_ERROR", "message": message}, "meta": {}})
    if code == "RATE_LIMITED":
        return RateLimitedError(status, body, int(headers.get("retry-after", "1")))
    return ERROR_CLASSES[code](status, body)
