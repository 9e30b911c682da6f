"""Projects of the environment and the folder tree of the demo project."""

import uuid

import pandas as pd
import yaml
from mstrio.object_management import (
    Folder,
    PredefinedFolders,
    get_my_personal_objects_contents,
    get_predefined_folder_contents,
    list_folders,
)
from mstrio.project_objects import SuperCube
from mstrio.server import Environment, Project

from conftest import DEMO_BUNDLE
from demo import (
    DASHBOARDS,
    METRICS,
    OLAP_CUBES,
    PROJECT,
    PROJECT_ID,
    PUBLIC_OBJECTS_ID,
    REPORTS,
    SHARED_REPORTS_ID,
)


def names(objects):
    return sorted(o.name for o in objects)


def subfolder_names(conn, folder_id):
    return [o["name"] for o in Folder(conn, id=folder_id).get_contents(to_dictionary=True)
            if o["type"] == 8]


def test_the_environment_lists_the_demo_project(conn):
    projects = Environment(conn).list_projects()
    assert [(p.id, p.name) for p in projects] == [(PROJECT_ID, PROJECT)]


def test_the_demo_project_is_loaded(conn):
    assert [p.id for p in Environment(conn).list_loaded_projects()] == [PROJECT_ID]


def test_a_project_found_by_name_has_the_bundles_description(conn):
    description = yaml.safe_load((DEMO_BUNDLE / "project.yaml").read_text())["description"]
    project = Project(conn, name=PROJECT)
    assert project.id == PROJECT_ID
    assert project.description == description


def test_a_projects_properties_list_the_node_it_is_loaded_on(conn):
    properties = Project(conn, name=PROJECT).list_properties()
    assert properties["id"] == PROJECT_ID
    loaded_on = [node["name"] for node in properties["nodes"]
                 for project in node["projects"]
                 if project["id"] == PROJECT_ID and project["status"] == "loaded"]
    assert len(loaded_on) == 1


def test_the_project_reports_itself_loaded(conn):
    assert Project(conn, name=PROJECT).is_loaded() is True


def test_the_project_root_holds_the_standard_folders(conn):
    folders = list_folders(conn, project_id=PROJECT_ID)
    assert {"Public Objects", "Schema Objects"} <= set(f.name for f in folders)


def test_the_reports_folder_holds_the_demos_reports_and_cubes(conn):
    contents = Folder(conn, id=SHARED_REPORTS_ID).get_contents()
    assert names(contents) == sorted(REPORTS + OLAP_CUBES)


def test_the_shared_reports_predefined_folder_is_the_reports_folder(conn):
    contents = get_predefined_folder_contents(conn, PredefinedFolders.PUBLIC_REPORTS,
                                              project_id=PROJECT_ID)
    assert names(contents) == sorted(REPORTS + OLAP_CUBES)


def test_the_metrics_folder_holds_every_metric_of_the_bundle(conn):
    contents = get_predefined_folder_contents(conn, PredefinedFolders.PUBLIC_METRICS,
                                              project_id=PROJECT_ID)
    assert names(contents) == sorted(METRICS)


def test_a_folder_path_resolves_to_its_folder(conn):
    from mstrio.object_management.folder import get_folder_id_from_path

    assert get_folder_id_from_path(conn, f"/{PROJECT}/Public Objects/Reports") == SHARED_REPORTS_ID


def test_dashboards_sit_in_shared_dashboards(conn):
    folders = list_folders(conn, project_id=PROJECT_ID, parent_folder=PUBLIC_OBJECTS_ID)
    shared = next(f for f in folders if f.name == "Shared Dashboards")
    assert names(shared.get_contents()) == sorted(DASHBOARDS)


def test_a_created_folder_appears_in_its_parent_and_goes_when_deleted(conn):
    name = f"Client suite {uuid.uuid4().hex[:8]}"
    folder = Folder.create(conn, name=name, parent=PUBLIC_OBJECTS_ID, description="made by a test")
    try:
        assert Folder(conn, id=folder.id).description == "made by a test"
        assert name in subfolder_names(conn, PUBLIC_OBJECTS_ID)
    finally:
        folder.delete(force=True)
    assert name not in subfolder_names(conn, PUBLIC_OBJECTS_ID)


def test_a_folder_can_be_renamed(conn):
    folder = Folder.create(conn, name=f"Rename me {uuid.uuid4().hex[:8]}", parent=PUBLIC_OBJECTS_ID)
    try:
        new_name = f"Renamed {uuid.uuid4().hex[:8]}"
        folder.alter(name=new_name)
        assert Folder(conn, id=folder.id).name == new_name
    finally:
        folder.delete(force=True)


def test_my_personal_objects_hold_my_reports_once_something_is_saved_there(conn):
    # A super cube is saved in the user's My Reports, a folder of "My Personal Objects".
    cube = SuperCube(conn, name=f"Client suite personal {uuid.uuid4().hex[:8]}", progress_bar=False)
    cube.add_table("T", pd.DataFrame({"Key": ["a"], "Value": [1.0]}), update_policy="replace")
    cube.create()
    try:
        assert "My Reports" in names(get_my_personal_objects_contents(conn, project_id=PROJECT_ID))
    finally:
        cube.delete(force=True)


def test_configuration_level_folders_include_users_and_groups(server_a):
    from conftest import connect

    connection = connect(server_a, project_name=None)
    try:
        assert {"Users", "User Groups"} <= set(f.name for f in list_folders(connection))
    finally:
        connection.close()
