"""Alembic's scripts for the library's schema, run by :func:`forestviz.store.engine.migrate`
(no ``alembic.ini``: the folder is named to Alembic's ``Config`` directly)."""
