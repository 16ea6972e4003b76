"""How large an untrusted table may be, whatever its format (CSV or Parquet): bytes read whole,
columns, characters per value and per row. ``docs/security.md`` says why each is what it is."""

MAX_BYTES = 200 * 1024 * 1024  # largest table read whole (the upload limit)
MAX_COLUMNS = 2000
MAX_CELL_CHARS = 100_000  # longest value: pages of text, yet a preview shows it without strain
MAX_LINE_CHARS = 1_000_000  # longest row: 2,000 columns (the cap) of 500; 2,000 numbers take 40k
