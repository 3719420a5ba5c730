from tests.cloud.conftest import make_simulator  # noqa: F401  (simulator fixture, reused)
