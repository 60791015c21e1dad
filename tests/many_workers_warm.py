"""Imported by the many-workers test's fork server: the frameworks, warmed up once
(:func:`many_workers.warm`), so each worker forked from it starts ready."""

import many_workers

many_workers.warm()
