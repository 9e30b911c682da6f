"""The demo's OLAP cubes through OlapCube: data against SQL on the warehouse, chosen objects,
element filters, paged and parallel downloads, status and publishing.

The cubes are never published by the suite before these reads: on first start the server
publishes them itself (demo/tutorial/cubes/*.yaml lists each cube's attributes and metrics).
"""

import time
from datetime import datetime, timedelta, timezone

import pytest
from mstrio.project_objects import OlapCube

from demo import ADMINISTRATOR_ID, ATTRIBUTE, METRIC, REPORT, demo_id
from frames import assert_grid

# Taken when the module is collected, before the servers start.
SESSION_START = datetime.now(timezone.utc)
SALES_CUBE = demo_id(REPORT, "Sales Cube")
ITEM_SALES_CUBE = demo_id(REPORT, "Item Sales Cube")
ORDER_LINES_CUBE = demo_id(REPORT, "Order Lines Cube")


def attribute(name):
    return demo_id(ATTRIBUTE, name)


def metric(name):
    return demo_id(METRIC, name)


def cube(conn, cube_id, **kwargs):
    return OlapCube(conn, id=cube_id, progress_bar=False, **kwargs)


SALES_CUBE_ATTRIBUTES = ["Year", "Quarter", "Month@ID", "Month@DESC", "Region@ID", "Region@DESC",
                         "Country@ID", "Country@DESC", "Category@ID", "Category@DESC",
                         "Subcategory@ID", "Subcategory@DESC", "Customer Segment@ID",
                         "Customer Segment@DESC", "Channel@ID", "Channel@DESC"]
SALES_CUBE_METRICS = ["Revenue", "Cost", "Profit", "Units Sold", "Customer Count", "Order Lines"]
SALES_CUBE_SQL = """
    SELECT year_id, quarter_id, month_id, month_name, region_id, region_name, country_id,
           country_name, category_id, category_name, subcategory_id, subcategory_name,
           customer_segment_id, customer_segment_name, channel_id, channel_name,
           SUM(revenue), SUM(cost), SUM(revenue) - SUM(cost), SUM(units),
           COUNT(DISTINCT customer_id), COUNT(*)
    FROM sales
    GROUP BY month_id, country_id, subcategory_id, customer_segment_id, channel_id"""


def test_the_sales_cube_holds_every_combination_of_its_attributes(conn, warehouse):
    frame = cube(conn, SALES_CUBE).to_dataframe()
    assert list(frame.columns) == SALES_CUBE_ATTRIBUTES + SALES_CUBE_METRICS
    assert_grid(frame, SALES_CUBE_ATTRIBUTES, SALES_CUBE_METRICS, warehouse.rows(SALES_CUBE_SQL))


def test_the_item_sales_cube_answers_what_sql_computes(conn, warehouse):
    frame = cube(conn, ITEM_SALES_CUBE).to_dataframe()
    expected = warehouse.rows("""
        SELECT item_id, item_name, subcategory_id, subcategory_name, category_id, category_name,
               month_id, month_name, channel_id, channel_name,
               SUM(revenue), SUM(cost), SUM(units)
        FROM sales GROUP BY item_id, month_id, channel_id""")
    assert_grid(frame, ["Item@ID", "Item@DESC", "Subcategory@ID", "Subcategory@DESC",
                        "Category@ID", "Category@DESC", "Month@ID", "Month@DESC", "Channel@ID",
                        "Channel@DESC"], ["Revenue", "Cost", "Units Sold"], expected)


def test_a_cube_lists_its_attributes_and_metrics(conn):
    found = cube(conn, SALES_CUBE)
    assert found.name == "Sales Cube"
    assert [a["name"] for a in found.attributes] == [
        "Year", "Quarter", "Month", "Region", "Country", "Category", "Subcategory",
        "Customer Segment", "Channel"]
    assert [m["name"] for m in found.metrics] == SALES_CUBE_METRICS


def test_choosing_attributes_and_metrics_aggregates_the_cube(conn, warehouse):
    chosen = cube(conn, SALES_CUBE)
    chosen.apply_filters(attributes=[attribute("Region")],
                         metrics=[metric("Revenue"), metric("Units Sold")])
    frame = chosen.to_dataframe()
    assert list(frame.columns) == ["Region@ID", "Region@DESC", "Revenue", "Units Sold"]
    assert_grid(frame, ["Region@ID", "Region@DESC"], ["Revenue", "Units Sold"], warehouse.rows(
        "SELECT region_id, region_name, SUM(revenue), SUM(units) FROM sales GROUP BY region_id"))


def test_a_line_grain_cube_aggregates_averages_extremes_and_distinct_counts(conn, warehouse):
    chosen = cube(conn, ORDER_LINES_CUBE)
    metrics = ["Avg Revenue", "Min Revenue", "Max Revenue", "Item Count", "City Count"]
    chosen.apply_filters(attributes=[attribute("Customer Segment")],
                         metrics=[metric(m) for m in metrics])
    expected = warehouse.rows("""
        SELECT customer_segment_id, customer_segment_name, AVG(revenue), MIN(revenue),
               MAX(revenue), COUNT(DISTINCT item_id), COUNT(DISTINCT city_id)
        FROM sales GROUP BY customer_segment_id""")
    assert_grid(chosen.to_dataframe(), ["Customer Segment@ID", "Customer Segment@DESC"], metrics,
                expected)


