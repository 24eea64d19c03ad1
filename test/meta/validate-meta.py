#!/usr/bin/env python3
"""Validate META.json against the PGXN Meta Spec 1.0.x and the tree.

    python3 test/meta/validate-meta.py [META.json]

Checks, with the JSON Schema in pgxn-meta-1.0.schema.json beside this file
(no validator of PGXN's own is packaged for Debian or PyPI; see
docs/decisions.md):
  * META.json is valid PGXN metadata, meta-spec 1.0.x;
  * its version is the control file's default_version as X.Y.0, and so is
    the version of every extension it provides;
  * the files it names (provides' file and docfile) exist;
  * the schema rejects broken variants of the same file (a self-test, so
    that a schema that accepts anything fails here).
Exit status 0 when all checks pass.
"""

import copy
import json
import os
import re
import sys

import jsonschema

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))


def errors_of(validator, doc):
    return sorted(validator.iter_errors(doc), key=lambda e: list(e.path))


def main():
    meta_path = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "META.json")
    with open(os.path.join(HERE, "pgxn-meta-1.0.schema.json")) as f:
        schema = json.load(f)
    jsonschema.Draft7Validator.check_schema(schema)
    validator = jsonschema.Draft7Validator(schema)
    with open(meta_path) as f:
        meta = json.load(f)

    passed = failed = 0

    def check(ok, what, detail=""):
        nonlocal passed, failed
        if ok:
            passed += 1
            print("ok: " + what)
        else:
            failed += 1
            print("FAILED: " + what + (": " + detail if detail else ""))

    errs = errors_of(validator, meta)
    check(not errs, "META.json is valid PGXN meta-spec 1.0.x",
          "; ".join("%s: %s" % ("/".join(map(str, e.path)) or "(top)", e.message) for e in errs))

    control = os.path.join(ROOT, "pagebtree.control")
    with open(control) as f:
        m = re.search(r"^default_version\s*=\s*'([^']+)'", f.read(), re.M)
    default_version = m.group(1) if m else None
    want = (default_version or "?") + ".0"
    check(meta.get("version") == want,
          "META.json version %s is the control file's default_version %s" % (meta.get("version"), default_version))
    for ext, p in sorted(meta.get("provides", {}).items()):
        check(p.get("version") == want, "provides %s version %s is %s" % (ext, p.get("version"), want))
        for key in ("file", "docfile"):
            if key in p:
                check(os.path.isfile(os.path.join(ROOT, p[key])), "provides %s %s %s exists" % (ext, key, p[key]))

    # self-test: each of these must be rejected
    def broken(change):
        doc = copy.deepcopy(meta)
        change(doc)
        return doc

    first = sorted(meta.get("provides", {"x": {}}))[0]
    variants = {
        "no license": broken(lambda d: d.pop("license", None)),
        "no provides": broken(lambda d: d.pop("provides", None)),
        "version not X.Y.Z": broken(lambda d: d.update(version="0.2")),
        "an unknown license": broken(lambda d: d.update(license="PostgreSQL License")),
        "an unknown key": broken(lambda d: d.update(homepage="https://example.org")),
        "meta-spec 2.0.0": broken(lambda d: d.update({"meta-spec": {"version": "2.0.0"}})),
        "a provided extension without its file": broken(lambda d: d["provides"][first].pop("file", None)),
        "a name with a space": broken(lambda d: d.update(name="page btree")),
        "a bad prerequisite version": broken(
            lambda d: d.setdefault("prereqs", {}).setdefault("runtime", {}).setdefault("requires", {}).update(PostgreSQL="fifteen")),
    }
    for what, doc in variants.items():
        check(bool(errors_of(validator, doc)), "the schema rejects META.json with " + what)
    check(not errors_of(validator, broken(lambda d: d.update(x_custom={"any": "thing"}))),
          "the schema accepts a custom key x_custom")

    print("%d passed, %d failed" % (passed, failed))
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
