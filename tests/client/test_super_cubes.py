"""Pushed datasets through SuperCube: create with tables, update with each update policy, read
back, refresh, list and delete.

The client makes text columns attributes and numeric columns metrics; a row's identity for the
add, update and upsert policies is the values of its table's attribute columns, and the metrics
read back are sums over the rows of each attribute combination (sums of one row each here).
"""

import uuid

import pandas as pd
import pytest
from mstrio.object_management import Folder
from mstrio.project_objects import SuperCube, list_super_cubes

from demo import PUBLIC_OBJECTS_ID

STORES = pd.DataFrame({
    "Store": ["Oslo", "Bergen", "Trondheim"],
    "Sales": [120.5, 80.25, 43.0],
    "Visits": [12, 9, 4],
})


def unique_name(prefix):
    return f"{prefix} {uuid.uuid4().hex[:10]}"


def rows(frame, columns):
    """{first column's value: (the other columns' values)}, numbers as floats."""
    return {row[0]: tuple(float(v) for v in row[1:])
            for row in frame[columns].itertuples(index=False, name=None)}


@pytest.fixture
def made(conn):
    """Super cubes a test creates, deleted after it."""
    cubes = []
    yield cubes
    for cube in cubes:
        try:
            cube.delete(force=True)
        except Exception as error:  # leave the others to be deleted
            print(f"could not delete super cube {cube.id}: {error}")


def create(conn, made, tables, **kwargs):
    cube = SuperCube(conn, name=unique_name("Client suite cube"), progress_bar=False)
    for name, frame in tables:
        cube.add_table(name, frame, update_policy="replace")
    cube.create(**kwargs)
    made.append(cube)
    return cube


def reread(conn, cube):
    return SuperCube(conn, id=cube.id, progress_bar=False).to_dataframe()


def update(conn, cube, frame, policy):
    target = SuperCube(conn, id=cube.id, progress_bar=False)
    target.add_table("Stores", frame, update_policy=policy)
    target.update()


def test_a_created_super_cube_reads_back_its_rows(conn, made):
    cube = create(conn, made, [("Stores", STORES)])
    frame = reread(conn, cube)
    assert list(frame.columns) == ["Store", "Sales", "Visits"]
    assert rows(frame, ["Store", "Sales", "Visits"]) == rows(STORES, ["Store", "Sales", "Visits"])


def test_a_created_super_cube_lists_its_attributes_and_metrics(conn, made):
    cube = SuperCube(conn, id=create(conn, made, [("Stores", STORES)]).id, progress_bar=False)
    assert [a["name"] for a in cube.attributes] == ["Store"]
    assert sorted(m["name"] for m in cube.metrics) == ["Sales", "Visits"]


def test_two_tables_join_on_their_shared_attribute(conn, made):
    targets = pd.DataFrame({"Store": ["Oslo", "Bergen", "Trondheim"],
                            "Target": [100.0, 90.0, 50.0]})
    cube = create(conn, made, [("Stores", STORES), ("Targets", targets)])
    frame = reread(conn, cube)
    assert rows(frame, ["Store", "Sales", "Target"]) == {
        "Oslo": (120.5, 100.0), "Bergen": (80.25, 90.0), "Trondheim": (43.0, 50.0)}


def test_two_tables_read_back_as_one_frame_per_table(conn, made):
    targets = pd.DataFrame({"Store": ["Oslo", "Bergen"], "Target": [100.0, 90.0]})
    cube = create(conn, made, [("Stores", STORES), ("Targets", targets)])
    frames = SuperCube(conn, id=cube.id, progress_bar=False).to_dataframe(multi_df=True)
    assert sorted(sorted(f.columns) for f in frames) == [["Sales", "Store", "Visits"],
                                                         ["Store", "Target"]]


def test_the_replace_policy_replaces_every_row(conn, made):
    cube = create(conn, made, [("Stores", STORES)])
    update(conn, cube, pd.DataFrame({"Store": ["Stavanger"], "Sales": [10.0], "Visits": [1]}),
           "replace")
    assert rows(reread(conn, cube), ["Store", "Sales", "Visits"]) == {"Stavanger": (10.0, 1.0)}


