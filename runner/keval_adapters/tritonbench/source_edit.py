"""Edits of a Python file by its syntax tree's statements, keeping every other line where it was."""


def blank_statements(text: str, nodes: list, replacements: dict = None) -> str:
    """text with the lines of these top-level statements (decorators included) made empty, or
    holding replacements[line number of the statement] on its first line."""
    lines = text.splitlines(True)
    for node in nodes:
        first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
        for i in range(first - 1, node.end_lineno):
            lines[i] = "\n"
        if replacements and node.lineno in replacements:
            lines[node.lineno - 1] = replacements[node.lineno] + "\n"
    return "".join(lines)
