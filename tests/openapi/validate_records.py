#!/usr/bin/env python3
"""Checks the exchanges the API tests recorded against the OpenAPI document.

Usage: validate_records.py OPENAPI_JSON RECORD_DIR

RECORD_DIR holds the JSON lines of tests/support/exchange_recorder.h. Each exchange is matched to
an operation of the document by its method and path (the router's rules: literal segments win
over parameters, one trailing slash is ignored, segments are percent-decoded; a server's context
path is one leading segment before a documented path). It fails when:
  - an exchange's path or method is not documented, unless the answer is the router's own 404 or
    405 in the documented shape (components/responses/RouteNotFound, MethodNotAllowed); the
    router's 404 is fine on a documented path too (asked without the server's context path);
  - its status code is not a response of the operation;
  - its content type is not one the response documents, or the response documents no body and
    one came;
  - its JSON body does not validate against the response's schema (JSON Schema 2020-12);
  - a JSON request body the server accepted (2xx) does not validate against the request schema;
  - a schema of the document is not a valid JSON Schema;
  - there is no record at all, so it can never pass without having checked something.
It prints the failures grouped by operation, status and kind, the most frequent first, each with
one example (test, target, what is wrong), and a line of totals. Exit 0 only without failures.
"""

import collections
import glob
import json
import multiprocessing
import os
import re
import sys
import urllib.parse

try:
    import jsonschema
except ImportError:  # pragma: no cover - the message is the point
    sys.exit("python3-jsonschema is missing (scripts/install-test-deps.sh installs it)")

METHODS = ("get", "put", "post", "delete", "patch", "head", "options")


class Operations:
    """The document's operations, found by method and concrete path."""

    def __init__(self, document):
        self.document = document
        self.templates = []  # (segments, template)
        for template in document.get("paths", {}):
            self.templates.append((template.strip("/").split("/") if template != "/" else [], template))

    @staticmethod
    def _segments(path):
        path = path.split("?", 1)[0]
        if len(path) > 1 and path.endswith("/"):
            path = path[:-1]
        if path in ("", "/"):
            return []
        return [urllib.parse.unquote(s) for s in path[1:].split("/")]

    def _matches(self, segments):
        """The templates `segments` fit, most specific first: literal segments before parameters
        at each position, as the router tries them."""
        found = []
        for template_segments, template in self.templates:
            if len(template_segments) != len(segments):
                continue
            rank = []
            for pattern, value in zip(template_segments, segments):
                if pattern.startswith("{") and pattern.endswith("}"):
                    if not value:
                        break
                    rank.append(1)
                elif pattern == value:
                    rank.append(0)
                else:
                    break
            else:
                found.append((rank, template))
        return [template for _, template in sorted(found)]

    def template_of(self, target, method="GET"):
        """The documented template that answers `method` on `target` (the router takes the most
        specific template that has the method), else the most specific one; a context path is
        tried away second. None when no template fits."""
        segments = self._segments(target)
        templates = self._matches(segments)
        if not templates and segments:
            templates = self._matches(segments[1:])
        for template in templates:
            if self.operation(method, template) is not None:
                return template
        return templates[0] if templates else None

    def operation(self, method, template):
        item = self.document["paths"][template]
        method = method.lower()
        if method in item:
            return item[method]
        if method == "head":
            return item.get("get")
        return None


