"""Skills: instruction packs in folders (``SKILL.md`` and files beside it) that the agent loads
on demand. ``settings`` says where they are looked for, ``frontmatter`` reads a ``SKILL.md``'s
head, ``catalog`` finds, screens and loads them, ``listing`` writes what the system prompt and
a ``/skill-name`` command say of them. Knows nothing of tools, the loop or ACP."""
