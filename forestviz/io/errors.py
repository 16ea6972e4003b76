"""The one error an untrusted table gets: :class:`DataError`, worded for a non-programmer."""

SAVE_AS_CSV = "Save the table as 'CSV UTF-8 (comma delimited)' and upload that file."


class DataError(ValueError):
    """A problem with the user's data, worded for a non-programmer: what is wrong, what to do."""
