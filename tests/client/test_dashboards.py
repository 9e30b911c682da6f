"""The demo's dashboards through Dashboard: chapters, pages, visualizations, filters and
selectors as demo/tutorial/dashboards/*.yaml defines them, the cubes they use, and the data of
their visualizations as far as the client reaches (an instance, then the client's own API
function for a visualization's definition and results).
"""

import pytest
import yaml
from mstrio.api import documents
from mstrio.project_objects import Dashboard

from conftest import DEMO_BUNDLE
from demo import ATTRIBUTE, DASHBOARD, demo_id
from frames import assert_same_rows


def bundle_dashboard(name):
    for path in (DEMO_BUNDLE / "dashboards").glob("*.yaml"):
        dashboard = yaml.safe_load(path.read_text())
        if dashboard["name"] == name:
            return dashboard
    raise AssertionError(f"no dashboard {name} in the bundle")


@pytest.fixture(scope="module")
def sales_overview(conn):
    return Dashboard(conn, name="Sales Overview")


@pytest.fixture(scope="module")
def regional_performance(conn):
    return Dashboard(conn, id=demo_id(DASHBOARD, "Regional Performance"))


def test_a_dashboard_found_by_name_is_the_bundles_dashboard(sales_overview):
    assert sales_overview.id == demo_id(DASHBOARD, "Sales Overview")
    assert sales_overview.description == bundle_dashboard("Sales Overview")["description"]


@pytest.mark.parametrize("name", ["Sales Overview", "Regional Performance"])
def test_chapters_pages_and_visualizations_follow_the_bundle(conn, name):
    defined = bundle_dashboard(name)
    dashboard = Dashboard(conn, id=demo_id(DASHBOARD, name))
    expected = [(c["key"], c["name"], [(p["key"], p["name"], [
        (v["key"], v["name"], v["visualizationType"]) for v in p["visualizations"]])
        for p in c["pages"]]) for c in defined["chapters"]]
    actual = [(c.key, c.name, [(p.key, p.name, [
        (v.key, v.name, v.visualization_type) for v in p.visualizations]) for p in c.pages])
        for c in dashboard.chapters]
    assert actual == expected


def test_the_current_chapter_is_the_first_one(sales_overview):
    assert sales_overview.current_chapter == "K1"


def test_chapter_filters_keep_their_names_types_and_sources(sales_overview):
    filters = sales_overview.chapters[0].filters
    assert [(f["key"], f["name"], f["selectorType"], f["source"]["name"]) for f in filters] == [
        ("W10", "Region", "attribute_element_list", "Region"),
        ("W11", "Recent Years", "attribute_qualification", "Year"),
        ("W12", "Revenue", "metric_qualification", "Revenue")]


def test_an_attribute_qualification_filter_carries_its_expression(sales_overview):
    recent_years = sales_overview.chapters[0].filters[1]
    expression = recent_years["currentSelection"]["expression"]
    assert expression["operator"] == "GreaterEqual"
    assert expression["operands"][0]["attribute"]["id"] == demo_id(ATTRIBUTE, "Year")
    assert float(expression["operands"][1]["value"]) == 2023


def test_a_value_parameter_keeps_its_range_and_value(regional_performance):
    target = regional_performance.chapters[0].filters[2]
    assert (target["name"], target["selectorType"], target["minValue"], target["maxValue"],
            target["currentSelection"]["values"]) == (
        "Target Margin", "value_parameter", "0", "1", ["0.25"])


def test_page_selectors_name_their_targets_and_choices(sales_overview):
    measure, channel = sales_overview.chapters[0].pages[0].selectors
    assert (measure.key, measure.selector_type, measure.display_style) == (
        "W13", "object_replacement", "hyper_links")
    assert [o["name"] for o in measure.available_object_items] == ["Revenue", "Profit", "Cost"]
    assert [o["name"] for o in measure.current_selection["object_items"]] == ["Revenue"]
    assert [t["key"] for t in measure.targets] == ["W4"]
    assert (channel.key, channel.source["name"], channel.has_all_option,
            channel.multi_selection_allowed, [t["key"] for t in channel.targets]) == (
        "W14", "Channel", True, False, ["W6"])


def test_an_excluding_selector_names_the_excluded_element(regional_performance, warehouse):
    segment = regional_performance.chapters[0].pages[0].selectors[0]
    excluded = warehouse.scalar(
        "SELECT customer_segment_name FROM lu_customer_segment WHERE customer_segment_id = 5")
    assert segment.current_selection["selection_status"] == "excluded"
    assert [e["name"] for e in segment.current_selection["elements"]] == [excluded]


def test_a_visualization_used_as_a_filter_names_its_targets(sales_overview):
    by_year = sales_overview.chapters[0].pages[0].visualizations[1]
    assert by_year.selector.selector_type == "visualization_as_filter"
    assert [t["key"] for t in by_year.selector.targets] == ["W3", "W6"]


def test_a_dashboard_lists_the_cubes_it_uses(sales_overview, regional_performance):
    assert sorted((type(c).__name__, c.name) for c in sales_overview.get_connected_cubes()) == [
        ("OlapCube", "Item Sales Cube"), ("OlapCube", "Sales Cube")]
    # Its other dataset is a report, not a cube.
    assert [c.name for c in regional_performance.get_connected_cubes()] == ["Sales Cube"]


def visualization_rows(conn, dashboard, chapter_key, visualization_key):
    """(attribute form values..., metric values...) of each row of a visualization, read with the
    client's API function on a new instance of the dashboard."""
    fresh = Dashboard(conn, id=dashboard.id)
    answer = documents.get_definition_and_results_of_visualization(
        conn, fresh.instance_id, chapter_key, visualization_key, dashboard_id=dashboard.id).json()
    attributes = answer["definition"]["grid"]["rows"]
    headers = answer["data"]["headers"]["rows"]
    raw = answer["data"]["metricValues"]["raw"]
    return [tuple(value for attribute, index in zip(attributes, header)
                  for value in attribute["elements"][index]["formValues"]) + tuple(metrics)
            for header, metrics in zip(headers, raw)]


def test_a_visualization_answers_its_data_under_the_chapter_filter(conn, sales_overview, warehouse):
    # Revenue by Category, under the chapter's filter "Recent Years" (Year >= 2023).
    expected = warehouse.rows("""SELECT category_id, category_name, SUM(revenue) FROM sales
                                 WHERE year_id >= 2023 GROUP BY category_id""")
    assert_same_rows(visualization_rows(conn, sales_overview, "K1", "W4"), expected, 2)


def test_a_kpi_visualization_answers_one_row_of_totals(conn, sales_overview, warehouse):
    expected = warehouse.rows("""SELECT SUM(revenue), SUM(revenue) - SUM(cost) FROM sales
                                 WHERE year_id >= 2023""")
    assert_same_rows(visualization_rows(conn, sales_overview, "K1", "W1"), expected, 0)


def test_a_selector_excluding_an_element_filters_its_target(conn, regional_performance, warehouse):
    rows = visualization_rows(conn, regional_performance, "K1", "W2")
    expected = warehouse.rows("""SELECT region_id, region_name, customer_segment_id,
                                        customer_segment_name, SUM(revenue)
                                 FROM sales WHERE customer_segment_id <> 5
                                 GROUP BY region_id, customer_segment_id""")
    # The grid's metrics are Revenue and Customer Count; Revenue is compared.
    assert_same_rows([row[:5] for row in rows], expected, 4)
