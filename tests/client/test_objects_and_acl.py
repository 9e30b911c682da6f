"""Object properties and access control lists of the demo's objects, read and changed through
the client's Object class and the classes of each kind (Report, OlapCube, Dashboard, User).

Every ACL entry names its trustee: the trustee's real name, type 34 and subtype 8704 for a user
or 8705 for a group. The demo grants the group Everyone the right to browse, read, use and
execute its objects.
"""

import uuid

import pytest
from mstrio.object_management import Object
from mstrio.project_objects import Dashboard, OlapCube, Report
from mstrio.types import ObjectSubTypes, ObjectTypes
from mstrio.users_and_groups import User
from mstrio.utils.acl import Rights

from demo import (
    ADMINISTRATOR_ID,
    ATTRIBUTE,
    DASHBOARD,
    EVERYONE_ID,
    GROUP_SUBTYPE,
    METRIC,
    PROJECT,
    PROJECT_ID,
    REPORT,
    USER_SUBTYPE,
    demo_id,
)

KNOWN_TRUSTEES = {ADMINISTRATOR_ID: ("Administrator", USER_SUBTYPE),
                  EVERYONE_ID: ("Everyone", GROUP_SUBTYPE)}
EVERYONE_RIGHTS = Rights.BROWSE | Rights.READ | Rights.USE | Rights.EXECUTE


def everyone_entry(acl):
    entries = [ace for ace in acl if ace.trustee_id == EVERYONE_ID]
    assert len(entries) == 1, f"one entry for Everyone in {acl}"
    return entries[0]


def assert_trustees_named(acl):
    assert acl, "the object has an ACL"
    for ace in acl:
        assert ace.trustee_type == 34
        if ace.trustee_id in KNOWN_TRUSTEES:
            assert (ace.trustee_name, ace.trustee_subtype) == KNOWN_TRUSTEES[ace.trustee_id]
        else:
            assert ace.trustee_name and ace.trustee_subtype in (USER_SUBTYPE, GROUP_SUBTYPE)


def assert_everyone_may_use_it(acl):
    assert_trustees_named(acl)
    everyone = everyone_entry(acl)
    assert (everyone.trustee_name, everyone.trustee_subtype, everyone.deny) == (
        "Everyone", GROUP_SUBTYPE, False)
    assert everyone.rights & EVERYONE_RIGHTS == EVERYONE_RIGHTS


def test_a_reports_properties_name_it_and_its_place(conn):
    report = Object(conn, ObjectTypes.REPORT_DEFINITION, demo_id(REPORT, "Revenue by Year"))
    assert (report.name, report.type, report.subtype) == (
        "Revenue by Year", ObjectTypes.REPORT_DEFINITION, ObjectSubTypes.REPORT_GRID.value)
    assert report.owner.id == ADMINISTRATOR_ID
    assert report.location == f"/{PROJECT}/Public Objects/Reports/Revenue by Year"
    assert report.project_id == PROJECT_ID


def test_a_report_lets_everyone_run_it(conn):
    report = Report(conn, id=demo_id(REPORT, "Revenue by Year"))
    assert_everyone_may_use_it(report.acl)


def test_a_cube_lets_everyone_run_it(conn):
    cube = OlapCube(conn, id=demo_id(REPORT, "Sales Cube"))
    assert cube.subtype == ObjectSubTypes.OLAP_CUBE.value
    assert_everyone_may_use_it(cube.acl)


def test_a_metric_lets_everyone_use_it(conn):
    metric = Object(conn, ObjectTypes.METRIC, demo_id(METRIC, "Profit Margin"))
    assert (metric.name, metric.subtype) == ("Profit Margin", ObjectSubTypes.METRIC.value)
    assert metric.location == f"/{PROJECT}/Public Objects/Metrics/Profit Margin"
    assert_everyone_may_use_it(metric.acl)


