"""The state of one conversation: the session's pure transitions and where sessions live while
calls run.
"""
