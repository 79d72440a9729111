"""pandas' answers for the chains of frame operations that test/frame/pandas-differential.test.ts
generates: one process for all chains. Reads a JSON file ({"names", "dtypes", "rows", "chains"})
and writes one result per chain to stdout, in the shapes the test compares:
{"frame": {"columns", "index", "rows"}}, {"series": {"index", "values"}}, {"value": v} or
{"error": message}. Missing values are null, infinities "inf" / "-inf".

Each step is the pandas a scientist would write for the matframe call the test makes:
sortValues -> sort_values(kind="stable", na_position="last"), query(mask) -> df[mask],
resetIndex() -> reset_index(drop=True), dropNa() -> dropna(), groupby(keys).col([c]).mean()
-> groupby(keys)[[c]].mean() named c_mean, valueCounts() -> value_counts().
"""
import json
import math
import sys
import warnings

import pandas as pd

warnings.simplefilter("ignore")  # "Boolean Series key will be reindexed": the alignment is the point


def cell(value):
    if value is None:
        return None
    if isinstance(value, float):
        if math.isnan(value):
            return None
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return value
    if hasattr(value, "item"):  # numpy scalars
        return cell(value.item())
    return value


def mask_of(df, spec):
    s = df[spec["col"]]
    v = spec["value"]
    op = spec["cmp"]
    if op == "gt":
        return s > v
    if op == "lt":
        return s < v
    if op == "ge":
        return s >= v
    if op == "le":
        return s <= v
    if op == "eq":
        return s == v
    return s != v


def arith(a, b, op):
    if op == "add":
        return a + b
    if op == "sub":
        return a - b
    if op == "mul":
        return a * b
    return a / b


def step(df, base, st):
    op = st["op"]
    if op == "sort":
        return df.sort_values(st["col"], ascending=st["asc"], kind="stable", na_position="last")
    if op == "filter":
        return df[mask_of(df, st["a"])]
    if op == "filter2":
        a, b = mask_of(df, st["a"]), mask_of(df, st["b"])
        return df[(a & b) if st["combine"] == "and" else (a | b)]
    if op == "filterNa":
        return df[df[st["col"]].isna() if st["missing"] else df[st["col"]].notna()]
    if op == "filterBase":
        return df[mask_of(base, st["a"])]
    if op == "head":
        return df.head(st["n"])
    if op == "tail":
        return df.tail(st["n"])
    if op == "ilocSlice":
        return df.iloc[st["start"]:st["end"]]
    if op == "iloc":
        return df.iloc[[int(f * len(df)) for f in st["picks"]]] if len(df) else df
    if op == "loc":
        return df.loc[[df.index[int(f * len(df))] for f in st["picks"]]] if len(df) else df
    if op == "resetIndex":
        return df.reset_index(drop=True)
    if op == "drop":
        return df.drop(columns=st["cols"])
    if op == "select":
        return df[st["cols"]]
    if op == "dropNa":
        return df.dropna()
    if op == "addColumn":
        out = df.copy()
        out[st["name"]] = arith(df[st["a"]], df[st["b"]], st["fn"])
        return out
    if op == "apply":
        out = df.copy()
        col = st["col"]
        out[st["name"]] = df.apply(lambda row: row[col] * 2, axis=1) if len(df) else pd.Series(dtype=float)
        return out
    raise ValueError("unknown step " + op)


AGG_NAMED = {"count", "sum", "mean", "median", "min", "max", "std", "var"}


def terminal(df, term):
    kind = term["kind"]
    if kind in ("frame", "write"):
        return {"frame": frame_json(df)}
    if kind == "groupby":
        g = df.groupby(term["keys"], sort=True, dropna=True)
        op = term["agg"]
        if op == "size":
            out = g.size().reset_index(name="size")
        elif op == "multi":
            out = g[term["col"]].agg(["mean", "count"])
            out.columns = [term["col"] + "_" + c for c in out.columns]
            out = out.reset_index()
        else:
            out = g[[term["col"]]].agg(op)
            if op in AGG_NAMED:
                out.columns = [c + "_" + op for c in out.columns]
            out = out.reset_index()
        return {"frame": frame_json(out)}
    s = df[term["col"]]
    if kind == "valueCounts":
        vc = s.value_counts()
        return {"series": {"index": [cell(i) for i in vc.index], "values": [cell(v) for v in vc.values]}}
    if kind == "unique":
        return {"series": {"index": None, "values": [cell(v) for v in s.unique()]}}
    if kind == "stat":
        fn = term["fn"]
        return {"value": cell(s.nunique() if fn == "nUnique" else getattr(s, fn)())}
    if kind == "sortSeries":
        out = s.sort_values(ascending=term["asc"], kind="stable", na_position="last")
        return {"series": {"index": [cell(i) for i in out.index], "values": [cell(v) for v in out.values]}}
    raise ValueError("unknown terminal " + kind)


def rows_of(df):
    # Whole-frame conversion (a cell at a time in Python is most of the run time).
    out = df.replace([math.inf, -math.inf], ["inf", "-inf"]).astype(object)
    return out.where(pd.notna(out), None).values.tolist()


def frame_json(df):
    return {"columns": [str(c) for c in df.columns], "index": [cell(i) for i in df.index], "rows": rows_of(df)}


def written(path):
    # Only an empty field is missing: formulas and method names are never NaN or "NA".
    df = pd.read_csv(path, keep_default_na=False, na_values=[""])
    return {"columns": list(df.columns), "rows": rows_of(df)}


def main():
    with open(sys.argv[1]) as f:
        spec = json.load(f)
    base = pd.DataFrame(spec["rows"], columns=spec["names"])
    for name, dtype in zip(spec["names"], spec["dtypes"]):
        if dtype in ("float32", "int32"):
            base[name] = pd.to_numeric(base[name]).astype("float64")
    results = []
    for chain in spec["chains"]:
        try:
            df = base
            for st in chain["steps"]:
                df = step(df, base, st)
            result = terminal(df, chain["terminal"])
            if chain["terminal"]["kind"] == "write":
                result["written"] = written(chain["terminal"]["path"])
            results.append(result)
        except Exception as error:  # the test shows it beside matframe's answer
            results.append({"error": type(error).__name__ + ": " + str(error)})
    sys.stdout.write(json.dumps(results, allow_nan=False))  # dumps, unlike dump, uses the C encoder


if __name__ == "__main__":
    main()
