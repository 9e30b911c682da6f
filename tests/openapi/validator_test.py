#!/usr/bin/env python3
"""The OpenAPI validator's own check: it must pass exchanges that fit the document and fail the
same exchanges against a document made wrong, so a rotten document cannot pass unnoticed.

Usage: validator_test.py OPENAPI_JSON   (exit 0 when every case behaves)
"""

import copy
import io
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import validate_records  # noqa: E402

TICKET = "0123456789abcdef0123456789abcdef"


def exchange(method, target, status, body, content_type="application/json"):
    return {"test": "validator_test", "method": method, "target": target, "status": status,
            "contentType": content_type if body is not None else None,
            "responseBody": json.dumps(body) if body is not None else None,
            "responseBodyBytes": len(json.dumps(body)) if body is not None else 0}


# Answers as the server gives them, written out here rather than produced by it.
GOOD = [
    exchange("GET", "/api/status", 200, {"webVersion": "11.6.0200.0001", "iServerVersion": "11.6.0200.0001"}),
    exchange("POST", "/api/auth/login", 204, None),
    exchange("GET", "/api/sessions/", 401, {"code": "ERR009", "message": "No token", "ticketId": TICKET}),
    exchange("GET", "/MicroStrategyLibrary/api/status", 200, {"webVersion": "1", "iServerVersion": "1"}),
    exchange("GET", "/api/nowhere", 404, {"code": "ERR004", "message": "HTTP 404 Not Found", "ticketId": TICKET}),
    exchange("DELETE", "/api/status", 405, {"code": "ERR001", "message": "HTTP 405 Method Not Allowed", "ticketId": TICKET}),
]


def failures(document, records):
    return validate_records.report(document, records, out=io.StringIO())


def expect(name, actual_failures, should_fail):
    ok = (actual_failures > 0) == should_fail
    print(f"{'ok  ' if ok else 'FAIL'} {name}: {actual_failures} failure(s)")
    return ok


def main(argv):
    with open(argv[1], encoding="utf-8") as file:
        document = json.load(file)
    results = [expect("exchanges that fit the document pass", failures(document, GOOD), False)]

    wrong_type = copy.deepcopy(document)
    status_schema = wrong_type["paths"]["/api/status"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    status_schema["properties"]["webVersion"] = {"type": "integer"}
    results.append(expect("a response schema of the wrong type fails", failures(wrong_type, GOOD[:1]), True))

    no_status = copy.deepcopy(document)
    del no_status["paths"]["/api/auth/login"]["post"]["responses"]["204"]
    results.append(expect("a status the document lacks fails", failures(no_status, GOOD[1:2]), True))

    no_path = copy.deepcopy(document)
    del no_path["paths"]["/api/status"]
    results.append(expect("a path the document lacks fails", failures(no_path, GOOD[:1]), True))

    bad_error = copy.deepcopy(document)
    bad_error["components"]["schemas"]["Error"]["required"].append("details")
    results.append(expect("an error shape the answers do not have fails", failures(bad_error, GOOD[2:3]), True))

    broken_schema = copy.deepcopy(document)
    broken_schema["components"]["schemas"]["ObjectId"]["type"] = "hexadecimal"
    results.append(expect("a schema that is no JSON Schema fails", failures(broken_schema, GOOD[:1]), True))

    broken_inline = copy.deepcopy(document)
    broken_inline["paths"]["/api/status"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]["type"] = 7
    results.append(expect("an inline schema that is no JSON Schema fails", failures(broken_inline, GOOD[4:5]), True))

    undeclared = copy.deepcopy(document)
    undeclared["paths"]["/api/projects/{projectIdOrName}"].pop("parameters")
    results.append(expect("a path parameter the document does not declare fails", failures(undeclared, GOOD[:1]), True))

    accepted = exchange("POST", "/api/auth/login", 204, None)
    accepted.update(requestContentType="application/json", requestBody=json.dumps({"username": 7}))
    results.append(expect("a request body the document allows passes", failures(document, [accepted]), False))
    strict = copy.deepcopy(document)
    strict["paths"]["/api/auth/login"]["post"]["requestBody"]["content"]["application/json"]["schema"] = {
        "type": "object", "properties": {"username": {"type": "string"}}}
    results.append(expect("a request schema stricter than the server fails", failures(strict, [accepted]), True))

    wrong_route_error = exchange("GET", "/api/nowhere", 404, {"code": "ERR006", "message": "x", "ticketId": TICKET})
    results.append(expect("an undocumented path answered otherwise than by the router fails",
                          failures(document, [wrong_route_error]), True))
    results.append(expect("no records at all fails", failures(document, []), True))
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
