#!/usr/bin/env python3
"""Generates the endpoint table of docs/api-coverage.md from the OpenAPI document, and checks it.

Usage:
  scripts/api-coverage.py --write   rewrite the table in docs/api-coverage.md in place
  scripts/api-coverage.py --check   exit 0 when the table is what --write would write; else
                                    exit 1, naming each disagreeing row (the ctest
                                    api_coverage_doc runs this)
Exit 2 when the document or the file cannot be read as described below.

The document is read from its source, src/api/openapi/base.json and src/api/openapi/paths/*.json,
merged as src/api/openapi/merge.cmake merges them (each paths file is an object of paths, taken
in file name order; a path that two files give is an error), so no build is needed.

The table is the block of lines from the one starting `| endpoint |` to the last line starting
`|` after it; the prose around it is left as it is. It has one row per path and `fields` mark:
the methods of one path that take the same `fields`, paths in document order. Its columns:
  endpoint  `METHOD[, METHOD] /path`, from the document.
  fields    from the document: `yes` when the operation takes the general parameter (a $ref to
            #/components/parameters/fields); the component's name when it refers to another
            `fields` dialect (metricValueExclusions, datasetObjectTypes); `no` when it takes none.
            An inline `fields` parameter is an error: a dialect is a named component, so the
            document, the router (api/partial_response.h) and this table call it the same.
  notes     hand-written and kept: a row's note belongs to each operation of the row, so it
            survives a regrouping; a row none of whose operations has a note gets their
            summaries.
So --check fails when an operation of the document is missing from the table, the table lists one
the document lacks or lists one twice, a fields mark disagrees, or rows are grouped, ordered or
formatted otherwise than --write writes them.
"""

import difflib
import glob
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OPENAPI_DIR = os.path.join(ROOT, "src", "api", "openapi")
DOC = os.path.join(ROOT, "docs", "api-coverage.md")
DOC_NAME = "docs/api-coverage.md"

METHODS = ("get", "put", "post", "delete", "patch", "head", "options", "trace")
GENERAL_FIELDS = "#/components/parameters/fields"
COMPONENT_PREFIX = "#/components/parameters/"

HEADER = ["| endpoint | fields | notes |", "|---|---|---|"]
ENDPOINT_CELL = re.compile(r"^`([A-Z]+(?:, [A-Z]+)*) (/\S*)`$")


class Unreadable(Exception):
    """The document or the file is not what this script reads; exit 2 with the message."""


# --- the document -------------------------------------------------------------------------

def read_json(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError) as e:
        raise Unreadable(f"{os.path.relpath(path, ROOT)}: {e}")


def load_document():
    """base.json with the paths of every paths/*.json, as merge.cmake builds it."""
    document = read_json(os.path.join(OPENAPI_DIR, "base.json"))
    document["paths"] = {}
    for path_file in sorted(glob.glob(os.path.join(OPENAPI_DIR, "paths", "*.json"))):
        for path, item in read_json(path_file).items():
            if path in document["paths"]:
                raise Unreadable(f"{os.path.relpath(path_file, ROOT)}: the path {path} is given "
                                 "by another file too")
            document["paths"][path] = item
    return document


def operation_parameters(path_item, operation):
    """The parameters that apply: the path's, overridden by the operation's of the same name/in."""
    merged = {}
    for parameter in path_item.get("parameters", []) + operation.get("parameters", []):
        merged[parameter_key(parameter)] = parameter
    return list(merged.values())


def parameter_key(parameter):
    # A $ref stands for the component it names; two different refs are two parameters.
    return parameter.get("$ref") or (parameter.get("name"), parameter.get("in"))


def resolve(document, parameter):
    """(the parameter's definition, the component name it came from or None when inline)."""
    ref = parameter.get("$ref")
    if ref is None:
        return parameter, None
    if not ref.startswith(COMPONENT_PREFIX):
        raise Unreadable(f"a parameter $ref {ref} outside {COMPONENT_PREFIX}")
    name = ref[len(COMPONENT_PREFIX):]
    component = document.get("components", {}).get("parameters", {}).get(name)
    if component is None:
        raise Unreadable(f"the parameter $ref {ref} names no component")
    return component, name


def fields_mark(document, label, path_item, operation):
    """yes, a dialect's name, or no: what the operation's `fields` query parameter is."""
    for parameter in operation_parameters(path_item, operation):
        definition, component = resolve(document, parameter)
        if definition.get("name") != "fields" or definition.get("in") != "query":
            continue
        if component is not None:
            return "yes" if COMPONENT_PREFIX + component == GENERAL_FIELDS else component
        raise Unreadable(f"{label} has an inline `fields` parameter: $ref the component of its "
                         "dialect (#/components/parameters/...) instead")
    return "no"


def operations(document):
    """[(path, METHOD, fields mark, summary)] in document order."""
    found = []
    for path, item in document["paths"].items():
        for method in item:
            if method not in METHODS:
                continue
            label = f"{method.upper()} {path}"
            found.append((path, method.upper(), fields_mark(document, label, item, item[method]),
                          item[method].get("summary", "")))
    return found


# --- the table ----------------------------------------------------------------------------

class Row:
    def __init__(self, path, methods, fields, notes, line=None):
        self.path, self.methods, self.fields, self.notes, self.line = (
            path, methods, fields, notes, line)

    def endpoint(self):
        return f"`{', '.join(self.methods)} {self.path}`"

    def keys(self):
        return [f"{method} {self.path}" for method in self.methods]

    def text(self):
        return f"| {self.endpoint()} | {self.fields} | {self.notes} |"


