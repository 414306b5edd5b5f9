"""Generate `indus_tool/_tools.py`, the typed face of the Python client, from the
toolbox's own descriptors (`indus-tool --checkpoint --profile all schema`).

Usage: python3 python/gen_tools.py INDUS_TOOL [--check]

Each tool becomes a method on `Tools` and `AsyncTools` (the mixins `Toolbox` and
`AsyncToolbox` take), its input a set of keyword arguments, its record a TypedDict,
so an editor completes both. The file is committed, so the package needs no
toolbox to import; `--check` (run by tests/it/python_package.rs) fails when the
committed file is not what the binary's schema gives.

The JSON Schema to Python conversion is written here rather than taken from a
library: the schemas are the toolbox's own, they use a dozen keywords, and the
package must stay free of dependencies (a generator like datamodel-code-generator
would pull pydantic into every agent's environment).
"""

import json
import keyword
import os
import subprocess
import sys
import tempfile
from pathlib import Path

OUT = Path(__file__).resolve().parent / "indus_tool" / "_tools.py"
# Names the clients use themselves; a tool named so would shadow them.
RESERVED = {"call", "close", "start"}


def camel(name):
    parts = name.replace("-", "_").split("_")
    return "".join(p[:1].upper() + p[1:] for p in parts if p)


def method_name(tool):
    name = tool.replace("-", "_")
    assert name.isidentifier() and not keyword.iskeyword(name), tool
    assert name not in RESERVED, f"tool {tool} would shadow the client's own {name}()"
    return name


def doc_line(text):
    """A description as a docstring body or comment, kept to the schema's words."""
    text = " ".join((text or "").split()).replace('"""', "'''").replace("\\", "\\\\")
    return text


class Emitter:
    def __init__(self):
        self.classes = []  # (name, source) in the order they are made
        self.seen = set()
        self.fields = {}  # record name -> {key: annotation}

    def type_of(self, schema, owner):
        """The Python annotation for `schema`; a nested record becomes a
        TypedDict named after `owner`."""
        if not isinstance(schema, dict) or not schema:
            return "Any"
        if "enum" in schema:
            return "Literal[" + ", ".join(json.dumps(v) for v in schema["enum"]) + "]"
        kind = schema.get("type")
        if isinstance(kind, list):
            parts = [self.type_of({**schema, "type": k}, owner) for k in kind if k != "null"]
            inner = parts[0] if len(parts) == 1 else "Union[" + ", ".join(parts) + "]"
            return f"Optional[{inner}]" if "null" in kind else inner
        if kind == "string":
            return "str"
        if kind == "integer":
            return "int"
        if kind == "number":
            return "float"
        if kind == "boolean":
            return "bool"
        if kind == "null":
            return "None"
        if kind == "array":
            return f"List[{self.type_of(schema.get('items'), owner + 'Item')}]"
        if kind == "object":
            props = schema.get("properties")
            if not props:
                extra = schema.get("additionalProperties")
                value = self.type_of(extra, owner + "Value") if isinstance(extra, dict) else "Any"
                return f"Dict[str, {value}]"
            return self.record(owner, schema)
        return "Any"

    def record(self, name, schema):
        """A TypedDict for an object schema: required keys in a base class, the
        rest `total=False` (the spelling Python 3.9 takes)."""
        assert name not in self.seen, f"two records named {name}"
        self.seen.add(name)
        required = set(schema.get("required") or [])
        fields = []
        for key, sub in (schema.get("properties") or {}).items():
            fields.append((key, sub, self.type_of(sub, name + camel(key)), key in required))
        self.fields[name] = {key: ann for key, _, ann, _ in fields}
        doc = doc_line(schema.get("description"))

        def body(items):
            lines = []
            for key, sub, ann, _ in items:
                if not key.isidentifier() or keyword.iskeyword(key):
                    return None
                lines.append(f"    {key}: {ann}")
                if sub.get("description"):
                    lines.append(f'    """{doc_line(sub["description"])}"""')
            return lines

        req = [f for f in fields if f[3]]
        opt = [f for f in fields if not f[3]]
        req_body, opt_body = body(req), body(opt)
        if req_body is None or opt_body is None:
            # A key Python cannot spell as a class attribute: the functional form.
            entries = ", ".join(f"{json.dumps(k)}: {a}" for k, _, a, _ in fields)
            self.classes.append((name, f"{name} = TypedDict({json.dumps(name)}, {{{entries}}}, total=False)\n"))
            return name
        src = []
        base = "TypedDict"
        if req and opt:
            src.append(f"class _{name}Required(TypedDict):")
            src += req_body
            src.append("")
            src.append("")
            base = f"_{name}Required"
            req_body = None
        total = "" if not opt else ", total=False"
        src.append(f"class {name}({base}{total}):")
        if doc:
            src.append(f'    """{doc}"""')
            src.append("")
        src += (req_body or []) + (opt_body if opt else [])
        if not (req_body or opt):
            src.append("    pass")
        self.classes.append((name, "\n".join(src) + "\n"))
        return name