def test_the_add_policy_appends_new_rows(conn, made):
    cube = create(conn, made, [("Stores", STORES)])
    update(conn, cube, pd.DataFrame({"Store": ["Stavanger", "Tromso"], "Sales": [10.0, 7.5],
                                     "Visits": [1, 2]}), "add")
    expected = rows(STORES, ["Store", "Sales", "Visits"])
    expected.update({"Stavanger": (10.0, 1.0), "Tromso": (7.5, 2.0)})
    assert rows(reread(conn, cube), ["Store", "Sales", "Visits"]) == expected


def test_the_update_policy_changes_existing_rows_only(conn, made):
    cube = create(conn, made, [("Stores", STORES)])
    update(conn, cube, pd.DataFrame({"Store": ["Oslo", "Stavanger"], "Sales": [200.0, 10.0],
                                     "Visits": [20, 1]}), "update")
    assert rows(reread(conn, cube), ["Store", "Sales", "Visits"]) == {
        "Oslo": (200.0, 20.0), "Bergen": (80.25, 9.0), "Trondheim": (43.0, 4.0)}


def test_the_upsert_policy_changes_existing_rows_and_adds_new_ones(conn, made):
    cube = create(conn, made, [("Stores", STORES)])
    update(conn, cube, pd.DataFrame({"Store": ["Oslo", "Stavanger"], "Sales": [200.0, 10.0],
                                     "Visits": [20, 1]}), "upsert")
    assert rows(reread(conn, cube), ["Store", "Sales", "Visits"]) == {
        "Oslo": (200.0, 20.0), "Bergen": (80.25, 9.0), "Trondheim": (43.0, 4.0),
        "Stavanger": (10.0, 1.0)}


def test_a_refreshed_super_cube_keeps_its_rows(conn, made):
    cube = create(conn, made, [("Stores", STORES)])
    SuperCube(conn, id=cube.id, progress_bar=False).refresh()
    assert rows(reread(conn, cube), ["Store", "Sales", "Visits"]) == rows(
        STORES, ["Store", "Sales", "Visits"])


def test_list_super_cubes_finds_a_created_cube_by_name(conn, made):
    cube = create(conn, made, [("Stores", STORES)])
    assert [c.id for c in list_super_cubes(conn, name=cube.name)] == [cube.id]


def test_a_super_cube_is_created_in_the_folder_given(conn, made):
    folder = Folder.create(conn, name=unique_name("Client suite datasets"),
                           parent=PUBLIC_OBJECTS_ID)
    try:
        cube = create(conn, made, [("Stores", STORES)], folder_id=folder.id)
        assert [o.id for o in Folder(conn, id=folder.id).get_contents()] == [cube.id]
        cube.delete(force=True)
        made.remove(cube)
    finally:
        folder.delete(force=True)


def test_a_second_cube_of_the_same_name_is_refused_without_force(conn, made):
    cube = create(conn, made, [("Stores", STORES)])
    again = SuperCube(conn, name=cube.name, progress_bar=False)
    again.add_table("Stores", STORES, update_policy="replace")
    with pytest.raises(ValueError):
        again.create()


def test_a_deleted_super_cube_is_no_longer_listed(conn, made):
    cube = create(conn, made, [("Stores", STORES)])
    cube.delete(force=True)
    made.remove(cube)
    assert list_super_cubes(conn, name=cube.name) == []


def test_a_super_cube_keeps_datetimes_and_missing_numbers(conn, made):
    visits = pd.DataFrame({
        "Store": ["Oslo", "Bergen"],
        "Opened": pd.to_datetime(["2024-01-01", "2024-02-29 13:45:00"]),
        "Rating": [4.5, None],
    })
    frame = reread(conn, create(conn, made, [("Visits", visits)]))
    by_store = frame.set_index("Store")
    opened = visits.set_index("Store")["Opened"]
    assert pd.to_datetime(by_store["Opened"]).to_dict() == opened.to_dict()
    assert by_store.loc["Oslo", "Rating"] == 4.5
    assert pd.isna(by_store.loc["Bergen", "Rating"])
