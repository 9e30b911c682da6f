"""Migrations from server A to server B through the client's Migration class.

B loads the demo without the report "High Revenue Items" and the metric and filter only it uses
(conftest.py). An object package of that report with its dependents therefore creates three
objects on B, and undoing the import removes them again. The tests of one package follow its
life in file order (create, list, migrate, check the target, undo, delete); each reads the
state the previous ones left, the way a script would.
"""

import uuid
import zipfile

import pytest
from mstrio.helpers import IServerError
from mstrio.object_management import Object
from mstrio.object_management.migration import (
    Action,
    ImportStatus,
    Migration,
    MigrationPurpose,
    PackageConfig,
    PackageContentInfo,
    PackageSettings,
    PackageStatus,
    PackageType,
    list_migrations,
)
from mstrio.object_management.migration.package import (
    ProjectMergePackageSettings,
    TranslationAction,
    ValidationStatus,
)
from mstrio.project_objects import Report
from mstrio.types import ObjectTypes
from mstrio.users_and_groups import User

from conftest import DEMO_BUNDLE
from demo import (
    FILTER,
    METRIC,
    MIGRATED_FILTER,
    MIGRATED_METRIC,
    MIGRATED_REPORT,
    PROJECT_ID,
    REPORT,
    bundle_objects,
    demo_id,
)
from frames import assert_grid
from migration_flow import (
    import_status,
    package_status,
    validation_status,
    wait_until,
)

REPORT_ID = demo_id(REPORT, MIGRATED_REPORT)
METRIC_ID = demo_id(METRIC, MIGRATED_METRIC)
FILTER_ID = demo_id(FILTER, MIGRATED_FILTER)
MIGRATED = [(ObjectTypes.REPORT_DEFINITION, REPORT_ID), (ObjectTypes.METRIC, METRIC_ID),
            (ObjectTypes.FILTER, FILTER_ID)]


def unique(prefix):
    return f"{prefix} {uuid.uuid4().hex[:10]}"


def exists(conn, object_type, object_id):
    try:
        Object(conn, object_type, object_id)
        return True
    except IServerError:
        return False


def report_package_config():
    return PackageConfig(PackageSettings(Action.USE_EXISTING), [PackageContentInfo(
        id=REPORT_ID, type=ObjectTypes.REPORT_DEFINITION, action=Action.REPLACE,
        include_dependents=True)])


def create_report_package(conn):
    created = Migration.create_object_migration(conn, toc_view=report_package_config(),
                                                name=unique("Client suite report"),
                                                project_id=PROJECT_ID)
    return wait_until(conn, created.id, package_status(PackageStatus.CREATED), "package created")


@pytest.fixture(scope="module")
def package(conn):
    """The object package whose life the tests below follow."""
    return create_report_package(conn)


def test_the_target_lacks_the_report_before_any_migration(conn_b):
    assert [exists(conn_b, t, i) for t, i in MIGRATED] == [False, False, False]


def test_an_object_package_is_created_with_its_content(conn, package):
    assert package.package_info.type == PackageType.OBJECT
    assert package.package_info.status == PackageStatus.CREATED
    content = package.get_migration_content()["packageInfo"]["tocView"]["content"]
    assert [(c["id"], c["action"], c["includeDependents"]) for c in content
            if c["id"] == REPORT_ID] == [(REPORT_ID, "replace", True)]


def test_list_migrations_lists_the_package(conn, package):
    listed = {m.id: m.name for m in list_migrations(conn)}
    assert listed[package.id] == package.name


def test_a_package_is_found_by_name(conn, package):
    assert Migration(conn, name=package.name).id == package.id


