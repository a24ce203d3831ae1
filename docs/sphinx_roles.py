"""A griffe extension (``extensions:`` in ``mkdocs.yml``) that makes the Sphinx roles of
docstrings (``:func:`name```, ``:class:`~pkg.Name```) cross-reference links of the API
reference.

A target resolves as Sphinx resolves it: its first name in the scope of the object the
docstring belongs to (the object's members, then its class's, then its module's, imports
included), else the dotted path as written. The role becomes an optional mkdocs-autorefs
reference, so a target the site does not show (a private helper, another library) stays
plain code and the strict build passes; a name that does not resolve at all is plain code
too. As in Sphinx, ``~`` shows the last name only and ``!`` never links.
"""

from __future__ import annotations

import html
import re
from typing import Any

import griffe

#: A Sphinx role as a docstring writes it: ``:func:`~pkg.name```, ``:py:class:`Name```.
ROLE = re.compile(
    r":(?:py:)?(?:func|meth|class|data|attr|mod|exc|obj|const):`(?P<mark>[~!]?)(?P<target>[\w.]+)`"
)


def resolve(target: str, scope: griffe.Object) -> str | None:
    """Returns the full dotted path of a role's target seen from ``scope``, or None."""
    target = target.lstrip(".")
    head, _, rest = target.partition(".")
    try:
        path = scope.resolve(head)
    except griffe.NameResolutionError:
        return target if rest else None  # a dotted path is a full one
    return f"{path}.{rest}" if rest else path


def rewrite(text: str, scope: griffe.Object) -> str:
    """Returns a docstring with each role as an optional cross-reference (or as code)."""

    def link(match: re.Match[str]) -> str:
        mark, target = match["mark"], match["target"]
        shown = f"`{target.rsplit('.', 1)[-1] if mark == '~' else target}`"
        path = None if mark == "!" else resolve(target, scope)
        if path is None:
            return shown
        return f'<autoref identifier="{html.escape(path)}" optional>{shown}</autoref>'

    return ROLE.sub(link, text)


class SphinxRoles(griffe.Extension):
    """Rewrites the roles of every docstring of a package once it is fully loaded."""

    def on_package(self, *, pkg: griffe.Module, loader: griffe.GriffeLoader, **_: Any) -> None:
        for obj in _objects(pkg):
            if obj.docstring is not None:
                obj.docstring.value = rewrite(obj.docstring.value, obj)


def _objects(obj: griffe.Object) -> list[griffe.Object]:
    """Returns an object and everything defined in it (imported names aside)."""
    found = [obj]
    for member in obj.members.values():
        if not member.is_alias:
            found += _objects(member)  # type: ignore[arg-type]
    return found
