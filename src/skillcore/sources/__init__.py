"""Where skills live: the source type, the reader protocol and one reader per kind of storage."""
