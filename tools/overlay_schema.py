# pyright: strict
"""Apply a schema overlay (parts of a newer ACP schema) to a vendored base schema (stdlib only).

    python tools/overlay_schema.py --base schema.base.json --overlay overlay-1.34.json \
        --out schema.json [--check]

An overlay is a JSON object whose ``parts`` each add one thing to the base, with the ``source``
it was copied or written from:

* ``{"add": "def", "name": N, "schema": S}``: ``$defs[N] = S``;
* ``{"add": "property", "def": D, "name": P, "schema": S}``: property ``P`` of the object
  ``$defs[D]`` (inserted before ``_meta``);
* ``{"add": "variant", "def": D, "tag": K, "value": V, "schema": S}``: a variant of the union
  ``$defs[D]`` (``oneOf``/``anyOf``) whose ``K`` is the ``const`` ``V`` (inserted before a
  catch-all variant, one without a ``const`` tag).

A part the base already has (the def, the property, a variant with that tag) is skipped and
said so, so a newer base that includes the overlay's parts makes them redundant rather than
duplicated; applying an overlay to its own result changes nothing. Every part added is stamped
``"x-overlay": "<overlay file>#<part id>"``. ``apply`` and ``render`` are pure; ``--check``
exits 1 when ``--out`` is not what the overlay makes of ``--base``.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, cast

JSON = dict[str, Any]
Kind = Literal["def", "property", "variant"]
KINDS: tuple[Kind, ...] = ("def", "property", "variant")
MARK = "x-overlay"


class OverlayError(Exception):
    """The overlay or the base is not what the script can apply."""


@dataclass(frozen=True)
class Part:
    """One addition of an overlay."""

    id: str
    kind: Kind
    name: str  # the def's name; the property's name; the variant's tag value
    schema: JSON
    source: str
    target: str = ""  # the $defs entry a property or variant goes into
    tag: str = ""  # the variant's tag property


@dataclass(frozen=True)
class Overlay:
    label: str  # how added parts are stamped: the overlay file's name
    parts: tuple[Part, ...]


@dataclass(frozen=True)
class Outcome:
    part: Part
    added: bool
    reason: str  # why skipped: "in the base" or "applied already"

    def line(self) -> str:
        verb = "added" if self.added else f"skipped ({self.reason})"
        return f"{verb}: {self.part.id}"


def _object(value: object, what: str) -> JSON:
    if not isinstance(value, dict):
        raise OverlayError(f"{what} is not a JSON object")
    return cast(JSON, value)


def _text(part: JSON, key: str, where: str) -> str:
    value = part.get(key)
    if not isinstance(value, str) or not value:
        raise OverlayError(f"{where}: `{key}` must be a non-empty string")
    return value


def parse_overlay(data: object, label: str) -> Overlay:
    """The overlay file's JSON as typed parts; raises OverlayError on a malformed part."""
    parts_value = _object(data, "the overlay").get("parts")
    if not isinstance(parts_value, list):
        raise OverlayError("the overlay has no `parts` list")
    parts: list[Part] = []
    for index, raw in enumerate(cast(list[object], parts_value)):
        entry = _object(raw, f"part {index}")
        where = f"part {index} ({entry.get('id', '?')})"
        kind = entry.get("add")
        if kind not in KINDS:
            raise OverlayError(f"{where}: `add` must be one of {', '.join(KINDS)}")
        name = _text(entry, "value" if kind == "variant" else "name", where)
        schema = _object(entry.get("schema"), f"{where}: `schema`")
        target = _text(entry, "def", where) if kind != "def" else ""
        tag = _text(entry, "tag", where) if kind == "variant" else ""
        part_id, source = _text(entry, "id", where), _text(entry, "source", where)
        parts.append(Part(part_id, kind, name, schema, source, target, tag))
    ids = [part.id for part in parts]
    if len(set(ids)) != len(ids):
        raise OverlayError("two parts share an id")
    return Overlay(label, tuple(parts))


