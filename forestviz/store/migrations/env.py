"""Alembic's environment: the connection :func:`forestviz.store.engine.migrate` hands over."""

from alembic import context

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=None)
with context.begin_transaction():
    if connection.dialect.name == "postgresql":  # replicas starting at once migrate in turn
        connection.exec_driver_sql("SELECT pg_advisory_xact_lock(2028)")
    context.run_migrations()