def test_a_downloaded_package_is_a_zip_opening_with_its_manifest(package, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the client writes the file into the working directory
    downloaded = package.download_package(save_path=str(tmp_path))
    with zipfile.ZipFile(downloaded["filepath"]) as archive:
        assert archive.namelist()[0] == "manifest.json"


def test_migrating_creates_the_report_and_its_dependents_on_the_target(conn, conn_b, package):
    package.migrate(conn_b, target_project_id=PROJECT_ID)
    wait_until(conn, package.id, import_status(ImportStatus.IMPORTED), "import")
    assert [exists(conn_b, t, i) for t, i in MIGRATED] == [True, True, True]


def test_a_migrated_metric_has_the_sources_definition(conn, conn_b):
    source = Object(conn, ObjectTypes.METRIC, METRIC_ID)
    target = Object(conn_b, ObjectTypes.METRIC, METRIC_ID)
    assert (target.name, target.version, target.location) == (
        source.name, source.version, source.location)


def test_a_migrated_report_answers_the_targets_warehouse_numbers(conn_b, warehouse_b):
    frame = Report(conn_b, id=REPORT_ID, progress_bar=False).to_dataframe()
    expected = warehouse_b.rows("""SELECT item_id, item_name, SUM(revenue), SUM(units),
                                          SUM(revenue) / SUM(units)
                                   FROM sales GROUP BY item_id HAVING SUM(revenue) > 1000""")
    assert_grid(frame, ["Item@ID", "Item@DESC"], ["Revenue", "Units Sold", "Avg Unit Price"],
                expected)


def test_undo_removes_the_migrated_objects_from_the_target(conn, conn_b, package):
    package.reverse(conn_b, target_project_id=PROJECT_ID)
    wait_until(conn, package.id, import_status(ImportStatus.UNDO_SUCCESS), "undo")
    assert [exists(conn_b, t, i) for t, i in MIGRATED] == [False, False, False]


def test_undo_leaves_the_objects_the_target_had(conn_b):
    assert exists(conn_b, ObjectTypes.METRIC, demo_id(METRIC, "Revenue"))
    frame = Report(conn_b, id=demo_id(REPORT, "Revenue by Year"), progress_bar=False).to_dataframe()
    assert len(frame) == 3


def test_the_package_list_shows_the_undone_import(conn, package):
    listed = next(m for m in list_migrations(conn) if m.id == package.id)
    assert listed.import_info.status == ImportStatus.UNDO_SUCCESS


def test_a_deleted_package_is_no_longer_listed(conn, package):
    assert package.delete(force=True)
    assert package.id not in [m.id for m in list_migrations(conn)]


def test_a_package_validates_against_the_target_without_changing_it(conn, conn_b):
    candidate = create_report_package(conn)
    candidate.trigger_validation(conn_b, target_project_id=PROJECT_ID)
    validated = wait_until(conn, candidate.id, validation_status(ValidationStatus.VALIDATED),
                           "validation")
    assert validated.validation.status == ValidationStatus.VALIDATED
    assert [exists(conn_b, t, i) for t, i in MIGRATED] == [False, False, False]


def test_a_validated_package_can_be_deleted(conn, conn_b):
    candidate = create_report_package(conn)
    candidate.trigger_validation(conn_b, target_project_id=PROJECT_ID)
    wait_until(conn, candidate.id, validation_status(ValidationStatus.VALIDATED), "validation")
    Migration(conn, id=candidate.id).delete(force=True)
    assert candidate.id not in [m.id for m in list_migrations(conn)]


def project_merge_settings():
    return ProjectMergePackageSettings(
        acl_on_replacing_objects=PackageSettings.AclOnReplacingObjects.USE_EXISTING,
        acl_on_new_objects=PackageSettings.AclOnNewObjects.KEEP_ACL_AS_SOURCE_OBJECT,
        default_action=Action.USE_EXISTING,
        validate_dependencies=True,
        translation_action=TranslationAction.NOT_MERGED)


@pytest.fixture(scope="module")
def merge(conn):
    created = Migration.create_project_merge_migration(
        conn, toc_view=project_merge_settings(), name=unique("Client suite merge"),
        project_id=PROJECT_ID)
    return wait_until(conn, created.id, package_status(PackageStatus.CREATED), "merge created")


def package_object_ids(migration, directory):
    """Ids of the objects a package file carries: its entries objects/<sequence>-<id>.json
    (docs/migrations.md), read from the file the client downloads."""
    downloaded = migration.download_package(save_path=str(directory))
    with zipfile.ZipFile(downloaded["filepath"]) as archive:
        return {name[:-len(".json")].split("-")[-1] for name in archive.namelist()
                if name.startswith("objects/")}


def test_a_project_merge_package_holds_every_object_of_the_project(merge, tmp_path, monkeypatch):
    assert merge.package_info.purpose == MigrationPurpose.PROJECT_MERGE
    monkeypatch.chdir(tmp_path)  # the client writes the file into the working directory
    held = package_object_ids(merge, tmp_path)
    missing = [name for type_code, name in bundle_objects(DEMO_BUNDLE)
               if demo_id(type_code, name) not in held]
    assert missing == []


def test_a_project_merge_brings_what_the_target_lacks_and_undo_takes_it_back(conn, conn_b, merge):
    merge.migrate(conn_b, target_project_id=PROJECT_ID)
    wait_until(conn, merge.id, import_status(ImportStatus.IMPORTED), "merge import")
    assert [exists(conn_b, t, i) for t, i in MIGRATED] == [True, True, True]
    merge.reverse(conn_b, target_project_id=PROJECT_ID)
    wait_until(conn, merge.id, import_status(ImportStatus.UNDO_SUCCESS), "merge undo")
    assert [exists(conn_b, t, i) for t, i in MIGRATED] == [False, False, False]
    merge.delete(force=True)


@pytest.fixture(scope="module")
def migrated_user(conn):
    login = f"migrated_{uuid.uuid4().hex[:10]}"
    return User.create(conn, username=login, full_name=f"Migrated {login[-4:]}",
                       password="Client-suite-1", require_new_password=False)


@pytest.fixture(scope="module")
def configuration_package(conn, migrated_user):
    config = PackageConfig(PackageSettings(Action.USE_EXISTING), [PackageContentInfo(
        id=migrated_user.id, type=ObjectTypes.USER, action=Action.REPLACE,
        include_dependents=False)])
    created = Migration.create_admin_migration(conn, toc_view=config,
                                               name=unique("Client suite users"))
    return wait_until(conn, created.id, package_status(PackageStatus.CREATED),
                      "configuration package created")


def test_a_configuration_package_is_created_without_a_project(configuration_package):
    assert configuration_package.package_info.type == PackageType.ADMINISTRATION
    assert configuration_package.package_info.status == PackageStatus.CREATED


def test_a_configuration_package_creates_its_user_on_the_target(
        conn, conn_b, configuration_package, migrated_user):
    configuration_package.migrate(conn_b)
    wait_until(conn, configuration_package.id, import_status(ImportStatus.IMPORTED),
               "configuration import")
    on_target = User(conn_b, id=migrated_user.id)
    assert (on_target.username, on_target.full_name) == (migrated_user.username,
                                                         migrated_user.full_name)


def test_a_migrated_user_logs_in_on_the_target(server_b, migrated_user):
    from mstrio.connection import Connection

    connection = Connection(server_b.url, migrated_user.username, "Client-suite-1",
                            project_id=PROJECT_ID)
    try:
        assert connection.user_id == migrated_user.id
    finally:
        connection.close()


def test_undoing_a_configuration_package_removes_its_user_from_the_target(
        conn, conn_b, configuration_package, migrated_user):
    configuration_package.reverse(conn_b)
    wait_until(conn, configuration_package.id, import_status(ImportStatus.UNDO_SUCCESS),
               "configuration undo")
    with pytest.raises(IServerError):
        User(conn_b, id=migrated_user.id)
    configuration_package.delete(force=True)
