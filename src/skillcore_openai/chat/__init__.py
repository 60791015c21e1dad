"""The Chat Completions / Responses adapter for custom agent loops:
:class:`~skillcore_openai.OpenAISkills` (``dispatcher``) over the tool schemas (``schemas``),
reading tool calls (``calls``), the messages that go back (``messages``), streamed messages
(``streaming``), results (``results``) and :class:`~skillcore_openai.ProfiledOpenAISkills`
(``profiles``). Import them from :mod:`skillcore_openai`; nothing here imports ``openai``."""