def _variants(union: JSON, where: str) -> list[JSON]:
    for key in ("oneOf", "anyOf"):
        if isinstance(union.get(key), list):
            return cast(list[JSON], union[key])
    raise OverlayError(f"{where} is not a union (no oneOf/anyOf)")


def _tag_value(variant: JSON, tag: str) -> object:
    prop = variant.get("properties", {}).get(tag)
    return cast(JSON, prop).get("const") if isinstance(prop, dict) else None


def _existing(defs: JSON, part: Part) -> JSON | None:
    """What the schema already holds where the part would go (None: nothing)."""
    if part.kind == "def":
        return defs.get(part.name)
    target = defs.get(part.target)
    if not isinstance(target, dict):
        raise OverlayError(f"{part.id}: the base has no $defs entry {part.target}")
    target = cast(JSON, target)
    if part.kind == "property":
        return cast(JSON, target.get("properties", {})).get(part.name)
    variants = _variants(target, part.target)
    return next((v for v in variants if _tag_value(v, part.tag) == part.name), None)


def _insert(defs: JSON, part: Part, value: JSON) -> None:
    if part.kind == "def":
        defs[part.name] = value
        return
    target = cast(JSON, defs[part.target])
    if part.kind == "property":
        props = cast(JSON, target.setdefault("properties", {}))
        items = list(props.items())
        at = next((i for i, (key, _) in enumerate(items) if key == "_meta"), len(items))
        items.insert(at, (part.name, value))
        target["properties"] = dict(items)
        return
    variants = _variants(target, part.target)
    at = next((i for i, v in enumerate(variants) if _tag_value(v, part.tag) is None), None)
    variants.insert(len(variants) if at is None else at, value)


def apply(base: JSON, overlay: Overlay) -> tuple[JSON, list[Outcome]]:
    """The base with the overlay's parts it lacks added (the base itself is not changed)."""
    schema = copy.deepcopy(base)
    defs = _object(schema.get("$defs"), "the base's $defs")
    outcomes: list[Outcome] = []
    for part in overlay.parts:
        found = _existing(defs, part)
        if found is not None:
            reason = "applied already" if MARK in found else "in the base"
            outcomes.append(Outcome(part, False, reason))
            continue
        _insert(defs, part, {**copy.deepcopy(part.schema), MARK: f"{overlay.label}#{part.id}"})
        outcomes.append(Outcome(part, True, ""))
    return schema, outcomes


def render(schema: JSON) -> str:
    return json.dumps(schema, indent=2, ensure_ascii=False) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--base", type=Path, required=True, help="the untouched base schema.json")
    parser.add_argument("--overlay", type=Path, required=True, help="the overlay file")
    parser.add_argument("--out", type=Path, required=True, help="where the result goes")
    parser.add_argument("--check", action="store_true", help="exit 1 if --out is stale")
    args = parser.parse_args(argv)
    base_path, overlay_path, out_path = cast(Path, args.base), cast(Path, args.overlay), args.out
    try:
        base = _object(json.loads(base_path.read_text(encoding="utf-8")), str(base_path))
        overlay_data: object = json.loads(overlay_path.read_text(encoding="utf-8"))
        overlay = parse_overlay(overlay_data, overlay_path.name)
        schema, outcomes = apply(base, overlay)
    except (OSError, ValueError, OverlayError) as error:
        print(f"overlay_schema: {error}", file=sys.stderr)
        return 2
    text, out = render(schema), cast(Path, out_path)
    if args.check:
        fresh = out.is_file() and out.read_text(encoding="utf-8") == text
        if not fresh:
            print(f"overlay_schema: {out} is stale; run `make vendor-schema`", file=sys.stderr)
        return 0 if fresh else 1
    for outcome in outcomes:
        print(outcome.line())
    if any(not o.added and o.reason == "in the base" for o in outcomes):
        print(f"the base has some of these parts already: drop them from {overlay_path.name}")
    out.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
