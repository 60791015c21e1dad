"""Reading a SKILL.md: the frontmatter rules, the fast scanner, the bounded YAML loader and the
parse cache.
"""
