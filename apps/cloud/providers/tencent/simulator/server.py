"""The HTTP front of the simulator: TC3 check, envelope, faults, rate limits, request log.

``SimulatorServer(port=0).start()`` runs it in a background thread for tests;
``serve(host, port, seed)`` runs it in the foreground (the management command and
``python -m apps.cloud.providers.tencent.simulator`` use it).
"""

from __future__ import annotations

import contextlib
import json
import logging
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from .cam import DEFAULT_POLICIES, FULL_ACCESS, CamPolicy
from .constants import DEFAULT_RATE_LIMITS, SERVICE_VERSIONS, SIMULATOR_CREDENTIALS, utc_now
from .errors import ApiError
from .faults import (
    HTTP_500,
    INTERNAL_ERROR,
    OK,
    THROTTLE,
    FaultInjector,
    RateLimiter,
    RequestLog,
    RequestRecord,
)
from .fleet import Fleet
from .handlers import ACTIONS, RequestContext
from .operations import WRITE_ACTIONS
from .signature import parse_authorization, verify
from .world import MonitorSettings, SimulatedCloud

logger = logging.getLogger(__name__)

# The SDK parses error bodies only when Content-Type is exactly this (no charset parameter).
CONTENT_TYPE = "application/json"


class SimulatorServer:
    """A Tencent Cloud look-alike on one port, serving one seeded fleet.

    ``rate_limits=None`` applies the documented per-second limits (DEFAULT_RATE_LIMITS);
    pass ``{}`` to switch rate limiting off. ``now`` is the simulation clock; ``auth_clock``
    (unix seconds) is only for the signature's 300-second window, so a test can freeze the
    simulated time while the SDK keeps signing with the real one. ``denied_actions`` are
    answered ``UnauthorizedOperation.CamNoAuth``, as for a key without that CAM permission.
    ``policies`` give SecretIds narrower permissions (``cam.DEFAULT_POLICIES`` when None: the
    read-only and the write key); a SecretId without a policy may call everything.
    """

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        seed: int = 1,
        *,
        now: Callable[[], datetime] = utc_now,
        anchor: datetime | None = None,
        credentials: Mapping[str, str] | None = None,
        rate_limits: Mapping[str, int] | None = None,
        throttle_every: int = 0,
        internal_error_every: int = 0,
        http_500_every: int = 0,
        delay_ms: int = 0,
        denied_actions: frozenset[str] = frozenset(),
        policies: Mapping[str, CamPolicy] | None = None,
        monitor_max_instances: int | None = None,
        monitor_max_points: int | None = None,
        monitor_lag_seconds: int | None = None,
        auth_clock: Callable[[], float] = time.time,
    ) -> None:
        monitor = MonitorSettings()
        if monitor_max_instances is not None:
            monitor.max_instances = monitor_max_instances
        if monitor_max_points is not None:
            monitor.max_points = monitor_max_points
        if monitor_lag_seconds is not None:
            monitor.lag_seconds = monitor_lag_seconds
        self.cloud = SimulatedCloud(seed=seed, now=now, anchor=anchor, monitor=monitor)
        self.credentials = dict(SIMULATOR_CREDENTIALS if credentials is None else credentials)
        self.rate_limiter = RateLimiter(DEFAULT_RATE_LIMITS if rate_limits is None else rate_limits)
        self.faults = FaultInjector()
        self.faults.configure(
            throttle_every=throttle_every,
            internal_error_every=internal_error_every,
            http_500_every=http_500_every,
            delay_ms=delay_ms,
        )
        self.denied_actions = frozenset(denied_actions)
        self.policies: dict[str, CamPolicy] = dict(
            DEFAULT_POLICIES if policies is None else policies
        )
        self.request_log = RequestLog()
        self.auth_clock = auth_clock
        self._httpd = ThreadingHTTPServer((host, port), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.simulator = self  # type: ignore[attr-defined]
        self._thread: threading.Thread | None = None

    # Life cycle ---------------------------------------------------------------------------

    @property
    def host(self) -> str:
        """The bound address."""
        return str(self._httpd.server_address[0])

    @property
    def port(self) -> int:
        """The bound port (the real one when constructed with port 0)."""
        return int(self._httpd.server_address[1])

    @property
    def endpoint(self) -> str:
        """``host:port`` for ``HttpProfile(protocol="http", endpoint=...)``."""
        return f"{self.host}:{self.port}"

    @property
    def fleet(self) -> Fleet:
        """The simulated fleet (also ``self.cloud`` for expected figures)."""
        return self.cloud.fleet

    def start(self) -> SimulatorServer:
        """Serve in a daemon thread and return at once."""
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"tencent-simulator-{self.port}",
            daemon=True,
        )
        self._thread.start()
        return self

    def serve_forever(self) -> None:
        """Serve in the calling thread until ``stop()`` or KeyboardInterrupt."""
        self._httpd.serve_forever()

    def stop(self) -> None:
        """Stop serving and release the port."""
        self._httpd.shutdown()
        self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    def __enter__(self) -> SimulatorServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def max_requests_in_any_window(self, action: str, seconds: float = 1.0) -> int:
        """Most requests of one action the server received within any ``seconds`` window."""
        return self.request_log.max_requests_in_any_window(action, seconds)

    def requests(
        self,
        action: str | None = None,
        *,
        instance_id: str | None = None,
        secret_id: str | None = None,
        outcome: str | None = None,
    ) -> list[RequestRecord]:
        """The requests received, oldest first, with their parameters (``record.params``),
        RequestId and outcome (OK or the error code): of one action, naming one instance in
        its ``InstanceIds``, from one SecretId, with one outcome. Counting StopInstances calls
        per instance is ``len(sim.requests("StopInstances", instance_id=...))``."""
        return [
            r
            for r in self.request_log.records(action, secret_id)
            if (instance_id is None or r.names_instance(instance_id))
            and (outcome is None or r.outcome == outcome)
        ]

    def set_policy(
        self,
        secret_id: str,
        *,
        allowed_actions: frozenset[str] | set[str] | None = None,
        denied_actions: frozenset[str] | set[str] = frozenset(),
        resource_tag: tuple[str, str] | None = None,
    ) -> None:
        """Give one SecretId a CAM policy (replacing its previous one)."""
        self.policies[secret_id] = CamPolicy(
            frozenset(allowed_actions) if allowed_actions is not None else None,
            frozenset(denied_actions),
            resource_tag,
        )

    # Request handling ---------------------------------------------------------------------

    def handle(
        self, method: str, path: str, query: str, headers: Mapping[str, str], body: bytes
    ) -> tuple[int, str, bytes]:
        """Answer one request: (HTTP status, Content-Type, body). ``headers`` are lower-case."""
        # The moment the request arrived, before any work on it: the cloud counts requests
        # against its rate limits as they arrive, and a moment taken after the handler ran
        # (a GetMonitorData answer takes longer than a DescribeInstances one) would bunch
        # evenly spaced requests up in the log.
        arrived = time.monotonic(), time.time()
        request_id = str(uuid.uuid4())
        action = headers.get("x-tc-action", "")
        service = secret_id = ""
        # Best effort, only for the request log: a malformed header is answered below.
        with contextlib.suppress(ApiError):
            secret_id, _, service, _, _ = parse_authorization(headers.get("authorization"))
        params: dict[str, Any] | None = None
        with contextlib.suppress(ValueError):
            decoded = json.loads(body or b"{}")
            params = decoded if isinstance(decoded, dict) else None
        fault, delay = self.faults.pick(action)
        if delay:
            time.sleep(delay)
        if fault == HTTP_500:
            self._log(arrived, service, action, secret_id, HTTP_500, request_id, params)
            return 500, "text/html", b"<html><body><h1>500 Internal Server Error</h1></body></html>"
        try:
            response = self._dispatch(
                method, path, query, headers, body, fault, arrived[0], request_id
            )
            outcome = OK
        except ApiError as error:
            response = {"Error": {"Code": error.code, "Message": error.message}}
            outcome = error.code
        except Exception:
            logger.exception("simulator handler failed for %s", action)
            response = {
                "Error": {"Code": "InternalError", "Message": "An internal error occurred."}
            }
            outcome = "InternalError"
        response["RequestId"] = request_id
        self._log(arrived, service, action, secret_id, outcome, request_id, params)
        payload = json.dumps({"Response": response}, ensure_ascii=False).encode()
        return 200, CONTENT_TYPE, payload

    def _log(
        self,
        arrived: tuple[float, float],
        service: str,
        action: str,
        secret_id: str,
        outcome: str,
        request_id: str,
        params: dict[str, Any] | None,
    ) -> None:
        self.request_log.append(
            RequestRecord(*arrived, service, action, secret_id, outcome, request_id, params)
        )
        logger.debug("simulator %s.%s -> %s", service, action, outcome)

    def _dispatch(
        self,
        method: str,
        path: str,
        query: str,
        headers: Mapping[str, str],
        body: bytes,
        fault: str | None,
        arrived: float,
        request_id: str,
    ) -> dict[str, Any]:
        if method != "POST":
            raise ApiError("InvalidParameter", "The simulator accepts only POST requests.")
        content_type = headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type != CONTENT_TYPE:
            raise ApiError("InvalidParameter", "The Content-Type must be application/json.")
        scope = verify(
            method=method,
            path=path,
            query=query,
            headers=headers,
            body=body,
            secrets=self.credentials,
            now=self.auth_clock(),
        )
        action = headers.get("x-tc-action")
        if not action:
            raise ApiError(
                "MissingParameter", "The request is missing a required parameter `Action`."
            )
        version = headers.get("x-tc-version")
        if not version:
            raise ApiError(
                "MissingParameter", "The request is missing a required parameter `Version`."
            )
        entry = ACTIONS.get((scope.service, action))
        if entry is None:
            raise ApiError(
                "InvalidAction", f"The action `{action}` is not valid for `{scope.service}`."
            )
        if version != SERVICE_VERSIONS[scope.service]:
            raise ApiError(
                "NoSuchVersion", f"The version `{version}` of `{scope.service}` does not exist."
            )
        handler, regional = entry
        region = headers.get("x-tc-region") or None
        if regional:
            if region is None:
                raise ApiError(
                    "MissingParameter", "The request is missing a required parameter `Region`."
                )
            if region not in self.cloud.fleet.regions:
                raise ApiError("UnsupportedRegion", f"The region `{region}` is not supported.")
        policy = self.policies.get(scope.secret_id, FULL_ACCESS)
        if action in self.denied_actions or not policy.allows(action):
            raise ApiError(
                "UnauthorizedOperation.CamNoAuth",
                f"The current user is not authorized to call `{action}` (CAM).",
            )
        if not self.rate_limiter.allow(scope.secret_id, action, at=arrived):
            limit = self.rate_limiter.limits[action]
            raise ApiError(
                THROTTLE,
                f"Your request rate exceeds the limit of {limit} per second for `{action}`. "
                "Please reduce the frequency of calls.",
            )
        if fault == THROTTLE:
            raise ApiError(THROTTLE, "The request frequency exceeds the limit (injected).")
        if fault == INTERNAL_ERROR:
            raise ApiError(INTERNAL_ERROR, "An internal error occurred (injected).")
        try:
            params = json.loads(body or b"{}")
        except ValueError as exc:
            raise ApiError("InvalidParameter", "The request body is not valid JSON.") from exc
        if not isinstance(params, dict):
            raise ApiError("InvalidParameter", "The request body must be a JSON object.")
        context = RequestContext(
            self.cloud,
            region,
            scope.secret_id,
            self.cloud.now_epoch(),
            request_id,
            policy.resource_tag if action in WRITE_ACTIONS else None,
        )
        return handler(context, params)


class _Handler(BaseHTTPRequestHandler):
    """Adapts http.server to ``SimulatorServer.handle``."""

    protocol_version = "HTTP/1.1"
    server_version = "TencentCloudSimulator/1.0"

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        path, _, query = self.path.partition("?")
        headers = {key.lower(): value for key, value in self.headers.items()}
        simulator: SimulatorServer = self.server.simulator  # type: ignore[attr-defined]
        status, content_type, payload = simulator.handle(self.command, path, query, headers, body)
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    do_POST = _answer
    do_GET = _answer

    def log_message(self, format: str, *args: Any) -> None:
        logger.debug("simulator http: " + format, *args)


def serve(host: str = "127.0.0.1", port: int = 8900, seed: int = 1, **options: Any) -> None:
    """Run a simulator in the foreground until interrupted (options as SimulatorServer)."""
    server = SimulatorServer(host, port, seed, **options)
    logger.info("Tencent Cloud simulator on http://%s (seed %s)", server.endpoint, seed)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server._httpd.server_close()
