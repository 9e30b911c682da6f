"""Report data through Report(...).to_dataframe(), checked against SQL on the demo warehouse.

What each report computes is read from demo/tutorial/reports/*.yaml and metrics.yaml: Revenue,
Cost, Units Sold and Discount are sums of their fact columns, Profit is Revenue - Cost, Profit
Margin is Profit / Revenue, Customer Count counts distinct customers, Order Lines counts fact
rows, Avg Unit Price is Revenue / Units Sold, all at the grain of the report's rows.
"""

import pytest
from mstrio.project_objects import Report

from demo import ATTRIBUTE, METRIC, REPORT, demo_id
from frames import assert_grid

REPORT_SQL = {
    "Revenue by Year": (
        ["Year"], ["Revenue", "Cost", "Profit"],
        """SELECT year_id, SUM(revenue), SUM(cost), SUM(revenue) - SUM(cost)
            FROM sales GROUP BY year_id"""),
    "Profit by Region and Category": (
        ["Region@ID", "Region@DESC", "Category@ID", "Category@DESC"],
        ["Revenue", "Cost", "Profit", "Profit Margin"],
        """SELECT region_id, region_name, category_id, category_name,
                   SUM(revenue), SUM(cost), SUM(revenue) - SUM(cost),
                   (SUM(revenue) - SUM(cost)) / SUM(revenue)
            FROM sales GROUP BY region_id, category_id"""),
    "Customers by Segment": (
        ["Customer Segment@ID", "Customer Segment@DESC"],
        ["Customer Count", "Order Lines", "Revenue"],
        """SELECT customer_segment_id, customer_segment_name,
                   COUNT(DISTINCT customer_id), COUNT(*), SUM(revenue)
            FROM sales GROUP BY customer_segment_id"""),
    "Western Europe by Country": (
        ["Country@ID", "Country@DESC"], ["Revenue", "Profit Margin", "Customer Count"],
        """SELECT country_id, country_name, SUM(revenue),
                   (SUM(revenue) - SUM(cost)) / SUM(revenue), COUNT(DISTINCT customer_id)
            FROM sales WHERE region_name = 'Western Europe' GROUP BY country_id"""),
    "Electronics and Apparel by Month": (
        ["Subcategory@ID", "Subcategory@DESC", "Month@ID", "Month@DESC"],
        ["Revenue", "Units Sold", "Discount"],
        """SELECT subcategory_id, subcategory_name, month_id, month_name,
                   SUM(revenue), SUM(units), SUM(discount)
            FROM sales WHERE category_name IN ('Electronics', 'Apparel')
            GROUP BY subcategory_id, month_id"""),
    "High Revenue Items": (
        ["Item@ID", "Item@DESC"], ["Revenue", "Units Sold", "Avg Unit Price"],
        """SELECT item_id, item_name, SUM(revenue), SUM(units),
                   SUM(revenue) / SUM(units)
            FROM sales GROUP BY item_id HAVING SUM(revenue) > 1000"""),
    # A report on Sales Cube: answers only once the demo's cubes are published.
    "Quarterly Sales by Channel": (
        ["Quarter", "Channel@ID", "Channel@DESC"], ["Revenue", "Units Sold", "Order Lines"],
        """SELECT quarter_id, channel_id, channel_name, SUM(revenue), SUM(units),
                   COUNT(*)
            FROM sales GROUP BY quarter_id, channel_id"""),
}

REGION = demo_id(ATTRIBUTE, "Region")
CATEGORY = demo_id(ATTRIBUTE, "Category")
REVENUE = demo_id(METRIC, "Revenue")
COST = demo_id(METRIC, "Cost")


def report(conn, name, **kwargs):
    return Report(conn, id=demo_id(REPORT, name), progress_bar=False, **kwargs)


@pytest.mark.parametrize("name", sorted(REPORT_SQL))
def test_a_demo_report_answers_what_sql_computes(conn, warehouse, name):
    attributes, metrics, sql = REPORT_SQL[name]
    frame = report(conn, name).to_dataframe()
    assert_grid(frame, attributes, metrics, warehouse.rows(sql))


def test_report_columns_are_attribute_forms_then_metrics(conn):
    frame = report(conn, "Profit by Region and Category").to_dataframe()
    assert list(frame.columns) == ["Region@ID", "Region@DESC", "Category@ID", "Category@DESC",
                                   "Revenue", "Cost", "Profit", "Profit Margin"]


def test_a_report_found_by_name_is_the_bundles_report(conn):
    found = Report(conn, name="Revenue by Year")
    assert found.id == demo_id(REPORT, "Revenue by Year")
    assert [a["name"] for a in found.attributes] == ["Year"]
    assert [m["name"] for m in found.metrics] == ["Revenue", "Cost", "Profit"]


def test_a_reports_description_comes_from_its_bundle(conn):
    assert report(conn, "High Revenue Items").description == (
        "Items whose revenue is above 1,000 (a metric qualification at the report level)")


def test_choosing_attributes_and_metrics_aggregates_to_them(conn, warehouse):
    chosen = report(conn, "Profit by Region and Category")
    chosen.apply_filters(attributes=[REGION], metrics=[REVENUE, COST])
    expected = warehouse.rows("""SELECT region_id, region_name, SUM(revenue), SUM(cost)
                                  FROM sales GROUP BY region_id""")
    frame = chosen.to_dataframe()
    assert list(frame.columns) == ["Region@ID", "Region@DESC", "Revenue", "Cost"]
    assert_grid(frame, ["Region@ID", "Region@DESC"], ["Revenue", "Cost"], expected)


