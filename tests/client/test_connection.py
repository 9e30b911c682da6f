"""Opening, renewing and closing a Connection, and the errors users get for bad credentials."""

import pytest
import requests
from mstrio.helpers import IServerError

from conftest import connect
from demo import ADMINISTRATOR_ID, PROJECT, PROJECT_ID


def session_answer(server, token):
    """GET /api/sessions with a token, as any HTTP client would send it."""
    return requests.get(server.url + "/api/sessions", headers={"X-MSTR-AuthToken": token})


def test_standard_login_authenticates_the_administrator(conn):
    assert conn.user_id == ADMINISTRATOR_ID
    assert conn.user_full_name == "Administrator"
    assert conn.status() is True


def test_the_session_carries_the_servers_idle_timeout(conn):
    # auth.session_idle_timeout_seconds defaults to 1800 (docs/configuration.md).
    assert conn.timeout == 1800


def test_a_project_is_selected_by_name(server_a):
    connection = connect(server_a, project_name=PROJECT)
    try:
        assert connection.project_id == PROJECT_ID
        assert connection.headers["X-MSTR-ProjectID"] == PROJECT_ID
    finally:
        connection.close()


def test_a_project_is_selected_by_id(server_a):
    connection = connect(server_a, project_name=None, project_id=PROJECT_ID)
    try:
        assert connection.project_id == PROJECT_ID
        assert connection.project_name == PROJECT
    finally:
        connection.close()


def test_a_connection_without_a_project_has_none_selected(server_a):
    connection = connect(server_a, project_name=None)
    try:
        assert connection.project_id is None
        assert connection.status() is True
    finally:
        connection.close()


def test_renew_keeps_the_same_session_alive(server_a):
    connection = connect(server_a)
    try:
        token = connection.token
        connection.renew()
        assert connection.token == token
        assert session_answer(server_a, token).status_code == 200
    finally:
        connection.close()


def test_logout_ends_the_session_on_the_server(server_a):
    connection = connect(server_a)
    token = connection.token
    assert session_answer(server_a, token).status_code == 200

    connection.close()

    assert session_answer(server_a, token).status_code == 401


def test_a_closed_connection_reports_itself_inactive(server_a):
    connection = connect(server_a)
    connection.close()
    assert connection.status() is False


def test_a_with_block_logs_out_when_it_ends(server_a):
    with connect(server_a) as connection:
        token = connection.token
        assert session_answer(server_a, token).status_code == 200
    assert session_answer(server_a, token).status_code == 401


def test_a_wrong_password_raises_the_clients_server_error(server_a):
    from mstrio.connection import Connection

    with pytest.raises(IServerError):
        Connection(server_a.url, "administrator", "not-the-password", project_name=PROJECT)


def test_an_unknown_user_raises_the_clients_server_error(server_a):
    from mstrio.connection import Connection

    with pytest.raises(IServerError):
        Connection(server_a.url, "nobody-of-that-name", "", project_name=PROJECT)


def test_an_unknown_project_name_raises_a_value_error(server_a):
    with pytest.raises(ValueError):
        connect(server_a, project_name="No Such Project")
