"""The demo warehouse (demo/SCHEMA.md) read with Python's sqlite3: the suite's independent source
of expected numbers. Opened read-only, so it never competes with the server for writes.

Queries read `sales`, a temporary table made once per connection: every row of sales_fact with
the columns of every lookup it reaches (month, quarter, year, city, country, region, item,
subcategory, category, customer, segment, channel), so a query names any attribute's column
without joins.
"""

import sqlite3

# The lookups in the order of the keys that reach them; CROSS JOIN keeps SQLite from reordering.
_FLATTEN = """
CREATE TEMP TABLE sales AS
SELECT f.*, d.month_id, mo.month_name, mo.quarter_id, q.year_id,
       ci.city_name, ci.country_id, co.country_name, co.region_id, r.region_name,
       i.item_name, i.subcategory_id, i.list_price, s.subcategory_name, s.category_id,
       c.category_name, cu.customer_name, cu.customer_segment_id, cs.customer_segment_name,
       ch.channel_name
FROM sales_fact f
CROSS JOIN lu_day d ON d.day_id = f.day_id
CROSS JOIN lu_month mo ON mo.month_id = d.month_id
CROSS JOIN lu_quarter q ON q.quarter_id = mo.quarter_id
CROSS JOIN lu_city ci ON ci.city_id = f.city_id
CROSS JOIN lu_country co ON co.country_id = ci.country_id
CROSS JOIN lu_region r ON r.region_id = co.region_id
CROSS JOIN lu_item i ON i.item_id = f.item_id
CROSS JOIN lu_subcategory s ON s.subcategory_id = i.subcategory_id
CROSS JOIN lu_category c ON c.category_id = s.category_id
CROSS JOIN lu_customer cu ON cu.customer_id = f.customer_id
CROSS JOIN lu_customer_segment cs ON cs.customer_segment_id = cu.customer_segment_id
CROSS JOIN lu_channel ch ON ch.channel_id = f.channel_id
"""


class Warehouse:
    def __init__(self, path):
        self._db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        self._db.execute(_FLATTEN)
        facts = self.scalar("SELECT COUNT(*) FROM sales_fact")
        assert self.scalar("SELECT COUNT(*) FROM sales") == facts, "every fact row has lookups"

    def rows(self, sql, *params):
        return self._db.execute(sql, params).fetchall()

    def scalar(self, sql, *params):
        return self._db.execute(sql, params).fetchone()[0]

    def close(self):
        self._db.close()