def test_choosing_no_attributes_gives_one_grand_total_row(conn, warehouse):
    chosen = report(conn, "Profit by Region and Category")
    chosen.apply_filters(attributes=[], metrics=[REVENUE])
    frame = chosen.to_dataframe()
    assert list(frame.columns) == ["Revenue"]
    assert frame["Revenue"].tolist() == pytest.approx([warehouse.scalar(
        "SELECT SUM(revenue) FROM sales_fact")])


def test_choosing_no_metrics_lists_the_attribute_combinations(conn, warehouse):
    chosen = report(conn, "Profit by Region and Category")
    chosen.apply_filters(attributes=[REGION, CATEGORY], metrics=[])
    frame = chosen.to_dataframe()
    expected = warehouse.rows("""SELECT DISTINCT region_id, region_name, category_id,
                                         category_name FROM sales""")
    assert_grid(frame, ["Region@ID", "Region@DESC", "Category@ID", "Category@DESC"], [], expected)


def element_ids(chosen, attribute_id, descriptions):
    """Element ids of the report's attribute whose DESC form is among `descriptions`."""
    for attribute in chosen.attr_elements:
        if attribute["attribute_id"] == attribute_id:
            return [e["id"] for e in attribute["elements"] if e["formValues"][1] in descriptions]
    raise AssertionError(f"no elements for attribute {attribute_id}")


def test_attribute_elements_of_a_report_are_its_lookup_rows(conn, warehouse):
    regions = next(a for a in report(conn, "Profit by Region and Category").attr_elements
                   if a["attribute_id"] == REGION)
    assert sorted(tuple(e["formValues"]) for e in regions["elements"]) == sorted(
        (str(i), name)
        for i, name in warehouse.rows("SELECT region_id, region_name FROM lu_region"))


def test_an_element_filter_keeps_only_the_chosen_elements(conn, warehouse):
    chosen = report(conn, "Profit by Region and Category")
    chosen.apply_filters(
        attr_elements=element_ids(chosen, REGION, {"Western Europe", "North America"}))
    expected = warehouse.rows(
        """SELECT region_id, region_name, category_id, category_name, SUM(revenue)
            FROM sales WHERE region_name IN ('Western Europe', 'North America')
            GROUP BY region_id, category_id""")
    assert_grid(chosen.to_dataframe(), ["Region@ID", "Region@DESC", "Category@ID", "Category@DESC"],
                ["Revenue"], expected)


def test_a_not_in_element_filter_drops_the_chosen_elements(conn, warehouse):
    chosen = report(conn, "Profit by Region and Category")
    chosen.apply_filters(attr_elements=element_ids(chosen, CATEGORY, {"Electronics"}),
                         operator="NotIn")
    expected = warehouse.rows(
        """SELECT region_id, region_name, category_id, category_name, SUM(revenue)
            FROM sales WHERE category_name <> 'Electronics'
            GROUP BY region_id, category_id""")
    assert_grid(chosen.to_dataframe(), ["Region@ID", "Region@DESC", "Category@ID", "Category@DESC"],
                ["Revenue"], expected)


def test_element_filters_on_two_attributes_must_both_hold(conn, warehouse):
    chosen = report(conn, "Profit by Region and Category")
    chosen.apply_filters(attributes=[REGION, CATEGORY], metrics=[REVENUE],
                         attr_elements=element_ids(chosen, REGION, {"Western Europe"})
                         + element_ids(chosen, CATEGORY, {"Apparel", "Electronics"}))
    expected = warehouse.rows(
        """SELECT region_id, region_name, category_id, category_name, SUM(revenue)
            FROM sales WHERE region_name = 'Western Europe'
              AND category_name IN ('Apparel', 'Electronics')
            GROUP BY region_id, category_id""")
    frame = chosen.to_dataframe()
    assert len(frame) == 2
    assert_grid(frame, ["Region@ID", "Region@DESC", "Category@ID", "Category@DESC"], ["Revenue"],
                expected)


HIGH_REVENUE_SQL = """SELECT item_id, item_name, SUM(revenue), SUM(units)
                       FROM sales GROUP BY item_id HAVING SUM(revenue) > 1000"""


def test_a_paged_download_in_parallel_returns_every_row(conn, warehouse):
    frame = report(conn, "High Revenue Items", parallel=True).to_dataframe(limit=500)
    expected = warehouse.rows(HIGH_REVENUE_SQL)
    assert len(expected) > 2000, "enough rows for several pages"
    assert len(frame) == len(expected)
    assert_grid(frame, ["Item@ID", "Item@DESC"], ["Revenue", "Units Sold"], expected)


def test_a_paged_download_one_page_at_a_time_returns_every_row(conn, warehouse):
    frame = report(conn, "High Revenue Items", parallel=False).to_dataframe(limit=700)
    assert_grid(frame, ["Item@ID", "Item@DESC"], ["Revenue", "Units Sold"],
                warehouse.rows(HIGH_REVENUE_SQL))


def test_the_same_report_object_can_be_read_twice(conn, warehouse):
    chosen = report(conn, "Revenue by Year")
    first = chosen.to_dataframe()
    second = chosen.to_dataframe()
    assert first.equals(second)
    assert len(first) == warehouse.scalar("SELECT COUNT(*) FROM lu_year")


def test_a_reports_sql_reads_the_warehouse_fact_table(conn):
    assert "sales_fact" in report(conn, "Revenue by Year").sql
