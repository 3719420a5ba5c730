"""The demo's mail catcher: a loopback SMTP server that writes each message to a .eml file.

``make demo`` points the product's e-mail (``EMAIL_URL``) at it, so invitations, sign-up links,
alerts and digests sent by the demo arrive somewhere a newcomer can read them, instead of
retrying against a mail server on localhost:25 that is not there. Each message becomes
``<dir>/<UTC time>-<n>.eml`` (open it with any mail client, or read it as text), and a line
naming the recipients, the subject and the file goes to the log.

    python -m workers.mail_catcher --port 8825 --dir var/mail
"""

from __future__ import annotations

import argparse
import itertools
import logging
import signal
import threading
from datetime import UTC, datetime
from email import message_from_bytes
from email.header import decode_header, make_header
from pathlib import Path
from typing import Any

from aiosmtpd.controller import Controller

logger = logging.getLogger("mail_catcher")


class EmlWriter:
    """An aiosmtpd handler: every accepted message is written atomically to its own file."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._numbers = itertools.count(1)
        self._lock = threading.Lock()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        content: bytes = envelope.content
        with self._lock:
            number = next(self._numbers)
        stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
        path = self.directory / f"{stamp}-{number:04d}.eml"
        partial = path.with_suffix(".eml.part")
        partial.write_bytes(content)
        partial.rename(path)  # a reader never sees half a message
        subject = str(make_header(decode_header(message_from_bytes(content)["Subject"] or "")))
        logger.info("caught mail to %s: %r -> %s", ", ".join(envelope.rcpt_tos), subject, path)
        return "250 Message accepted for delivery"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8825)
    parser.add_argument("--dir", type=Path, default=Path("var/mail"))
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s %(message)s")
    # aiosmtpd logs every SMTP command at INFO; one line per caught message is what helps.
    logging.getLogger("mail.log").setLevel(logging.WARNING)
    args.dir.mkdir(parents=True, exist_ok=True)
    controller = Controller(EmlWriter(args.dir.resolve()), hostname=args.host, port=args.port)
    controller.start()
    logger.info("catching mail on %s:%s into %s", args.host, args.port, args.dir.resolve())
    stopped = threading.Event()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: stopped.set())
    stopped.wait()
    controller.stop()
    logger.info("stopped")


if __name__ == "__main__":
    main()
