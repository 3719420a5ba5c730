"""``python -m apps.cloud.providers.tencent.simulator --port 8900 --seed 1``."""

from __future__ import annotations

import argparse
import logging

from .constants import DEFAULT_SECRET_ID
from .server import SimulatorServer


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and serve until Ctrl-C."""
    parser = argparse.ArgumentParser(description="Built-in Tencent Cloud simulator (GPU fleet).")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8900)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--throttle-every", type=int, default=0)
    parser.add_argument("--internal-error-every", type=int, default=0)
    parser.add_argument("--http-500-every", type=int, default=0)
    parser.add_argument("--delay-ms", type=int, default=0)
    parser.add_argument("--no-rate-limits", action="store_true", help="disable per-second limits")
    parser.add_argument("--monitor-max-instances", type=int, default=None)
    parser.add_argument("--monitor-max-points", type=int, default=None)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
    server = SimulatorServer(
        args.host,
        args.port,
        args.seed,
        rate_limits={} if args.no_rate_limits else None,
        throttle_every=args.throttle_every,
        internal_error_every=args.internal_error_every,
        http_500_every=args.http_500_every,
        delay_ms=args.delay_ms,
        monitor_max_instances=args.monitor_max_instances,
        monitor_max_points=args.monitor_max_points,
    )
    # The SecretKey is deliberately not printed; it is the public constant DEFAULT_SECRET_KEY.
    print(
        f"Tencent Cloud simulator on http://{server.endpoint} (seed {args.seed}, "
        f"{len(server.fleet.all_instances)} instances in {', '.join(server.fleet.regions)}); "
        f"SecretId {DEFAULT_SECRET_ID}, SecretKey = simulator.constants.DEFAULT_SECRET_KEY",
        flush=True,
    )
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


if __name__ == "__main__":
    main()
