from pathlib import Path

from tests.leaks import KNOWN_SECRETS, find_leaks


def test_it_finds_a_secret_in_a_log_file(tmp_path: Path) -> None:
    log = tmp_path / "run.log"
    log.write_text(f"ok line\nrequest with SecretKey={KNOWN_SECRETS[0]}\n")
    assert find_leaks([log]) == [f"{log}:2: request with SecretKey={KNOWN_SECRETS[0]}"]


def test_it_passes_clean_logs(tmp_path: Path) -> None:
    log = tmp_path / "run.log"
    log.write_text("synced 35 instances\nSecretKey=[REDACTED]\n")
    assert find_leaks([log, tmp_path / "missing.log"]) == []
