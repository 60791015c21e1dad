"""Source backends beyond local disk: S3 (``s3://``), Git (``git://``) and archives
(``.zip``, ``.tar.gz``, ``zip://``, ``tar://``).

``skillcore.sources.open_reader`` imports these modules on first use of their protocol, so
``import skillcore`` never pulls in s3fs or pygit2. A missing optional dependency raises
:class:`skillcore.MissingDependencyError` (an ``ImportError``) naming the extra to install.
"""

from __future__ import annotations
