"""Runs the platform's example notebooks, unchanged, cell by cell, and reports how far each got.

Usage: run_notebooks.py <examples dir> <notebook path relative to it>...

The environment names the platform (API_HOST, API_PORT, API_SECURE, OIDC_ACCESS_TOKEN,
ACCOUNT_ID, AUTH_TOKEN, CLUSTERS). For each notebook one JSON line is printed:
{"notebook", "cells", "ran", "stop": null | {"cell", "error"}, "skip": null | reason}.
A notebook whose `mat3ra.*` imports cannot be found in this Python is skipped, with the modules
named, rather than run into an ImportError.
"""

import importlib.util
import json
import os
import re
import sys

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

IMPORT = re.compile(r"^\s*(?:from|import)\s+(mat3ra\.[A-Za-z_][\w]*)", re.MULTILINE)


def missing_modules(notebook):
    wanted = set()
    for cell in notebook.cells:
        if cell.cell_type == "code":
            wanted.update(IMPORT.findall(cell.source))
    missing = []
    for name in sorted(wanted):
        try:
            found = importlib.util.find_spec(name) is not None
        except ModuleNotFoundError:
            found = False
        if not found:
            missing.append(name)
    return missing


def run(examples, relative):
    path = os.path.join(examples, relative)
    notebook = nbformat.read(path, as_version=4)
    code = [i for i, cell in enumerate(notebook.cells) if cell.cell_type == "code"]
    report = {"notebook": relative, "cells": len(code), "ran": 0, "stop": None, "skip": None}
    missing = missing_modules(notebook)
    if missing:
        report["skip"] = "not installable here: " + ", ".join(missing)
        return report
    client = NotebookClient(notebook, timeout=900, kernel_name="python3", resources={"metadata": {"path": os.path.dirname(path)}})
    with client.setup_kernel():
        for index in code:
            try:
                client.execute_cell(notebook.cells[index], index)
            except CellExecutionError as error:
                report["stop"] = {"cell": index, "error": f"{error.ename}: {error.evalue}"[:600]}
                return report
            report["ran"] += 1
    return report


def main():
    examples = sys.argv[1]
    for relative in sys.argv[2:]:
        try:
            report = run(examples, relative)
        except Exception as error:  # the kernel itself failed: say so, go on with the next
            report = {"notebook": relative, "cells": 0, "ran": 0, "stop": {"cell": -1, "error": repr(error)[:600]}, "skip": None}
        print(json.dumps(report), flush=True)


if __name__ == "__main__":
    main()
