"""Searching the demo project: the metadata search, the quick search and the list_* helpers."""

from mstrio.object_management import (
    QuickSearchData,
    SearchPattern,
    full_search,
    quick_search,
    quick_search_by_id,
)
from mstrio.project_objects import (
    list_dashboards,
    list_documents,
    list_olap_cubes,
    list_reports,
)
from mstrio.types import ObjectSubTypes, ObjectTypes

from demo import (
    DASHBOARDS,
    METRIC,
    METRICS,
    OLAP_CUBES,
    PROJECT,
    PROJECT_ID,
    REPORT,
    REPORTS,
    demo_id,
)


def names(found):
    return sorted(o["name"] if isinstance(o, dict) else o.name for o in found)


def test_full_search_by_type_finds_every_report_and_cube(conn):
    found = full_search(conn, project=PROJECT_ID, object_types=ObjectTypes.REPORT_DEFINITION)
    assert names(found) == sorted(REPORTS + OLAP_CUBES)


def test_full_search_by_subtype_finds_only_the_cubes(conn):
    found = full_search(conn, project=PROJECT_ID, object_types=ObjectSubTypes.OLAP_CUBE)
    assert names(found) == OLAP_CUBES


def test_full_search_by_name_contains(conn):
    found = full_search(conn, project=PROJECT_ID, name="Revenue", pattern=SearchPattern.CONTAINS,
                        object_types=ObjectTypes.METRIC)
    assert names(found) == sorted(m for m in METRICS if "Revenue" in m)


def test_full_search_by_name_begins_with(conn):
    found = full_search(conn, project=PROJECT_ID, name="Avg", pattern=SearchPattern.BEGIN_WITH,
                        object_types=ObjectTypes.METRIC)
    assert names(found) == ["Avg Revenue", "Avg Unit Price", "Avg Units"]


def test_full_search_by_exact_name_finds_the_metric_and_the_fact(conn):
    found = full_search(conn, project=PROJECT_ID, name="Revenue", pattern=SearchPattern.EXACTLY)
    assert sorted((o["name"], o["type"]) for o in found) == [("Revenue", 4), ("Revenue", 13)]


def test_full_search_for_users_of_a_metric(conn):
    # Profit Margin is a column of two reports and of the Order Lines Cube, and Regional
    # Performance shows it (demo/tutorial/*.yaml).
    found = full_search(conn, project=PROJECT_ID, uses_object_id=demo_id(METRIC, "Profit Margin"),
                        uses_object_type=ObjectTypes.METRIC)
    assert names(found) == ["Order Lines Cube", "Profit by Region and Category",
                            "Regional Performance", "Western Europe by Country"]


def test_full_search_under_a_root_folder(conn):
    from mstrio.object_management.folder import get_folder_id_from_path

    metrics_folder = get_folder_id_from_path(conn, f"/{PROJECT}/Public Objects/Metrics")
    found = full_search(conn, project=PROJECT_ID, root=metrics_folder,
                        object_types=ObjectTypes.METRIC)
    assert names(found) == sorted(METRICS)


def test_full_search_pages_with_limit_and_offset(conn):
    everything = full_search(conn, project=PROJECT_ID, object_types=ObjectTypes.METRIC)
    first = full_search(conn, project=PROJECT_ID, object_types=ObjectTypes.METRIC, limit=5)
    rest = full_search(conn, project=PROJECT_ID, object_types=ObjectTypes.METRIC, offset=5)
    assert len(first) == 5
    assert [o["id"] for o in first + rest] == [o["id"] for o in everything]


def test_full_search_can_return_objects(conn):
    found = full_search(conn, project=PROJECT_ID, name="Revenue by Year",
                        pattern=SearchPattern.EXACTLY, to_dictionary=False)
    assert [(type(o).__name__, o.id) for o in found] == [
        ("Report", demo_id(REPORT, "Revenue by Year"))]


def test_quick_search_by_name(conn):
    found = quick_search(conn, project=PROJECT_ID, name="Cube")
    assert names(found) == OLAP_CUBES


def test_quick_search_by_name_and_type(conn):
    found = quick_search(conn, project=PROJECT_ID, name="Revenue", pattern=SearchPattern.BEGIN_WITH,
                         object_types=[ObjectTypes.REPORT_DEFINITION])
    assert names(found) == ["Revenue by Year"]


def test_quick_search_by_id_finds_the_listed_objects(conn):
    ids = [demo_id(REPORT, "Revenue by Year"), demo_id(METRIC, "Profit")]
    found = quick_search_by_id(conn, QuickSearchData(project_id=PROJECT_ID, object_ids=ids),
                               to_dictionary=True)
    assert names(found) == ["Profit", "Revenue by Year"]


def test_list_reports_lists_the_grid_reports(conn):
    assert names(list_reports(conn)) == REPORTS


def test_list_reports_with_a_name_pattern(conn):
    assert names(list_reports(conn, name="Revenue")) == ["High Revenue Items", "Revenue by Year"]


def test_list_reports_with_a_begin_with_pattern(conn):
    found = list_reports(conn, name="Western", search_pattern=SearchPattern.BEGIN_WITH)
    assert names(found) == ["Western Europe by Country"]


def test_list_reports_as_dictionaries_carry_ids(conn):
    found = list_reports(conn, name="Customers by Segment", to_dictionary=True)
    assert [r["id"] for r in found] == [demo_id(REPORT, "Customers by Segment")]


def test_list_olap_cubes_lists_the_demo_cubes(conn):
    assert names(list_olap_cubes(conn)) == OLAP_CUBES


def test_list_olap_cubes_with_a_name_pattern(conn):
    assert names(list_olap_cubes(conn, name="Sales")) == ["Item Sales Cube", "Sales Cube"]


def test_list_dashboards_lists_the_demo_dashboards(conn):
    assert names(list_dashboards(conn)) == DASHBOARDS


def test_list_dashboards_with_a_name_pattern(conn):
    assert names(list_dashboards(conn, name="Overview")) == ["Sales Overview"]


def test_list_documents_finds_no_documents_in_a_dashboards_only_project(conn):
    assert list_documents(conn) == []


def named_nodes(tree):
    """Every dictionary with a name anywhere in a nested answer."""
    if isinstance(tree, dict):
        found = [tree] if "name" in tree else []
        return found + [n for value in tree.values() for n in named_nodes(value)]
    if isinstance(tree, list):
        return [n for value in tree for n in named_nodes(value)]
    return []


def test_full_search_as_a_tree_groups_the_hits_under_their_folder(conn):
    from mstrio.object_management import SearchResultsFormat

    tree = full_search(conn, project=PROJECT_ID, name="Revenue", pattern=SearchPattern.CONTAINS,
                       object_types=ObjectTypes.METRIC, results_format=SearchResultsFormat.TREE)
    nodes = named_nodes(tree)
    assert sorted(n["name"] for n in nodes if n.get("type") == METRIC) == sorted(
        m for m in METRICS if "Revenue" in m)
    assert "Metrics" in [n["name"] for n in nodes if n.get("type") == 8]
