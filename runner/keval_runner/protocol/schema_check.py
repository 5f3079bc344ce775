"""Checks a JSON value against a JSON Schema (draft 2020-12), for the protocol's own schemas.

The protocol's schemas (protocol/*.schema.json, docs/protocol.md) use a small part of JSON
Schema: type, enum, const, minimum, maximum, minLength, properties, required,
additionalProperties, items, local $ref, allOf, anyOf, not, if/then/else; annotations (title,
description, default, examples, x-sender) are ignored. This checks exactly that part, with no
package to install in the runner's environment, and words each problem for a person: the
path of the field, then what it must be ("sandbox.uid must be a non-negative integer or
null"). The tests check the schemas with the `jsonschema` package too.
"""

_TYPE_WORDS = {"object": "an object", "array": "an array", "string": "a string", "integer": "an integer",
               "number": "a number", "boolean": "a boolean", "null": "null"}
_HANDLED = {"type", "enum", "const", "minimum", "maximum", "minLength", "properties", "required",
            "additionalProperties", "items", "$ref", "allOf", "anyOf", "not", "if", "then", "else"}


def _is_type(value, name: str) -> bool:
    if name == "object":
        return isinstance(value, dict)
    if name == "array":
        return isinstance(value, list)
    if name == "string":
        return isinstance(value, str)
    if name == "boolean":
        return isinstance(value, bool)
    if name == "null":
        return value is None
    if isinstance(value, bool):
        return False
    if name == "integer":  # as the controller reads them: 1.0 is no integer
        return isinstance(value, int)
    if name == "number":
        return isinstance(value, (int, float))
    raise ValueError(f"schema type {name!r} is not one this checker knows")


class SchemaChecker:
    """Problems of values against one schema document (its $defs resolve `$ref`s). `name`
    names the value itself in problems ("request lacks: job")."""

    def __init__(self, document: dict, name: str = "the value"):
        self.document = document
        self.name = name

    def first_problem(self, value, schema=None) -> str:
        """The first problem of `value` against `schema` (default: the whole document), or ""."""
        found = self.problems(self.document if schema is None else schema, value, "")
        return found[0] if found else ""

    def resolve(self, schema: dict) -> dict:
        ref = schema.get("$ref")
        if ref is None:
            return schema
        if not ref.startswith("#/"):
            raise ValueError(f"only local $refs are supported, not {ref!r}")
        target = self.document
        for part in ref[2:].split("/"):
            target = target[part]
        return self.resolve(target)

    def describe(self, schema: dict) -> str:
        """What a value of `schema` is, in words: "a non-negative integer or null"."""
        schema = self.resolve(schema)
        if "const" in schema:
            return repr(schema["const"])
        if "enum" in schema:
            return "one of " + ", ".join(str(v) for v in schema["enum"])
        if "anyOf" in schema:
            return " or ".join(self.describe(s) for s in schema["anyOf"])
        types = schema.get("type")
        if types is None:
            return "a value"
        words = []
        for name in [types] if isinstance(types, str) else types:
            word = _TYPE_WORDS[name]
            if name in ("integer", "number") and schema.get("minimum") == 0:
                word = "a non-negative " + name
            if name == "string" and schema.get("minLength", 0) > 0:
                word = "a non-empty string"
            words.append(word)
        return " or ".join(words)

    def problems(self, schema: dict, value, path: str) -> list:
        """Every problem of `value`; `path` names it in them ("sandbox.rlimits"; "": the value)."""
        schema = self.resolve(schema)
        named = path or self.name
        if "type" in schema:
            types = schema["type"]
            if not any(_is_type(value, t) for t in ([types] if isinstance(types, str) else types)):
                return [f"{named} must be {self.describe(schema)}"]
        if "const" in schema and value != schema["const"]:
            return [f"{named} must be {schema['const']!r}, not {value!r}"]
        if "enum" in schema and value not in schema["enum"]:
            return [f"{named} must be one of {', '.join(str(v) for v in schema['enum'])}, not {value!r}"]
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            if "minimum" in schema and value < schema["minimum"]:
                return [f"{named} must be {self.describe(schema)} (at least {schema['minimum']}), not {value!r}"]
            if "maximum" in schema and value > schema["maximum"]:
                return [f"{named} must be at most {schema['maximum']}, not {value!r}"]
        if isinstance(value, str) and len(value) < schema.get("minLength", 0):
            return [f"{named} must be {self.describe(schema)}"]
        found = []
        if isinstance(value, dict):
            found += self._object_problems(schema, value, path)
        if isinstance(value, list) and "items" in schema:
            for i, item in enumerate(value):
                found += self.problems(schema["items"], item, f"{path}[{i}]")
        for sub in schema.get("allOf", []):
            found += self.problems(sub, value, path)
        if "anyOf" in schema and all(self.problems(sub, value, path) for sub in schema["anyOf"]):
            found.append(f"{named} must be {self.describe(schema)}, not {value!r}"[:300])
        if "not" in schema and not self.problems(schema["not"], value, path):
            found.append(f"{named} must not be {self.describe(schema['not'])}")
        if "if" in schema:
            branch = "then" if not self.problems(schema["if"], value, path) else "else"
            if branch in schema:
                found += self.problems(schema[branch], value, path)
        return found

    def _object_problems(self, schema: dict, value: dict, path: str) -> list:
        properties = schema.get("properties", {})
        lacking = [name for name in schema.get("required", []) if name not in value]
        if lacking:
            return [f"{path or self.name} lacks: {', '.join(lacking)}"]
        found = []
        for name, sub in properties.items():
            if name in value:
                found += self.problems(sub, value[name], f"{path}.{name}" if path else name)
        extra = schema.get("additionalProperties", True)
        unknown = sorted(k for k in value if k not in properties)
        if extra is False and unknown:
            found.append(f"{path or self.name} has unknown keys {unknown} (known: {', '.join(properties)})")
        elif isinstance(extra, dict):
            for name in unknown:
                found += self.problems(extra, value[name], f"{path}.{name}" if path else name)
        return found


def unsupported_keywords(schema, found=None) -> set:
    """Keywords of `schema` (recursively) that change validity but that this checker ignores."""
    found = set() if found is None else found
    if isinstance(schema, dict):
        for key, sub in schema.items():
            if key in ("properties", "$defs"):
                for item in sub.values():
                    unsupported_keywords(item, found)
                continue
            if key in ("examples", "default", "const", "enum"):
                continue
            if key not in _HANDLED and key not in ("$schema", "$id", "title", "description", "x-sender"):
                found.add(key)
            unsupported_keywords(sub, found)
    elif isinstance(schema, list):
        for item in schema:
            unsupported_keywords(item, found)
    return found
