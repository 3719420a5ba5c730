"""docker-compose.yml cannot be started here (no Docker engine), so its structure is tested."""

from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
COMPOSE = yaml.safe_load((ROOT / "docker-compose.yml").read_text())
SERVICES = COMPOSE["services"]
APP_SERVICES = ["migrate", "web", "worker", "beat"]
LONG_RUNNING = ["db", "redis", "web", "worker", "beat", "mail"]


def test_it_defines_the_production_services() -> None:
    assert set(SERVICES) == {"db", "redis", "migrate", "web", "worker", "beat", "mail"}


@pytest.mark.parametrize("name", LONG_RUNNING)
def test_it_gives_every_long_running_service_a_healthcheck(name: str) -> None:
    healthcheck = SERVICES[name]["healthcheck"]
    assert healthcheck["test"], name
    assert healthcheck["interval"]


def test_it_keeps_the_database_on_a_named_volume() -> None:
    assert "pgdata" in COMPOSE["volumes"]
    assert "pgdata:/var/lib/postgresql/data" in SERVICES["db"]["volumes"]


def test_it_builds_every_app_service_from_the_one_image_and_environment() -> None:
    images = {SERVICES[name]["image"] for name in APP_SERVICES}
    assert images == {"gpu-ledger:latest"}
    assert all(SERVICES[name]["build"] == "." for name in APP_SERVICES)
    environments = [SERVICES[name]["environment"] for name in APP_SERVICES]
    assert all(env == environments[0] for env in environments)
    assert environments[0]["DATABASE_URL"].startswith("postgres://")
    assert environments[0]["REDIS_URL"].startswith("redis://redis:")
    assert (ROOT / "Dockerfile").is_file()


@pytest.mark.parametrize("name", ["web", "worker", "beat"])
def test_it_starts_app_services_after_migrations_and_healthy_dependencies(name: str) -> None:
    depends = SERVICES[name]["depends_on"]
    assert depends["db"]["condition"] == "service_healthy"
    assert depends["redis"]["condition"] == "service_healthy"
    assert depends["migrate"]["condition"] == "service_completed_successfully"


@pytest.mark.parametrize("name", APP_SERVICES)
def test_it_runs_commands_that_exist_in_the_repository(name: str) -> None:
    command = SERVICES[name]["command"]
    program = command[0]
    if program.startswith("workers/"):
        script = ROOT / program
        assert script.is_file(), program
        assert script.stat().st_mode & 0o111, f"{program} is not executable"
    elif program == "python":
        assert command[1] == "manage.py"
        assert (ROOT / "manage.py").is_file()
    else:
        assert program == "gunicorn"
        assert command[1] == "config.wsgi"
        assert (ROOT / "config" / "wsgi.py").is_file()


def test_it_uses_the_same_commands_as_the_makefile_demo() -> None:
    # make demo starts its long-running services through workers/demo-services.sh.
    demo = (ROOT / "Makefile").read_text() + (ROOT / "workers/demo-services.sh").read_text()
    assert "workers/start-worker.sh" in demo
    assert "workers/start-beat.sh" in demo
    assert "gunicorn config.wsgi" in demo
