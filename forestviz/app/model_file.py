"""A model file (:class:`forestviz.persistence.model_file.ModelFile`) restored onto the data set
in use: the held-out metrics and the baselines computed anew."""

from __future__ import annotations

from forestviz.app.workflow import Bundle, Progress, assemble
from forestviz.io.dataset import DataChoice, Dataset
from forestviz.persistence.archive import ModelFileError
from forestviz.persistence.model_file import ModelFile


def restore(file: ModelFile, dataset: Dataset, choice: DataChoice, progress: Progress, *,
            with_baselines: bool = True) -> Bundle:
    """The bundle of a model ``file`` on the data set in use (``choice``), the baselines fitted
    beside it unless not ``with_baselines``; ModelFileError when it was trained on other data
    or does not fit it."""
    file.check_choice(choice)
    try:
        return assemble(dataset, choice, file.settings, file.estimator, file.preprocessor,
                        file.train_rows, file.test_rows, file.fit_seconds, progress,
                        with_baselines=with_baselines)
    except (TypeError, ValueError, IndexError, AttributeError) as err:
        raise ModelFileError(f"This model file does not fit the data set in use: {err}") from err
