"""Users, user groups and security roles through the client.

The storage service starts with the user administrator (full name Administrator), the groups
Everyone and Public / Guest, and the security roles System Administrator and Normal User, the
latter given to Everyone so that every user can run reports (docs/configuration.md).
"""

import uuid

import pytest
from mstrio.access_and_security.security_role import SecurityRole, list_security_roles
from mstrio.helpers import IServerError
from mstrio.project_objects import list_reports
from mstrio.users_and_groups import User, UserGroup, list_user_groups, list_users

from demo import ADMINISTRATOR_ID, EVERYONE_ID, PROJECT, PUBLIC_GUEST_ID, REPORTS

PASSWORD = "Client-suite-1"


@pytest.fixture
def new_user(conn):
    login = f"suite_{uuid.uuid4().hex[:10]}"
    user = User.create(conn, username=login, full_name=f"Suite User {login[-4:]}",
                       password=PASSWORD, require_new_password=False)
    yield user
    try:
        user.delete(force=True)
    except Exception as error:
        print(f"could not delete user {user.id}: {error}")


def log_in(server, login, password):
    from mstrio.connection import Connection

    return Connection(server.url, login, password, project_name=PROJECT)


def test_the_administrator_is_a_user_with_its_login_and_full_name(conn):
    admin = User(conn, id=ADMINISTRATOR_ID)
    assert (admin.username, admin.full_name, admin.enabled) == (
        "administrator", "Administrator", True)


def test_a_created_user_reads_back_its_login_and_full_name(conn, new_user):
    again = User(conn, id=new_user.id)
    assert (again.username, again.full_name, again.enabled) == (
        new_user.username, new_user.full_name, True)


def test_a_created_user_logs_in_with_its_password_and_sees_the_reports(server_a, new_user):
    connection = log_in(server_a, new_user.username, PASSWORD)
    try:
        assert connection.user_id == new_user.id
        assert connection.user_full_name == new_user.full_name
        # Normal User, granted to Everyone, lets every user browse and run reports.
        assert sorted(r.name for r in list_reports(connection)) == REPORTS
    finally:
        connection.close()


def test_a_created_user_with_a_wrong_password_is_refused(server_a, new_user):
    with pytest.raises(IServerError):
        log_in(server_a, new_user.username, PASSWORD + "x")


def test_a_deleted_user_can_no_longer_log_in(server_a, conn):
    login = f"suite_{uuid.uuid4().hex[:10]}"
    user = User.create(conn, username=login, full_name="Short Lived", password=PASSWORD,
                       require_new_password=False)
    user.delete(force=True)
    with pytest.raises(IServerError):
        log_in(server_a, login, PASSWORD)


def test_list_users_lists_the_administrator_and_created_users(conn, new_user):
    listed = {u.id: u.username for u in list_users(conn)}
    assert listed[ADMINISTRATOR_ID] == "administrator"
    assert listed[new_user.id] == new_user.username


def test_list_users_filters_by_the_beginning_of_the_name(conn, new_user):
    found = list_users(conn, name_begins=new_user.full_name[:-2])
    assert [u.id for u in found] == [new_user.id]


def test_a_user_is_found_by_login(conn, new_user):
    assert User(conn, username=new_user.username).id == new_user.id


def test_a_user_is_found_by_full_name(conn, new_user):
    assert User(conn, name=new_user.full_name).id == new_user.id


def test_list_user_groups_lists_the_standard_groups(conn):
    groups = {g.id: g.name for g in list_user_groups(conn)}
    assert groups[EVERYONE_ID] == "Everyone"
    assert groups[PUBLIC_GUEST_ID] == "Public / Guest"


def test_a_user_group_is_found_by_name(conn):
    assert UserGroup(conn, name="Everyone").id == EVERYONE_ID


def test_list_security_roles_lists_the_standard_roles(conn):
    assert sorted(r.name for r in list_security_roles(conn)) == ["Normal User",
                                                                 "System Administrator"]


def test_a_security_role_lists_its_privileges(conn):
    administrator = SecurityRole(conn, name="System Administrator")
    normal = SecurityRole(conn, name="Normal User")
    granted = {p["id"] for p in administrator.privileges}
    assert normal.privileges and {p["id"] for p in normal.privileges} < granted


def test_a_security_role_found_by_id_has_its_name(conn):
    role = next(r for r in list_security_roles(conn) if r.name == "Normal User")
    assert SecurityRole(conn, id=role.id).name == "Normal User"
