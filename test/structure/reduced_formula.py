"""pymatgen's reduced formula of each composition read from stdin: [[symbol, count], ...] per line of a JSON list."""
import json
import sys

from pymatgen.core import Composition

print(json.dumps([Composition(dict(counts)).reduced_formula for counts in json.load(sys.stdin)]))
