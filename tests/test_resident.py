"""The peak-memory measure the model-file tests use (``tests/resident.py``), against buffers
of known size."""

import numpy as np
import resident

MiB = 2**20


def test_a_touched_buffer_counts_and_a_block_that_allocates_nothing_does_not():
    with resident.peak() as touched:
        buffer = np.ones(64 * MiB // 8)  # 64 MiB, written
        del buffer
    with resident.peak() as idle:
        pass
    assert 60 * MiB <= touched.bytes <= 80 * MiB
    assert idle.bytes < 4 * MiB


def test_the_peak_is_measured_from_the_blocks_start_not_the_process_s():
    before = np.ones(96 * MiB // 8)  # resident before the block: not the block's
    with resident.peak() as found:
        small = np.ones(8 * MiB // 8)
        del small
    del before
    assert 7 * MiB <= found.bytes <= 16 * MiB
