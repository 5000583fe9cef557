"""The sandbox starts, answers and names itself."""

from tests.conftest import RunningSandbox


def test_listening_line_and_health(sandbox: RunningSandbox) -> None:
    assert sandbox.base_url.startswith("http://127.0.0.1:")
    response = sandbox.client(None).get("/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
    assert response.headers["x-request-id"].startswith("req_")
