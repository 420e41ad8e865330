#!/usr/bin/env python3
"""Compares aem's dialog verdicts with BFCL's checker's, per perturbation.

  agreement.py DIR KIND...

For each KIND, reads DIR/bfcl-KIND.jsonl (verdicts.py) and
DIR/aem-KIND.jsonl (`aem show RUN/dialogs.parquet`), and prints a Markdown
table: entries, BFCL passes, aem passes, agreements, entries aem left out
(their possible answer can never pass BFCL's checker), then every
disagreement with BFCL's error type and aem's failure reason. With
--verdicts FILE it also writes BFCL's verdicts compactly for the Go test.
"""
import argparse
import collections
import json
import os


def load(path, key, value):
    with open(path) as f:
        return {r[key]: value(r) for r in map(json.loads, filter(str.strip, f))}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("kinds", nargs="+")
    ap.add_argument("--verdicts", help="write BFCL's verdicts here (JSON: kind -> ids BFCL passes / fails)")
    a = ap.parse_args()
    rows, details, compact = [], [], {}
    for kind in a.kinds:
        bfcl = load(os.path.join(a.dir, f"bfcl-{kind}.jsonl"), "id", lambda r: (r["valid"], r["error_type"]))
        aem = load(os.path.join(a.dir, f"aem-{kind}.jsonl"), "dialog_id", lambda r: (r["test_pass"], r["root_cause"]))
        ids = sorted(bfcl)
        both = [i for i in ids if i in aem]
        agree = sum(bfcl[i][0] == aem[i][0] for i in both)
        rows.append((kind, len(ids), sum(bfcl[i][0] for i in ids), sum(aem[i][0] for i in both), agree, len(both), len(ids) - len(both)))
        why = collections.Counter((bfcl[i][0], bfcl[i][1], aem[i][0], aem[i][1]) for i in both if bfcl[i][0] != aem[i][0])
        for (bv, be, av, ar), n in sorted(why.items(), key=lambda x: -x[1]):
            example = next(i for i in both if (bfcl[i][0], bfcl[i][1], aem[i][0], aem[i][1]) == (bv, be, av, ar))
            details.append(f"| {kind} | {n} | {'pass' if bv else 'fail: ' + be} | {'pass' if av else 'fail: ' + str(ar)} | {example} |")
        passing = [i for i in ids if bfcl[i][0]]
        failing = [i for i in ids if not bfcl[i][0]]
        compact[kind] = {"pass": passing} if len(passing) <= len(failing) else {"fail": failing}
    print("| perturbation | entries | BFCL passes | aem passes | agree | of | aem left out |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    for kind, n, bp, ap_, agree, both, out in rows:
        print(f"| {kind} | {n} | {bp} | {ap_} | {agree} | {both} | {out} |")
    tot_agree, tot_both = sum(r[4] for r in rows), sum(r[5] for r in rows)
    print(f"| all | {sum(r[1] for r in rows)} | | | {tot_agree} | {tot_both} | |")
    print(f"\nagreement {tot_agree / tot_both:.4f}\n")
    if details:
        print("| perturbation | entries | BFCL | aem | example |")
        print("|---|---:|---|---|---|")
        print("\n".join(details))
    if a.verdicts:
        with open(a.verdicts, "w") as f:
            json.dump(compact, f, indent=0, sort_keys=True)
            f.write("\n")


if __name__ == "__main__":
    main()
