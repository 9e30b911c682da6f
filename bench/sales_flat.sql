-- The flattened table `sales` that the queries of bench/queries.json read: the demo warehouse
-- attached as `w`, one row per order line. CROSS JOIN keeps SQLite's join order as written (the
-- fact table outermost).
SELECT f.day_id AS day, m.month_id AS month, q.quarter_id AS quarter, q.year_id AS year,
  r.region_name AS region, co.country_name AS country, ci.city_name AS city,
  ca.category_name AS category, sc.subcategory_name AS subcategory, i.item_name AS item,
  cs.customer_segment_name AS customer_segment, ch.channel_name AS channel,
  f.units AS units, f.revenue AS revenue, f.cost AS cost
FROM w.sales_fact f
CROSS JOIN w.lu_day d ON d.day_id = f.day_id
CROSS JOIN w.lu_month m ON m.month_id = d.month_id
CROSS JOIN w.lu_quarter q ON q.quarter_id = m.quarter_id
CROSS JOIN w.lu_city ci ON ci.city_id = f.city_id
CROSS JOIN w.lu_country co ON co.country_id = ci.country_id
CROSS JOIN w.lu_region r ON r.region_id = co.region_id
CROSS JOIN w.lu_item i ON i.item_id = f.item_id
CROSS JOIN w.lu_subcategory sc ON sc.subcategory_id = i.subcategory_id
CROSS JOIN w.lu_category ca ON ca.category_id = sc.category_id
CROSS JOIN w.lu_customer cu ON cu.customer_id = f.customer_id
CROSS JOIN w.lu_customer_segment cs ON cs.customer_segment_id = cu.customer_segment_id
CROSS JOIN w.lu_channel ch ON ch.channel_id = f.channel_id
