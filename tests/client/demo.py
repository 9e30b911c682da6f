"""What the suite knows about the demo project "Tutorial" without asking the server.

Ids follow the bundle rule (docs/bundles.md): an object without an explicit id gets the first
16 bytes of SHA-256("tessera:<project>:<type code>:<name>") as 32 upper-case hex digits, so the
suite computes them from names. The demo's facts come from demo/tutorial/*.yaml and
demo/SCHEMA.md; expected numbers come from SQL on the warehouse (warehouse.py).
"""

import hashlib

PROJECT = "Tutorial"

# Type codes of the REST API.
FILTER, TEMPLATE, REPORT, METRIC, FOLDER, ATTRIBUTE, FACT, TABLE = 1, 2, 3, 4, 8, 12, 13, 15
PROJECT_TYPE, USER, DASHBOARD, SECURITY_ROLE = 32, 34, 55, 44

# Well-known system ids (the REST API's public documentation).
ADMINISTRATOR_ID = "54F3D26011D2896560009A8E67019608"
EVERYONE_ID = "C82C6B1011D2894CC0009D9F29718E4F"
PUBLIC_GUEST_ID = "294DEDC011D2F1D56000D98E67019608"
ROOT_FOLDER_ID = "D43364C684E34A5F9B2F9AD7108F7828"
PUBLIC_OBJECTS_ID = "98FE182C2A10427EACE0CD30B6768258"
SHARED_REPORTS_ID = "D3C7D461F69C4610AA6BAA5EF51F4125"

USER_SUBTYPE, GROUP_SUBTYPE = 8704, 8705

WAREHOUSE_REPORTS = [
    "Customers by Segment",
    "Electronics and Apparel by Month",
    "High Revenue Items",
    "Profit by Region and Category",
    "Revenue by Year",
    "Western Europe by Country",
]
CUBE_REPORTS = ["Quarterly Sales by Channel"]
REPORTS = sorted(WAREHOUSE_REPORTS + CUBE_REPORTS)
OLAP_CUBES = ["Item Sales Cube", "Order Lines Cube", "Sales Cube"]
DASHBOARDS = ["Regional Performance", "Sales Overview"]
METRICS = [
    "Revenue", "Cost", "Profit", "Profit Margin", "Units Sold", "Discount", "Avg Unit Price",
    "Customer Count", "Order Lines", "Avg Revenue", "Avg Units", "Min Revenue", "Max Revenue",
    "Item Count", "City Count", "Customer Segment Count",
]

# Server B, the migration target, loads the demo without this report and the two objects only
# it uses; migrating the report with its dependents brings all three.
MIGRATED_REPORT = "High Revenue Items"
MIGRATED_METRIC = "Avg Unit Price"
MIGRATED_FILTER = "High Revenue Lines"


def demo_id(type_code, name, project=PROJECT):
    text = f"tessera:{project}:{type_code}:{name}"
    return hashlib.sha256(text.encode()).hexdigest()[:32].upper()


PROJECT_ID = demo_id(PROJECT_TYPE, PROJECT)


def bundle_objects(bundle_dir):
    """(type code, name) of every object a bundle defines, read from its YAML files."""
    import yaml

    objects = []
    for file_name, key, type_code in [("tables.yaml", "tables", TABLE),
                                      ("attributes.yaml", "attributes", ATTRIBUTE),
                                      ("facts.yaml", "facts", FACT),
                                      ("metrics.yaml", "metrics", METRIC),
                                      ("filters.yaml", "filters", FILTER)]:
        document = yaml.safe_load((bundle_dir / file_name).read_text())
        objects += [(type_code, entry["name"]) for entry in document[key]]
    for folder, type_code in [("cubes", REPORT), ("reports", REPORT), ("dashboards", DASHBOARD)]:
        for path in sorted((bundle_dir / folder).glob("*.yaml")):
            objects.append((type_code, yaml.safe_load(path.read_text())["name"]))
    return objects