def inline_schemas(node, where):
    """Every (location, schema) under the "schema" keys of parameters, bodies and responses."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "schema" and isinstance(value, dict):
                yield f"{where}/schema", value
            else:
                yield from inline_schemas(value, f"{where}/{key}")
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from inline_schemas(value, f"{where}/{index}")


def schema_validator(document, schema):
    """A Draft 2020-12 validator of `schema` whose "#/components/..." references resolve."""
    root = {"components": document.get("components", {}), "allOf": [schema]}
    return jsonschema.Draft202012Validator(root)


def media_type(content_type):
    return (content_type or "").split(";", 1)[0].strip().lower()


def resolve(document, item):
    """Follows a $ref of a response object (#/components/responses/...)."""
    while isinstance(item, dict) and "$ref" in item:
        node = document
        for part in item["$ref"].lstrip("#/").split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
        item = node
    return item


class Checker:
    def __init__(self, document):
        self.document = document
        self.operations = Operations(document)
        self.validators = {}

    def _validator(self, key, schema):
        if key not in self.validators:
            self.validators[key] = schema_validator(self.document, schema)
        return self.validators[key]

    def check_document(self):
        """Problems of the document itself: every schema must be a valid JSON Schema."""
        problems = []
        schemas = [(f"components/schemas/{name}", schema)
                   for name, schema in self.document.get("components", {}).get("schemas", {}).items()]
        schemas += list(inline_schemas(self.document.get("paths", {}), "paths"))
        schemas += list(inline_schemas(self.document.get("components", {}).get("responses", {}), "components/responses"))
        for where, schema in schemas:
            try:
                jsonschema.Draft202012Validator.check_schema(schema)
            except jsonschema.SchemaError as error:
                problems.append(f"{where}: {error.message}")
        return problems + self.check_operations()

    def check_operations(self):
        """Problems of the paths: undeclared path parameters, operations without a success."""
        problems = []
        for template, item in self.document.get("paths", {}).items():
            for method in (m for m in METHODS if m in item):
                operation = item[method]
                declared = {p.get("name") for p in item.get("parameters", []) + operation.get("parameters", [])
                            if resolve(self.document, p).get("in") == "path"}
                for name in re.findall(r"\{(\w+)\}", template):
                    if name not in declared:
                        problems.append(f"{method.upper()} {template}: path parameter {name} is not declared")
                if not any(status.startswith("2") for status in operation.get("responses", {})):
                    problems.append(f"{method.upper()} {template}: no success response")
        return problems

    def _check_body(self, response, record, key):
        """What is wrong with the record's body against `response` (a response object)."""
        content = response.get("content") or {}
        kind = media_type(record.get("contentType"))
        if record["method"] == "HEAD":
            return None
        if not content:
            if record.get("responseBodyBytes", 0) > 0:
                return "undocumented body", f"a body of type '{kind}' came; the response documents none"
            return None
        if kind not in content and "*/*" not in content:
            return "undocumented content type", f"'{kind}' is not one of {sorted(content)}"
        schema = (content.get(kind) or {}).get("schema")
        body = record.get("responseBody")
        if schema is None or body is None:
            return None
        try:
            value = json.loads(body)
        except ValueError as error:
            return "body is not JSON", str(error)
        errors = sorted(self._validator((key, kind), schema).iter_errors(value), key=lambda e: list(e.absolute_path))
        if errors:
            first = errors[0]
            where = "/".join(str(p) for p in first.absolute_path) or "(root)"
            return "body does not fit the schema", f"{where}: {first.message[:300]}"
        return None

    def _check_routing_error(self, record, response_name):
        """An exchange on an undocumented path or method: fine only as the router's own answer."""
        expected = {"RouteNotFound": 404, "MethodNotAllowed": 405}[response_name]
        if record["status"] != expected:
            return False
        response = resolve(self.document, {"$ref": f"#/components/responses/{response_name}"})
        return self._check_body(response, record, response_name) is None

    def check(self, record):
        """None, or (operation label, kind, detail) for what is wrong with one exchange."""
        method = record["method"].upper()
        status = str(record["status"])
        template = self.operations.template_of(record["target"], method)
        if template is None:
            if self._check_routing_error(record, "RouteNotFound"):
                return None
            return (f"{method} {record['target'].split('?')[0]}", status, "undocumented path", "no path of the document matches")
        label = f"{method} {template}"
        operation = self.operations.operation(method, template)
        if operation is None:
            if self._check_routing_error(record, "MethodNotAllowed"):
                return None
            return (label, status, "undocumented method", f"{template} documents {sorted(k for k in self.document['paths'][template] if k in METHODS)}")
        responses = operation.get("responses", {})
        if status not in responses:
            # A documented path asked without the server's context path is no route there.
            if self._check_routing_error(record, "RouteNotFound"):
                return None
            return (label, status, "undocumented status", f"documented: {sorted(responses)}")
        problem = self._check_body(resolve(self.document, responses[status]), record, (label, status))
        if problem:
            return (label, status) + problem
        if status.startswith("2"):
            problem = self._check_accepted_request(operation, record, label)
            if problem:
                return (label, status) + problem
        return None

    def _check_accepted_request(self, operation, record, label):
        """A JSON body the server accepted must fit the request schema: else the document is
        stricter than the server."""
        body = record.get("requestBody")
        content = (resolve(self.document, operation.get("requestBody")) or {}).get("content") or {}
        schema = (content.get(media_type(record.get("requestContentType"))) or {}).get("schema")
        if body is None or schema is None:
            return None
        try:
            value = json.loads(body)
        except ValueError:
            return None
        errors = list(self._validator((label, "request"), schema).iter_errors(value))
        if errors:
            where = "/".join(str(p) for p in errors[0].absolute_path) or "(root)"
            return "accepted request body does not fit the schema", f"{where}: {errors[0].message[:300]}"
        return None


def read_records(record_dir):
    records = []
    for path in sorted(glob.glob(os.path.join(record_dir, "*.jsonl"))):
        with open(path, encoding="utf-8") as lines:
            for number, line in enumerate(lines, 1):
                if line.strip():
                    record = json.loads(line)
                    record["_source"] = f"{os.path.basename(path)}:{number}"
                    records.append(record)
    return records


_checker = None  # what forked workers check with (set before the pool forks)


def _check_chunk(chunk):
    return [(_checker.check(record), _checker.operations.template_of(record["target"], record["method"]))
            for record in chunk]


def check_all(checker, records):
    """(finding, template) of each record, in order; the records are checked in forked workers,
    one per core, as checking is CPU-bound. Chunks take every n-th record, so that the large
    records of one test spread over all the workers."""
    global _checker
    _checker = checker
    workers = min(os.cpu_count() or 1, max(1, len(records) // 500))
    if workers == 1:
        return _check_chunk(records)
    count = workers * 4
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        checked = pool.map(_check_chunk, [records[i::count] for i in range(count)])
    results = [None] * len(records)
    for first, chunk in enumerate(checked):
        results[first::count] = chunk
    return results


def report(document, records, out=sys.stdout):
    """Prints the findings; returns the number of failures (records and document problems)."""
    checker = Checker(document)
    problems = checker.check_document()
    for problem in problems:
        print(f"document: {problem}", file=out)
    if not records:
        print("no exchange was recorded: the API tests did not run, or did not record "
              "(TESSERA_OPENAPI_RECORD_DIR)", file=out)
        return len(problems) + 1
    groups = collections.OrderedDict()
    exercised = set()
    for record, (finding, template) in zip(records, check_all(checker, records)):
        if template:
            exercised.add(f"{record['method'].upper()} {template}")
        if finding:
            label, status, kind, detail = finding
            group = groups.setdefault((label, status, kind), [0, record, detail])
            group[0] += 1
    failures = sum(group[0] for group in groups.values())
    for (label, status, kind), (count, example, detail) in sorted(groups.items(), key=lambda g: -g[1][0]):
        print(f"{count:6d} x {label} -> {status}: {kind}", file=out)
        print(f"         e.g. {example.get('test') or '?'}: {example['method']} {example['target'][:160]}", file=out)
        print(f"         {detail}", file=out)
    documented = sum(1 for item in document.get("paths", {}).values() for m in item if m in METHODS)
    print(f"{len(records)} exchanges, {failures} not as documented ({len(groups)} kinds); "
          f"{len(exercised)} of {documented} documented operations exercised", file=out)
    return failures + len(problems)


def main(argv):
    if len(argv) != 3:
        sys.exit(__doc__)
    with open(argv[1], encoding="utf-8") as file:
        document = json.load(file)
    return 1 if report(document, read_records(argv[2])) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