def table_span(lines):
    """(first, end) of the table's lines; end is past its last line."""
    for first, line in enumerate(lines):
        if line.startswith("| endpoint |"):
            end = first
            while end < len(lines) and lines[end].startswith("|"):
                end += 1
            return first, end
    raise Unreadable(f"{DOC_NAME}: no table (a line starting `| endpoint |`)")


def parse_rows(lines, first, end):
    """The rows of the file's table, and a message for each line that is not a row."""
    rows, bad = [], []
    for index in range(first + len(HEADER), end):
        row = parse_row(lines[index], index + 1)
        if row is None:
            bad.append(f"{DOC_NAME}:{index + 1}: not a row of the form "
                       f"| `METHOD[, METHOD] /path` | fields | notes |: {lines[index]}")
        else:
            rows.append(row)
    if lines[first:first + len(HEADER)] != HEADER:
        bad.append(f"{DOC_NAME}:{first + 1}: the header is not {' '.join(HEADER)}")
    return rows, bad


def parse_row(line, number):
    # Endpoint and fields cells hold no pipe, so the notes are the rest, escaped pipes and all.
    if not (line.startswith("| ") and line.endswith(" |")):
        return None
    cells = line[2:-2].split(" | ", 2)
    if len(cells) != 3:
        return None
    match = ENDPOINT_CELL.match(cells[0])
    if match is None:
        return None
    return Row(match.group(2), match.group(1).split(", "), cells[1], cells[2], number)


def kept_notes(rows):
    """METHOD path -> the note of the file's row that lists it."""
    notes = {}
    for row in rows:
        for key in row.keys():
            notes.setdefault(key, row.notes)
    return notes


def generate_rows(found, notes):
    """One row per path and fields mark, in document order, with the kept notes."""
    rows, by_group = [], {}
    for path, method, fields, summary in found:
        group = by_group.get((path, fields))
        if group is None:
            group = by_group[(path, fields)] = (Row(path, [], fields, ""), [])
            rows.append(group)
        group[0].methods.append(method)
        group[1].append(summary)
    for row, summaries in rows:
        row.notes = row_notes(row, summaries, notes)
    return [row for row, _ in rows]


def row_notes(row, summaries, notes):
    kept = unique(notes[key] for key in row.keys() if notes.get(key, "").strip())
    if kept:
        return "; ".join(kept)
    if len(set(summaries)) == 1:
        return escape(summaries[0])
    return "; ".join(f"{method}: {escape(summary)}"
                     for method, summary in zip(row.methods, summaries))


def unique(items):
    seen = []
    for item in items:
        if item not in seen:
            seen.append(item)
    return seen


def escape(text):
    # A bare pipe would end the cell.
    return text.replace("|", "\\|")


# --- check and write ----------------------------------------------------------------------

def disagreements(file_rows, generated):
    """A line naming each row whose operations or fields marks differ from the document's."""
    messages = []
    document_marks = {key: row.fields for row in generated for key in row.keys()}
    listed = {}
    for row in file_rows:
        where = f"{DOC_NAME}:{row.line}: {row.endpoint()}"
        for key in row.keys():
            if key in listed:
                messages.append(f"{where}: lists {key}, which line {listed[key]} lists too")
                continue
            listed[key] = row.line
            if key not in document_marks:
                messages.append(f"{where}: lists {key}, which the document lacks")
            elif document_marks[key] != row.fields:
                which = f" for {key}" if len(row.methods) > 1 else ""
                messages.append(f"{where}: fields is `{row.fields}` in the table{which}, "
                                f"`{document_marks[key]}` in the document")
    for key in document_marks:
        if key not in listed:
            messages.append(f"{DOC_NAME}: the document's {key} (fields `{document_marks[key]}`) "
                            "is missing from the table")
    return messages


def with_table(lines, first, end, generated):
    return lines[:first] + HEADER + [row.text() for row in generated] + lines[end:]


def check(lines, first, end, file_rows, bad, generated):
    want = with_table(lines, first, end, generated)
    if lines == want:
        return 0
    for message in bad + disagreements(file_rows, generated):
        print(message)
    # The whole file is diffed so that the hunks carry the file's line numbers.
    print(f"{DOC_NAME}: the table differs from what scripts/api-coverage.py --write writes "
          "(- the file, + from the document):")
    for line in difflib.unified_diff(lines, want, DOC_NAME, DOC_NAME + " --write", n=0,
                                     lineterm=""):
        print(line)
    return 1


def write(lines, first, end, bad, generated):
    for message in bad:
        print(f"dropped (its note is lost): {message}", file=sys.stderr)
    with open(DOC, "w", encoding="utf-8") as f:
        f.write("\n".join(with_table(lines, first, end, generated)) + "\n")
    print(f"{DOC_NAME}: wrote {len(generated)} rows")
    return 0


def main(argv):
    if argv[1:] not in (["--write"], ["--check"]):
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    try:
        found = operations(load_document())
        with open(DOC, encoding="utf-8") as f:
            lines = f.read().split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        first, end = table_span(lines)
        file_rows, bad = parse_rows(lines, first, end)
    except (Unreadable, OSError) as e:
        print(f"api-coverage: {e}", file=sys.stderr)
        return 2
    generated = generate_rows(found, kept_notes(file_rows))
    if argv[1] == "--write":
        return write(lines, first, end, bad, generated)
    return check(lines, first, end, file_rows, bad, generated)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