def generate(descriptors):
    em = Emitter()
    sync_methods, async_methods, names = [], [], []  # names: the tools, in order
    for tool in descriptors:
        name = tool["name"]
        meth = method_name(name)
        base = camel(name)
        params = tool.get("parameters") or {"type": "object"}
        props = {k: v for k, v in (params.get("properties") or {}).items() if not v.get("deprecated")}
        required = [k for k in params.get("required") or [] if k in props]
        em.record(f"{base}Input", {**params, "properties": props, "required": required})
        out = tool.get("outputSchema")
        if out:
            ann = em.type_of(out, f"{base}Output")
            if ann != f"{base}Output":
                em.classes.append((f"{base}Output", f"{base}Output = {ann}\n"))
        else:
            em.classes.append((f"{base}Output", f"{base}Output = Any\n"))
        names.append(name)
        # Keyword-only arguments: required first, then the optional ones, None
        # meaning "not sent" (the tool's own default applies).
        anns = em.fields[f"{base}Input"]
        args = [f"{key}: {anns[key]}" for key in required]
        args += [f"{key}: Optional[{anns[key]}] = None" for key in props if key not in required]
        sig = ", ".join(["self", "*", *args, "checkpoint_turn: Optional[str] = None"])
        desc = doc_line(tool.get("description"))
        param_docs = []
        for key in props:
            d = doc_line(props[key].get("description"))
            if d:
                param_docs.append(f"            {key}: {d}")
        doc = f'        """{desc}'
        if param_docs:
            doc += "\n\n        Args:\n" + "\n".join(param_docs) + "\n            checkpoint_turn: The checkpoint turn this call's changes belong to (the call's \"turn\")."
        doc += '\n        """'
        pairs = ", ".join(f"{json.dumps(k)}: {k}" for k in props)
        sync_methods.append(
            f"    def {meth}({sig}) -> {base}Output:\n{doc}\n"
            f"        return self._typed({json.dumps(name)}, {{{pairs}}}, checkpoint_turn)\n"
        )
        async_methods.append(
            f"    async def {meth}({sig}) -> {base}Output:\n{doc}\n"
            f"        return await self._typed({json.dumps(name)}, {{{pairs}}}, checkpoint_turn)\n"
        )
    head = '''"""The typed face of the clients: one method per tool, its keyword arguments the
tool's input, its return value the tool's record.

GENERATED by python/gen_tools.py from `indus-tool --checkpoint --profile all schema`; do not edit.
"""

from __future__ import annotations

from typing import Any, Dict, List, Literal, Optional, TypedDict, Union

__all__ = [
'''
    exported = sorted(n for n, _ in em.classes)
    head += "".join(f"    {json.dumps(n)},\n" for n in exported + ["Tools", "AsyncTools", "TOOL_NAMES"])
    head += "]\n\n"
    body = "\n\n".join(src for _, src in em.classes)
    tools_names = "TOOL_NAMES = (\n" + "".join(f"    {json.dumps(n)},\n" for n in names) + ")\n"
    tools_names = '# Every tool the generated methods cover, by its name in the toolbox.\n' + tools_names
    sync_cls = (
        "class Tools:\n"
        '    """One method per tool; each returns the tool\'s record and raises\n'
        '    ToolError when the tool answers an error."""\n\n'
        "    def _typed(self, name: str, args: Dict[str, Any], turn: Optional[str]) -> Any:\n"
        "        raise NotImplementedError\n\n" + "\n".join(sync_methods)
    )
    async_cls = (
        "class AsyncTools:\n"
        '    """The same methods as Tools, awaited."""\n\n'
        "    async def _typed(self, name: str, args: Dict[str, Any], turn: Optional[str]) -> Any:\n"
        "        raise NotImplementedError\n\n" + "\n".join(async_methods)
    )
    return head + body + "\n\n" + tools_names + "\n\n" + sync_cls + "\n\n" + async_cls


def descriptors(binary):
    """The default profile's tools and the checkpoint tools, as a fresh user in an
    empty project sees them: no INDUS_* setting, configuration or grafted server
    of this machine's. Every other profile but buddy is a part of it, and buddy's
    tools answer in its envelope (`--envelope`), so a client on buddy uses call()."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("INDUS_")}
    with tempfile.TemporaryDirectory() as scratch:
        env.update(HOME=scratch, XDG_CONFIG_HOME=scratch, XDG_STATE_HOME=scratch)
        raw = subprocess.run(
            [os.path.abspath(binary), "--no-mcp", "--checkpoint", "--profile", "all", "schema"],
            check=True,
            capture_output=True,
            cwd=scratch,
            env=env,
        ).stdout
    return json.loads(raw)


def main(argv):
    if len(argv) < 2:
        print("usage: gen_tools.py INDUS_TOOL [--check]", file=sys.stderr)
        return 2
    text = generate(descriptors(argv[1]))
    if "--check" in argv:
        have = OUT.read_text() if OUT.exists() else ""
        if have != text:
            print(
                f"{OUT} is not what `{argv[1]} --checkpoint schema` gives; "
                "run python3 python/gen_tools.py BINARY to regenerate it",
                file=sys.stderr,
            )
            return 1
        return 0
    OUT.write_text(text)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
