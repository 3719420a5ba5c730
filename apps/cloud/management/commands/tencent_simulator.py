"""Run the built-in Tencent Cloud simulator (for the demo and for local development)."""

from typing import Any

from django.core.management.base import BaseCommand

from apps.cloud.providers.tencent.simulator import server


class Command(BaseCommand):
    help = "Serve the built-in Tencent Cloud simulator (TC3-signed API, seeded GPU fleet)."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8900)
        parser.add_argument("--seed", type=int, default=1)
        parser.add_argument(
            "--throttle-every",
            type=int,
            default=0,
            help="answer every Nth request with RequestLimitExceeded",
        )
        parser.add_argument(
            "--internal-error-every",
            type=int,
            default=0,
            help="answer every Nth request with InternalError",
        )
        parser.add_argument("--http-500-every", type=int, default=0)
        parser.add_argument("--delay-ms", type=int, default=0)

    def handle(self, *args: Any, **options: Any) -> None:
        self.stdout.write(
            f"Tencent Cloud simulator on http://{options['host']}:{options['port']} (seed {options['seed']})"
        )
        server.serve(
            options["host"],
            options["port"],
            options["seed"],
            throttle_every=options["throttle_every"],
            internal_error_every=options["internal_error_every"],
            http_500_every=options["http_500_every"],
            delay_ms=options["delay_ms"],
        )