def test_an_attribute_lets_everyone_use_it(conn):
    attribute = Object(conn, ObjectTypes.ATTRIBUTE, demo_id(ATTRIBUTE, "Region"))
    assert (attribute.name, attribute.subtype) == ("Region", ObjectSubTypes.ATTRIBUTE.value)
    assert attribute.location == f"/{PROJECT}/Schema Objects/Attributes/Region"
    assert_everyone_may_use_it(attribute.acl)


def test_a_dashboard_lets_everyone_use_it(conn):
    dashboard = Dashboard(conn, id=demo_id(DASHBOARD, "Sales Overview"))
    assert_everyone_may_use_it(dashboard.acl)


def test_an_acl_can_be_listed_as_dictionaries_filtered_by_trustee(conn):
    report = Report(conn, id=demo_id(REPORT, "Revenue by Year"))
    listed = report.list_acl(to_dictionary=True, trustee_name="Everyone")
    assert [(e["trusteeId"], e["trusteeType"]) for e in listed] == [(EVERYONE_ID, 34)]


def test_a_users_acl_names_its_trustees(conn):
    assert_trustees_named(User(conn, id=ADMINISTRATOR_ID).acl)


def test_a_projects_acl_names_its_trustees(conn):
    assert_trustees_named(Object(conn, ObjectTypes.PROJECT, PROJECT_ID).acl)


@pytest.fixture
def trustee(conn):
    login = f"acl_{uuid.uuid4().hex[:10]}"
    user = User.create(conn, username=login, full_name=f"ACL Trustee {login[-4:]}",
                       password="Client-suite-1", require_new_password=False)
    yield user
    try:
        user.delete(force=True)
    except Exception as error:
        print(f"could not delete user {user.id}: {error}")


def fresh_metric(conn, name):
    return Object(conn, ObjectTypes.METRIC, demo_id(METRIC, name))


def test_rights_granted_to_a_user_appear_in_the_acl(conn, trustee):
    fresh_metric(conn, "Discount").acl_add(Rights.EXECUTE | Rights.READ, trustees=trustee)
    entries = [e for e in fresh_metric(conn, "Discount").acl if e.trustee_id == trustee.id]
    assert [(e.trustee_name, e.trustee_subtype, e.deny, int(e.rights)) for e in entries] == [
        (trustee.name, USER_SUBTYPE, False, int(Rights.EXECUTE | Rights.READ))]


def test_rights_removed_from_a_user_leave_the_acl(conn, trustee):
    fresh_metric(conn, "Cost").acl_add(Rights.EXECUTE, trustees=trustee)
    fresh_metric(conn, "Cost").acl_remove(Rights.EXECUTE, trustees=trustee)
    assert trustee.id not in [e.trustee_id for e in fresh_metric(conn, "Cost").acl]


def test_a_denied_right_is_recorded_as_a_denial(conn, trustee):
    fresh_metric(conn, "Units Sold").acl_add(Rights.DELETE, trustees=trustee, denied=True)
    entries = [e for e in fresh_metric(conn, "Units Sold").acl if e.trustee_id == trustee.id]
    assert [(e.deny, int(e.rights)) for e in entries] == [(True, int(Rights.DELETE))]


def test_a_description_set_through_the_client_is_kept(conn):
    name = "Customers by Segment"
    report = Object(conn, ObjectTypes.REPORT_DEFINITION, demo_id(REPORT, name))
    original = report.description
    text = f"Described by the client suite {uuid.uuid4().hex[:6]}"
    try:
        report.alter(description=text)
        again = Object(conn, ObjectTypes.REPORT_DEFINITION, demo_id(REPORT, name))
        assert again.description == text
    finally:
        report.alter(description=original or "")


def test_an_object_of_another_type_is_not_found(conn):
    from mstrio.helpers import IServerError

    with pytest.raises(IServerError):
        Object(conn, ObjectTypes.METRIC, demo_id(REPORT, "Revenue by Year"))
