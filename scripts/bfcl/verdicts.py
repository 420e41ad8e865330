#!/usr/bin/env python3
"""BFCL's own verdicts for predictions, from BFCL's AST checker.

Runs the vendored, unmodified ast_checker.py (see NOTICE) the way BFCL's
eval_runner does for a function-calling model: each result item is
{name: arguments}, the arguments an object or JSON text (json.loads; a
failure is BFCL's "ast_decoder:decoder_failed"); irrelevance entries pass
when no call is decoded.

  verdicts.py --data DIR --results FILE --kind KIND [--underscore-to-dot] >> verdicts.jsonl

DIR holds BFCL_v4_live_<category>.json and possible_answer/. FILE is JSON
Lines of {"id", "result"} for any mix of categories (from the id). Prints
one JSON line per id: {"kind", "id", "valid", "error_type"}.
"""
import argparse
import enum
import json
import os
import sys
import types


def _install_stubs(underscore_to_dot):
    class Language(enum.Enum):
        PYTHON = "python"
        JAVA = "java"
        JAVASCRIPT = "javascript"

    class _Config:
        def __init__(self, u):
            self.underscore_to_dot = u

    mods = {
        "bfcl_eval": {},
        "bfcl_eval.constants": {},
        "bfcl_eval.constants.enums": {"Language": Language},
        "bfcl_eval.constants.model_config": {"MODEL_CONFIG_MAPPING": {"model": _Config(underscore_to_dot)}},
        "bfcl_eval.constants.type_mappings": {"JAVA_TYPE_CONVERSION": {}, "JS_TYPE_CONVERSION": {}},
        "bfcl_eval.eval_checker": {},
        "bfcl_eval.eval_checker.ast_eval": {},
        "bfcl_eval.eval_checker.ast_eval.type_convertor": {},
        "bfcl_eval.eval_checker.ast_eval.type_convertor.java_type_converter": {"java_type_converter": None},
        "bfcl_eval.eval_checker.ast_eval.type_convertor.js_type_converter": {"js_type_converter": None},
    }
    for name, attrs in mods.items():
        m = types.ModuleType(name)
        m.__dict__.update(attrs)
        sys.modules[name] = m
    here = os.path.dirname(os.path.abspath(__file__))
    checker = types.ModuleType("ast_checker")
    with open(os.path.join(here, "ast_checker.py")) as f:
        exec(compile(f.read(), "ast_checker.py", "exec"), checker.__dict__)
    return checker, Language


def _category(entry_id):
    return entry_id.rsplit("_", 1)[0]


def _load(path):
    with open(path) as f:
        return {e["id"]: e for e in map(json.loads, filter(str.strip, f))}


# is_function_calling_format_output and is_empty_output, from bfcl_eval/utils.py.
def _is_call_format(decoded):
    if type(decoded) != list:
        return False
    for item in decoded:
        if type(item) != dict or len(item) != 1 or type(list(item.values())[0]) != dict:
            return False
    return True


def _is_empty(decoded):
    if not _is_call_format(decoded):
        return True
    return len(decoded) == 0 or (len(decoded) == 1 and len(decoded[0]) == 0)


def _decode(result):
    """OpenAI-style function-calling decode_ast: {name: json.loads(args)}."""
    if type(result) != list:
        raise ValueError("not a list of calls")
    out = []
    for item in result:
        name = list(item.keys())[0]
        args = item[name]
        out.append({name: json.loads(args) if isinstance(args, str) else args})
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True)
    ap.add_argument("--results", required=True)
    ap.add_argument("--kind", required=True)
    ap.add_argument("--underscore-to-dot", action="store_true")
    a = ap.parse_args()
    checker, Language = _install_stubs(a.underscore_to_dot)

    questions, answers = {}, {}
    for cat in ("simple", "multiple", "parallel", "parallel_multiple", "irrelevance"):
        q = os.path.join(a.data, f"BFCL_v4_live_{cat}.json")
        if os.path.exists(q):
            questions.update(_load(q))
        p = os.path.join(a.data, "possible_answer", f"BFCL_v4_live_{cat}.json")
        if os.path.exists(p):
            answers.update(_load(p))

    out = sys.stdout
    with open(a.results) as f:
        for line in filter(str.strip, f):
            r = json.loads(line)
            entry_id, cat = r["id"], _category(r["id"])
            valid, error_type = True, ""
            try:
                decoded = _decode(r["result"])
                decode_ok = True
            except Exception:
                decoded, decode_ok = None, False
            if "irrelevance" in cat:
                contains_call = decode_ok and not _is_empty(decoded)
                valid = not contains_call
                error_type = "" if valid else "irrelevance_error:decoder_success"
            elif not decode_ok:
                valid, error_type = False, "ast_decoder:decoder_failed"
            elif not _is_call_format(decoded):
                valid, error_type = False, "ast_decoder:decoder_wrong_output_format"
            else:
                res = checker.ast_checker(
                    questions[entry_id]["function"], decoded, answers[entry_id]["ground_truth"],
                    Language.PYTHON, cat, "model")
                valid = res["valid"]
                error_type = "" if valid else res.get("error_type", "")
            out.write(json.dumps({"kind": a.kind, "id": entry_id, "valid": valid, "error_type": error_type}) + "\n")


if __name__ == "__main__":
    main()