def channel_elements(chosen, names):
    channels = next(a for a in chosen.attr_elements if a["attribute_id"] == attribute("Channel"))
    return [e["id"] for e in channels["elements"] if e["formValues"][1] in names]


def test_attribute_elements_of_a_cube_are_the_elements_it_holds(conn, warehouse):
    channels = next(a for a in cube(conn, SALES_CUBE).attr_elements
                    if a["attribute_id"] == attribute("Channel"))
    assert sorted(tuple(e["formValues"]) for e in channels["elements"]) == sorted(
        (str(i), name)
        for i, name in warehouse.rows("SELECT channel_id, channel_name FROM lu_channel"))


def test_an_element_filter_keeps_only_the_chosen_elements_of_a_cube(conn, warehouse):
    chosen = cube(conn, SALES_CUBE)
    chosen.apply_filters(attributes=[attribute("Channel"), attribute("Category")],
                         metrics=[metric("Revenue")],
                         attr_elements=channel_elements(chosen, {"Online", "Partner"}))
    expected = warehouse.rows("""
        SELECT channel_id, channel_name, category_id, category_name, SUM(revenue) FROM sales
        WHERE channel_name IN ('Online', 'Partner') GROUP BY channel_id, category_id""")
    assert_grid(chosen.to_dataframe(), ["Channel@ID", "Channel@DESC", "Category@ID",
                                        "Category@DESC"], ["Revenue"], expected)


def test_a_not_in_element_filter_drops_the_chosen_elements_of_a_cube(conn, warehouse):
    chosen = cube(conn, SALES_CUBE)
    chosen.apply_filters(attributes=[attribute("Channel")], metrics=[metric("Order Lines")],
                         attr_elements=channel_elements(chosen, {"Online"}), operator="NotIn")
    expected = warehouse.rows("""SELECT channel_id, channel_name, COUNT(*) FROM sales
                                 WHERE channel_name <> 'Online' GROUP BY channel_id""")
    assert_grid(chosen.to_dataframe(), ["Channel@ID", "Channel@DESC"], ["Order Lines"], expected)


def test_a_paged_cube_download_in_parallel_returns_every_row(conn, warehouse):
    frame = cube(conn, SALES_CUBE, parallel=True).to_dataframe(limit=15000)
    assert_grid(frame, SALES_CUBE_ATTRIBUTES, SALES_CUBE_METRICS, warehouse.rows(SALES_CUBE_SQL))


def test_a_paged_cube_download_one_page_at_a_time_returns_every_row(conn, warehouse):
    frame = cube(conn, ITEM_SALES_CUBE, parallel=False).to_dataframe(limit=20000)
    assert len(frame) == warehouse.scalar(
        "SELECT COUNT(*) FROM (SELECT 1 FROM sales GROUP BY item_id, month_id, channel_id)")
    assert frame["Revenue"].sum() == pytest.approx(
        warehouse.scalar("SELECT SUM(revenue) FROM sales"))


def test_a_published_demo_cube_reports_itself_ready(conn):
    chosen = cube(conn, SALES_CUBE)
    chosen.to_dataframe(limit=1000)
    chosen.refresh_status()
    assert {"Ready", "Loaded"} <= set(chosen.show_status())


def test_a_cubes_properties_name_its_owner_and_its_publication_at_first_start(conn):
    chosen = cube(conn, SALES_CUBE)
    chosen.to_dataframe(limit=1000)  # waits for the publication begun at first start
    assert chosen.owner_id == ADMINISTRATOR_ID
    published = chosen.last_update_time.astimezone(timezone.utc)
    assert SESSION_START - timedelta(minutes=1) <= published <= datetime.now(timezone.utc)
    assert chosen.size > 0


def test_republishing_a_cube_is_a_job_that_completes(conn):
    from mstrio.server.job_monitor import JobStatus

    chosen = cube(conn, ITEM_SALES_CUBE)
    job = chosen.publish()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        job.refresh_status()
        if job.status == JobStatus.COMPLETED:
            break
        time.sleep(0.5)
    assert job.status == JobStatus.COMPLETED


def test_a_refreshed_cube_answers_the_same_data(conn, warehouse):
    chosen = cube(conn, ITEM_SALES_CUBE)
    chosen.refresh()
    chosen.apply_filters(attributes=[attribute("Category")], metrics=[metric("Units Sold")])
    assert_grid(chosen.to_dataframe(), ["Category@ID", "Category@DESC"], ["Units Sold"],
                warehouse.rows("""SELECT category_id, category_name, SUM(units) FROM sales
                                  GROUP BY category_id"""))


def test_a_cubes_sql_view_reads_the_warehouse_fact_table(conn):
    assert "sales_fact" in cube(conn, SALES_CUBE).export_sql_view()
